"""A Setback night's round ending in several processes at once (the last table's end heard by
two workers, the sweeper's tick, the time limit): one next round is made, never two. Truly
parallel calls, each on its own connection, on PostgreSQL where the row locks really wait."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games.core import hooks
from games.events import services
from games.events.models import Event, EventTable
from games.models import Match
from tests.db.play import play_round

from .concurrency import in_parallel

pytestmark = [pytest.mark.pg, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def round_played_but_not_ended(make_user):
    """An event of 8 whose first round's tables have all finished, and nobody has ended the round
    yet (the tables' own end is kept from doing it, as if its process died at the commit)."""
    people = [make_user(f"p{i}") for i in range(8)]
    now = timezone.now()
    event = services.do_schedule_event(
        people[0],
        name="Race night",
        preset="house",
        movement="winners",
        rounds=3,
        deals_per_round=1,
        minutes_per_round=20,
        bot_level="easy",
        starts_at=now + timedelta(minutes=5),
        now=now,
    )
    for person in people:
        services.do_check_in(event.pk, user=person, now=event.starts_at)
    services.do_start_event(event.pk, now=event.starts_at)
    hooks.after_match.unregister(services.after_match)
    try:
        for table in EventTable.objects.filter(event=event, round=1):
            play_round(Match.objects.get(pk=table.match_id))
    finally:
        hooks.after_match.register(services.after_match)
    event.refresh_from_db()
    assert event.round_number == 1
    return event


@pytest.mark.parametrize("attempt", range(3))
def test_processes_ending_the_same_round_make_one_next_round(round_played_but_not_ended, attempt):
    event = round_played_but_not_ended
    results = in_parallel(*[lambda: services.end_round_if_done(event.pk, 1)] * 4)
    assert sorted(results, key=str) == [False, False, False, True], results
    event.refresh_from_db()
    assert event.round_number == 2
    assert EventTable.objects.filter(event=event, round=2).count() == 2
    assert Match.objects.filter(event_table__event=event, event_table__round=2).count() == 2


def test_the_time_limit_and_the_last_tables_end_at_once_make_one_next_round(
    round_played_but_not_ended,
):
    event = round_played_but_not_ended
    late = event.round_ends_at + timedelta(seconds=1)
    results = in_parallel(
        lambda: services.end_round_if_done(event.pk, 1, now=late),
        lambda: services.do_round_time_up(event.pk, now=late),
        lambda: services.sweep_events(now=late),
    )
    assert not any(isinstance(result, Exception) for result in results), results
    event.refresh_from_db()
    assert event.round_number == 2
    assert EventTable.objects.filter(event=event).count() == 4
    assert Event.objects.get(pk=event.pk).status == "playing"
