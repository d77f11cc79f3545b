"""Statistics count people and bots as what they are at shared tables: a match with another
person goes in the people record, a match against bots only in the bots record, and moves a
stand-in bot made for a person still count for that person's seat."""

import pytest
from django.urls import reverse

from games.core import services, turns
from games.core.turns import WaitingFor
from games.models import Match
from games.stats.models import DealSummary, MatchRecord
from games.stats.selectors import Filters, player_stats
from games.tables import services as tables
from games.web import tasks

from ..play import person_move, play_until

pytestmark = pytest.mark.django_db


def shared_match(host, guest, guest_seat, target=7):
    match = tables.do_create_table(host, rules_spec={"preset": "house", "target": target})
    tables.do_sit(match.pk, user=guest, position=guest_seat)
    tables.do_fill_with_bots(match.pk, host=host, level="easy")
    return tables.do_start_table(match.pk, host=host)


def stand_in_for(seat):
    """Play the match with a stand-in bot taking every turn of `seat` (its person is away)."""

    def person(match, position):
        return person_move(match, position)

    def stop(match):
        turn = turns.waiting_on(match.pk)
        if turn and turn.kind == WaitingFor.PERSON and turn.seat == seat:
            tasks.stand_in_turn(match.pk, turn.version, "away")
            match.refresh_from_db()
            return match.status != Match.Status.PLAYING  # the stand-in's move may end the match
        return False

    return stop, person


def test_a_match_with_another_person_counts_in_the_people_record(user, make_user):
    bob = make_user("bob")
    partners = play_until(shared_match(user, bob, "N"))  # alice and bob against two bots
    opponents = play_until(shared_match(user, bob, "W"))  # alice with a bot against bob and a bot
    solo = play_until(
        services.do_start_match(user, rules_spec={"preset": "house", "target": 7}, bot_level="easy")
    )
    assert {m.status for m in (partners, opponents, solo)} == {Match.Status.FINISHED}

    records = {r.match_id: r for r in MatchRecord.objects.filter(user=user)}
    assert records[partners.pk].opponents == "bots"
    assert records[opponents.pk].opponents == "mixed"
    assert MatchRecord.objects.get(match=opponents, user=bob).opponents == "mixed"

    stats = player_stats(user, Filters())
    company = {r.label: r.played for r in stats.by_company}
    assert company == {"With other people": 2, "Only bots": 1}
    bobs = {r.label: r.played for r in player_stats(bob, Filters()).by_company}
    assert bobs == {"With other people": 2}


def test_stand_in_moves_still_count_for_the_absent_persons_seat(user, make_user, client):
    bob = make_user("bob")
    match = shared_match(user, bob, "W")
    stop, person = stand_in_for("W")
    match = play_until(match, stop=stop, person=person)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    rows = DealSummary.objects.filter(match=match, seat="W")
    assert rows.exists() and set(rows.values_list("user", flat=True)) == {bob.pk}
    assert MatchRecord.objects.filter(match=match, user=bob).exists()
    client.force_login(bob)
    page = client.get(reverse("my_stats")).content.decode()
    assert "With other people" in page
