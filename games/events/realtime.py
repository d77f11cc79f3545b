"""The events' channel-layer group and the small event sent to it (never HTML)."""

import time
from dataclasses import dataclass

from games.core import events
from games.core.selectors import table_group


@dataclass(frozen=True)
class EventChanged(events.Event, type="event.changed"):
    """An event's page changed: a check-in, a deal's end at one of its tables, a new round.
    `change` orders changes; `moved`: a round began, and its players are sent to their tables;
    `match_id`: the change is a deal's end at that table, so only its players' own part of the
    page changed (None: anyone's may have)."""

    event_id: int
    change: int
    moved: bool = False
    match_id: int | None = None


def event_group(event_id: int) -> str:
    return f"event-{event_id}"


def announce_tables_over(tables: list[tuple[int, int]]) -> None:
    """A round is over (the next one is made, or the event ends): the screens of its tables,
    (match id, version), draw their panels again, which now say where each player goes next.
    Without this only the last table to finish heard of it; the others kept saying "the next
    round starts when every table has finished"."""
    for match_id, version in tables:
        events.send(table_group(match_id), events.TableChanged(version=version, same_version=True))


def announce_event(
    event_id: int, version: int | None, moved: bool = False, match_id: int | None = None
) -> None:
    events.send(event_group(event_id), EventChanged(event_id, time.time_ns(), moved, match_id))
