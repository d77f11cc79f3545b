"""Bots never wait behind offline checks or analysis: each kind of work has a queue and, in a
deployment, workers of its own (`make worker` starts one per queue). Issue 45: a flood of offline
uploads queued on the worker that also served the bots."""

import os
import subprocess
import sys
import uuid

import pytest
import redis
from django.conf import settings
from django.db import connection

from games.offline.tasks import check_offline_deal
from games.web.tasks import report_worker
from setback_site.celery import app
from tests.conftest import database_url

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

FLOOD = 12


def _bots_worker(prefix: str, name: str) -> subprocess.Popen:
    """A worker as `make worker-bots` starts it: the bots' queue only."""
    env = {**os.environ, "DATABASE_URL": database_url(connection.settings_dict)}
    env["SETBACK_QUEUE_PREFIX"] = prefix
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "setback_site", "worker", "--pool=threads"]
        + ["--concurrency=2", "--without-gossip", "--without-mingle", "--without-heartbeat"]
        + ["--loglevel=WARNING", "-n", name, "-Q", f"{prefix}bots"],
        env=env,
    )
    for _ in range(60):
        if app.control.ping(destination=[name], timeout=1.0):
            return worker
    worker.kill()
    raise RuntimeError("the bots' worker did not start")


def test_a_flood_of_checks_waits_on_its_own_queue_while_the_bots_worker_answers():
    prefix = f"queues{uuid.uuid4().hex[:8]}-"
    name = f"{prefix}bots@localhost"
    worker = _bots_worker(prefix, name)
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    try:
        for upload_id in range(FLOOD):
            check_offline_deal.apply_async(args=(10**9 + upload_id,), queue=f"{prefix}checks")
        answer = report_worker.apply_async(queue=f"{prefix}bots").get(timeout=30)
        assert answer["pid"] == worker.pid
        # The checks were never taken by the bots' worker: they wait for a checks worker.
        assert broker.llen(f"{prefix}checks") == FLOOD
    finally:
        worker.terminate()
        worker.wait(timeout=20)
        broker.delete(f"{prefix}checks", f"{prefix}bots")


def test_each_kind_of_work_is_routed_to_its_own_queue():
    route = app.amqp.router.route
    queue = {
        task: route({}, task)["queue"].name.rsplit("-", 1)[-1]
        for task in (
            "games.web.tasks.play_bot_turn",
            "games.replay.tasks.analyse_faceup",
            "games.coach.tasks.review_deal",
            "games.offline.tasks.check_offline_deal",
            "accounts.tasks.build_data_download",
        )
    }
    assert queue == {
        "games.web.tasks.play_bot_turn": "bots",
        "games.replay.tasks.analyse_faceup": "coach",
        "games.coach.tasks.review_deal": "coach",
        "games.offline.tasks.check_offline_deal": "checks",
        "accounts.tasks.build_data_download": "checks",
    }


def test_make_worker_starts_one_process_per_queue():
    plan = subprocess.run(
        ["make", "-n", "--no-print-directory", "worker-bots", "worker-analysis", "worker-checks"],
        capture_output=True,
        text=True,
        env={**os.environ, "REDIS_URL": "redis://127.0.0.1:6379/0"},
        check=True,
        cwd=settings.BASE_DIR,
    ).stdout
    commands = [line for line in plan.splitlines() if "celery -A setback_site worker" in line]
    queues = [line.split("--queues ")[1].split()[0] for line in commands]
    assert queues == [
        "${SETBACK_QUEUE_PREFIX}bots",
        "${SETBACK_QUEUE_PREFIX}coach",
        "${SETBACK_QUEUE_PREFIX}checks",
    ]
