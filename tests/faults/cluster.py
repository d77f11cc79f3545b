"""The processes of a small site that the fault suite starts, kills and restarts.

Everything here is the suite's own: a PostgreSQL cluster in a temporary folder, a Redis server,
two Daphne processes and a Celery worker, on ports of their own. The machine's shared database
and Redis are never touched, so killing and restarting them harms nobody.
"""

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PG_USER = "setback"  # the cluster's superuser role
# initdb and postgres refuse to run as root: as root, the cluster runs as this system user.
PG_OS_USER = os.environ.get("FAULTS_PG_OS_USER", "setbackpg")


def wait_until(condition, timeout: float, interval: float = 0.1, what: str = "a condition"):
    """Poll `condition` until it returns something true; its value, or TimeoutError."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = condition()
        except Exception:  # noqa: BLE001 - a service still starting answers with errors
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout} s for {what}")
        time.sleep(interval)


def port_open(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _pg_bin(name: str) -> str:
    found = shutil.which(name) or next(
        iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None
    )
    if not found:
        raise RuntimeError(f"PostgreSQL's {name} is not installed (apt-get install postgresql)")
    return found


class Postgres:
    """A throwaway PostgreSQL cluster: initdb in a temporary folder, fsync off."""

    def __init__(self, workdir: Path, port: int):
        self.port = port
        self.data = workdir / "pgdata"
        self.log = workdir / "postgres.log"
        self.as_root = os.geteuid() == 0

    @property
    def url(self) -> str:
        return f"postgres://{PG_USER}@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str) -> None:
        command = list(args)
        if self.as_root:
            command = ["runuser", "-u", PG_OS_USER, "--", *command]
        subprocess.run(
            command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd="/"
        )

    def init(self) -> None:
        if self.as_root:
            try:
                pwd.getpwnam(PG_OS_USER)
            except KeyError:
                subprocess.run(
                    [
                        "useradd",
                        "--system",
                        "--no-create-home",
                        "--shell",
                        "/usr/sbin/nologin",
                        PG_OS_USER,
                    ],
                    check=True,
                )
            self.data.parent.mkdir(parents=True, exist_ok=True)
            shutil.chown(self.data.parent, PG_OS_USER)
        self._run(
            _pg_bin("initdb"),
            "-D",
            str(self.data),
            "-U",
            PG_USER,
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
        )
        self.start()

    def start(self) -> None:
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.data} -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        self._run(
            _pg_bin("pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.log),
            "-o",
            options,
            "-w",
            "-t",
            "60",
            "start",
        )

    def restart(self) -> None:
        """A fast restart: every connection is cut, the server is back within a second or so."""
        self._run(
            _pg_bin("pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "-t", "60", "restart"
        )

    def stop(self) -> None:
        if self.data.exists():
            with contextlib.suppress(subprocess.CalledProcessError):  # already stopped
                self._run(_pg_bin("pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")


class Process:
    """A child process in a session of its own, so a signal reaches its children too."""

    def __init__(self, name: str, command: list[str], env: dict, logdir: Path):
        self.name = name
        self.command = command
        self.env = env
        self.log_path = logdir / f"{name}.log"
        self.popen: subprocess.Popen | None = None
        self.stopped_on_purpose = False
        self.restarts = 0  # by the supervisor, after the process exited on its own

    def start(self) -> None:
        log = open(self.log_path, "ab")  # noqa: SIM115 - kept open for the child's lifetime
        self.popen = subprocess.Popen(
            self.command,
            env=self.env,
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        self.stopped_on_purpose = False  # only now: the supervisor must not see the old one

    def signal(self, sig: int) -> None:
        os.killpg(self.popen.pid, sig)

    def kill(self) -> None:
        """`kill -9`, of the process and its children; no goodbye to anyone."""
        self.stopped_on_purpose = True
        self.signal(signal.SIGKILL)
        self.popen.wait(timeout=30)

    def stop(self) -> None:
        self.stopped_on_purpose = True
        if self.popen is None or self.popen.poll() is not None:
            return
        try:
            self.signal(signal.SIGCONT)  # a hung one must wake up to hear the TERM
            self.signal(signal.SIGTERM)
            self.popen.wait(timeout=15)
        except (subprocess.TimeoutExpired, ProcessLookupError):
            with contextlib.suppress(ProcessLookupError):
                self.kill()

    def supervise(self) -> None:
        """Start the process again if it exited on its own, as systemd's `Restart=always` would."""
        if self.popen is not None and not self.stopped_on_purpose and self.popen.poll() is not None:
            self.restarts += 1
            self.start()

    def tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except FileNotFoundError:
            return ""


def redis(port: int, env: dict, logdir: Path) -> Process:
    return Process(
        "redis",
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ],
        env,
        logdir,
    )


def daphne(name: str, port: int, env: dict, logdir: Path) -> Process:
    return Process(
        name,
        [
            sys.executable,
            "-m",
            "daphne",
            "-b",
            "127.0.0.1",
            "-p",
            str(port),
            "setback_site.asgi:application",
        ],
        env,
        logdir,
    )


def worker(env: dict, logdir: Path) -> Process:
    # As `make worker` runs its workers: the prefork pool, one process serving every queue (the
    # faults are the services', not the split's: tests/pg/test_queues.py checks the split).
    return Process(
        "worker",
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "setback_site",
            "worker",
            "--queues",
            "bots,coach,checks",
            "--concurrency",
            "2",
            "--loglevel",
            "WARNING",
            "-n",
            "faults@localhost",
            "--without-gossip",
            "--without-mingle",
        ],
        env,
        logdir,
    )
