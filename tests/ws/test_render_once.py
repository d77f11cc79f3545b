"""Each screen is rendered once per version: an event for the version already on screen sends
nothing, unless it says the screen changed without a new version (chat, presence, settings)."""

import re

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from games.core import selectors, turns
from games.core.events import TableChanged
from games.core.turns import WaitingFor

from .test_table_socket import connect, drain, start

# The channel layer between processes and the worker's tasks: also on the real services.
pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
    pytest.mark.real_services,
]

VERSION = re.compile(r'id="table"[^>]*data-version="(\d+)"')


async def settled(match, socket):
    """The version on screen once the bots have stopped: the person (or a click) is awaited."""
    seen = []
    for _ in range(100):
        seen += await drain(socket, 0.2)
        turn = await database_sync_to_async(turns.waiting_on)(match.pk)
        if turn.kind == WaitingFor.PERSON or (
            turn.kind == WaitingFor.NEXT_DEAL and not turn.automatic
        ):
            seen += await drain(socket, 0.3)
            versions = [int(VERSION.search(html).group(1)) for html in seen if VERSION.search(html)]
            assert versions[-1] == turn.version
            return turn.version
    raise AssertionError("the bots never stopped")


async def test_an_event_for_the_version_on_screen_renders_nothing_but_a_same_version_change_does():
    match, client, cookie = await start()
    socket = await connect(match, cookie)
    version = await settled(match, socket)
    layer = get_channel_layer()
    group = selectors.table_group(match.pk)

    await layer.group_send(group, TableChanged(version=version).message())
    await layer.group_send(group, TableChanged(version=version - 1).message())
    assert await socket.receive_nothing(timeout=0.5)  # already on screen, or older: no render

    await layer.group_send(group, TableChanged(version=version, same_version=True).message())
    html = await socket.receive_from(timeout=10)
    assert int(VERSION.search(html).group(1)) == version
    assert await socket.receive_nothing(timeout=0.3)
    await socket.disconnect()
