"""Websocket consumers: thin. They check who is asking and push each seat its own view.

The channel layer carries only small events ("table.changed", version n); every consumer
renders its own seat's HTML from a selector, so a message never holds another seat's cards.
"""

import json
import math
from time import monotonic

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.template.loader import render_to_string
from django.utils.datastructures import MultiValueDict

from games.core import (
    dispatch,
    events,
    hooks,
    invites,
    page_consumer,
    pages,
    presenters,
    realtime,
    selectors,
    services,
)
from games.core.events import TableChanged
from games.core.sockets import LOGGED_OUT, session_still_valid
from games.models import Match
from games.tables import services as tables

# Close codes in the 4000 range are ours; the browser sees them in the close event. A table
# that does not exist and a shared table this user was not invited to are refused alike.
UNAUTHENTICATED = LOGGED_OUT
FORBIDDEN = 4403
NOT_FOUND = 4404
# A socket's login is checked when it opens, whenever the user's sessions change (a logout, a
# new password: SessionCheck), and again before a render once this long has passed since the
# last check: an ended session whose event was lost, or that expired, stops the screen within
# it. Checking at every render cost two queries a screen (issue 31: CPU per move).
SESSION_RECHECK_SECONDS = 30
# A table request (a move, the next deal) is a few short fields; anything longer is refused
# unread.
TABLE_REQUEST_MAX_BYTES = 2_000


def table_group(match_id: int) -> str:
    return selectors.table_group(match_id)


