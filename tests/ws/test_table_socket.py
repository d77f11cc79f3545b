"""The live table over websockets: each seat gets its own view, and only its own."""

import asyncio
import re
import threading

import pytest
from channels.db import database_sync_to_async
from channels.testing import HttpCommunicator, WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.test import Client

from games.core import dispatch, selectors, services, turns
from games.core.turns import WaitingFor
from games.engine import bots
from games.models import Match
from setback_site.asgi import application
from tests.db.play import opened_by
from tests.hidden import TABLE_MOMENT, leaks

ORIGIN = [(b"origin", b"http://127.0.0.1")]
# The channel layer between processes and the worker's tasks: also on the real services.
pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
    pytest.mark.real_services,
]


@database_sync_to_async
def start(rules="house", username="alice", rng=services.UNPREDICTABLE):
    user = get_user_model().objects.create_user(username, password="a-long-password-1")
    match = services.do_start_match(user, rules_spec=rules, bot_level="easy", rng=rng)
    client = Client()
    client.force_login(user)
    cookie = [(b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())]
    return match, client, cookie


async def connect(match, cookie):
    socket = WebsocketCommunicator(application, f"/ws/table/{match.pk}/", headers=ORIGIN + cookie)
    connected, _ = await socket.connect(timeout=30)
    assert connected
    return socket


async def drain(socket, quiet=0.3):
    """Everything the socket receives until it has been quiet for `quiet` seconds."""
    messages = []
    while not await socket.receive_nothing(timeout=quiet):
        messages.append(await socket.receive_from(timeout=30))
    return messages


async def until(socket, pattern, attempts=100, seen=None):
    """The first message matching `pattern` (a loaded machine may be slow to send it); every
    message received meanwhile is added to `seen`."""
    for _ in range(attempts):
        received = await drain(socket, 0.2)
        if seen is not None:
            seen += received  # those after the match too: they are gone from the socket
        for html in received:
            if re.search(pattern, html, re.S):
                return html
    raise AssertionError(f"never received {pattern!r}")


def moment(html):
    deal, step = TABLE_MOMENT.search(html).groups()
    return int(deal), int(step)


async def test_the_table_arrives_on_connect_and_reconnecting_shows_the_same_state():
    match, client, cookie = await start()
    first = await connect(match, cookie)
    html = await first.receive_from(timeout=10)
    assert 'id="table"' in html
    await first.disconnect()
    again = await connect(match, cookie)
    # Bots may have moved in between: compare with what the page itself shows now.
    html_again = await again.receive_from(timeout=10)
    page = await database_sync_to_async(
        lambda: client.get(f"/matches/{match.pk}/").content.decode()
    )()
    assert moment(html_again) <= moment(page)
    await again.disconnect()


def person_turn_move(client, match):
    """If the person must act, act (the first legal move) over HTTP; returns the response HTML."""
    match.refresh_from_db()
    turn = turns.waiting_on(match.pk)
    if turn is None:
        return None
    if turn.kind == WaitingFor.PERSON:
        state = selectors.deal_state(selectors.current_deal(match))
        token = state.observation(turn.seat).legal_actions()[0]
        if token.startswith("discard:"):
            response = client.post(
                f"/matches/{match.pk}/act/",
                {
                    "discard": "1",
                    "cards": [c for c in token[8:].split(",") if c],
                    "version": turn.version,
                },
                HTTP_HX_REQUEST="true",
            )
        else:
            response = client.post(
                f"/matches/{match.pk}/act/",
                {"action": token, "version": turn.version},
                HTTP_HX_REQUEST="true",
            )
        return response.content.decode()
    if turn.kind == WaitingFor.NEXT_DEAL and not turn.automatic:
        response = client.post(
            f"/matches/{match.pk}/next/", {"version": turn.version}, HTTP_HX_REQUEST="true"
        )
        return response.content.decode()
    return None


@pytest.mark.slow
@pytest.mark.parametrize(
    "rules",
    [
        "house",
        {"preset": "auction", "players": 3, "draw": True},
        {"preset": "classic", "six_players": True},
    ],
)
async def test_whole_matches_never_show_a_seat_another_seats_cards(rules):
    match, client, cookie = await start(rules)
    me = await database_sync_to_async(lambda: match.seats.get(user__isnull=False).position)()
    socket = await connect(match, cookie)
    pages, messages = [], []
    while await database_sync_to_async(lambda: Match.objects.get(pk=match.pk).status)() != (
        Match.Status.FINISHED
    ):
        page = await database_sync_to_async(person_turn_move)(client, match)
        if page:  # a move or a next deal answers with no content (204): its screen comes by socket
            pages.append(page)
        else:  # a bot's turn or a deal dealt by itself: its screen is what comes next
            messages.append(await socket.receive_from(timeout=30))
        # A timed-out receive would cancel the consumer: ask whether anything more came first.
        while not await socket.receive_nothing(timeout=0.02):
            messages.append(await socket.receive_from(timeout=30))
    if not messages or "the match!" not in messages[-1]:  # the last screen is on its way
        await until(socket, "the match!", seen=messages)
    messages += await drain(socket, quiet=1)  # nothing comes after it
    await socket.disconnect()
    assert len(messages) > 50
    for html in pages + messages:
        found = await database_sync_to_async(leaks)(html, match, me)
        assert not found, f"hidden cards {found} sent to {me}"
    assert "the match!" in messages[-1]


@pytest.mark.skipif(dispatch.uses_workers(), reason="in-process tasks only run without a broker")
async def test_a_page_still_loads_while_an_in_process_bot_task_is_thinking(
    searches_in_this_process, monkeypatch
):
    """Without a broker, bot tasks run in the web process: never on its event loop."""

    thinking, release = threading.Event(), threading.Event()
    real_choose = bots.choose

    def slow_choose(*args, **kwargs):
        thinking.set()
        release.wait(timeout=30)
        return real_choose(*args, **kwargs)

    monkeypatch.setattr(bots, "choose", slow_choose)
    # A match where a bot opens the bidding, so its task starts at once.
    match, client, cookie = await start(username="p1", rng=opened_by("W"))
    assert await asyncio.to_thread(thinking.wait, 10), "the bot task did not start"
    home = HttpCommunicator(application, "GET", "/", headers=cookie + [(b"host", b"127.0.0.1")])
    response = await home.get_response(timeout=15)  # the bot is held for 30 s
    assert response["status"] == 200
    assert b"Hello, p" in response["body"]
    still = await database_sync_to_async(lambda: Match.objects.get(pk=match.pk).version)()
    assert still == 0  # the bot had not moved yet: the page did not wait for it
    release.set()
    for _ in range(300):
        await asyncio.sleep(0.05)
        if await database_sync_to_async(lambda: Match.objects.get(pk=match.pk).version)() > 0:
            break
    else:
        raise AssertionError("the bot never moved")
