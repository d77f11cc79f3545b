"""Without a broker, tasks run in the web process with a worker's semantics: a transient error
is retried after the same backoff as on a worker, and a failure is logged and reported."""

import logging
import threading
import time

import pytest
from django.db import OperationalError

from games import dispatch
from setback_site.celery import app

pytestmark = pytest.mark.skipif(dispatch.uses_workers(), reason="the in-process runtime only")

attempts: list[float] = []
succeeded = threading.Event()


@app.task(
    name="tests.flaky",
    autoretry_for=(OperationalError,),
    retry_backoff=1,
    retry_backoff_max=8,
    retry_jitter=False,
    max_retries=6,
)
def flaky():
    attempts.append(time.monotonic())
    if len(attempts) < 3:
        raise OperationalError("the database is restarting")
    succeeded.set()


@app.task(name="tests.broken")
def broken(table):
    raise ValueError(f"a bug at table {table}")


def test_a_transient_error_is_retried_after_the_workers_backoff_not_at_once():
    attempts.clear()
    succeeded.clear()
    dispatch.enqueue(flaky)
    assert succeeded.wait(10)
    gaps = [later - earlier for earlier, later in zip(attempts, attempts[1:], strict=False)]
    assert len(attempts) == 3 and 0.9 < gaps[0] < 1.5 and 1.9 < gaps[1] < 2.5


def test_a_failed_task_is_logged_as_an_error_with_its_name_and_reported(caplog):
    with caplog.at_level(logging.ERROR, logger="games.dispatch"):
        dispatch.enqueue(broken, 7).exception(timeout=10)
    assert any("tests.broken(7,) failed" in r.getMessage() and r.exc_info for r in caplog.records)
    [report] = dispatch.take_failures()
    assert "a bug at table 7" in report and "Traceback" in report
