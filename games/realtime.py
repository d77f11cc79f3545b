"""Telling a table's screens that it changed, from any thread.

With Redis the channel layer can be used from anywhere. The in-memory layer (`make run` with
no services) keeps its queues on the server's event loop, and asyncio queues are not thread-safe:
an event sent from a task thread with a loop of its own would sit unnoticed until that loop
happened to wake. So sends from other threads are handed to the server's loop, which the
consumers remember when they connect.
"""

import asyncio
import threading

from asgiref.sync import async_to_sync
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
    if loop is not None and loop.is_running() and threading.get_ident() != _server_thread:
        future = asyncio.run_coroutine_threadsafe(layer.group_send(group, message), loop)
        future.result(timeout=10)
    else:
        async_to_sync(layer.group_send)(group, message)
