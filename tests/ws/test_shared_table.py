"""A table shared by people, live: each seat its own hand, presence, the forming page, chat,
spectators, and the stand-in bot after a player closes the tab."""

import asyncio
import re
from datetime import timedelta

import pytest
from autobahn.exception import Disconnected
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from games.core import dispatch, turns
from games.core.turns import WaitingFor
from games.models import Action, Match
from games.tables import services as tables
from games.web import tasks
from setback_site.asgi import application
from tests.db.play import play_until
from tests.hidden import leaks

from .test_table_socket import drain, until

ORIGIN = [(b"origin", b"http://127.0.0.1")]
# The channel layer between processes and the worker's tasks: also on the real services.
pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
    pytest.mark.real_services,
]


@database_sync_to_async
def person(username):
    user = get_user_model().objects.create_user(username, password="a-long-password-1")
    client = Client()
    client.force_login(user)
    cookie = [(b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())]
    return user, client, cookie


@database_sync_to_async
def forming_table(host, **options):
    return tables.do_create_table(host, rules_spec="house", **options)


@database_sync_to_async
def start_with(match, host, guest, position="W"):
    tables.do_sit(match.pk, user=guest, position=position)
    tables.do_fill_with_bots(match.pk, host=host, level="easy")
    return tables.do_start_table(match.pk, host=host)


@database_sync_to_async
def follow_invite(client, match):
    """The person opens the table's invite link: their session now knows the table."""
    assert client.get(f"/t/{match.invite_code}/").status_code == 302


async def connect(match, cookie):
    socket = WebsocketCommunicator(application, f"/ws/table/{match.pk}/", headers=ORIGIN + cookie)
    connected, code = await socket.connect(timeout=30)
    return socket if connected else code


async def test_two_people_each_get_their_own_hand_and_see_each_others_presence():
    alice, _, alice_cookie = await person("alice")
    bob, _, bob_cookie = await person("bob")
    match = await start_with(await forming_table(alice), alice, bob)
    a = await connect(match, alice_cookie)
    b = await connect(match, bob_cookie)
    # Alice's screen learns that bob arrived.
    seen_a, seen_b = [], []
    await until(a, r'data-seat="W".*?presence-on', seen=seen_a)
    await until(b, r'id="table"', seen=seen_b)
    seen_a += await drain(a)
    seen_b += await drain(b)
    for html in seen_a:
        assert not await database_sync_to_async(leaks)(html, match, "S")
    for html in seen_b:
        assert not await database_sync_to_async(leaks)(html, match, "W")
    await b.disconnect()
    html = await until(a, r'data-seat="W"[^>]*>.*?presence-off')
    assert "away" in html
    await a.disconnect()
    seat = await database_sync_to_async(lambda: match.seats.get(position="W"))()
    assert seat.connections == 0


async def test_the_forming_table_updates_live_when_someone_sits_down():
    alice, _, alice_cookie = await person("alice")
    bob, bob_client, bob_cookie = await person("bob")
    match = await forming_table(alice)
    a = await connect(match, alice_cookie)
    await follow_invite(bob_client, match)
    b = await connect(match, bob_cookie)  # not seated yet: looking for a seat
    await drain(a)
    await until(b, "Choose a free seat")
    await database_sync_to_async(bob_client.post)(f"/matches/{match.pk}/sit/", {"position": "E"})
    html = await until(a, r"bob")
    assert 'data-seat="E"' in html
    # Bob's own open tab now counts as his presence at the seat.
    seat = await database_sync_to_async(lambda: match.seats.get(position="E"))()
    for _ in range(20):
        if seat.connections:
            break
        await drain(b, 0.1)
        seat = await database_sync_to_async(lambda: match.seats.get(position="E"))()
    assert seat.connections == 1
    # The host starts: every screen gets the game.
    await database_sync_to_async(tables.do_fill_with_bots)(match.pk, host=alice, level="easy")
    await database_sync_to_async(tables.do_start_table)(match.pk, host=alice)
    await until(b, r'id="table"[^>]*data-deal="1"')
    await a.disconnect()
    await b.disconnect()


