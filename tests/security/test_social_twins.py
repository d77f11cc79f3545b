"""Friends' and clubs' pages say nothing that depends on cards their viewer cannot see: a club
table in play and its twin (the same moment, the hidden cards dealt differently) give the same
club page, friend list, notifications, home page and /ws/me/ row, to a member who sits at the
table and to one who does not, once the tables' own ids are blanked out."""

import random

import pytest
from django.test import Client
from django.urls import reverse

from games.social import consumers, services
from games.social.models import ClubTable

from .test_twin_deals import Blanker
from .twins import RULE_SPECS, materialize, random_position, twin_of

pytestmark = pytest.mark.django_db

POSITIONS = 12


def pages(club, people) -> dict[str, str]:
    answers = {}
    for name, user in people.items():
        client = Client()
        client.force_login(user)
        for url in (
            reverse("social:club", args=[club.pk]),
            reverse("social:friends"),
            reverse("social:notifications"),
            reverse("home"),
        ):
            response = client.get(url)
            assert response.status_code == 200, url
            answers[f"{name} {url}"] = response.content.decode()
        answers[f"{name} row"] = consumers.friend_row_html(user.pk)
    return answers


def test_club_pages_are_the_same_for_twin_deals(make_user):
    rng = random.Random(48)
    alice, bob = make_user("alice"), make_user("bob")
    club = services.do_create_club(alice, "Twin Club")
    services.do_join_by_link(bob, club.invite_token)
    services.do_ask_friend(alice, "bob")
    services.do_answer_friend(bob, "alice", accept=True)
    for user in (alice, bob):
        services.do_come_online(user.pk)
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
            answers.append({k: blank(v) for k, v in pages(club, {"a": alice, "b": bob}).items()})
            ClubTable.objects.filter(match=match).delete()
        for match in matches:
            match.delete()
        assert answers[0] == answers[1]
        checked += 1
