"""The lobby's websockets: the list of open tables, and one person's pairing request.

Events carry no HTML. A lobby change is rendered once per process and change (and per set of
hidden hosts, which is empty for nearly everyone), however many lobby screens the process serves.
"""

import asyncio

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.template.loader import render_to_string

from games import realtime as game_realtime

from . import realtime, selectors, services

UNAUTHENTICATED = 4401


class _ListingCache:
    """The open tables as of the latest change this process heard of, read once for all."""

    def __init__(self):
        self.change = None
        self.rows: asyncio.Future | None = None
        self.html: dict = {}

    async def html_for(self, change, hidden_hosts: frozenset) -> str:
        if change is not None and self.change is not None and change < self.change:
            change = self.change  # what is read for the newer change is newer still
        if change is None or change != self.change or self.rows is None:
            if change is None:  # a new screen: read afresh, do not disturb the shared copy
                rows = await database_sync_to_async(selectors.open_tables)()
                return _render(selectors.visible_tables(rows, hidden_hosts))
            self.change, self.html = change, {}
            self.rows = asyncio.ensure_future(database_sync_to_async(selectors.open_tables)())
        rows_future = self.rows
        rows = await rows_future
        if rows_future is not self.rows:  # a newer change came while reading; this one is done
            return _render(selectors.visible_tables(rows, hidden_hosts))
        if hidden_hosts not in self.html:
            self.html[hidden_hosts] = _render(selectors.visible_tables(rows, hidden_hosts))
        return self.html[hidden_hosts]


def _render(tables) -> str:
    return render_to_string("lobby/_open_tables.html", {"tables": tables})


_listing = _ListingCache()


class LobbyConsumer(AsyncWebsocketConsumer):
    async def connect(self):
        user = self.scope["user"]
        if not user.is_authenticated:
            await self.close(code=UNAUTHENTICATED)
            return
        game_realtime.remember_server_loop()
        self.hidden_hosts = await database_sync_to_async(selectors.hosts_blocking)(user)
        self.latest = None
        await self.channel_layer.group_add(realtime.LOBBY_GROUP, self.channel_name)
        await self.accept()
        await self.send(text_data=await _listing.html_for(None, self.hidden_hosts))

    async def disconnect(self, code):
        await self.channel_layer.group_discard(realtime.LOBBY_GROUP, self.channel_name)

    async def lobby_changed(self, event):
        change = event["change"]
        if self.latest is not None and change < self.latest:
            return  # an older change overtaken by a newer one: its screen would be stale
        self.latest = change
        await self.send(text_data=await _listing.html_for(change, self.hidden_hosts))


class PairingConsumer(AsyncWebsocketConsumer):
    """One person's pairing request: how many wait, and the table once they are seated."""

    async def connect(self):
        user = self.scope["user"]
        if not user.is_authenticated:
            await self.close(code=UNAUTHENTICATED)
            return
        game_realtime.remember_server_loop()
        self.user = user
        self.group = realtime.pairing_group(user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await database_sync_to_async(services.resume_overdue)(user)
        await self.pairing_changed({})

    async def disconnect(self, code):
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def pairing_changed(self, event):
        view = await database_sync_to_async(selectors.pairing_view)(self.user)
        await self.send(text_data=render_to_string("lobby/_pairing_status.html", {"view": view}))
