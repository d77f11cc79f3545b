"""The lobby's channel-layer groups and the small events sent to them (never HTML)."""

import time

from games.realtime import group_send

LOBBY_GROUP = "lobby"


def pairing_group(user_id: int) -> str:
    return f"pairing-user-{user_id}"


def announce_lobby(sender=None, match_id: int | None = None, **kwargs) -> None:
    """A listed table changed. The event carries a fresh change number: a process renders the
    list once per change, for all the lobby screens it serves."""
    group_send(LOBBY_GROUP, {"type": "lobby.changed", "change": time.time_ns()})


def announce_pairing(user_ids: list[int]) -> None:
    for user_id in user_ids:
        group_send(pairing_group(user_id), {"type": "pairing.changed"})
