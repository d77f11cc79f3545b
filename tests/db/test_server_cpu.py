"""The load test's CPU figure counts the site's processes and nothing else (issue 31)."""

import os
import subprocess
import sys

from benchmarks import server_cpu


def test_the_sites_processes_are_told_apart_from_another_databases_and_the_load_generator():
    kind = server_cpu._kind_of
    assert kind("/x/.venv/bin/celery -A setback_site worker --queues bots", "setback", True) == (
        "worker"
    )
    assert kind("postgres: root setback 127.0.0.1(41234) idle", "setback", True) == "postgres"
    assert kind("postgres: 15/main: checkpointer ", "setback", True) == "postgres"
    assert kind("postgres: root test_setback 127.0.0.1(41235) idle", "setback", True) is None
    assert kind("postgres: root setback 127.0.0.1(41234) idle", None, True) is None  # SQLite
    assert kind("redis-server 127.0.0.1:6379", "setback", False) is None  # no Redis in use
    assert kind("/x/.venv/bin/python manage.py loadtest --tables 10", "setback", True) is None


def test_cpu_is_counted_from_the_first_sample_and_for_a_process_that_started_since():
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        processes = [
            server_cpu.Process(busy.pid, "daphne"),
            server_cpu.Process(os.getpid(), "search"),
        ]
        before = server_cpu.sample(processes[:1])  # this one was found later
        deadline = server_cpu.cpu_seconds(busy.pid) + 0.3
        while server_cpu.cpu_seconds(busy.pid) < deadline:
            pass  # this process spins too, until the other has used 0.3 s more
        after = server_cpu.sample(processes)
        used = server_cpu.used(processes, before, after)
        assert used["daphne"] >= 0.3
        assert used["search"] >= 0.3  # counted from nothing: it was not there at the start
    finally:
        busy.kill()
