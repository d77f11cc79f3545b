"""Without a broker, tasks run in the web process with a worker's semantics: a transient error
is retried after the same backoff as on a worker, and a failure is logged and reported."""

import logging
import threading
import time

import pytest
from django.db import OperationalError

from games.core import dispatch
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


ran_in_order: list[str] = []
all_ran = threading.Event()
DELAYED = 6  # more than the pool's threads


@app.task(name="tests.noted")
def noted(name):
    ran_in_order.append(name)
    if len(ran_in_order) == DELAYED + 1:
        all_ran.set()


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
    with caplog.at_level(logging.ERROR, logger="games.core.dispatch"):
        dispatch.enqueue(broken, 7).exception(timeout=10)
    assert any("tests.broken(7,) failed" in r.getMessage() and r.exc_info for r in caplog.records)
    [report] = dispatch.take_failures()
    assert "a bug at table 7" in report and "Traceback" in report


def test_tasks_waiting_on_a_countdown_do_not_hold_up_a_task_due_now():
    # Every table's bot waits its pace (0.7 s) before moving: when those waits slept in the
    # pool's threads, a table whose bot was due now queued behind other tables' waits.
    ran_in_order.clear()
    all_ran.clear()
    for table in range(DELAYED):
        dispatch.enqueue(noted, f"paced bot {table}", countdown=1.5)
    dispatch.enqueue(noted, "bot due now").result(timeout=10)
    assert ran_in_order == ["bot due now"]
    assert all_ran.wait(10)
    assert sorted(ran_in_order[1:]) == [f"paced bot {table}" for table in range(DELAYED)]