async def test_spectators_only_when_allowed_and_never_a_hand():
    alice, _, _ = await person("alice")
    bob, _, _ = await person("bob")
    carol, carol_client, carol_cookie = await person("carol")
    match = await start_with(await forming_table(alice), alice, bob)
    assert await connect(match, carol_cookie) == 4403
    await database_sync_to_async(Match.objects.filter(pk=match.pk).update)(allow_spectators=True)
    assert await connect(match, carol_cookie) == 4403  # spectators come through the invite
    await follow_invite(carol_client, match)
    c = await connect(match, carol_cookie)
    messages = []
    spectating = await until(c, "Spectating", seen=messages)
    assert "data-card" not in spectating
    messages += await drain(c)
    for html in messages:
        assert not await database_sync_to_async(leaks)(html, match, None)
    await c.disconnect()


async def test_a_chat_line_reaches_every_screen_escaped():
    alice, _, alice_cookie = await person("alice")
    bob, bob_client, _ = await person("bob")
    match = await start_with(await forming_table(alice), alice, bob)
    a = await connect(match, alice_cookie)
    await drain(a)
    await database_sync_to_async(bob_client.post)(
        f"/matches/{match.pk}/chat/", {"text": "hi <i>there</i>"}
    )
    html = await until(a, r'id="chat-log"')
    assert "hi &lt;i&gt;there&lt;/i&gt;" in html
    await a.disconnect()


async def test_closing_the_tab_on_ones_turn_lets_a_stand_in_bot_play_it():
    # The real grace (turns.AWAY_GRACE_SECONDS, 10 s): on CI's second pass the stand-in's task
    # runs in a Celery worker, another process, which a shortened grace here would not reach.
    alice, _, alice_cookie = await person("alice")
    bob, _, bob_cookie = await person("bob")
    match = await forming_table(alice, turn_timeout_seconds=600)
    match = await start_with(match, alice, bob)

    @database_sync_to_async
    def waiting():
        return turns.waiting_on(match.pk)

    # Alice stays connected, so no stand-in races the moves this test makes for her.
    a = await connect(match, alice_cookie)
    await drain(a)
    b = await connect(match, bob_cookie)
    await drain(b)
    # Bots (and alice's turns, played here) until it is bob's turn.

    await database_sync_to_async(play_until)(
        match,
        stop=lambda m: (t := turns.waiting_on(m.pk)).kind == WaitingFor.PERSON and t.seat == "W",
    )
    turn = await waiting()
    # Connected: a stand-in's task for his turn, whenever it ran, would leave it to him.
    assert await database_sync_to_async(tasks.stand_in_turn)(match.pk, turn.version, "away") == (
        "stale"
    )
    assert (await waiting()).version == turn.version
    await b.disconnect()
    for _ in range(400):  # the stand-in comes after the grace; a loaded machine is slower
        await asyncio.sleep(0.1)
        if (await waiting()).version != turn.version:
            break
    stand_in = await database_sync_to_async(
        lambda: Action.objects.filter(deal__match=match, seat="W").order_by("-id").first()
    )()
    assert (
        stand_in is not None
        and stand_in.user_id is None
        and stand_in.bot_level == tables.STAND_IN_LEVEL
    )
    await a.disconnect()


