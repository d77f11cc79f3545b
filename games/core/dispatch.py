"""Where background work runs: on Celery workers when a broker is configured, else in-process.

Without REDIS_URL (`make run` on a laptop) there is no worker, so tasks run on small thread
pools inside the web process, one per Celery queue. They never run on the ASGI event loop, and
their searches (a bot's decision, the coach's advice) run in separate, lower-priority processes
(`games/core/searches.py`): a search on a thread of the web process would hold its interpreter lock,
and pages would wait for it (40 hard matches with the coach on took the login page from 8 ms to
over a second).
Callers always go through `enqueue`, usually from `transaction.on_commit`, so a task never sees
a move that was rolled back.
"""

import contextlib
import fnmatch
import logging
import os
import threading
import time
import traceback
from concurrent.futures import Future, ThreadPoolExecutor
from importlib import import_module

from celery.utils.time import get_exponential_backoff_interval
from django.conf import settings
from django.db import InterfaceError, OperationalError, close_old_connections, connections
from kombu.exceptions import OperationalError as BrokerError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from games.core import hooks, searches

log = logging.getLogger(__name__)

# Errors that go away by themselves: the database or Redis restarting, a connection they cut.
TRANSIENT = (OperationalError, InterfaceError, BrokerError, RedisConnectionError, RedisTimeoutError)

# One pool of threads per Celery queue, as workers have one queue each: a person's face-up
# analyses or reviews, waiting on their search processes, once held every thread, and no bot
# could move at any table. Offline checks and data downloads ("checks") run one at a time:
# their searches have a process of their own (searches.Lane.CHECKS), and the budget
# (games/core/budget.py) bounds how many wait.
_pools: dict[str, ThreadPoolExecutor] = {}
THREADS_PER_QUEUE = {"bots": 4, "coach": 2, "checks": 1}
_pool_lock = threading.Lock()
_pending: set[Future] = set()
_failures: list[str] = []
# A task with a countdown (a bot's pace, a stand-in's timer, a retry's backoff) waits on a timer
# of its own, never in a pool thread: a pool thread asleep for a bot's 0.7 s pace held up every
# other table's bot (with 20 tables in play, 5 bot moves a second in all and 10 s for one's turn
# to come back). Tests cancel the timers still waiting when they end.
# The longest delay handed to the broker. Redis gives an unacknowledged task (a delayed one is
# held unacknowledged by the worker that took it) to another worker after the visibility
# timeout, and a task held by a worker that died comes back only then: longer waits are stored
# as due times and the sweeper (games/web/sweeper.py) enqueues them when they are due.
LONGEST_COUNTDOWN = 30.0
_timers: set[threading.Timer] = set()
# The calls queued or running on the pools, by task and arguments: the same call enqueued again
# meanwhile shares the first's run. Every task is idempotent on its arguments (a turn names its
# version), so a second run would only repeat the first's work, and here it cannot be lost as a
# worker's message can. The sweeper also wakes a bot that is slow, not lost (a busy machine, a
# queue of searches): were each wake-up queued again, the queue would grow as it was swept.
_calls: dict[tuple, Future] = {}


def _in_process_pool(queue: str) -> ThreadPoolExecutor:
    with _pool_lock:
        pool = _pools.get(queue)
        if pool is None:
            pool = _pools[queue] = ThreadPoolExecutor(
                max_workers=THREADS_PER_QUEUE.get(queue.removeprefix(settings.QUEUE_PREFIX), 2),
                thread_name_prefix=f"setback-{queue}",
            )
        return pool


def queue_of(task) -> str:
    """The queue a task goes to, as Celery routes it (settings.CELERY_TASK_ROUTES)."""
    for pattern, route in settings.CELERY_TASK_ROUTES.items():
        if fnmatch.fnmatchcase(task.name, pattern):
            return route["queue"]
    return settings.CELERY_TASK_DEFAULT_QUEUE


def _call_key(task, args, kwargs) -> tuple:
    return task.name, args, tuple(sorted(kwargs.items()))


def _run_in_thread(task, args, kwargs, retries: int = 0):
    close_old_connections()
    try:
        try:
            # The task's own body, without Celery's eager retry (`task.apply` runs a retry again
            # at once, so a database restart would use up every retry in milliseconds): a
            # transient error waits the same backoff as on a worker (tasks.RETRY), on a timer.
            return getattr(task, "_orig_run", task.run)(*args, **kwargs)
        finally:
            # Done with the work: the same call enqueued from now on (its retry among them)
            # runs again.
            with _pool_lock:
                _calls.pop(_call_key(task, args, kwargs), None)
    except searches.Stopping:
        # Ctrl-C or SIGTERM while tasks were still running: not a failure; the turn waits in the
        # database, and the sweeper wakes it after the restart (games/web/sweeper.py).
        log.warning("task %s%r: the process is stopping; left for the sweeper", task.name, args)
    except getattr(task, "autoretry_for", ()) as error:
        if task.max_retries is None or retries < task.max_retries:
            delay = retry_delay(task, retries)
            log.warning(
                "task %s%r: %r; retry %d in %.1f s", task.name, args, error, retries + 1, delay
            )
            _submit(task, args, kwargs, delay, retries + 1)
        else:
            _fail(task, args, error)
    except Exception as error:  # noqa: BLE001 - a failed task is logged and reported, as on a worker
        _fail(task, args, error)
    finally:
        # Each pool thread holds its own connection; never leave it open between tasks.
        connections.close_all()


