"""The journeys' site: started exactly as `make run` starts it.

Every other browser test runs Daphne inside the test process's own harness, on the test
settings. These run `make run` itself in a process of its own: its migrations, its collected
static files, its settings module (`setback_site.settings`, not `tests.settings`), its search
processes, its sweeper and its request limits. Only two things differ, each for a reason:
- the database is a SQLite file in a temporary folder, not `db.sqlite3` in the checkout (a
  developer's own games must not meet a test's);
- the bots wait `JOURNEY_BOT_PACE` seconds before a move instead of 0.7, so that a whole
  match fits in a test (still long enough for a person to see each card, and for the table's
  trick hold to meet the next lead).
The test process's own settings reach nothing here: every variable the tests set is removed
from the server's environment. A server-side traceback or an answer of 500 fails the test.
"""

import os
import re
import secrets
import signal
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
JOURNEY_BOT_PACE = "0.2"
PASSWORD = "Quiet-harbor-58213"  # loadtest_users' own
# What the test process sets for itself (tests/conftest.py, pytest-django, the e2e harness).
NOT_FOR_THE_SERVER = {
    "DJANGO_SETTINGS_MODULE",
    "DJANGO_ALLOW_ASYNC_UNSAFE",
    "BOT_PACE_SECONDS",
    "SWEEP_SECONDS",
    "PAIRING_WAIT_MIN_SECONDS",
    "DATABASE_URL",
    "REDIS_URL",
    "SETBACK_TEST_SQLITE",
    "SETBACK_TASK_FAILURES",
    "SETBACK_QUEUE_PREFIX",
    "DB_POOL",
    "SECRET_KEY",
}
# A traceback, Django's report of a 500, a failed task, or Daphne's access line of an answer
# of 500 or more (`127.0.0.1:5555 - - [date] "GET /x/" 502 123`).
SERVER_FAULTS = re.compile(r'Traceback|Internal Server Error|task \S+ failed|" 5\d\d \d+$')


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class MadeRunSite:
    url: str
    log: Path
    env: dict

    def manage(self, *args: str) -> str:
        """A management command on the site's own database."""
        done = subprocess.run(
            [str(ROOT / ".venv/bin/python"), "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    def people(self, prefix: str, count: int) -> list[str]:
        """`count` new user names (`prefix`-1 ...), with PASSWORD, made as the load test does:
        the site itself allows five sign-ups a minute from one address."""
        self.manage("loadtest_users", str(count), "--prefix", prefix, "--password", PASSWORD)
        return [f"{prefix}-{n}" for n in range(1, count + 1)]

    def log_size(self) -> int:
        return self.log.stat().st_size

    def log_since(self, offset: int) -> str:
        with self.log.open(encoding="utf-8", errors="replace") as text:
            text.seek(offset)
            return text.read()


@pytest.fixture(scope="session")
def made_run_site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("made-run")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in NOT_FOR_THE_SERVER}
    env.update(
        PORT=str(port),
        DATABASE_URL=f"sqlite:///{folder / 'db.sqlite3'}",
        BOT_PACE_SECONDS=JOURNEY_BOT_PACE,
        SECRET_KEY=secrets.token_urlsafe(50),
    )
    log = folder / "server.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            ["make", "--no-print-directory", "run"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: make, Daphne and its searches
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while True:
        try:
            with urllib.request.urlopen(url + "/", timeout=5) as answer:
                if answer.status == 200:
                    break
        except OSError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            os.killpg(server.pid, signal.SIGKILL)
            raise RuntimeError("make run did not serve the site:\n" + log.read_text()[-3000:])
        time.sleep(0.2)  # polling a server that is starting: there is nothing else to wait on
    yield MadeRunSite(url, log, env)
    os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)


@pytest.fixture
def journey_site(made_run_site, request):
    """The site, for one journey: anything the server logged as a fault meanwhile fails it."""
    offset = made_run_site.log_size()
    yield made_run_site
    faults = [line for line in made_run_site.log_since(offset).splitlines()]
    found = [n for n, line in enumerate(faults) if SERVER_FAULTS.search(line)]
    if found:
        first = found[0]
        pytest.fail("the server logged a fault:\n" + "\n".join(faults[first : first + 40]))


@pytest.fixture
def screenshot_to():
    """Save a page's screenshot as var/screenshots/NAME.png, to look at as a person would."""
    folder = ROOT / "var" / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)

    def take(page, name: str) -> None:
        page.screenshot(path=str(folder / f"{name}.png"), full_page=True)

    return take
