"""The site's settings, for a test run: the settings `make run` uses, and every way they differ
listed below with its reason, in this one place. tests/db/test_settings.py prints the list and
fails on any difference that is not in it (a setting the tests change is a place a defect can
hide: issue 28's broken search processes hid behind one).

The settings refuse to start without a SECRET_KEY, and no key is committed: each test run makes
its own here, before the settings are read. The processes a test starts (Daphne for browser
tests, the Celery worker) inherit it, and the variables below, through the environment.
"""

import multiprocessing
import os
import secrets
import tempfile
import urllib.parse

os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))

# Read by the site's settings from the environment, so set before they are imported; the
# processes the tests start inherit them. Variable: (value, the setting it changes, why).
TEST_ENVIRONMENT = {
    "BOT_PACE_SECONDS": (
        "0",
        "BOT_PACE_SECONDS",
        "bots move at once: the 0.7 s pace is for people watching; the journeys "
        "(tests/e2e/journeys) keep a pace, on a server started as `make run` starts it",
    ),
    "SWEEP_SECONDS": (
        "0",
        "SWEEP_SECONDS",
        "no sweeper thread waking tables behind a test's back: the tests of stalls call "
        "sweeper.sweep() themselves; the journeys and the fault suite run the real one",
    ),
    "PAIRING_WAIT_MIN_SECONDS": (
        "1",
        "PAIRING_WAIT_MIN_SECONDS",
        "quick pairing's shortest wait, so a pairing test does not sit for 10 s",
    ),
    "DB_POOL": (
        "false",
        "DATABASES",
        "no PostgreSQL connection pool: the socket tests' many short-lived threads "
        "exhausted a pool of 8, and a test database is flushed between tests",
    ),
    "DATA_DOWNLOAD_SUBPROCESS": (
        "false",
        "DATA_DOWNLOAD_SUBPROCESS",
        "a data download is built on the task's own thread: a process of its own would read "
        "the site's database, not the test's (tests/security/test_data_download.py runs "
        "`manage.py build_data_download` on a file database itself)",
    ),
    "DOWNLOADS_DIR": (
        os.environ.get("DOWNLOADS_DIR") or tempfile.mkdtemp(prefix="setback-test-downloads-"),
        "DOWNLOADS_DIR",
        "a test run's download files go to a folder of its own, not the site's var/downloads",
    ),
}
for _variable, (_value, _setting, _why) in TEST_ENVIRONMENT.items():
    os.environ[_variable] = _value


def redis_database_of_this_test_process(url: str, xdist_worker: str) -> str:
    """REDIS_URL for one pytest process of a run: the URL's own database for the browser pass,
    the next ones for pytest-xdist's workers (gw0, gw1...).

    CI's second pass runs its pytest processes side by side (the Makefile), each on a test
    database of its own whose match numbers start again at 1: on one Redis database, a table's
    events, cached counts and channel groups would reach another process's table of the same
    number.
    """
    if not xdist_worker.startswith("gw"):
        return url
    parts = urllib.parse.urlsplit(url)
    own = int(parts.path.strip("/") or 0) + 1 + int(xdist_worker[2:])
    return urllib.parse.urlunsplit(parts._replace(path=f"/{own}"))


# Chosen once by each pytest process, which notes that it did: the processes it starts (its
# Celery worker, its Daphne server) read these settings again with its environment and keep its
# database. xdist's workers are started by a pytest process too (which chose the URL's own
# database), so the note names the process that chose, and a worker chooses again.
_this_process = os.environ.get("PYTEST_XDIST_WORKER", "")
if os.environ.get("REDIS_URL") and os.environ.get("SETBACK_TEST_REDIS_CHOSEN_BY") != _this_process:
    os.environ["REDIS_URL"] = redis_database_of_this_test_process(
        os.environ["REDIS_URL"], _this_process
    )
    os.environ["SETBACK_TEST_REDIS_CHOSEN_BY"] = _this_process

from setback_site.settings import *  # noqa: E402, F403

# Django's 1,000,000 PBKDF2 iterations made every `create_user` cost about a quarter of a
# second, half of the database and socket tests' time; test_settings.py checks that the site
# itself keeps the strong hasher.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# The browser tests' Daphne server (a process spawned by the test process) serves every browser
# test of the run, and no test can reset the counts it keeps in its own memory: its request
# limits and its cap on mails to one address are generous. The limits themselves are tested in
# tests/security and tests/db (test_password_reset.py), in this process.
if multiprocessing.parent_process() is not None:
    REQUEST_LIMITS_PER_MINUTE = {kind: 1000 for kind in REQUEST_LIMITS_PER_MINUTE}  # noqa: F405
    EMAILS_PER_ADDRESS_PER_HOUR = 1000

# Every setting a test run has that `make run` does not, and why. The first four come from the
# environment above.
DIFFERENCES = {
    **{setting: why for _value, setting, why in TEST_ENVIRONMENT.values()},
    "PASSWORD_HASHERS": "a fast hasher: the strong one made half of the tests' time",
    "REQUEST_LIMITS_PER_MINUTE": "generous in the browser tests' server only (see above)",
    "EMAILS_PER_ADDRESS_PER_HOUR": "generous in the browser tests' server only (see above)",
    "REQUEST_LIMITS_NAMESPACE": "each test counts its requests from zero (tests/conftest.py)",
    # Django's own test environment (django.test.utils.setup_test_environment), not ours:
    "ALLOWED_HOSTS": "Django's test client speaks as 'testserver', which Django adds",
    "EMAIL_BACKEND": "Django keeps mails in memory (mail.outbox); the SMTP path is tested "
    "through EMAIL_URL against a real SMTP server (tests/mailbox.py)",
}
