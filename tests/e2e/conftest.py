"""Browser tests: Playwright driving Debian's Chromium against a live Daphne server.

pytest-django's `live_server` speaks only WSGI (no websockets), so the site is served by Daphne
in a subprocess, as Channels' own ChannelsLiveServerTestCase does, on the test database.
"""

import multiprocessing
import os
from functools import partial
from pathlib import Path

import pytest
from playwright.sync_api import expect

# Playwright's 5 s default is short for a machine whose two cores are busy with the server,
# the bots and the browser at once; a passing check returns as soon as it holds.
expect.set_options(timeout=15_000)

SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
TASK_FAILURES = (
    Path(__file__).resolve().parents[2] / "var" / f"server-task-failures-{os.getpid()}.log"
)
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = pytest.mark.browser


def pytest_collection_modifyitems(items):
    for item in items:
        if "/e2e/" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {
        **browser_type_launch_args,
        "executable_path": "/usr/bin/chromium",
        "args": CHROMIUM_ARGS,
    }


@pytest.fixture(scope="session")
def site_mailbox():
    """The SMTP server the browser tests' site sends its mails to (EMAIL_URL, read by the
    server's settings when it starts): a reset link reaches the test as it would a mailbox."""
    from tests.mailbox import Mailbox

    box = Mailbox().start()
    os.environ["EMAIL_URL"] = box.url
    yield box
    os.environ.pop("EMAIL_URL", None)
    box.stop()


@pytest.fixture(scope="session")
def daphne_url(django_db_setup, django_db_blocker, site_mailbox):
    from channels.testing.live import set_database_connection
    from daphne.testing import DaphneProcess
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
    from django.db import connection

    from tests.e2e.in_server import make_application

    # A forked child inherits the parent's event-loop state and breaks websocket handshakes.
    multiprocessing.set_start_method("spawn", force=True)
    # The server's in-process task runner writes a failed task's report here (games.core.dispatch);
    # `_server_tasks_did_not_fail` fails the test during which it was written.
    TASK_FAILURES.parent.mkdir(parents=True, exist_ok=True)
    TASK_FAILURES.write_text("")
    os.environ["SETBACK_TASK_FAILURES"] = str(TASK_FAILURES)
    # The spawned server reads its test database's name from its own fresh settings: under
    # pytest-xdist each worker's SQLite file bears a suffix (…_gw0) that only this process knows.
    if connection.vendor == "sqlite":
        os.environ["SETBACK_TEST_SQLITE"] = connection.settings_dict["NAME"]
    server = DaphneProcess(
        "127.0.0.1",
        # The site, and a path for calls a test runs in the server's process (in_server.py).
        partial(make_application, static_wrapper=ASGIStaticFilesHandler),
        setup=set_database_connection,
    )
    server.start()
    if not server.ready.wait(timeout=60):
        server.terminate()
        raise RuntimeError("Daphne did not start")
    yield f"http://127.0.0.1:{server.port.value}"
    server.terminate()
    server.join(timeout=10)


@pytest.fixture
def site(daphne_url, transactional_db):
    """The live site's base URL, with a clean database for each test."""
    return daphne_url


@pytest.fixture
def in_server(site):
    """`in_server(function, *args, **kwargs)`: run a function in the site's server process and
    get its result (tests/e2e/in_server.py): for a change the pages must hear of."""
    from tests.e2e.in_server import call

    return partial(call, site)


@pytest.fixture(autouse=True)
def _server_tasks_did_not_fail(request):
    """A bot or coach task that raised in the test's server fails the test (not only a log line)."""
    if "site" not in request.fixturenames:
        yield
        return
    request.getfixturevalue("site")
    start = TASK_FAILURES.stat().st_size
    yield
    with TASK_FAILURES.open(encoding="utf-8") as journal:
        journal.seek(start)
        reports = journal.read()
    if reports:
        pytest.fail("a bot or coach task raised in the server during the test:\n" + reports)


@pytest.fixture
def screenshot(page):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(name: str):
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)

    return take


@pytest.fixture(autouse=True)
def _allow_sync_orm_beside_playwright():
    # Playwright's sync API runs an event loop in this thread; the ORM calls in the test body
    # are still plain synchronous code.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