async def test_a_reload_late_in_a_turn_keeps_the_turn_and_its_clock(monkeypatch):
    # Issue 44: a reload 15 s into a shared turn handed it to the stand-in at once (the turn
    # was resumed before the returning socket was counted present).
    alice, _, alice_cookie = await person("alice")
    bob, _, bob_cookie = await person("bob")
    match = await start_with(await forming_table(alice, turn_timeout_seconds=30), alice, bob)
    a = await connect(match, alice_cookie)
    await drain(a)

    def to_bobs_turn():
        play_until(
            match,
            stop=lambda m: (
                (t := turns.waiting_on(m.pk)).kind == WaitingFor.PERSON and t.seat == "W"
            ),
        )
        return turns.waiting_on(match.pk)

    turn = await database_sync_to_async(to_bobs_turn)()
    b = await connect(match, bob_cookie)
    await drain(b)
    # 15 s into his turn he reloads: the socket closes, and the page's socket comes back.
    await database_sync_to_async(Match.objects.filter(pk=match.pk).update)(
        updated_at=timezone.now() - timedelta(seconds=15)
    )
    await b.disconnect()  # its close starts the away timer, which finds him back (below)
    stand_ins = []
    enqueue = dispatch.enqueue

    def recording(task, *args, countdown=0, **kwargs):
        if task is tasks.stand_in_turn:
            stand_ins.append(countdown)
        return enqueue(task, *args, countdown=countdown, **kwargs)

    monkeypatch.setattr(dispatch, "enqueue", recording)
    b = await connect(match, bob_cookie)  # the socket resumes the table's turn as it opens
    back = await until(b, f'data-version="{turn.version}"')
    clock = re.search(r'class="me[^"]*".*?data-turn-left="(\d+)"', back, re.S)
    assert clock and 13 <= int(clock.group(1)) <= 15  # what he had, not 30 and not 0
    # The reconnect woke no stand-in before his time is up, and an away timer finds him present.
    assert all(countdown >= 13 for countdown in stand_ins), stand_ins
    assert not await database_sync_to_async(tables.stand_in_due)(match.pk, turn.version, "away")
    assert (await database_sync_to_async(turns.waiting_on)(match.pk)).version == turn.version
    await b.disconnect()
    await a.disconnect()


async def test_switching_the_coach_at_a_forming_table_keeps_its_socket():
    # Nothing is dealt yet, so there is no panel to redraw; the socket must not fall over trying.
    alice, alice_client, alice_cookie = await person("alice")
    match = await forming_table(alice)
    socket = await connect(match, alice_cookie)
    await drain(socket)
    await database_sync_to_async(alice_client.post)(
        "/accounts/coach/", {"enabled": "on", "match": match.pk}, HTTP_HX_REQUEST="true"
    )
    # No panel is sent, and the socket stays open (a close fails `drain`). Her arrival, pushed
    # to every screen after the first, may still come on a busy machine: a forming screen.
    pushed = await drain(socket, quiet=1)
    assert not any("coach-panel" in message for message in pushed)
    await database_sync_to_async(alice_client.post)(f"/matches/{match.pk}/chat/", {"text": "hi"})
    assert "hi" in await until(socket, r"chat-line|hi")
    await socket.disconnect()


class ClosingPage(asyncio.Queue):
    """The page's end of a socket: once the person closes the tab, a send fails as Daphne's does
    while the close is on its way (the disconnect reaches the consumer after it)."""

    closed = False
    refused = 0

    async def put(self, message):
        if self.closed and message["type"] == "websocket.send":
            self.refused += 1
            raise Disconnected("Attempt to send on a closed protocol")
        await super().put(message)


async def test_a_change_sent_as_the_person_closes_the_tab_still_leaves_their_seat_away():
    alice, _, _ = await person("alice")
    bob, _, bob_cookie = await person("bob")
    match = await start_with(await forming_table(alice), alice, bob)
    socket = WebsocketCommunicator(
        application, f"/ws/table/{match.pk}/", headers=ORIGIN + bob_cookie
    )
    page = socket._output_queue = ClosingPage()
    connected, _ = await socket.connect(timeout=30)
    assert connected
    await until(socket, r'id="table"')
    page.closed = True
    await database_sync_to_async(tables.do_chat)(
        match.pk, user=alice, text="hello"
    )  # a change for bob
    for _ in range(100):
        if page.refused:
            break
        await asyncio.sleep(0.1)  # the consumer renders it on a thread: nothing to await here
    assert page.refused
    await socket.send_input({"type": "websocket.disconnect", "code": 1001})
    await socket.wait(timeout=10)  # the consumer ends as for any closed tab, without an error
    seat = await database_sync_to_async(lambda: match.seats.get(position="W"))()
    assert seat.connections == 0  # away: a stand-in plays his turns after the grace
