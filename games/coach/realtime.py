"""The coach on the table's socket: its two events, and what a seat's consumer does on each.

The table's consumer knows nothing of the coach: it hands these events to the functions the
coach registers in its `ready()` (`hooks.table_socket_events`), which redraw the seat's panels
through the consumer's `send_panels()`.
"""

from dataclasses import dataclass

from games.core import events
from games.core import selectors as game_selectors


@dataclass(frozen=True)
class CoachReady(events.Event, type="coach.ready"):
    """Advice or a review for `seat` at table version `version` is stored."""

    version: int
    seat: str


@dataclass(frozen=True)
class CoachSwitched(events.Event, type="coach.switched"):
    """The person at `seat` switched the coach on or off."""

    seat: str


def tell_seat(match_id: int, seat: str, version: int) -> None:
    # A small event: each consumer renders its own seat's panel, and only its own seat's.
    events.send(game_selectors.table_group(match_id), CoachReady(version=version, seat=seat))


def tell_seat_switched(match_id: int, seat: str) -> None:
    events.send(game_selectors.table_group(match_id), CoachSwitched(seat=seat))


async def on_coach_ready(socket, event: CoachReady) -> None:
    # Only this seat's, and only for the moment on its screen.
    if event.seat == socket.seat and event.version == socket.sent_version:
        await socket.send_panels()


async def on_coach_switched(socket, event: CoachSwitched) -> None:
    # Redraw the seat's panel, whatever the moment.
    if event.seat == socket.seat:
        await socket.send_panels()
