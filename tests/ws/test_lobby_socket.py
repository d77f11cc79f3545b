"""The lobby and quick pairing, live: the list of open tables follows tables as they open,
fill and start; a blocked person's screen never lists the host's tables; a waiting person's
screen learns of their table."""

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from games.lobby import services as lobby
from games.tables import services as tables
from setback_site.asgi import application

from .test_shared_table import ORIGIN, person
from .test_table_socket import drain, until

# The channel layer between processes and the worker's tasks: also on the real services.
pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
    pytest.mark.real_services,
]


@database_sync_to_async
def open_table(host):
    match = tables.do_create_table(host, rules_spec="house", public=True)
    tables.do_presence(match.pk, user=host, delta=+1)  # the host has the table's page open
    return match


async def connect(path, cookie):
    socket = WebsocketCommunicator(application, path, headers=ORIGIN + cookie)
    connected, code = await socket.connect(timeout=30)
    assert connected, code
    return socket


async def test_the_list_follows_tables_opening_filling_and_starting():
    alice, _, alice_cookie = await person("alice")
    bob, _, bob_cookie = await person("bob")
    watcher = await connect("/ws/lobby/", bob_cookie)
    assert "No open tables" in await until(watcher, r'id="open-tables"')
    match = await open_table(alice)
    await until(watcher, rf'data-table="{match.pk}".*?3 free|data-table="{match.pk}"')
    await database_sync_to_async(lobby.do_take_seat)(match.pk, user=bob, side="EW")
    html = await until(watcher, r"East &amp; West</strong>:\s*<a[^>]*>bob</a>")
    assert f'data-table="{match.pk}"' in html
    await database_sync_to_async(tables.do_fill_with_bots)(match.pk, host=alice, level="easy")
    await database_sync_to_async(tables.do_start_table)(match.pk, host=alice)
    assert f'data-table="{match.pk}"' not in await until(watcher, r"No open tables")
    private = await database_sync_to_async(tables.do_create_table)(alice, rules_spec="house")
    assert not any(f'data-table="{private.pk}"' in html for html in await drain(watcher))
    await watcher.disconnect()


async def test_a_blocked_persons_screen_never_lists_the_hosts_tables():
    alice, _, _ = await person("alice")
    bob, _, bob_cookie = await person("bob")
    carol, _, carol_cookie = await person("carol")
    await database_sync_to_async(tables.do_set_personal_block)(
        alice, other_name="bob", kind="block", on=True
    )
    blocked = await connect("/ws/lobby/", bob_cookie)
    other = await connect("/ws/lobby/", carol_cookie)
    await drain(blocked)
    await drain(other)
    match = await open_table(alice)
    await until(other, rf'data-table="{match.pk}"')
    for html in await drain(blocked, 0.5):
        assert f'data-table="{match.pk}"' not in html
    await blocked.disconnect()
    await other.disconnect()


async def test_a_waiting_persons_screen_learns_of_their_table():
    alice, _, alice_cookie = await person("alice")
    bob, _, _ = await person("bob")
    spec = {"preset": "family", "cutthroat": True, "players": 2}
    await database_sync_to_async(lobby.do_find_players)(
        alice, rules_spec=spec, bot_level="easy", wait_seconds=30
    )
    waiting = await connect("/ws/pairing/", alice_cookie)
    assert 'data-status="waiting"' in await until(waiting, r'id="pairing-status"')
    ticket = await database_sync_to_async(lobby.do_find_players)(
        bob, rules_spec=spec, bot_level="easy", wait_seconds=30
    )
    html = await until(waiting, r'data-status="seated"')
    assert f"/matches/{ticket.match_id}/" in html
    await waiting.disconnect()


@pytest.mark.parametrize("path", ["/ws/lobby/", "/ws/pairing/"])
async def test_the_lobby_sockets_refuse_anonymous_visitors(path):
    socket = WebsocketCommunicator(application, path, headers=ORIGIN)
    connected, code = await socket.connect(timeout=30)
    assert not connected and code == 4401
