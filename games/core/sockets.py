"""Ending a login's open websockets when it logs out or its password changes.

Every table socket of a user joins the user's group. Logging out names the session that ended;
a password change names none, and each socket checks whether its own session still holds
(Django invalidates the other sessions of a user whose password changed; a password set
anywhere, the admin included, sends the event: accounts/signals.py). A socket whose session has
ended says so on the page and closes with LOGGED_OUT; it also checks its session again before a
render once its last check is 30 s old (games/web/consumers.py), which covers a lost event and an
expired session.
"""

from dataclasses import dataclass
from functools import partial
from importlib import import_module
from types import SimpleNamespace

from django.conf import settings
from django.contrib import auth
from django.db import transaction

from games.core import events

# The close code a socket ends with when its login is over (4000-4999 are the application's).
LOGGED_OUT = 4401


def user_group(user_id: int) -> str:
    return f"user-{user_id}"


@dataclass(frozen=True)
class SessionCheck(events.Event, type="session.check"):
    """A login of the user ended: `ended` names its session; None, every socket checks its own
    (a password change invalidates all the user's other sessions)."""

    ended: str | None = None


def end_sockets(user_id: int, session_key: str | None = None) -> None:
    """Tell the user's sockets that `session_key` ended (None: every session must check itself)."""
    transaction.on_commit(
        partial(events.send, user_group(user_id), SessionCheck(ended=session_key))
    )


def session_still_valid(session_key: str | None, user_id: int) -> bool:
    """Whether the session behind a socket still logs in `user_id`, read afresh from the store
    (a logout deletes it; a password change leaves it with a stale hash)."""
    if not session_key:
        return False
    store = import_module(settings.SESSION_ENGINE).SessionStore(session_key=session_key)
    user = auth.get_user(SimpleNamespace(session=store))
    return user.is_authenticated and user.pk == user_id
