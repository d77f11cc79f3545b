"""The sweeper: finds turns that nobody is going to play and wakes them again.

A bot's turn, an automatic next deal or a stand-in's turn is normally enqueued once, after the
move before it commits. That one message can be lost: its worker was killed or hung, the broker
was down when it was sent, the database refused the task mid-way. The sweeper looks every few
seconds at the tables that have been still for a while and wakes the ones whose turn is overdue
(`services.resume_stalled_turn`), so no table waits for someone to reload the page. A duplicate
wake-up is harmless: a task carries the version it was made for and the service refuses it once
the table has moved on.

It runs on its own: in every Celery worker (a thread started when the worker is ready), or,
when there is no broker (the embedded default, where tasks run in-process too), in the web
process from the first table it serves or the first task it runs.
"""

import logging
import threading
import time
from datetime import timedelta

from django.conf import settings
from django.db import close_old_connections
from django.utils import timezone

from games.core import hooks, services
from games.core.dispatch import TRANSIENT
from games.models import Match
from games.tables.services import MAX_TIMEOUT

log = logging.getLogger(__name__)

# A table still for longer than the longest stand-in timer (plus a margin) is left to the page
# load that wakes it (a person vs bots who walked away at their own turn waits for them anyway).
HORIZON = timedelta(seconds=MAX_TIMEOUT + 120)
BATCH = 200
# Do not wake the same table at the same version again before this many seconds: the first
# wake-up's task may simply still be on its way.
REWAKE_SECONDS = 10.0

_woken: dict[int, tuple[int, float]] = {}
_watchdog: threading.Thread | None = None
_watchdog_lock = threading.Lock()


def sweep() -> int:
    """Wake every table whose turn is overdue. Returns how many were woken."""
    now = timezone.now()
    still = (
        Match.objects.filter(
            status=Match.Status.PLAYING,
            updated_at__lte=now - timedelta(seconds=services.STALL_SECONDS),
            updated_at__gte=now - HORIZON,
        )
        .order_by("-updated_at")
        .values_list("pk", "version")[:BATCH]
    )
    clock = time.monotonic()
    woken = 0
    for match_id, version in still:
        last = _woken.get(match_id)
        if last is not None and last[0] == version and clock - last[1] < REWAKE_SECONDS:
            continue
        try:
            if services.resume_stalled_turn(match_id):
                _woken[match_id] = (version, clock)
                woken += 1
        except TRANSIENT as error:
            # The broker or the database is down: every other table would fail the same way
            # (slowly, each waiting on a connection). The next sweep tries them all again.
            log.warning("sweeper: stopped this sweep: %r", error)
            break
        except Exception:
            log.exception("sweeper: could not wake match %s", match_id)
    for match_id in [m for m, (_, at) in _woken.items() if clock - at > REWAKE_SECONDS]:
        del _woken[match_id]
    if woken:
        log.warning("sweeper: woke %d stalled table(s)", woken)
    return woken


def _run(interval: float) -> None:
    while True:
        try:
            close_old_connections()  # a connection broken by a database restart is replaced
            sweep()
            hooks.sweeping.call_each()
        except Exception:
            log.warning("sweeper: sweep failed; trying again in %.0f s", interval, exc_info=True)
        finally:
            close_old_connections()
        time.sleep(interval)  # a period, not a wait for a condition: the sweeper is a clock


def start_watchdog() -> bool:
    """Start the sweeper thread in this process (once). Off when SWEEP_SECONDS is 0."""
    global _watchdog
    interval = settings.SWEEP_SECONDS
    if not interval:
        return False
    with _watchdog_lock:
        if _watchdog is None or not _watchdog.is_alive():
            _watchdog = threading.Thread(
                target=_run, args=(interval,), name="setback-sweeper", daemon=True
            )
            _watchdog.start()
    return True
