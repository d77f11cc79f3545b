"""The events' channel-layer group and the small event sent to it (never HTML)."""

import time
from dataclasses import dataclass

from games.core import events


@dataclass(frozen=True)
class EventChanged(events.Event, type="event.changed"):
    """An event's page changed: a check-in, a deal's end at one of its tables, a new round.
    `change` orders changes; `moved`: a round began, and its players are sent to their tables."""

    event_id: int
    change: int
    moved: bool = False


def event_group(event_id: int) -> str:
    return f"event-{event_id}"


def announce_event(event_id: int, version: int | None, moved: bool = False) -> None:
    events.send(event_group(event_id), EventChanged(event_id, time.time_ns(), moved))
