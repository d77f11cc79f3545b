"""A Setback night's page, live: check-ins counted as they come, every checked-in person's page
sent to their table the moment the event starts, the standings after each deal's end, the round's
end sending people on, and a club's event closed to a stranger's socket."""

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.urls import reverse
from django.utils import timezone

from games.events import services
from games.events.models import EventTable
from games.models import Match
from games.social.models import Club, Membership
from setback_site.asgi import application
from tests.db.play import play_round

from .test_shared_table import ORIGIN, person
from .test_table_socket import until

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
    pytest.mark.real_services,
]


@database_sync_to_async
def schedule(organiser, **changes):
    options = dict(
        name="Friday night",
        preset="house",
        movement="rotation",
        rounds=2,
        deals_per_round=2,
        minutes_per_round=20,
        bot_level="easy",
        starts_at=timezone.now() + timedelta(minutes=10),
    )
    options.update(changes)
    return services.do_schedule_event(organiser, **options)


async def connect(event, cookie):
    socket = WebsocketCommunicator(application, f"/ws/events/{event.pk}/", headers=ORIGIN + cookie)
    connected, code = await socket.connect(timeout=30)
    assert connected, code
    return socket


@database_sync_to_async
def play_deal(match_id: int, number: int) -> None:
    """Play the match until its deal `number` is over (people by their first legal move)."""
    play_round(
        Match.objects.get(pk=match_id),
        stop=lambda m: m.deals.filter(number=number, finished_at__isnull=False).exists(),
    )


async def test_the_start_sends_everyone_to_their_table_and_the_standings_follow_each_deal():
    alice, _, alice_cookie = await person("alice")
    bob, _, bob_cookie = await person("bob")
    event = await schedule(alice)
    alice_screen = await connect(event, alice_cookie)
    bob_screen = await connect(event, bob_cookie)
    await until(bob_screen, r"data-checked-in-count>0<")
    for who in (alice, bob):
        await database_sync_to_async(services.do_check_in)(event.pk, user=who, now=event.starts_at)
    await until(bob_screen, r"data-checked-in-count>2<")

    await database_sync_to_async(services.do_start_event)(event.pk, now=event.starts_at)
    table = await EventTable.objects.aget(event=event, round=1)
    table_url = reverse("table", args=[table.match_id])
    for screen in (alice_screen, bob_screen):  # both pages go to the table by themselves
        await until(screen, rf'data-my-table data-go-to="{table_url}"')

    await play_deal(table.match_id, 1)
    html = await until(bob_screen, r"data-standing-row=.*in play")
    assert 'data-table-playing="yes"' in html and "1 of 2 deals done" in html

    await play_deal(table.match_id, 2)  # the round's last deal: the next round is made at once
    html = await until(alice_screen, r'Round 2 of 2.*data-go-to="/matches/')
    second = await EventTable.objects.aget(event=event, round=2)
    assert f'data-go-to="{reverse("table", args=[second.match_id])}"' in html
    assert "T1" in html  # round 1's result is on the sheets
    for screen in (alice_screen, bob_screen):
        await screen.disconnect()


async def test_a_stranger_cannot_listen_to_a_clubs_event():
    owner, _, _ = await person("owner")
    _, _, stranger_cookie = await person("stranger")
    club = await Club.objects.acreate(name="Hall", invite_token="t" * 32, public=False)
    await Membership.objects.acreate(club=club, user=owner, role="owner")
    event = await schedule(owner, club_id=club.pk)
    socket = WebsocketCommunicator(
        application, f"/ws/events/{event.pk}/", headers=ORIGIN + stranger_cookie
    )
    connected, _ = await socket.connect(timeout=30)
    assert not connected
