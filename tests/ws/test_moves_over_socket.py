"""A person's moves and next deals sent over the table's websocket, as the page sends them
(static/js/table.js): the same services and the same checks as the forms' POSTs, and the same
answers."""

import json
import re
from html import unescape

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model
from django.test import Client

from games import engine
from games.core import selectors, turns
from games.core.turns import WaitingFor
from games.engine import refusals
from games.models import Action, Match
from tests.hidden import leaks
from tests.security.test_refusals import play_position
from tests.security.twins import Position, materialize
from tests.ws.test_shared_table import connect as shared_connect
from tests.ws.test_shared_table import follow_invite, forming_table, person, start_with
from tests.ws.test_table_socket import connect, drain, start, until

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
    pytest.mark.real_services,
]


def person_to_move(match):
    """(version, the first legal move as the form's fields) when the person must move, (version,
    None) when the table waits on their "Next deal", else None."""
    turn = turns.waiting_on(match.pk)
    if turn is None or turn.kind not in (WaitingFor.PERSON, WaitingFor.NEXT_DEAL):
        return None
    if turn.kind == WaitingFor.NEXT_DEAL:
        return None if turn.automatic else (turn.version, None)
    state = selectors.deal_state(selectors.current_deal(match))
    if state.to_act != turn.seat:
        return None  # the table moved on between the two reads: its screen is on its way
    token = state.observation(turn.seat).legal_actions()[0]
    if token.startswith("discard:"):
        cards = [card for card in token[len("discard:") :].split(",") if card]
        return turn.version, {"discard": ["1"], "cards": cards, "version": [str(turn.version)]}
    return turn.version, {"action": [token], "version": [str(turn.version)]}


def moves_made(match):
    """The person's own moves: not a card a bot's claim played for their seat (games/engine/claim.py)."""
    return Action.objects.filter(deal__match=match, user__isnull=False, claimed=False).count()


async def test_a_whole_match_played_over_the_socket_shows_this_seat_only_its_own_cards():
    match, _, cookie = await start()
    me = await database_sync_to_async(lambda: match.seats.get(user__isnull=False).position)()
    socket = await connect(match, cookie)
    messages, moved, dealt = [], 0, 0
    while await database_sync_to_async(lambda: Match.objects.get(pk=match.pk).status)() != (
        Match.Status.FINISHED
    ):
        to_move = await database_sync_to_async(person_to_move)(match)
        if to_move is not None:
            version, fields = to_move
            request = {"move": fields} if fields else {"next_deal": {"version": [str(version)]}}
            await socket.send_to(text_data=json.dumps(request))
            moved, dealt = moved + bool(fields), dealt + (not fields)
            # Its screen before the table is read again: else the same move would be sent twice.
            await until_past(socket, version, seen=messages)
        else:
            messages.append(await socket.receive_from(timeout=30))  # a bot's screen
        while not await socket.receive_nothing(timeout=0.02):
            messages.append(await socket.receive_from(timeout=30))
    if "the match!" not in messages[-1]:
        await until(socket, "the match!", seen=messages)
    await socket.disconnect()
    # Every move sent was recorded, once, as the person's: none was lost or refused.
    assert await database_sync_to_async(moves_made)(match) == moved > 10
    deals = await database_sync_to_async(lambda: match.deals.count())()
    assert dealt > 0 and deals > dealt  # each "Next deal" sent dealt one; others deal by themselves
    assert not any("table-error" in html for html in messages)
    for html in messages:
        found = await database_sync_to_async(leaks)(html, match, me)
        assert not found, f"hidden cards {found} sent to {me}"
    assert "the match!" in messages[-1]


MY_TURN = r'class="table table-my-turn"'


async def my_turn(socket, match):
    """The person's move as the form's fields once the screen says it is their turn."""
    await until(socket, MY_TURN)
    version, fields = await database_sync_to_async(person_to_move)(match)
    assert fields is not None
    return version, fields


async def until_past(socket, version, seen=None):
    """The first screen past `version` (the bots may have moved on too: their screens come);
    every message received meanwhile is added to `seen`."""
    for _ in range(100):
        received = await drain(socket, 0.2)
        if seen is not None:
            seen += received
        for html in received:
            shown = re.search(r'id="table"[^>]*data-version="(\d+)"', html)
            if shown and int(shown.group(1)) > version:
                return html
    raise AssertionError(f"the screen never went past version {version}")


async def send_move(socket, message):
    await socket.send_to(text_data=message if isinstance(message, str) else json.dumps(message))


