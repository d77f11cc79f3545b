"""What a signed-in page's /ws/me/ socket hears: a friend came, went or sat down, and the bell.

Events go to one group, SOCIAL_GROUP, which each web process joins once (its relay in
consumers.py) and fans out to the sockets it serves of the users the event names. A person
coming online thus costs one message per process, however many friends watch, and the friend's
row is rendered once per process, not once per friend.
"""

from dataclasses import dataclass, field
from functools import partial

from django.db import transaction

from games.core import events

SOCIAL_GROUP = "social"


@dataclass(frozen=True)
class FriendChanged(events.Event, type="social.friend_changed"):
    """`user_id` came online, went, or sat down or got up: the pages of `targets` redraw them."""

    user_id: int
    targets: list = field(default_factory=list)
    # The friendship itself began or ended: each target's whole list is drawn again.
    whole_list: bool = False


@dataclass(frozen=True)
class BellChanged(events.Event, type="social.bell_changed"):
    """`user_id`'s notifications changed: their pages redraw the bell."""

    user_id: int


def tell_friends_after_commit(user_id: int, targets, whole_list: bool = False) -> None:
    targets = sorted(set(targets))
    if targets:
        event = FriendChanged(user_id=user_id, targets=targets, whole_list=whole_list)
        transaction.on_commit(partial(events.send, SOCIAL_GROUP, event), robust=True)


def ring_after_commit(user_id: int) -> None:
    transaction.on_commit(
        partial(events.send, SOCIAL_GROUP, BellChanged(user_id=user_id)), robust=True
    )
