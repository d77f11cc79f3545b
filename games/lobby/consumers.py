"""The lobby's websockets: the list of open tables, and one person's pairing request.

Events carry no HTML. A lobby change is rendered once per process and change (and per set of
hidden hosts, which is empty for nearly everyone), however many lobby screens the process serves.
"""

import asyncio
import logging

from channels.db import database_sync_to_async
from django.template.loader import render_to_string

from games.core import page_consumer
from games.core import realtime as game_realtime

from . import realtime, selectors, services

UNAUTHENTICATED = 4401
log = logging.getLogger(__name__)


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


class _Relay:
    """One member of the lobby group per process, fanning each change out to the process's own
    lobby screens. A group of 500 screens would cost 500 messages through the channel layer per
    change; this costs one per process."""

    def __init__(self):
        self.viewers: set = set()
        self.task: asyncio.Task | None = None
        self.latest = None

    async def join(self, viewer, channel_layer) -> None:
        self.viewers.add(viewer)
        loop = asyncio.get_running_loop()
        if self.task is None or self.task.done() or self.task.get_loop() is not loop:
            # The layer's own prefix: channels_redis reads every channel of a process from one key.
            self.channel = await channel_layer.new_channel()
            self.task = asyncio.ensure_future(self._listen(channel_layer))
        # Re-joining refreshes the group's expiry on the layer.
        await channel_layer.group_add(realtime.LOBBY_GROUP, self.channel)

    def leave(self, viewer) -> None:
        self.viewers.discard(viewer)

    async def _listen(self, channel_layer) -> None:
        while True:
            try:
                event = await channel_layer.receive(self.channel)
            except asyncio.CancelledError:
                raise
            except Exception:  # the layer's connection broke: the screens must not go deaf for good
                log.exception("the lobby relay could not read from the channel layer")
                await asyncio.sleep(1)
                continue
            if event.get("type") != realtime.LobbyChanged.type:
                continue
            change = realtime.LobbyChanged.read(event).change
            if self.latest is not None and change < self.latest:
                continue  # an older change overtaken by a newer one: its screen would be stale
            self.latest = change
            viewers = list(self.viewers)
            await asyncio.gather(
                *(viewer.show(change) for viewer in viewers), return_exceptions=True
            )


_relay = _Relay()


async def _logged_in(consumer) -> bool:
    """Refuse a socket without a login; else note the server's loop (games/core/realtime.py)."""
    if not consumer.scope["user"].is_authenticated:
        await consumer.close(code=UNAUTHENTICATED)
        return False
    game_realtime.remember_server_loop()
    return True


class LobbyConsumer(page_consumer.PersonConsumer):
    async def connect(self):
        if not await _logged_in(self):
            return
        user = self.scope["user"]
        await self.join_user_group(user)
        await self.accept()  # the handshake first: the reads below may wait on a busy server
        self.hidden_hosts = await database_sync_to_async(selectors.hosts_blocking)(user)
        await _relay.join(self, self.channel_layer)
        await self.send(text_data=await _listing.html_for(None, self.hidden_hosts))

    async def disconnect(self, code):
        _relay.leave(self)
        await self.leave_user_group()

    async def show(self, change) -> None:
        await self.send(text_data=await _listing.html_for(change, self.hidden_hosts))


class PairingConsumer(page_consumer.PersonConsumer):
    """One person's pairing request: how many wait, and the table once they are seated."""

    async def connect(self):
        if not await _logged_in(self):
            return
        user = self.scope["user"]
        self.user = user
        self.group = realtime.pairing_group(user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.join_user_group(user)
        await self.accept()
        await database_sync_to_async(services.resume_overdue)(user)
        await self.pairing_changed({})

    async def disconnect(self, code):
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)
        await self.leave_user_group()

    async def pairing_changed(self, event):
        view = await database_sync_to_async(selectors.pairing_view)(self.user)
        await self.send(text_data=render_to_string("lobby/_pairing_status.html", {"view": view}))
