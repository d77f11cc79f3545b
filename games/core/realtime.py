"""Telling a table's screens that it changed, from any thread.

With Redis the channel layer can be used from anywhere. The in-memory layer (`make run` with
no services) keeps its queues on the server's event loop, and asyncio queues are not thread-safe:
an event sent from a task thread with a loop of its own would sit unnoticed until that loop
happened to wake. So sends from other threads are handed to the server's loop, which the
consumers remember when they connect.
"""

import asyncio
import contextlib
import threading

from asgiref.sync import async_to_sync
from autobahn.exception import Disconnected
from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer

_server_loop: asyncio.AbstractEventLoop | None = None
_server_thread: int | None = None


def remember_server_loop() -> None:
    """Called from a consumer, on the event loop that serves the websockets."""
    global _server_loop, _server_thread
    _server_loop = asyncio.get_running_loop()
    _server_thread = threading.get_ident()


def group_send(group: str, message: dict) -> None:
    layer = get_channel_layer()
    loop = _server_loop
    if loop is None or not loop.is_running():
        # No server loop here (a Celery worker, or a web process before its first websocket):
        # one loop of this process's own, so the Redis layer keeps one connection pool instead
        # of opening a new loop and connection for every event (async_to_sync would).
        loop = _sending_loop()
    if threading.get_ident() == _thread_of(loop):
        async_to_sync(layer.group_send)(group, message)
        return
    future = asyncio.run_coroutine_threadsafe(layer.group_send(group, message), loop)
    future.result(timeout=10)


_own_loop: asyncio.AbstractEventLoop | None = None
_own_thread: int | None = None
_own_lock = threading.Lock()


def _thread_of(loop: asyncio.AbstractEventLoop) -> int | None:
    return _server_thread if loop is _server_loop else _own_thread


def _sending_loop() -> asyncio.AbstractEventLoop:
    global _own_loop, _own_thread
    with _own_lock:
        if _own_loop is None or _own_loop.is_closed():
            loop = asyncio.new_event_loop()
            started = threading.Event()

            def run() -> None:
                global _own_thread
                asyncio.set_event_loop(loop)
                _own_thread = threading.get_ident()
                started.set()
                loop.run_forever()

            threading.Thread(target=run, name="channel-layer-sends", daemon=True).start()
            started.wait()
            _own_loop = loop
        return _own_loop


# What a server raises when a consumer sends on a socket whose page has just been closed:
# Daphne's (autobahn's Disconnected, while the close handshake is under way), and the OSError
# the ASGI specification asks of other servers.
SOCKET_GONE = (Disconnected, OSError)


class PageConsumer(AsyncWebsocketConsumer):
    """A websocket consumer of a page that may be closed at any moment.

    A message on its way while the person closes the tab makes the server's send raise before
    the disconnect is delivered. Raised out of a handler, it ended the consumer there: its
    `disconnect` never ran, so a shared table's seat stayed "here" for good (every later turn of
    that person waited the whole turn timeout for its stand-in, not the grace) and the groups
    kept a dead channel. Such a send is dropped instead: nobody is there to see it, and the
    disconnect that follows cleans up as for any closed tab.
    """

    async def dispatch(self, message):
        # Channels' own dispatch first hands close_old_connections() to the process's one sync
        # thread, at every message: a thread hop per move per screen, queued behind every other
        # consumer's (about 5% of a web process's CPU under the load test, issue 31). These
        # consumers touch the database only through database_sync_to_async, which closes old
        # connections around each call itself.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def __call__(self, scope, receive, send):
        async def send_unless_closed(message):
            with contextlib.suppress(SOCKET_GONE):
                await send(message)

        return await super().__call__(scope, receive, send_unless_closed)
