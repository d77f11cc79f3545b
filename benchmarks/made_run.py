"""The site exactly as `make run` starts it, in a process group of its own.

Used by the browser journeys (tests/e2e/journeys) and the soak (`manage.py soak`): they run
`make run` itself, so its migrations, its collected static files, its settings module
(`setback_site.settings`, never the tests'), its search processes, its sweeper and its request
limits are what a person meets. What differs, each for a reason:
- the database is a SQLite file in a folder of the caller's, not `db.sqlite3` in the checkout
  (a developer's own games must not meet a test's);
- the port is a free one, so that a developer's own `make run` on 8000 goes on;
- a fresh SECRET_KEY, so that the management commands run on that database have one too;
- whatever the caller passes in `changes` (the journeys shorten the bots' pace; the soak
  passes nothing).
The caller's own environment reaches nothing else: every variable that would point the server
at other services or settings (tests' settings, a developer's DATABASE_URL or REDIS_URL, an
outer make's flags) is removed.
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

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "Quiet-harbor-58213"  # loadtest_users' own
NOT_FOR_THE_SERVER = {
    # What a test process sets for itself (tests/conftest.py, pytest-django, the e2e harness).
    "DJANGO_SETTINGS_MODULE",
    "DJANGO_ALLOW_ASYNC_UNSAFE",
    "BOT_PACE_SECONDS",
    "SWEEP_SECONDS",
    "PAIRING_WAIT_MIN_SECONDS",
    "SETBACK_TEST_SQLITE",
    "SETBACK_TASK_FAILURES",
    "SETBACK_QUEUE_PREFIX",
    "DB_POOL",
    # The real services a developer may have exported: the embedded default uses none.
    "DATABASE_URL",
    "REDIS_URL",
    "SECRET_KEY",
    # An outer `make` (make soak): the inner `make run` is started as a person types it.
    "MAKEFLAGS",
    "MFLAGS",
    "MAKELEVEL",
}
# What the server logs when something went wrong: a traceback (an error in a request, a task,
# an after-commit step or the sweeper), Django's line for an answer of 500, Daphne's for an
# application that raised, a failed task, a line at ERROR, Daphne's access line of a 5xx.
SERVER_FAULTS = re.compile(
    r"Traceback|Internal Server Error|Exception inside application|"
    r"task [\w.]+\(.*\) failed|\bERROR\b|"
    r'" 5\d\d \d+$'  # Daphne's access line of an answer of 500 or more
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class MadeRunSite:
    url: str
    log: Path
    env: dict
    process: subprocess.Popen

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
        if done.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stderr}")
        return done.stdout

    def people(self, prefix: str, count: int, password: str = PASSWORD) -> list[str]:
        """`count` new user names (`prefix`-1 ...), with `password`, made as the load test
        does: the site itself allows five sign-ups a minute from one address."""
        self.manage("loadtest_users", str(count), "--prefix", prefix, "--password", password)
        return [f"{prefix}-{n}" for n in range(1, count + 1)]

    def log_size(self) -> int:
        return self.log.stat().st_size

    def log_since(self, offset: int = 0) -> str:
        with self.log.open(encoding="utf-8", errors="replace") as text:
            text.seek(offset)
            return text.read()

    def running(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        """Stop make, Daphne and its search processes: the whole process group."""
        if not self.running():
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


def start(
    folder: Path, changes: dict | None = None, timeout: float = 180, target: str = "run"
) -> MadeRunSite:
    """`make run` (or `make proxy`: nginx before Daphne) on a free port and a SQLite file in
    `folder`, its output in `folder`/server.log; returns once the home page answers 200."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in NOT_FOR_THE_SERVER}
    env.update(
        PORT=str(port),
        PROXY_PORT=str(port),
        PROXY_RUN_DIR=str(folder / "proxy"),  # nginx's and Daphne's files, beside the database
        DATABASE_URL=f"sqlite:///{folder / 'db.sqlite3'}",
        SECRET_KEY=secrets.token_urlsafe(50),
        **(changes or {}),
    )
    log = folder / "server.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            ["make", "--no-print-directory", target],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: make, Daphne and its searches
        )
    site = MadeRunSite(f"http://127.0.0.1:{port}", log, env, server)
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(site.url + "/", timeout=5) as answer:
                if answer.status == 200:
                    return site
        except OSError:
            pass
        if not site.running() or time.monotonic() > deadline:
            if site.running():
                os.killpg(server.pid, signal.SIGKILL)
            raise RuntimeError("make run did not serve the site:\n" + log.read_text()[-3000:])
        time.sleep(0.2)  # polling a server that is starting: there is nothing else to wait on
