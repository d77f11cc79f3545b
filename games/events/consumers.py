"""An event's page socket: the live standings, the tables still playing, and, when a round
begins, the way to one's table (the page goes there at once: static/js/site.js, data-go-to).

The standings are the same for every viewer: a process renders them once per change and sends
that copy to all its screens of the event; only the small "your place" part is per person, and
it is rendered again only when it may have changed: a deal's end at another table leaves it as
it was. A screen that falls behind a burst of changes (fifty tables ending their deals within a
few seconds) skips to the newest: it is sent the page as it is now, not every step between
(issue 49: at a night of 200 people every change rendered 200 personal parts, and the web
processes' threads fell seconds behind).
"""

import asyncio
from dataclasses import dataclass

from channels.db import database_sync_to_async
from django.template.loader import render_to_string

from games.core import page_consumer
from games.core import realtime as game_realtime

from . import realtime, selectors
from .models import Event

NOT_KNOWN = 4404

# event id -> (the newest change its render covers, the shared part of the page as of it, maybe
# still being rendered), and the newest change this process has heard of.
_shared: dict[int, tuple[int, asyncio.Future]] = {}
_heard: dict[int, int] = {}


def render_live(event_id: int) -> str:
    event = Event.objects.select_related("club", "organiser").get(pk=event_id)
    return render_to_string("events/_live.html", {"live": selectors.live_view(event)})


@dataclass(frozen=True)
class MyPart:
    """One viewer's own part of the page: `html` to send now, `again` the same part as it may
    be sent again later (never sending the page to a table a second time), and the match of the
    viewer's table in the round, whose deals' ends change it."""

    html: str
    again: str
    match_id: int | None


def render_mine(event_id: int, user, moved: bool) -> MyPart | None:
    event = selectors.visible_event(event_id, user)
    if event is None:
        return None
    place = selectors.my_place(event, user)
    again = render_to_string("events/_my_place.html", {"place": place, "moved": False})
    html = (
        render_to_string("events/_my_place.html", {"place": place, "moved": True})
        if moved
        else again
    )
    match_id = place.table.match_id if place.table is not None else None
    return MyPart(html, again, match_id)


async def _live_html(event_id: int, change: int | None) -> str:
    """The shared part of the page as of `change` or later (None: as it is now, for a screen
    just opened). One render at a time per event in this process, each covering every change
    heard before it began: a burst of changes costs a few renders, not one each."""
    if change is None:
        return await database_sync_to_async(render_live, thread_sensitive=False)(event_id)
    while True:
        cached = _shared.get(event_id)
        if cached is not None and cached[0] >= change:
            # Shielded: a screen closed meanwhile must not cancel the others' copy.
            return await asyncio.shield(cached[1])
        if cached is not None and not cached[1].done():
            await asyncio.wait([cached[1]])  # the render under way first, then look again
            continue
        rendering = asyncio.ensure_future(
            database_sync_to_async(render_live, thread_sensitive=False)(event_id)
        )
        _shared[event_id] = (_heard[event_id], rendering)
        return await asyncio.shield(rendering)


@dataclass(frozen=True)
class _Due:
    """The changes heard and not yet sent, as one: the newest, whether a round began meanwhile,
    and the tables whose deals ended (None: a change to anyone's own part, a check-in, the end)."""

    change: int
    moved: bool = False
    tables: frozenset[int] | None = None

    @classmethod
    def of(cls, heard: realtime.EventChanged) -> "_Due":
        tables = None if heard.match_id is None else frozenset((heard.match_id,))
        return cls(heard.change, heard.moved, tables)

    def and_then(self, later: "_Due") -> "_Due":
        tables = None
        if self.tables is not None and later.tables is not None:
            tables = self.tables | later.tables
        return _Due(max(self.change, later.change), self.moved or later.moved, tables)

    def changes(self, mine: MyPart | None) -> bool:
        """Whether the viewer's own part, as last sent, may have changed."""
        return mine is None or self.moved or self.tables is None or mine.match_id in self.tables


class EventConsumer(page_consumer.PersonConsumer):
    async def connect(self):
        user = self.scope["user"]
        self.event_id = int(self.scope["url_route"]["kwargs"]["event_id"])
        known = await database_sync_to_async(selectors.visible_event)(self.event_id, user)
        if known is None:
            await self.close(code=NOT_KNOWN)
            return
        self.mine: MyPart | None = None
        self.due: _Due | None = None
        self.sending: asyncio.Task | None = None
        game_realtime.remember_server_loop()
        self.group = realtime.event_group(self.event_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        if user.is_authenticated:
            await self.join_user_group(user)
        await self.accept()
        await self._send(_Due(0), shared_change=None)

    async def disconnect(self, code):
        if getattr(self, "sending", None) is not None:
            self.sending.cancel()
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)
        await self.leave_user_group()

    async def event_changed(self, message):
        heard = _Due.of(realtime.EventChanged.read(message))
        _heard[self.event_id] = max(heard.change, _heard.get(self.event_id, 0))
        self.due = heard if self.due is None else self.due.and_then(heard)
        # Sent by a task of its own, so that the changes heard meanwhile are merged into one
        # instead of queueing behind this one's render.
        if self.sending is None or self.sending.done():
            self.sending = asyncio.ensure_future(self._send_due())

    async def _send_due(self) -> None:
        while self.due is not None:
            due, self.due = self.due, None
            await self._send(due, shared_change=due.change)

    async def _send(self, due: _Due, shared_change: int | None) -> None:
        if self.mine is not None and not due.changes(self.mine):
            html = self.mine.again
        else:
            mine = await database_sync_to_async(render_mine, thread_sensitive=False)(
                self.event_id, self.scope["user"], due.moved
            )
            if mine is None:
                await self.close(code=NOT_KNOWN)
                return
            self.mine, html = mine, mine.html
        await self.send(text_data=await _live_html(self.event_id, shared_change) + html)
