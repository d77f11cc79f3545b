"""/ws/me/: the socket every signed-in page opens. It counts the person online, and shows them
live what concerns them: their friends coming and going (the friend list's rows) and the bell.

One relay per process listens to the social group and hands each event to the sockets of the
people it names; a friend's row is rendered once per process and event.
"""

import asyncio
import logging
import time
from collections import defaultdict

from channels.db import database_sync_to_async
from django.template.loader import render_to_string

from games.core import realtime as game_realtime
from games.core.page_consumer import PersonConsumer

from . import realtime, selectors, services

UNAUTHENTICATED = 4401
log = logging.getLogger(__name__)


def friend_row_html(user_id: int) -> str:
    row = selectors.friend_row(user_id)
    if row is None:  # gone (a removed friendship, a deleted account): the row disappears
        return f'<li id="friend-{user_id}" hx-swap-oob="delete"></li>'
    return render_to_string("social/_friend_row.html", {"friend": row, "oob": True})


def friend_list_html(user_id: int) -> str:
    return render_to_string(
        "social/_friend_list.html", {"friends": selectors.friend_rows(user_id), "oob": True}
    )


def bell_html(user_id: int) -> str:
    return render_to_string(
        "social/_bell_count.html", {"unread": selectors.unread_count(user_id), "oob": True}
    )


class _Relay:
    """This process's one member of the social group, handing events to its own sockets."""

    def __init__(self):
        self.sockets: dict[int, set] = defaultdict(set)
        self.task: asyncio.Task | None = None
        self.heartbeat: asyncio.Task | None = None
        self.channel = None

    async def join(self, socket, channel_layer) -> None:
        self.sockets[socket.user_id].add(socket)
        loop = asyncio.get_running_loop()
        if self.task is None or self.task.done() or self.task.get_loop() is not loop:
            self.channel = await channel_layer.new_channel()
            self.task = asyncio.ensure_future(self._listen(channel_layer))
        if self.heartbeat is None or self.heartbeat.done() or self.heartbeat.get_loop() is not loop:
            self.heartbeat = asyncio.ensure_future(self._beat())
        # Re-joining refreshes the group's expiry on the layer.
        await channel_layer.group_add(realtime.SOCIAL_GROUP, self.channel)

    def leave(self, socket) -> None:
        here = self.sockets.get(socket.user_id)
        if here is not None:
            here.discard(socket)
            if not here:
                del self.sockets[socket.user_id]

    async def _listen(self, channel_layer) -> None:
        while True:
            try:
                message = await channel_layer.receive(self.channel)
                await self._hand_out(message)
            except asyncio.CancelledError:
                raise
            except Exception:  # a broken layer or render must not leave the pages deaf for good
                log.exception("the social relay could not hand out an event")
                await asyncio.sleep(1)

    async def _beat(self) -> None:
        """Every HEARTBEAT, the people whose pages this process holds are still here: a count
        that stops being touched (the process died) reads as offline after STALE_AFTER."""
        while True:
            # A period, not a wait for a condition: the heartbeat is a clock.
            await asyncio.sleep(selectors.HEARTBEAT.total_seconds())
            try:
                await database_sync_to_async(services.do_keep_present)(list(self.sockets))
            except asyncio.CancelledError:
                raise
            except Exception:  # a database restart: the next beat tries again
                log.warning("the presence heartbeat failed", exc_info=True)

    async def _hand_out(self, message: dict) -> None:
        kind = message.get("type")
        if kind == realtime.FriendChanged.type:
            event = realtime.FriendChanged.read(message)
            targets = [s for uid in event.targets for s in self.sockets.get(uid, ())]
            if targets and event.whole_list:
                for socket in targets:
                    html = await database_sync_to_async(friend_list_html)(socket.user_id)
                    await socket.show(html, event)
            elif targets:
                html = await database_sync_to_async(friend_row_html)(event.user_id)
                await asyncio.gather(
                    *(s.show(html, event) for s in targets), return_exceptions=True
                )
        elif kind == realtime.BellChanged.type:
            event = realtime.BellChanged.read(message)
            targets = list(self.sockets.get(event.user_id, ()))
            if targets:
                html = await database_sync_to_async(bell_html)(event.user_id)
                await asyncio.gather(
                    *(s.show(html, event) for s in targets), return_exceptions=True
                )


relay = _Relay()
# Benchmarks listen here: (event, time.time() when the socket sent it) per socket's send.
heard: list | None = None


class MeConsumer(PersonConsumer):
    async def connect(self):
        user = self.scope["user"]
        if not user.is_authenticated:
            await self.close(code=UNAUTHENTICATED)
            return
        game_realtime.remember_server_loop()
        # The user's group: logging out and "sign out everywhere" close this socket too.
        await self.join_user_group(user)
        await self.accept()
        await relay.join(self, self.channel_layer)
        await database_sync_to_async(services.do_come_online)(user.pk)
        self.counted = True
        await self.send(text_data=await database_sync_to_async(bell_html)(user.pk))

    async def disconnect(self, code):
        relay.leave(self)
        await self.leave_user_group()
        if getattr(self, "counted", False):
            self.counted = False
            await database_sync_to_async(services.do_go_offline)(self.user_id)

    async def receive(self, text_data=None, bytes_data=None):
        pass  # the page says nothing on this socket

    async def show(self, html: str, event) -> None:
        await self.send(text_data=html)
        if heard is not None:
            heard.append((self.user_id, event, time.time()))
