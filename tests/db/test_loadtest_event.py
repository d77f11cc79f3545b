"""The event load test (`manage.py loadtest_event`, issue 49) reads the event page as its
sockets send it: the marks it finds its way by are on the real fragments, and a deal counts as
shown over from the first fragment that says so (a later round, the finished event, or its table
finished or with that many deals done), never before. No timing here: the figures come from the
command itself."""

from datetime import timedelta

import pytest
from django.utils import timezone

from benchmarks.management.commands.loadtest_event import (
    MY_TABLE_RE,
    LiveSeen,
    first_reflecting,
    parse_live,
    played_deals,
    reflects,
)
from games.events import consumers, services
from games.events.models import EventTable
from games.models import Match
from tests.db.play import play_round

pytestmark = pytest.mark.django_db


def _first_deal_over(match: Match) -> bool:
    return match.deals.filter(finished_at__isnull=False).exclude(result__thrown_in=True).exists()


def test_the_marks_the_load_test_reads_are_on_the_real_fragments(make_user):
    people = [make_user(f"p{i}") for i in range(8)]
    now = timezone.now()
    event = services.do_schedule_event(
        people[0],
        name="Load night",
        preset="house",
        movement="rotation",
        rounds=2,
        deals_per_round=2,
        minutes_per_round=20,
        bot_level="easy",
        starts_at=now + timedelta(minutes=40),
        now=now,
    )
    for person in people:
        services.do_check_in(event.pk, user=person, now=now + timedelta(minutes=15))
    assert parse_live(consumers.render_live(event.pk)) == LiveSeen("scheduled", 0)

    services.do_start_event(event.pk, now=event.starts_at)
    first, second = EventTable.objects.filter(event=event, round=1).order_by("number")
    shown = parse_live(consumers.render_live(event.pk))
    assert shown == LiveSeen("playing", 1, {1: 0, 2: 0})
    seated = first.seats["N"]
    mine = consumers.render_mine(event.pk, next(p for p in people if p.pk == seated), True)
    assert MY_TABLE_RE.search(mine.html).group(1) == str(first.match_id)
    assert "data-go-to" in mine.html and "data-go-to" not in mine.again

    play_round(Match.objects.get(pk=first.match_id), stop=_first_deal_over)
    shown = parse_live(consumers.render_live(event.pk))
    assert shown == LiveSeen("playing", 1, {1: 1, 2: 0})
    assert reflects(shown, 1, 1, 1) and not reflects(shown, 1, 1, 2)

    play_round(Match.objects.get(pk=first.match_id))
    shown = parse_live(consumers.render_live(event.pk))
    assert shown.round == 1 and shown.finished == {1} and shown.deals_done[2] == 0
    assert reflects(shown, 1, 1, 2) and not reflects(shown, 1, 2, 1)

    play_round(Match.objects.get(pk=second.match_id))  # the round's last table
    services.end_round_if_done(event.pk, 1)  # (after its commit, on the site)
    shown = parse_live(consumers.render_live(event.pk))
    assert (shown.status, shown.round) == ("playing", 2)
    assert reflects(shown, 1, 2, 1) and not reflects(shown, 2, 1, 1)


def test_a_deal_is_shown_over_from_the_first_fragment_that_says_so():
    playing = LiveSeen("playing", 2, {1: 1, 2: 0, 3: 2}, frozenset({3}))
    assert reflects(playing, 2, 1, 1)  # one deal done at table 1
    assert not reflects(playing, 2, 1, 2)  # its second is not
    assert reflects(playing, 2, 3, 3)  # table 3 is over: every deal of it
    assert not reflects(playing, 2, 2, 1)
    assert reflects(playing, 1, 2, 5)  # an earlier round is over
    assert not reflects(LiveSeen("playing", 1), 2, 1, 1)  # a later round not yet
    assert reflects(LiveSeen("finished", 2), 2, 4, 3)

    seen = [
        (10.0, LiveSeen("playing", 1, {1: 0, 2: 0})),
        (11.5, LiveSeen("playing", 1, {1: 1, 2: 0}, frozenset({1}))),
        (13.0, LiveSeen("playing", 2, {1: 0, 2: 0})),
    ]
    assert first_reflecting(seen, 1, 1, 1) == 11.5
    assert first_reflecting(seen, 1, 2, 1) == 13.0  # told only by the next round
    assert first_reflecting(seen, 2, 1, 1) is None


def test_a_deal_thrown_in_is_not_counted_and_the_next_one_takes_its_place():
    rows = [
        (7, 1, 100.0, {"thrown_in": True}),  # everyone passed: dealt again
        (7, 2, 130.0, {"thrown_in": False}),
        (8, 1, 120.0, {"thrown_in": False}),
        (7, 3, 160.0, None),
    ]
    assert played_deals(rows) == [(7, 1, 130.0), (7, 2, 160.0), (8, 1, 120.0)]
