"""Where CPU-heavy searches run: a bot's decision, the coach's advice, a review, the face-up solver.

Every search goes through `compute`, in one of three lanes: `PLAY` (a bot or a stand-in moving:
a table waits on it), `ANALYSIS` (something a person asked for: advice, a review, a face-up
solve) and `CHECKS` (an offline deal's bot moves decided again: nobody watches it). With Celery
workers a search runs on the worker that took its task (each lane has a queue and workers of
its own). Without workers (`make run`), the web process hands it to processes of its own, one
pool per lane, below the web's priority: a search on a thread of the web process would hold its
interpreter lock and pages would wait for it, a pool shared by both lanes let one person's
analyses hold up every table's bots, and twelve offline uploads in the analysis process held
another person's face-up step for 70 s (issue 45).

Only plain values cross into a search process: the engine's objects, strings, numbers. A search
process is spawned without Django, so a model or a Django enum (even a `BotLevel`) would kill it
while unpickling; `compute` refuses such an argument before it leaves (`NotPlain`), and
tests/security/test_search_processes.py loads what every caller hands it in a process without
Django. A search process that dies (the
out-of-memory killer, a crash) breaks its pool: the pool is replaced and the search tried once
more, so one lost process costs one retry, never the site.
"""

import enum
import io
import logging
import multiprocessing
import os
import pickle
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from django.conf import settings

log = logging.getLogger(__name__)


class Lane(enum.StrEnum):
    PLAY = "play"  # a bot's or a stand-in's move: a table waits on it
    ANALYSIS = "analysis"  # advice, a review, a face-up solve: one person waits on it
    CHECKS = "checks"  # an offline deal's check: nobody waits on it


# Searches run below the web process's priority, analysis below play: a page request wins the
# CPU, then a table's move, then a person's analysis. Each step about halves the CPU share (the
# kernel's weights for 0, 3 and 6 are 1024, 526 and 272). Deeper (10 and 15) kept the login page
# a few ms faster under 40 hard-bot matches (docs/security.md) but left analysis about 1.4% of a
# core beside other busy programs: the coach's answers took minutes on a shared machine.
# Checks come last, well below analysis (a weight of 110 beside analysis's 272).
NICENESS = {Lane.PLAY: 3, Lane.ANALYSIS: 6, Lane.CHECKS: 10}
ANALYSIS_PROCESSES = 1
CHECK_PROCESSES = 1
# How often a search process looks whether the web process that started it is still there.
PARENT_CHECK_SECONDS = 1.0


class Stopping(RuntimeError):
    """The process is shutting down: no new search can start (its turn is played after the
    restart, by the sweeper)."""


class NotPlain(TypeError):
    """An argument of a search that a process without Django could not unpickle."""


def _plain_module(module: str) -> bool:
    return module.startswith("games.engine") or module.partition(".")[0] in sys.stdlib_module_names


class _PlainPickler(pickle.Pickler):
    def reducer_override(self, obj):
        owner = obj if isinstance(obj, type) or callable(obj) else type(obj)
        module = getattr(owner, "__module__", None) or ""
        if not _plain_module(module):
            raise NotPlain(
                f"{owner.__qualname__} (from {module}) cannot cross into a search process: "
                "pass the engine's objects, strings and numbers only (str() a Django enum)"
            )
        return NotImplemented


def pickled_call(function, args: tuple, kwargs: dict) -> bytes:
    """The call as bytes a process without Django can load; `NotPlain` if it cannot."""
    buffer = io.BytesIO()
    _PlainPickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump((function, args, kwargs))
    return buffer.getvalue()


def run_pickled(call: bytes):
    """Run a call made by `pickled_call` (in a search process)."""
    function, args, kwargs = pickle.loads(call)  # noqa: S301 - bytes made by this process's parent
    return function(*args, **kwargs)


_pools: dict[Lane, ProcessPoolExecutor] = {}
_pools_lock = threading.Lock()


def _uses_workers() -> bool:
    return bool(settings.CELERY_BROKER_URL)


def _processes(lane: Lane) -> int:
    if lane == Lane.PLAY:
        return settings.SEARCH_PROCESSES
    return CHECK_PROCESSES if lane == Lane.CHECKS else ANALYSIS_PROCESSES


def _pool(lane: Lane) -> ProcessPoolExecutor:
    with _pools_lock:
        pool = _pools.get(lane)
        if pool is None:
            # Spawned, not forked: a fork of a process running threads and an event loop can
            # inherit a held lock. The engine imports no Django, so a search process is light.
            pool = _pools[lane] = ProcessPoolExecutor(
                max_workers=_processes(lane),
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_search_process,
                initargs=(NICENESS[lane],),
            )
        return pool


def _start_search_process(niceness: int) -> None:
    """A search process's start: below the web's priority, and gone when the web process is.

    A web process that is killed (`kill -9`, the out-of-memory killer) never shuts its pools
    down: without this watch its search processes would wait on their queue for ever."""
    os.nice(niceness)
    threading.Thread(
        target=_exit_when_orphaned, args=(os.getppid(),), name="parent-watch", daemon=True
    ).start()


def _exit_when_orphaned(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(0)


def _replace_broken(lane: Lane, broken: ProcessPoolExecutor) -> None:
    with _pools_lock:
        if _pools.get(lane) is broken:
            del _pools[lane]
    broken.shutdown(wait=False, cancel_futures=True)


def compute(function, *args, lane: Lane = Lane.PLAY, **kwargs):
    """The result of `function(*args, **kwargs)`, a pure-engine search, run in `lane`.

    A Celery worker runs it where it is; the web process (no workers) hands it to the lane's
    search processes and waits without holding its interpreter lock."""
    if _uses_workers() or not settings.SEARCH_PROCESSES:
        return function(*args, **kwargs)
    call = pickled_call(function, args, kwargs)
    for attempt in (1, 2):
        pool = _pool(lane)
        try:
            return _submit(pool, call).result()
        except BrokenProcessPool:
            # A search process died (between searches, or during this one): every search it
            # shared the pool with fails the same way.
            _replace_broken(lane, pool)
            if attempt == 2:
                raise
            log.warning("a %s search process died; trying %s again", lane, function.__name__)
    raise AssertionError("unreachable")


def _submit(pool: ProcessPoolExecutor, call: bytes):
    try:
        return pool.submit(run_pickled, call)
    except BrokenProcessPool:  # itself a RuntimeError: a dead process, not a stop
        raise
    except RuntimeError as error:  # "cannot schedule new futures after shutdown"
        raise Stopping(str(error)) from error


def search_process_ids(lane: Lane) -> list[int]:
    """The process ids of the lane's search processes now (for tests that kill one)."""
    with _pools_lock:
        pool = _pools.get(lane)
        return list(getattr(pool, "_processes", None) or {}) if pool else []


def shut_down() -> None:
    """Stop every search process (tests, shutdown)."""
    with _pools_lock:
        pools = list(_pools.values())
        _pools.clear()
    for pool in pools:
        pool.shutdown(wait=False, cancel_futures=True)
