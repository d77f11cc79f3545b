"""An event's page socket: the live standings, the tables still playing, and, when a round
begins, the way to one's table (the page goes there at once: static/js/site.js, data-go-to).

The standings are the same for every viewer: a process renders them once per change and sends
that copy to all its screens of the event; only the small "your place" part is per person.
"""

import asyncio

from channels.db import database_sync_to_async
from django.template.loader import render_to_string

from games.core import page_consumer
from games.core import realtime as game_realtime

from . import realtime, selectors
from .models import Event

NOT_KNOWN = 4404

# event id -> (the change heard last, the shared part of the page as of it, being rendered)
_shared: dict[int, tuple[int, asyncio.Future]] = {}


def render_live(event_id: int) -> str:
    event = Event.objects.select_related("club", "organiser").get(pk=event_id)
    return render_to_string("events/_live.html", {"live": selectors.live_view(event)})


def render_mine(event_id: int, user, moved: bool) -> str | None:
    event = selectors.visible_event(event_id, user)
    if event is None:
        return None
    place = selectors.my_place(event, user)
    return render_to_string("events/_my_place.html", {"place": place, "moved": moved})


async def _live_html(event_id: int, change: int | None) -> str:
    cached = _shared.get(event_id)
    if change is not None and cached is not None and cached[0] >= change:
        return await cached[1]
    rendering = asyncio.ensure_future(
        database_sync_to_async(render_live, thread_sensitive=False)(event_id)
    )
    if change is not None:
        _shared[event_id] = (change, rendering)
    return await rendering


class EventConsumer(page_consumer.PersonConsumer):
    async def connect(self):
        user = self.scope["user"]
        self.event_id = int(self.scope["url_route"]["kwargs"]["event_id"])
        known = await database_sync_to_async(selectors.visible_event)(self.event_id, user)
        if known is None:
            await self.close(code=NOT_KNOWN)
            return
        game_realtime.remember_server_loop()
        self.group = realtime.event_group(self.event_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        if user.is_authenticated:
            await self.join_user_group(user)
        await self.accept()
        await self._send(None, moved=False)

    async def disconnect(self, code):
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)
        await self.leave_user_group()

    async def event_changed(self, message):
        change = realtime.EventChanged.read(message)
        await self._send(change.change, moved=change.moved)

    async def _send(self, change: int | None, moved: bool) -> None:
        mine = await database_sync_to_async(render_mine, thread_sensitive=False)(
            self.event_id, self.scope["user"], moved
        )
        if mine is None:
            await self.close(code=NOT_KNOWN)
            return
        await self.send(text_data=await _live_html(self.event_id, change) + mine)
