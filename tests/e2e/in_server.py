"""Calls a browser test runs inside its Daphne server's process.

The server and the test process share the test database but not a channel layer: without
Redis each has an in-memory layer of its own, and its in-process tasks. A change the test makes
through the services in its own process is saved, but the screens are never told, and the bot
whose turn it then is is woken in the test process, not the server. A change that the pages
must see happen (an event starting at its time, another person's move at a table) is therefore
made in the server, as the sweeper or a request would make it there: the test posts the
function and its arguments to a path only the test server serves, and gets its result back.

The path exists only in the application the browser tests' server runs (tests/e2e/conftest.py),
on 127.0.0.1, never in the site's own URLs. Arguments and results travel pickled: both ends are
this test run's own processes.
"""

import importlib
import pickle
import traceback
import urllib.error
import urllib.request

from channels.db import database_sync_to_async
from channels.testing.live import make_application as channels_application

CALL_PATH = "/__tests__/call/"


def make_application(*, static_wrapper):
    """The site's application, as channels' live server makes it, with the test calls' path."""
    return ServerCalls(channels_application(static_wrapper=static_wrapper))


def _named(module: str, name: str):
    return getattr(importlib.import_module(module), name)


def _run(body: bytes) -> tuple[int, bytes]:
    module, name, args, kwargs = pickle.loads(body)
    try:
        return 200, pickle.dumps(_named(module, name)(*args, **kwargs))
    except Exception:
        return 500, traceback.format_exc().encode()


class ServerCalls:
    """ASGI: a POST to CALL_PATH runs a function in this process; anything else goes to the site."""

    def __init__(self, application):
        self.application = application

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["path"] != CALL_PATH or scope["method"] != "POST":
            return await self.application(scope, receive, send)
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        # On the sync thread the views use: a call is a request's work, done as a view does it.
        status, answer = await database_sync_to_async(_run)(body)
        await send({"type": "http.response.start", "status": status, "headers": []})
        await send({"type": "http.response.body", "body": answer})


def call(site: str, function, *args, **kwargs):
    """Run `function(*args, **kwargs)` in the server at `site` and return its result. A function
    that raises there fails here with the server's traceback."""
    body = pickle.dumps((function.__module__, function.__qualname__, args, kwargs))
    request = urllib.request.Request(site + CALL_PATH, data=body, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return pickle.loads(answer.read())
    except urllib.error.HTTPError as error:
        raise AssertionError(
            f"{function.__qualname__} raised in the server:\n{error.read().decode()}"
        ) from None
