"""Friends' and clubs' pages say nothing that depends on cards their viewer cannot see: a club
table in play and its twin (the same moment, the hidden cards dealt differently) give the same
club page (with its leaderboard and its replays list of a finished club game), club list, club
game replay, lobby, friend list, notifications (an invitation to the table among them), bell,
home page and /ws/me/ row, to a member who sits at the table and to one who does not, once the
tables' own ids are blanked out."""

import difflib
import random
import re

import pytest
from django.test import Client
from django.urls import reverse

from games.models import Match
from games.social import consumers, selectors, services
from games.social.models import ClubTable, Notification
from games.tables import services as tables
from tests.db.play import play_until

from .test_twin_deals import Blanker
from .twins import RULE_SPECS, materialize, random_position, twin_of

pytestmark = pytest.mark.django_db

POSITIONS = 12
# The invitation's own id (a new row for each twin), in its "Join" and "Mark read" forms.
NOTE_ID = re.compile(r'/notifications/\d+/open/|name="id" value="\d+"')


def pages(club, people, finished) -> dict[str, str]:
    answers = {}
    for name, user in people.items():
        client = Client()
        client.force_login(user)
        for url in (
            reverse("social:club", args=[club.pk]),
            reverse("social:clubs"),
            reverse("social:club_game", args=[club.pk, finished.pk]),
            reverse("lobby:lobby"),
            reverse("social:friends"),
            reverse("social:notifications"),
            reverse("home"),
        ):
            response = client.get(url)
            assert response.status_code == 200, url
            answers[f"{name} {url}"] = response.content.decode()
        answers[f"{name} row"] = consumers.friend_row_html(user.pk)
        answers[f"{name} bell"] = consumers.bell_html(user.pk)
    return answers


def a_finished_club_game(club, host, guest):
    """A club game played to its end, so the club page has a leaderboard and a replays list."""
    match = services.do_create_club_table(host, club_id=club.pk, rules_spec="house")
    tables.do_sit(match.pk, user=guest, position="W")
    tables.do_fill_with_bots(match.pk, host=host, level="easy")
    tables.do_start_table(match.pk, host=host)
    assert play_until(match).status == Match.Status.FINISHED
    return match


def test_club_pages_are_the_same_for_twin_deals(make_user):
    rng = random.Random(48)
    alice, bob = make_user("alice"), make_user("bob")
    club = services.do_create_club(alice, name="Twin Club")
    services.do_join_by_link(bob, token=club.invite_token)
    services.do_ask_friend(alice, name="bob")
    services.do_answer_friend(bob, name="alice", accept=True)
    for user in (alice, bob):
        services.do_come_online(user.pk)
    finished = a_finished_club_game(club, alice, bob)
    assert selectors.leaderboard(club) and selectors.recent_games(club)
    checked = 0
    while checked < POSITIONS:
        position = random_position(rng, rng.choice(RULE_SPECS))
        twin = position and twin_of(position, rng)
        if twin is None:
            continue
        matches = [materialize(m, {m.seat: alice}, shared=True) for m in (position, twin)]
        blank = Blanker(*matches)
        answers = []
        for match in matches:
            ClubTable.objects.create(club=club, match=match)
            # Alice invites bob to it, as from its forming page (the service wants it forming).
            note = services.notify(
                bob,
                Notification.Kind.TABLE_INVITE,
                f"alice invites you to table {match.pk}.",
                reverse("invite", args=[match.invite_code]),
                "Join",
                actor=alice,
            )
            answers.append(
                {
                    k: NOTE_ID.sub("NOTE", blank(v))
                    for k, v in pages(club, {"a": alice, "b": bob}, finished).items()
                }
            )
            ClubTable.objects.filter(match=match).delete()
            note.delete()
        for match in matches:
            match.delete()
        for key in answers[0]:
            assert answers[0][key] == answers[1][key], (
                key
                + "\n"
                + "\n".join(
                    difflib.unified_diff(
                        answers[0][key].splitlines(), answers[1][key].splitlines(), lineterm=""
                    )
                )
            )
        checked += 1