def retry_delay(task, retries: int) -> float:
    """The wait before retry number `retries + 1`, as Celery's autoretry computes it."""
    if not task.retry_backoff:
        return min(task.default_retry_delay, LONGEST_COUNTDOWN)
    return get_exponential_backoff_interval(
        factor=int(max(1.0, task.retry_backoff)),
        retries=retries,
        maximum=task.retry_backoff_max,
        full_jitter=task.retry_jitter,
    )


def _fail(task, args, error: BaseException) -> None:
    log.error("task %s%r failed", task.name, args, exc_info=error)
    trace = "".join(traceback.format_exception(error))
    _record_failure(f"{task.name}{args!r} raised {error!r}\n{trace}")


def _record_failure(report: str) -> None:
    """Keep a failed task's report for `take_failures` (tests fail on it); with
    SETBACK_TASK_FAILURES set, also append it to that file (a test's server in another process)."""
    with _pool_lock:
        _failures.append(report)
    path = os.environ.get("SETBACK_TASK_FAILURES")
    if path:
        with open(path, "a", encoding="utf-8") as journal:
            journal.write(report.replace("\n", "\n    ") + "\n")


def take_failures() -> list[str]:
    """The reports of the in-process tasks that raised since the last call (for tests)."""
    with _pool_lock:
        failures = list(_failures)
        _failures.clear()
    return failures


def uses_workers() -> bool:
    return bool(settings.CELERY_BROKER_URL)


def start_in_process_sweeper() -> None:
    """Without a broker there is no worker to sweep for lost turns: the web process does it,
    from the first table it serves or the first task it runs (games/web/sweeper.py)."""
    if not uses_workers():
        hooks.in_process_tasks_started()  # games/apps.py: sweeper.start_watchdog


def task_named(name: str):
    """The task Celery knows as `name` (e.g. "games.coach.tasks.review_deal"): a service
    enqueues its own app's task without importing the tasks module, which imports the service.
    Its module is imported by name here (Python's import lock makes threads wait for it):
    Celery's own registry is filled by its autodiscovery, once, on the first thread that asks,
    and a request thread asking meanwhile found it without the lobby's task (a 500 in the soak)."""
    module, _, attribute = name.rpartition(".")
    return getattr(import_module(module), attribute)


def enqueue(task, *args, countdown: float = 0, **kwargs) -> Future | None:
    """Run `task(*args, **kwargs)` in the background, after `countdown` seconds."""
    if countdown > LONGEST_COUNTDOWN:
        raise ValueError(
            f"a countdown of {countdown} s is longer than {LONGEST_COUNTDOWN} s: store a due time"
        )
    if uses_workers():
        task.apply_async(args=args, kwargs=kwargs, countdown=countdown or None)
        return None
    start_in_process_sweeper()
    return _submit(task, args, kwargs, countdown)


def _submit(task, args, kwargs, countdown: float, retries: int = 0) -> Future | None:
    if countdown > 0:
        timer = threading.Timer(countdown, _fire, args=(task, args, kwargs, retries))
        timer.daemon = True
        with _pool_lock:
            _timers.add(timer)
        timer.start()
        return None
    key = _call_key(task, args, kwargs)
    pool = _in_process_pool(queue_of(task))
    with _pool_lock:
        queued_or_running = _calls.get(key)
        if queued_or_running is not None:
            return queued_or_running
        future = _calls[key] = pool.submit(_run_in_thread, task, args, kwargs, retries)
        _pending.add(future)
    future.add_done_callback(_forget)
    return future


def _fire(task, args, kwargs, retries: int) -> None:
    with _pool_lock:
        _timers.discard(threading.current_thread())  # this timer has fired
    _submit(task, args, kwargs, 0, retries)


def cancel_delayed_tasks() -> int:
    """Forget the in-process tasks still waiting on their countdown (for tests). Returns how many."""
    with _pool_lock:
        timers = list(_timers)
        _timers.clear()
    for timer in timers:
        timer.cancel()
    return len(timers)


def _forget(future: Future) -> None:
    with _pool_lock:
        _pending.discard(future)


def wait_for_in_process_tasks(timeout: float = 30) -> bool:
    """Block until the in-process tasks (and the ones they enqueue) are done; for tests and
    shutdown. Returns False if some were still running after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with _pool_lock:
            running = list(_pending)
        if not running:
            return True
        for future in running:
            with contextlib.suppress(Exception):  # the task logged its own failure
                future.result(timeout=max(0.0, deadline - time.monotonic()))
    return False
