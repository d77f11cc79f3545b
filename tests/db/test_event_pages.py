"""A Setback night's pages, as a person meets them: scheduling, checking in, the way to one's
table, the panel beside the cards that sends them on to the next round, the final sheet with its
face-up replays, the player page, History and "Download my data"."""

import io
import json
import re
import zipfile
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.export import data_zip
from games.events import services
from games.events.models import Event, EventTable
from games.models import Match
from games.social.models import Club, Membership
from tests.db.play import play_round

pytestmark = pytest.mark.django_db


def _log_in(client, user, password):
    client.logout()
    assert client.login(username=user.username, password=password)
    return client


def _event(organiser, **changes) -> Event:
    now = timezone.now()
    options = dict(
        name="Friday night",
        preset="house",
        movement="rotation",
        rounds=2,
        deals_per_round=1,
        minutes_per_round=20,
        bot_level="easy",
        starts_at=now + timedelta(minutes=10),
    )
    options.update(changes)
    return services.do_schedule_event(organiser, **options)


def test_scheduling_checking_in_and_the_way_to_ones_table(client, make_user, password):
    alice, bob = make_user("alice"), make_user("bob")
    _log_in(client, alice, password)
    assert "Schedule an event" in client.get(reverse("events:events")).content.decode()
    start = (timezone.now() + timedelta(minutes=10)).strftime("%Y-%m-%dT%H:%M")
    answer = client.post(
        reverse("events:new"),
        {
            "name": "  Friday   night ",
            "starts_at": start,
            "preset": "house",
            "movement": "winners",
            "rounds": "3",
            "deals_per_round": "2",
            "minutes_per_round": "15",
            "bot_level": "easy",
        },
    )
    event = Event.objects.get()
    assert answer.status_code == 302 and answer["Location"] == reverse(
        "events:event", args=[event.pk]
    )
    assert (event.name, event.movement, event.rounds) == ("Friday night", "winners", 3)
    refused = client.post(reverse("events:new"), {"name": "x", "starts_at": "tomorrow"})
    assert refused.status_code == 400 and "date and a time" in refused.content.decode()

    page = client.get(reverse("events:event", args=[event.pk])).content.decode()
    assert "data-check-in" in page and "Friday night" in page
    client.post(reverse("events:check_in", args=[event.pk]))
    _log_in(client, bob, password)
    client.post(reverse("events:check_in", args=[event.pk]))
    page = client.get(reverse("events:event", args=[event.pk])).content.decode()
    assert "You are checked in" in page and "data-checked-in-count>2<" in page

    services.do_start_event(event.pk, now=event.starts_at)
    table = EventTable.objects.get(event=event)
    page = client.get(reverse("events:event", args=[event.pk])).content.decode()
    table_url = reverse("table", args=[table.match_id])
    assert f'href="{table_url}" data-my-table' in page
    assert "data-go-to" not in page  # a page opened by hand is not sent away; the socket does that
    assert 'data-table-playing="yes"' in page


def test_the_panel_beside_the_cards_sends_players_to_their_next_table(client, make_user, password):
    people = [make_user(f"p{i}") for i in range(4)]
    event = _event(people[0])
    for person in people:
        services.do_check_in(event.pk, user=person, now=event.starts_at)
    services.do_start_event(event.pk, now=event.starts_at)
    first = EventTable.objects.get(event=event, round=1)
    _log_in(client, people[0], password)
    page = client.get(reverse("table", args=[first.match_id])).content.decode()
    assert 'id="event-panel"' in page and "round 1 of 2, table 1" in page
    assert "data-next-table" not in page

    play_round(Match.objects.get(pk=first.match_id))
    services.end_round_if_done(event.pk, 1)
    second = EventTable.objects.get(event=event, round=2)
    page = client.get(reverse("table", args=[first.match_id])).content.decode()
    next_url = reverse("table", args=[second.match_id])
    assert f'data-next-table data-go-to="{next_url}"' in page
    before = Match.objects.count()
    client.post(reverse("rematch", args=[first.match_id]))
    assert Match.objects.count() == before  # a round is not played again outside the event

    play_round(Match.objects.get(pk=second.match_id))
    services.end_round_if_done(event.pk, 2)
    event.refresh_from_db()
    assert event.status == "finished"

    # The final sheet: every round's result, and a face-up replay of each table.
    page = client.get(reverse("events:event", args=[event.pk])).content.decode()
    assert "Final standings" in page and page.count("data-standing-row=") == 4
    replay_url = reverse("events:game", args=[event.pk, first.match_id])
    assert replay_url in page
    assert client.get(replay_url).status_code == 200
    client.logout()
    assert client.get(replay_url).status_code == 200  # a public event: anyone may replay

    # The player page, History and the data download know the event.
    _log_in(client, people[1], password)
    player_page = client.get(reverse("player", args=["p1"])).content.decode()
    assert "Setback nights" in player_page and "Friday night" in player_page
    history = client.get(reverse("replay:history")).content.decode()
    assert "Friday night · round 1, table 1" in history
    [entered] = json.loads(zipfile.ZipFile(io.BytesIO(data_zip(people[1]))).read("events.json"))
    assert entered["event"] == "Friday night" and entered["place"] >= 1
    assert len(entered["rounds"]) == 2


def test_a_clubs_event_is_hidden_from_strangers(client, make_user, password):
    owner, stranger = make_user("owner"), make_user("stranger")
    club = Club.objects.create(name="Hall", invite_token="t" * 32, public=False)
    Membership.objects.create(club=club, user=owner, role="owner")
    event = _event(owner, club_id=club.pk)
    services.do_check_in(event.pk, user=owner, now=event.starts_at)
    services.do_start_event(event.pk, now=event.starts_at)
    match_id = EventTable.objects.get(event=event).match_id
    play_round(Match.objects.get(pk=match_id))
    services.end_round_if_done(event.pk, 1)

    _log_in(client, stranger, password)
    assert client.get(reverse("events:event", args=[event.pk])).status_code == 404
    assert client.post(reverse("events:check_in", args=[event.pk])).status_code == 404
    assert client.get(reverse("events:game", args=[event.pk, match_id])).status_code == 404
    assert "Friday night" not in client.get(reverse("events:events")).content.decode()


def test_the_organiser_cancels_and_nobody_else_can(client, make_user, password):
    alice, bob = make_user("alice"), make_user("bob")
    event = _event(alice)
    _log_in(client, bob, password)
    assert client.post(reverse("events:cancel", args=[event.pk])).status_code == 403
    _log_in(client, alice, password)
    client.post(reverse("events:cancel", args=[event.pk]))
    event.refresh_from_db()
    assert event.status == "cancelled"
    page = client.get(reverse("events:event", args=[event.pk])).content.decode()
    assert re.search(r"This event was cancelled", page)
