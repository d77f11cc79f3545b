"""The fault suite runs only through `make faults` (SETBACK_FAULTS=1), in a pytest process of its
own: it points this process's settings at its own PostgreSQL and Redis before Django starts.

    SETBACK_FAULTS=1 .venv/bin/pytest -p no:django --confcutdir=tests/faults tests/faults

Ports (change them with the variables if they are taken): PostgreSQL FAULTS_PG_PORT (5441),
Redis FAULTS_REDIS_PORT (6391), Daphne FAULTS_HTTP_PORT and the next one (8251, 8252).
"""

import json
import os
import secrets
import shutil
import tempfile
from pathlib import Path

import pytest

if not os.environ.get("SETBACK_FAULTS"):
    collect_ignore_glob = ["test_*.py"]
else:
    PG_PORT = int(os.environ.get("FAULTS_PG_PORT", "5441"))
    REDIS_PORT = int(os.environ.get("FAULTS_REDIS_PORT", "6391"))
    HTTP_PORT = int(os.environ.get("FAULTS_HTTP_PORT", "8251"))
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "setback_site.settings",
            "DATABASE_URL": f"postgres://setback@127.0.0.1:{PG_PORT}/postgres",
            "REDIS_URL": f"redis://127.0.0.1:{REDIS_PORT}/0",
            "BOT_PACE_SECONDS": os.environ.get("FAULTS_BOT_PACE", "0.7"),  # the site's default
            "SETBACK_QUEUE_PREFIX": "",
            # The site refuses to start without a key; one per run, shared by its processes.
            "SECRET_KEY": os.environ.get("SECRET_KEY") or secrets.token_urlsafe(50),
            "LOG_LEVEL": "WARNING",
            # Playwright's sync API keeps an event loop in this process's main thread, where the
            # suite also reads the database. Not passed to the site's processes (site.py).
            "DJANGO_ALLOW_ASYNC_UNSAFE": "true",
        }
    )
    import django

    django.setup()

REPORT = Path(__file__).resolve().parents[2] / "var" / "faults"


@pytest.fixture(scope="session")
def site():
    from tests.faults.site import Site

    workdir = Path(tempfile.mkdtemp(prefix="setback-faults-"))
    os.chmod(workdir, 0o755)
    running = Site(workdir, PG_PORT, REDIS_PORT, (HTTP_PORT, HTTP_PORT + 1))
    try:
        running.start()
        yield running
    finally:
        running.stop()
        REPORT.mkdir(parents=True, exist_ok=True)
        for log in workdir.glob("*.log"):
            shutil.copy(log, REPORT / log.name)
        (REPORT / "results.json").write_text(json.dumps(running.results, indent=2))
        shutil.rmtree(workdir, ignore_errors=True)


def pytest_terminal_summary(terminalreporter):
    results = REPORT / "results.json"
    if not os.environ.get("SETBACK_FAULTS") or not results.exists():
        return
    from tests.faults.site import summary_table

    terminalreporter.write_sep("=", "faults: tables resumed and recovery times")
    terminalreporter.write_line(summary_table(json.loads(results.read_text())))
