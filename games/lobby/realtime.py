"""The lobby's channel-layer groups and the small events sent to them (never HTML)."""

import time
from dataclasses import dataclass

from games.core import events

LOBBY_GROUP = "lobby"


@dataclass(frozen=True)
class LobbyChanged(events.Event, type="lobby.changed"):
    """A listed table changed; `change` orders changes (a screen never goes back to an older one)."""

    change: int


@dataclass(frozen=True)
class PairingChanged(events.Event, type="pairing.changed"):
    """A person's pairing request changed: more people waiting, seated, or cancelled."""


def pairing_group(user_id: int) -> str:
    return f"pairing-user-{user_id}"


def announce_lobby(match_id: int) -> None:
    """A listed table changed. The event carries a fresh change number: a process renders the
    list once per change, for all the lobby screens it serves."""
    events.send(LOBBY_GROUP, LobbyChanged(change=time.time_ns()))


def announce_pairing(user_ids: list[int]) -> None:
    for user_id in user_ids:
        events.send(pairing_group(user_id), PairingChanged())
