"""What a Setback night's screens are told, found by its browser test (tests/e2e/test_events.py):
a round's end reaches every table of the round, not only the last to finish, and the forms the
event's socket sends can be posted."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games.core import events as core_events
from games.core.selectors import table_group
from games.events import consumers, services
from games.events.models import EventTable
from games.models import Match
from tests.db.play import play_round

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
    play_round(Match.objects.get(pk=first.match_id))
    play_round(Match.objects.get(pk=last.match_id))
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


def test_the_forms_the_event_socket_sends_post_through_htmx(make_user, client):
    people = [make_user(f"p{i}") for i in range(4)]
    event = _started(people, rounds=2)
    stranger = make_user("stranger")
    for viewer in (people[0], stranger):  # the leave form, the check-in form
        html = consumers.render_mine(event.pk, viewer, moved=False).html
        forms = re.findall(r"<form[^>]*>", html)
        assert forms and all("hx-post=" in form for form in forms), forms
        assert "csrfmiddlewaretoken" not in html  # rendered without a request: no CSRF field

    # Through htmx the page loads again whole; without it, a redirect as ever.
    client.force_login(stranger)
    answer = client.post(reverse("events:check_in", args=[event.pk]), HTTP_HX_REQUEST="true")
    assert answer["HX-Redirect"] == reverse("events:event", args=[event.pk])
    answer = client.post(reverse("events:leave", args=[event.pk]))
    assert answer.status_code == 302
    # A refusal through htmx is said on the event's page.
    answer = client.post(reverse("events:leave", args=[event.pk]), HTTP_HX_REQUEST="true")
    assert answer["HX-Redirect"] == reverse("events:event", args=[event.pk])
    page = client.get(reverse("events:event", args=[event.pk]))
    assert "You are not checked in to this event." in page.content.decode()


def test_an_event_tables_way_out_is_leaving_the_event(make_user, client):
    people = [make_user(f"p{i}") for i in range(4)]
    event = _started(people)
    (table,) = _tables(event, 1)
    client.force_login(people[1])
    page = client.get(reverse("table", args=[table.match_id])).content.decode()
    # Not "Leave table", which would leave the event's later rounds waiting for them.
    assert "data-leave>" not in page and "Leave table" not in page
    leave = reverse("events:leave", args=[event.pk])
    assert re.search(rf'<form[^>]*hx-post="{leave}"[^>]*>.*?data-leave-event', page, re.S)

    answer = client.post(leave, HTTP_HX_REQUEST="true")
    assert answer["HX-Redirect"] == reverse("events:event", args=[event.pk])
    assert event.entries.get(user=people[1]).left_at is not None
    page = client.get(reverse("table", args=[table.match_id])).content.decode()
    assert "data-leave-event" not in page  # gone, and the stand-in plays the seat
