"""What a Setback night's screens are told, found by its browser test (tests/e2e/test_events.py):
a round's end reaches every table of the round, not only the last to finish, and the forms the
event's socket sends can be posted."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games.core import events as core_events
from games.core.selectors import table_group
from games.events import services
from games.events.models import EventTable
from games.models import Match
from tests.db.play import play_until

pytestmark = pytest.mark.django_db


def _started(people, rounds=2):
    now = timezone.now()
    event = services.do_schedule_event(
        people[0],
        name="Friday night",
        preset="house",
        movement="rotation",
        rounds=rounds,
        deals_per_round=1,
        minutes_per_round=20,
        bot_level="easy",
        starts_at=now + timedelta(minutes=10),
        now=now,
    )
    for user in people:
        services.do_check_in(event.pk, user=user, now=event.starts_at)
    services.do_start_event(event.pk, now=event.starts_at)
    event.refresh_from_db()
    return event


def _tables(event, number):
    return list(EventTable.objects.filter(event=event, round=number).order_by("number"))


def test_the_next_round_is_told_to_every_table_of_the_round_not_only_the_last(
    make_user, monkeypatch, django_capture_on_commit_callbacks
):
    people = [make_user(f"p{i}") for i in range(8)]
    event = _started(people)
    first, last = _tables(event, 1)
    play_until(Match.objects.get(pk=first.match_id))
    play_until(Match.objects.get(pk=last.match_id))
    sent = []
    monkeypatch.setattr(core_events, "send", lambda group, event: sent.append((group, event)))

    with django_capture_on_commit_callbacks(execute=True):
        assert services.end_round_if_done(event.pk, 1)

    told = {
        group
        for group, message in sent
        if isinstance(message, core_events.TableChanged) and message.same_version
    }
    # The table that finished first draws its panel again: it now sends its players on.
    assert told == {table_group(first.match_id), table_group(last.match_id)}
