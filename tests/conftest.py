"""Fixtures shared by every test layer.

The same suite runs twice in CI: on the embedded defaults (SQLite, in-memory channel layer,
tasks on an in-process thread pool) and with DATABASE_URL and REDIS_URL set, when this file
starts a real Celery worker process on the test database.
"""

import os
import shutil
import subprocess
import sys
import time
import uuid

import pytest
from channels.layers import channel_layers
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

# A property test is judged on what it finds, not on how fast a busy machine runs an example.
hypothesis_settings.register_profile(
    "setback", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
hypothesis_settings.load_profile("setback")

# The settings a test run changes, and why, are in tests/settings.py (DIFFERENCES).

CHROMIUM = "/usr/bin/chromium"


def pytest_collection_modifyitems(config, items):
    from django.conf import settings
    from django.db import connection

    on_postgres = connection.vendor == "postgresql"
    with_services = bool(settings.CELERY_BROKER_URL)
    for item in items:
        if "pg" in item.keywords or "services" in item.keywords:
            item.add_marker(pytest.mark.real_services)
        if "pg" in item.keywords and not on_postgres:
            item.add_marker(pytest.mark.skip(reason="needs PostgreSQL (DATABASE_URL)"))
        if "services" in item.keywords and not with_services:
            item.add_marker(pytest.mark.skip(reason="needs REDIS_URL and a Celery worker"))
        if "browser" in item.keywords and not os.path.exists(CHROMIUM):
            item.add_marker(pytest.mark.skip(reason=f"needs Debian's Chromium at {CHROMIUM}"))


def pytest_terminal_summary(terminalreporter):
    """Every run says how its settings differ from what `make run` uses, and why."""
    from tests.settings import DIFFERENCES

    terminalreporter.section("settings this run changes from make run's (tests/settings.py)")
    for name, why in sorted(DIFFERENCES.items()):
        terminalreporter.line(f"{name}: {why}")


@pytest.fixture(autouse=True)
def _a_channel_layer_of_its_own():
    """Each test ends by dropping the process's channel layer, so the next one starts with a new
    one, as a Daphne process has one layer for its one event loop. Every test runs on a new event
    loop (pytest-asyncio), and the Redis layer keeps receive state that belongs to one loop (a
    lock, a count of receivers, the loop receiving): left to a later test, its consumers fail
    with "is bound to a different event loop"."""
    yield
    channel_layers.backends.clear()


def database_url(settings_dict) -> str:
    user = settings_dict.get("USER") or ""
    password = settings_dict.get("PASSWORD") or ""
    auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host = settings_dict.get("HOST") or "127.0.0.1"
    port = settings_dict.get("PORT") or 5432
    return f"postgres://{auth}{host}:{port}/{settings_dict['NAME']}"


@pytest.fixture(scope="session", autouse=True)
def celery_worker_process(django_db_setup, django_db_blocker):
    """With REDIS_URL set: a real worker process on the test database, on queues of its own.

    The queues are named after this test process so that two test runs sharing one Redis never
    take each other's tasks.
    """
    from django.conf import settings
    from django.db import connection

    from setback_site.celery import app

    if not settings.CELERY_BROKER_URL:
        yield None
        return
    prefix = f"test{os.getpid()}"
    queues = {name: f"{prefix}-{name}" for name in settings.QUEUE_NAMES}
    # Processes started later (the browser tests' Daphne server) read their settings afresh
    # from the environment: they must enqueue onto these queues too, or no worker hears them.
    os.environ["SETBACK_QUEUE_PREFIX"] = f"{prefix}-"
    app.conf.task_default_queue = queues["bots"]
    app.conf.task_routes = {
        pattern: {"queue": f"{prefix}-{route['queue'].removeprefix(settings.QUEUE_PREFIX)}"}
        for pattern, route in settings.CELERY_TASK_ROUTES.items()
    }
    hostname = f"{prefix}@localhost"
    env = {
        **os.environ,
        "DATABASE_URL": database_url(connection.settings_dict),
        "BOT_PACE_SECONDS": "0",
    }
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "setback_site",
            "worker",
            "--pool=threads",
            "--concurrency=4",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "--loglevel=WARNING",
            "-n",
            hostname,
            "-Q",
            ",".join(queues.values()),
        ],
        env=env,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        replies = app.control.ping(destination=[hostname], timeout=1.0)
        if replies:
            break
        if worker.poll() is not None:
            raise RuntimeError("the Celery worker exited at start-up")
    else:
        worker.kill()
        raise RuntimeError("the Celery worker did not answer a ping within 60 s")
    yield {"process": worker, "hostname": hostname, "queues": queues}
    worker.terminate()
    try:
        worker.wait(timeout=20)
    except subprocess.TimeoutExpired:
        worker.kill()