async def test_a_stale_move_is_refused_on_the_screen_and_a_repeated_one_changes_nothing():
    match, _, cookie = await start()
    socket = await connect(match, cookie)
    version, fields = await my_turn(socket, match)
    stale = dict(fields, version=[str(version - 1)])
    await send_move(socket, {"move": stale})
    refused = await until(socket, "table-error")
    assert "The table moved on" in refused and MY_TURN.strip("r'") in refused
    assert await database_sync_to_async(moves_made)(match) == 0
    await send_move(socket, {"move": fields})
    await until_past(socket, version)
    await send_move(socket, {"move": fields})  # a second click, or a message sent again
    messages = await drain(socket)
    assert await database_sync_to_async(moves_made)(match) == 1
    # Recognised as the move just made, unless the bots have moved since: then it is stale.
    refused = [html for html in messages if "table-error" in html]
    assert all("The table moved on" in html for html in refused)
    await socket.disconnect()


@pytest.mark.parametrize(
    "message",
    [
        "not json",
        "[1, 2]",
        {"move": ["QH"]},
        {"move": {"action": "QH", "version": "1"}},
        {"move": {"action": [7], "version": ["1"]}},
        {"move": {"action": ["QH"]}},
        {"move": {"version": ["1"]}},
        {"move": {"action": ["QH" * 2_000], "version": ["1"]}},
        {"move": {"action": ["not-a-move"], "version": ["VERSION"]}},
        {"move": {"action": ["QH"], "version": ["VERSION"], "cards": ["QH"], "discard": ["1"]}},
        {"move": {"action": ["pass"], "version": ["VERSION"]}, "next_deal": {"version": ["1"]}},
        {"shuffle": {"version": ["VERSION"]}},
        {"next_deal": {"version": ["VERSION"]}},  # the deal is not over
    ],
)
async def test_a_malformed_move_message_is_refused_with_a_reason_and_changes_nothing(message):
    match, _, cookie = await start()
    socket = await connect(match, cookie)
    version, _ = await my_turn(socket, match)
    text = message if isinstance(message, str) else json.dumps(message)
    # VERSION: the screen's own version, so that only the move itself is wrong.
    await send_move(socket, text.replace("VERSION", str(version)))
    refused = await until(socket, "table-error")
    assert re.search(r'table-error" role="alert">[^<]{10,}', refused)  # a reason, in words
    assert await database_sync_to_async(moves_made)(match) == 0
    assert await database_sync_to_async(lambda: Match.objects.get(pk=match.pk).version)() == version
    await socket.disconnect()


async def test_a_spectators_move_is_refused_and_shows_them_no_hand():
    alice, _, alice_cookie = await person("alice")
    bob, _, _ = await person("bob")
    carol, carol_client, carol_cookie = await person("carol")
    match = await start_with(await forming_table(alice, allow_spectators=True), alice, bob)
    await follow_invite(carol_client, match)
    watching = await shared_connect(match, carol_cookie)
    await until(watching, "Spectating")
    playing = await shared_connect(match, alice_cookie)
    version, fields = await my_turn(playing, match)  # a legal move of alice's seat, now
    await send_move(watching, {"move": fields})
    refused = await until(watching, "table-error")
    assert "You are not playing at this table." in refused and "Spectating" in refused
    assert not await database_sync_to_async(leaks)(refused, match, None)
    assert await database_sync_to_async(moves_made)(match) == 0
    await watching.disconnect()
    await playing.disconnect()


@database_sync_to_async
def at_play_position():
    """alice's match at her seat's first card of play, and her session's cookie."""
    deal, tokens = play_position()
    alice = get_user_model().objects.create_user("alice", password="a-long-password-1")
    position = Position(
        deal.rules, deal.dealer, dict(deal.dealt_hands), list(deal.stock), tokens, "S"
    )
    match = materialize(position, {"S": alice})
    client = Client()
    client.force_login(alice)
    return deal, match, [(b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())]


async def test_every_card_sent_over_the_socket_that_is_not_in_hand_is_refused_naming_no_holder():
    """The probe of docs/security.md, over the socket: 52 cards tried at one's turn."""
    deal, match, cookie = await at_play_position()
    socket = await connect(match, cookie)
    await until(socket, MY_TURN)
    seen = deal.observation("S")
    for card in sorted(set(engine.CODES) - set(deal.hand("S"))):
        await send_move(socket, {"move": {"action": [card], "version": [str(match.version)]}})
        refused = await until(socket, "table-error")
        reason = re.search(r'table-error" role="alert">([^<]*)<', refused).group(1)
        # The reason, worded from this seat's view alone (its hand, what has been played).
        assert unescape(reason) == refusals.refusal(seen, card)
        # The rest of the screen shows no hidden card (the reason names the card sent, as sent).
        rest = refused.replace(reason, "")
        assert not await database_sync_to_async(leaks)(rest, match, "S")
    assert await database_sync_to_async(lambda: Match.objects.get(pk=match.pk).version)() == (
        match.version
    )
    await socket.disconnect()
