"""The site's settings, for a test run.

The settings refuse to start without a SECRET_KEY, and no key is committed: each test run makes
its own here, before the settings are read. The processes a test starts (Daphne for browser
tests, the Celery worker) inherit it through the environment.
"""

import multiprocessing
import os
import secrets

os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
# No connection pool in test runs (this process and the Daphne and Celery processes it starts):
# the socket tests' many short-lived threads exhausted a pool of 8 on PostgreSQL, and a test
# database is flushed between tests. Open: find what holds the pooled connections.
os.environ.setdefault("DB_POOL", "false")

from setback_site.settings import *  # noqa: E402, F403

# The browser tests' Daphne server (a process spawned by the test process) serves every browser
# test of the run, and no test can reset the counts it keeps in its own memory: its request
# limits and its cap on mails to one address are generous. The limits themselves are tested in
# tests/security and tests/db (test_password_reset.py), in this process.
if multiprocessing.parent_process() is not None:
    REQUEST_LIMITS_PER_MINUTE = {kind: 1000 for kind in REQUEST_LIMITS_PER_MINUTE}  # noqa: F405
    EMAILS_PER_ADDRESS_PER_HOUR = 1000
