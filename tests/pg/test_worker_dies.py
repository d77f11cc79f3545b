"""A bot turn survives its worker dying: the broker hands the move to another worker."""

import os
import signal
import subprocess
import sys
import time

import pytest
from django.db import connection

from games.core import services, turns
from games.core.turns import WaitingFor
from games.models import Match
from games.web.tasks import play_bot_turn
from setback_site.celery import app
from tests.conftest import database_url
from tests.db.play import opened_by

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

VISIBILITY_SECONDS = 3


def start_worker(prefix: str, name: str) -> subprocess.Popen:
    env = {
        **os.environ,
        "DATABASE_URL": database_url(connection.settings_dict),
        "SETBACK_QUEUE_PREFIX": prefix,
        "CELERY_VISIBILITY_TIMEOUT": str(VISIBILITY_SECONDS),
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
            "--concurrency=2",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "--loglevel=WARNING",
            "-n",
            name,
            "-Q",
            f"{prefix}bots",
        ],
        env=env,
    )
    for _ in range(60):
        if app.control.ping(destination=[name], timeout=1.0):
            return worker
    worker.kill()
    raise RuntimeError("worker did not start")


def holds_a_task(name: str) -> bool:
    """Whether the worker has taken a task from the queue (waiting for its countdown)."""
    scheduled = app.control.inspect(destination=[name], timeout=1.0).scheduled() or {}
    return bool(scheduled.get(name))


def test_a_bot_turn_survives_its_worker_being_killed(user, monkeypatch):
    prefix = f"dying{os.getpid()}-"
    with monkeypatch.context() as quiet:  # no task from creating the match: we send our own
        quiet.setattr(services, "announce_after_commit", lambda match, deal_row=None: None)
        match = services.do_start_match(
            user, rules_spec="house", bot_level="easy", rng=opened_by("W")
        )
    assert turns.waiting_on(match.pk).kind == WaitingFor.BOT  # West, a bot, opens
    doomed_name = f"doomed{os.getpid()}@localhost"
    doomed = start_worker(prefix, doomed_name)
    # The worker takes the move (held until its countdown ends), then dies without a word.
    play_bot_turn.apply_async((match.pk, 0), queue=f"{prefix}bots", countdown=4)
    deadline = time.monotonic() + 30
    while not holds_a_task(doomed_name):
        assert time.monotonic() < deadline, "the worker never took the move"
    taken_at = time.monotonic()
    doomed.send_signal(signal.SIGKILL)
    doomed.wait(timeout=10)
    assert Match.objects.get(pk=match.pk).version == 0  # the move died with the worker
    # Redis hands an unacknowledged task to another worker only once the broker's visibility
    # timeout has passed since it was delivered; the heir comes after that, as a worker
    # restarted later would (one started earlier would find it only at its next periodic check).
    time.sleep(max(0.0, taken_at + VISIBILITY_SECONDS + 1 - time.monotonic()))

    heir = start_worker(prefix, f"heir{os.getpid()}@localhost")
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and Match.objects.get(pk=match.pk).version == 0:
            time.sleep(0.5)
        assert Match.objects.get(pk=match.pk).version > 0, "no other worker made the move"
    finally:
        heir.terminate()
        heir.wait(timeout=20)