class TableConsumer(page_consumer.PersonConsumer):
    """One browser tab at one table: a seat's player, a spectator, or someone choosing a seat.

    The seat is looked up again at every render, so a person who sits down (or leaves) while
    connected gets the right view at once. At a shared table the consumer also keeps the seat's
    presence (open connections) through a service.

    Its database work runs with `thread_sensitive=False`, on the event loop's thread pool: by
    default every consumer of the process would queue on one thread (each call is still awaited
    in turn, so one consumer never runs two at once).
    """

    # When the login was last found valid; connect() sets it. A consumer never connected
    # (a test's) checks at its first render.
    session_checked_at = -math.inf

    async def connect(self):
        user = self.scope["user"]
        if not user.is_authenticated:
            await self.close(code=UNAUTHENTICATED)
            return
        self.match_id = self.scope["url_route"]["kwargs"]["match_id"]
        self.user = user
        self.present = False
        session = self.scope.get("session")
        self.session_key = session.session_key if session is not None else None
        self.session_checked_at = monotonic()  # the middleware has just read it
        allowed = await database_sync_to_async(self._may_look, thread_sensitive=False)(user)
        if not allowed:
            await self.close(code=FORBIDDEN)
            return
        realtime.remember_server_loop()
        dispatch.start_in_process_sweeper()
        self.group = table_group(self.match_id)
        self.sent_version = None
        await self.channel_layer.group_add(self.group, self.channel_name)
        # The login's group: logging out or a new password ends this socket (games.core.sockets).
        await self.join_user_group(user)
        await self.accept()
        await self.send_table()  # the seat is counted present already (_may_look)

    async def count_presence(self):
        # Outside any render (a render changes nothing); the service tells every screen, this one too.
        self.present = await database_sync_to_async(tables.do_presence, thread_sensitive=False)(
            self.match_id, user=self.user, delta=+1
        )

    def _invited(self) -> frozenset[int]:
        session = self.scope.get("session")
        return invites.invited(session)

    def _may_look(self, user) -> bool:
        match = Match.objects.filter(pk=self.match_id).first()
        if match is None:
            return False
        seat, allowed = selectors.viewer_role(match, user, self._invited())
        self.seat = seat
        self.shared = match.invite_code is not None
        if seat:
            if self.shared:
                # Present before anything looks at the turn: a reload is not leaving, and a
                # stalled turn resumed first would hand this person's turn to the stand-in
                # (issue 44). The rule: turns.stand_in_left.
                self.present = tables.do_presence(match.pk, user=user, delta=+1)
            services.resume_stalled_turn(match.pk)
            hooks.table_socket_opened(
                match.pk
            )  # e.g. advice never asked for (switched on elsewhere)
        return allowed

    async def disconnect(self, code):
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)
        await self.leave_user_group()
        if getattr(self, "present", False):
            self.present = False
            await database_sync_to_async(tables.do_presence, thread_sensitive=False)(
                self.match_id, user=self.user, delta=-1
            )

    async def dispatch(self, message):
        # A feature's event (the coach's) goes to the function that feature registered; the
        # consumer's own (TableChanged, SessionCheck) and the websocket's to its methods.
        handler = hooks.table_socket_events.handler_for(message.get("type", ""))
        if handler is None:
            await super().dispatch(message)
            return
        event_class = events.known()[message["type"]]
        await handler(self, event_class.read(message))

    async def table_changed(self, message):
        event = TableChanged.read(message)
        # Events can overtake each other; never replace a newer screen with an older one. A
        # move's event for the version already on screen (rendered for an earlier event while
        # the bots moved on) needs no render; chat, presence and settings keep the version and
        # say so, and are always rendered.
        if self.sent_version is not None and (
            event.version < self.sent_version
            or (event.version == self.sent_version and not event.same_version)
        ):
            return
        await self.send_table()

    async def send_table(self):
        rendered = await database_sync_to_async(self._render_table, thread_sensitive=False)()
        if rendered is LOGGED_OUT:
            await self.end_logged_out()
            return
        if rendered is None:
            await self.close(code=FORBIDDEN)
            return
        version, html = rendered
        self.sent_version = version
        await self.send(text_data=html)
        if self.seat and self.shared and not self.present:
            await (
                self.count_presence()
            )  # this tab now holds a seat (just connected, or just sat down)

    async def receive(self, text_data=None, bytes_data=None):
        """A move, or the next deal, sent over this socket by the page (static/js/table.js) as
        the fields of its form: `{"move": {"version": ["7"], "action": ["QH"]}}`, or
        `{"next_deal": {"version": ["30"]}}`.

        The same change as the form's POST (games.web.views.act, next_deal) through the same
        service, checked the same way; it spares the web process a request per move (the
        middleware, the session and user reads, a thread for the request: about a fifth of its
        CPU under load, issue 31). An applied change is answered like every other, by the
        table's event; a refused one by this screen's table with the reason on it, as the
        POST's answer shows it.
        """
        answer = await database_sync_to_async(self._change, thread_sensitive=False)(text_data)
        if answer is LOGGED_OUT:
            await self.end_logged_out()
        elif answer:
            await self.send(text_data=answer)

    def _change(self, text: str | None):
        if not self._login_still_holds():
            return LOGGED_OUT
        try:
            kind, fields = _table_request(text)
            match = selectors.match_or_none(self.match_id)
            seat = selectors.viewer_seat(match, self.user) if match is not None else None
            if seat is None:
                raise services.GameError("You are not playing at this table.")
            if kind == "move":
                token, version = pages.posted_move(fields)
                actor = services.Actor(user=self.user)

                def change():
                    return services.do_act(
                        match.pk, seat=seat.position, token=token, version=version, actor=actor
                    )
            else:
                version = pages.version_of(fields, "request")

                def change():
                    return services.do_next_deal(match.pk, version=version)

            services.through_restarts(change)
        except services.GameError as error:
            return self._refusal(error)
        return None

    def _refusal(self, error: services.GameError) -> str:
        match = selectors.match_or_none(self.match_id)
        if match is None or match.status == Match.Status.FORMING:
            # Nothing dealt (or no table any more): no move form was on this screen to send it.
            return ""
        # The seat is looked up again: this screen may have left it since its last render.
        seat, allowed = selectors.viewer_role(match, self.user, self._invited())
        if not allowed:
            return ""
        return pages.table_markup(presenters.table_view(match, seat), error=str(error))

    async def end_logged_out(self):
        # The page keeps nothing of the table (no hand, no advice) and says why it stopped.
        await self.send(
            text_data=render_to_string("games/_logged_out.html", {"match_id": self.match_id})
        )
        await self.close(code=LOGGED_OUT)

    def _login_still_holds(self) -> bool:
        if monotonic() - self.session_checked_at < SESSION_RECHECK_SECONDS:
            return True
        if not session_still_valid(self.session_key, self.user.pk):
            return False
        self.session_checked_at = monotonic()
        return True

    def _render_table(self):
        # A render checks again that this socket's login holds once the last check is old
        # enough: a hand is not sent on a session that ended, even if the event was lost.
        if not self._login_still_holds():
            return LOGGED_OUT
        match, deal_row = selectors.match_and_current_deal(self.match_id)
        seats = selectors.seats_of(match)  # read once for the table, the coach and the role
        seat, allowed = selectors.viewer_role(match, self.user, self._invited(), seats=seats)
        if not allowed:
            return None
        self.seat = seat
        if seat is None:
            self.present = False  # left the seat (the service cleared its connections)
        if match.status == Match.Status.FORMING:
            view = presenters.forming_view(match, self.user, self._invited())
            html = pages.forming_markup(view, origin=self._origin())
            # People talk while the table forms: the chat goes with every push from the start.
            html += render_to_string(
                "games/_chat_log.html", {"lines": presenters.chat_lines(match, self.user)}
            )
            return view.version, html
        view = presenters.table_view(match, seat, seats=seats, deal_row=deal_row)
        html = pages.table_markup(view)
        if seat:
            # The coach's panel goes with every table, so it never shows advice for an old position.
            html += "".join(hooks.table_panels(match, seat, seats=seats, deal_row=deal_row))
        if match.invite_code is not None:
            html += render_to_string(
                "games/_chat_log.html", {"lines": presenters.chat_lines(match, self.user)}
            )
        return view.version, html

    def _origin(self) -> str:
        """The site's address as the browser used it, for the invite link."""
        headers = dict(self.scope.get("headers") or [])
        host = headers.get(b"host", b"").decode("latin-1")
        scheme = "https" if self.scope.get("scheme") == "wss" else "http"
        return f"{scheme}://{host}" if host else ""

    async def send_panels(self):
        """Send this seat's panels (the coach's) as they stand: for the features' handlers."""
        html = await database_sync_to_async(self._render_panel, thread_sensitive=False)()
        await self.send(text_data=html)

    def _render_panel(self) -> str:
        return "".join(hooks.table_panels(Match.objects.get(pk=self.match_id), self.seat))


def _table_request(text: str | None) -> tuple[str, MultiValueDict]:
    """What a message asks for ("move" or "next_deal") and its form's fields, each a list of
    strings; a message that is not one is refused as the form's post of nothing would be."""
    incomplete = services.GameError("The move was incomplete; please try again.")
    if not text or len(text) > TABLE_REQUEST_MAX_BYTES:
        raise incomplete
    try:
        ((kind, fields),) = json.loads(text).items()
    except (ValueError, AttributeError):  # not JSON, not an object, or not one key
        raise incomplete from None
    if (
        kind not in ("move", "next_deal")
        or not isinstance(fields, dict)
        or not all(
            isinstance(values, list) and all(isinstance(value, str) for value in values)
            for values in fields.values()
        )
    ):
        raise incomplete
    return kind, MultiValueDict(fields)


class NoSuchSocket(AsyncWebsocketConsumer):
    """A websocket path the site does not serve: refused at the handshake."""

    async def connect(self):
        await self.close(code=NOT_FOUND)
