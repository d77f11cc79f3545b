"""The messages the channel layer carries, one class each, with their type and fields.

A message is small and holds no HTML (each consumer renders its own seat's view when it hears
one). It is built and read only through these classes: a type named twice, or in a form
Channels cannot route to a handler, fails when its module is imported, and a misspelt field
fails where the message is built or read, not silently at run time on another process.

    @dataclass(frozen=True)
    class TableChanged(Event, type="table.changed"):
        version: int

    events.send(group, TableChanged(version=7))   # any thread, any process
    TableChanged.read(message)                     # in the consumer's handler

Each app defines its own events beside the code that sends them (the lobby's in
games/lobby/realtime.py, the coach's in games/coach/realtime.py, the session check in
games/core/sockets.py); docs/architecture.md says how a feature adds one to the table's socket.
"""

import re
from dataclasses import asdict, dataclass, fields
from typing import ClassVar, Self

from games.core import realtime

# Channels routes "a.b_c" to a consumer's method `a_b_c`: a dot, then a Python name.
_TYPE = re.compile(r"[a-z]+\.[a-z_]+")
_events: dict[str, type["Event"]] = {}


class Event:
    """A channel-layer message. Subclasses are frozen dataclasses naming their `type`."""

    type: ClassVar[str]

    def __init_subclass__(cls, type: str, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if not _TYPE.fullmatch(type):
            raise TypeError(f"event type {type!r} is not of the form 'word.word'")
        if type in _events and _events[type].__qualname__ != cls.__qualname__:
            raise TypeError(f"two events are named {type!r}")
        cls.type = type
        _events[type] = cls

    def message(self) -> dict:
        """The dict the channel layer carries."""
        return {"type": self.type, **asdict(self)}

    @classmethod
    def read(cls, message: dict) -> Self:
        """The event a message carries (a field the sender left out takes its default)."""
        if message.get("type") != cls.type:
            raise ValueError(f"a {message.get('type')!r} message is not {cls.type!r}")
        return cls(**{f.name: message[f.name] for f in fields(cls) if f.name in message})

    @classmethod
    def handler_name(cls) -> str:
        """The consumer method Channels calls with this event's messages."""
        return cls.type.replace(".", "_")


def send(group: str, event: Event) -> None:
    """Send `event` to every consumer in `group`, from any thread (games/core/realtime.py)."""
    realtime.group_send(group, event.message())


def known() -> dict[str, type[Event]]:
    """Every event type defined so far, by type name (for tests)."""
    return dict(_events)


@dataclass(frozen=True)
class TableChanged(Event, type="table.changed"):
    """A table moved on to `version`: each screen renders its own seat's view, unless that
    version is already on it. `same_version`: the screens change although the version may not
    (chat, presence, table settings), so they render anyway."""

    version: int
    same_version: bool = False
