"""The base of every websocket consumer of the site: a page's socket that belongs to a login.

Every socket, whatever its page (a table, the lobby, a pairing request), joins its user's group:
logging out, signing out everywhere, a new password and deleting the account end it
(games/core/sockets.py). Issue 45: the lobby's and pairing's sockets did not, and a stolen session
kept hearing the person's pairing ("Your table is ready") after "Sign out everywhere".
"""

from channels.db import database_sync_to_async

from games.core import realtime
from games.core.sockets import LOGGED_OUT, SessionCheck, session_still_valid, user_group


class PersonConsumer(realtime.PageConsumer):
    """A page's socket of one signed-in person; subclasses call join_user_group() in connect()
    and leave_user_group() in disconnect()."""

    async def join_user_group(self, user) -> None:
        """Call from connect() once the socket is allowed, before accept()."""
        self.user_id = user.pk
        session = self.scope.get("session")
        self.session_key = session.session_key if session is not None else None
        self.user_group = user_group(user.pk)
        await self.channel_layer.group_add(self.user_group, self.channel_name)

    async def leave_user_group(self) -> None:
        if hasattr(self, "user_group"):
            await self.channel_layer.group_discard(self.user_group, self.channel_name)

    async def session_check(self, message):
        """The user logged out somewhere, or changed their password: is this socket's login over?"""
        ended = SessionCheck.read(message).ended
        if ended is not None:
            if ended == self.session_key:
                await self.end_logged_out()
            return
        if not await database_sync_to_async(session_still_valid)(self.session_key, self.user_id):
            await self.end_logged_out()

    async def end_logged_out(self):
        """Close with LOGGED_OUT; a page with something on screen says why first (override)."""
        await self.close(code=LOGGED_OUT)