@pytest.fixture(autouse=True)
def _a_test_s_work_ends_with_it(request):
    """Nothing a test started may touch the database once the test is over, and a background
    task that raised fails the test that started it (the in-process runner keeps its report).

    Tasks on in-process threads are waited for. A transactional test's database is flushed
    when it ends, and a match left going there (a shared table whose people have gone plays on
    with stand-in bots, in a worker or a browser test's server) races that flush: on
    PostgreSQL the TRUNCATE can deadlock with a move's transaction and the next test finds the
    last one's rows. So those matches are ended (services refuse moves on a match that is not
    playing) and the test waits until no other connection is mid-transaction. The database
    fixture is set up first so that this teardown runs before its flush.
    """
    marker = request.node.get_closest_marker("django_db")
    transactional = "transactional_db" in request.fixturenames or bool(
        marker and marker.kwargs.get("transaction")
    )
    if transactional:
        request.getfixturevalue("transactional_db")
    from games.core.dispatch import cancel_delayed_tasks, take_failures, wait_for_in_process_tasks

    take_failures()  # an earlier test's stragglers are not this test's
    yield
    if transactional:
        from games.models import Match

        Match.objects.exclude(status=Match.Status.FINISHED).update(status=Match.Status.FINISHED)
    cancel_delayed_tasks()  # stand-in timers of shared tables: their tests have ended
    wait_for_in_process_tasks(timeout=60)
    if transactional:
        _wait_until_no_other_connection_is_busy(request)
    failures = take_failures()
    if failures:
        pytest.fail("a bot or coach task raised during the test:\n" + "\n".join(failures))


def _wait_until_no_other_connection_is_busy(request, timeout: float = 15.0):
    from django.db import connection

    if connection.vendor != "postgresql":
        if "browser" in request.keywords:
            time.sleep(0.5)  # SQLite cannot list the server's connections; let a move end
        return
    _wait_until_postgres_is_quiet(timeout)


def _wait_until_postgres_is_quiet(timeout: float = 15.0):
    from django.db import connection

    quiet_polls = 0
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while quiet_polls < 2 and time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid() AND state IN ('active', 'idle in transaction')"
            )
            quiet_polls = quiet_polls + 1 if cursor.fetchone()[0] == 0 else 0
            time.sleep(0.05)


@pytest.fixture(scope="session", autouse=True)
def _flush_outlives_a_deadlock():
    """A transactional test's flush is tried again if PostgreSQL picks it as a deadlock's victim.

    The quiet wait above cannot stop a task that starts after it: the worker's next bot task,
    told its match has ended, still reads the match and its deal, and its locks, taken in
    another order than the flush's TRUNCATE, can deadlock with it (the flush fails, and the next
    test finds the last one's user). The flush is one transaction, so a deadlock leaves nothing half done, and the next try wins once the
    other connection has finished.
    """
    from django.test import TransactionTestCase

    flush = TransactionTestCase._fixture_teardown

    def flush_retrying_deadlocks(self):
        for attempt in range(1, 6):
            try:
                return flush(self)
            except Exception as error:
                if attempt == 5 or not _caused_by_deadlock(error):
                    raise
                _wait_until_postgres_is_quiet()

    TransactionTestCase._fixture_teardown = flush_retrying_deadlocks
    yield
    TransactionTestCase._fixture_teardown = flush


def _caused_by_deadlock(error: BaseException | None) -> bool:
    while error is not None:
        if getattr(error, "sqlstate", None) == "40P01":  # PostgreSQL's deadlock_detected
            return True
        error = error.__cause__ or error.__context__
    return False


@pytest.fixture(autouse=True)
def _request_limits_count_from_zero(settings):
    """Each test counts its requests from zero: a namespace of its own in the cache, which may
    be shared (Redis) and so is never cleared."""
    settings.REQUEST_LIMITS_NAMESPACE = uuid.uuid4().hex


@pytest.fixture(autouse=True)
def _no_cached_reads_from_an_earlier_test():
    """The in-process cache starts empty for each test. Cached reads are keyed by the newest
    row's id (games/stats/players.py), and SQLite hands a rolled-back test's ids out again, so
    an earlier test's leaderboard was served for this one's rows. (PostgreSQL's sequences never
    go back: the shared Redis cache of the second pass is left alone.)"""
    from django.core.cache import caches
    from django.core.cache.backends.locmem import LocMemCache

    if isinstance(caches["default"], LocMemCache):
        caches["default"].clear()


@pytest.fixture
def searches_in_this_process(settings):
    """Searches on the task threads of this process instead of search processes of their own:
    for a test that stands a slow or counting search in for the real one (a function of the
    test's, which a search process could not load). Every other test runs the processes."""
    settings.SEARCH_PROCESSES = 0


@pytest.fixture
def password():
    return "correct-horse-battery-staple"


@pytest.fixture
def make_user(db, password):
    from accounts.models import User

    def make(username="alice"):
        return User.objects.create_user(username=username, password=password)

    return make


@pytest.fixture
def user(make_user):
    return make_user("alice")


@pytest.fixture
def bob(make_user):
    return make_user("bob")


@pytest.fixture
def carol(make_user):
    return make_user("carol")


@pytest.fixture
def logged_in_client(client, user):
    client.force_login(user)
    return client


def chromium_available() -> bool:
    return shutil.which(CHROMIUM) is not None


@pytest.fixture
def send_and_collect(django_capture_on_commit_callbacks):
    """Make a call (a request, a service) and return its result and the mails it sent.

    The site sends a mail through the task queue once the request's transaction commits
    (games.core.mail); inside a test's transaction the commit hooks are run here, then the
    in-process task is waited for. Mails land in Django's test outbox unless a test sets a
    backend."""
    from django.core import mail

    from games.core.dispatch import wait_for_in_process_tasks

    def run(call, *args, **kwargs):
        before = len(mail.outbox)
        with django_capture_on_commit_callbacks(execute=True):
            result = call(*args, **kwargs)
        assert wait_for_in_process_tasks()
        return result, mail.outbox[before:]

    return run


@pytest.fixture
def mailbox():
    """A real SMTP server on this machine, receiving what the site sends through SMTP."""
    from tests.mailbox import Mailbox

    box = Mailbox().start()
    yield box
    box.stop()
