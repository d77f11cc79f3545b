"""The server's CPU over a load test's window, per process (psutil).

Which processes are the server's: the ones listening on the load test's URLs' ports (each Daphne,
or nginx in front of them with its Daphne processes found by their command line), the Celery
workers of this site, and every descendant of those (search processes, prefork children);
PostgreSQL's processes serving the site's database plus its shared background processes; Redis.
Never the load generator itself, nor another site's processes on the same machine (another
checkout's `make run`, a test run's server).

CPU of a process is its user and system time, plus that of its children it has waited for:
a worker child that ends in the window is still counted.
"""

from dataclasses import dataclass, field

import psutil


@dataclass
class Process:
    pid: int
    kind: str  # "daphne", "nginx", "worker", "search", "postgres", "redis"


@dataclass
class Sample:
    seconds: dict[int, float] = field(default_factory=dict)  # pid -> CPU seconds


def cpu_seconds(pid: int) -> float | None:
    try:
        times = psutil.Process(pid).cpu_times()
    except psutil.Error:
        return None
    return times.user + times.system + times.children_user + times.children_system


def _parent(pid: int) -> int | None:
    try:
        return psutil.Process(pid).ppid()
    except psutil.Error:
        return None


def _command(pid: int) -> str:
    try:
        return " ".join(psutil.Process(pid).cmdline())
    except psutil.Error:
        return ""


def _pids() -> list[int]:
    return psutil.pids()


def _listeners(ports: set[int]) -> set[int]:
    return {
        connection.pid
        for connection in psutil.net_connections(kind="tcp")
        if connection.status == psutil.CONN_LISTEN
        and connection.laddr
        and connection.laddr.port in ports
        and connection.pid is not None
    }


def _kind_of(command: str, database: str | None, redis: bool) -> str | None:
    """What a process is to the site, by its command line; None if it is not the site's.
    `database`: the site's PostgreSQL database (None on SQLite); `redis`: the site uses Redis."""
    if "celery" in command and "setback_site" in command and " worker" in command:
        return "worker"
    if (
        database
        and command.startswith("postgres:")
        and (f" {database} " in command or "(" not in command)
    ):
        # A backend of the site's database ("postgres: root setback 127.0.0.1(5432) idle"), or
        # a background process of the cluster (checkpointer, WAL writer): no backend of another
        # database (a test run's, another checkout's).
        return "postgres"
    if redis and "redis-server" in command:
        return "redis"
    return None


def _roots(ports: set[int], database: str | None, redis: bool, pids: list[int]) -> dict[int, str]:
    """The server's own processes, by kind: what listens on the ports, then by command line."""
    roots = {pid: ("nginx" if "nginx" in _command(pid) else "daphne") for pid in _listeners(ports)}
    behind_proxy = "nginx" in roots.values()
    for pid in pids:
        command = _command(pid)
        if behind_proxy and "daphne" in command and "--proxy-headers" in command:
            roots[pid] = "daphne"  # the proxy's upstream processes
        kind = _kind_of(command, database, redis)
        if kind is not None:
            roots.setdefault(pid, kind)
    return roots


def _root_of(pid: int, parents: dict, roots: dict[int, str]) -> int | None:
    ancestor, hops = parents.get(pid), 0
    while ancestor and ancestor not in roots and hops < 8:
        ancestor, hops = parents.get(ancestor), hops + 1
    return ancestor if ancestor in roots else None


def server_processes(
    ports: set[int], database: str | None, redis: bool, exclude: int
) -> list[Process]:
    """The server's processes now (see the module's docstring), the load generator aside."""
    pids = _pids()
    roots = _roots(ports, database, redis, pids)
    found = [Process(pid, kind) for pid, kind in roots.items() if pid != exclude]
    parents = {pid: _parent(pid) for pid in pids}
    for pid in pids:  # descendants: search processes, prefork children, nginx's workers
        if pid in roots or pid == exclude:
            continue
        root = _root_of(pid, parents, roots)
        if root is not None:
            kind = roots[root]
            found.append(Process(pid, "search" if kind in {"daphne", "worker"} else kind))
    return found


def sample(processes: list[Process]) -> Sample:
    taken = Sample()
    for process in processes:
        seconds = cpu_seconds(process.pid)
        if seconds is not None:
            taken.seconds[process.pid] = seconds
    return taken


def used(processes: list[Process], before: Sample, after: Sample) -> dict[str, float]:
    """CPU seconds used between two samples, by kind of process. A process that ended in the
    window is counted to its last sample; one that started in it, from zero."""
    by_kind: dict[str, float] = {}
    for process in processes:
        end = after.seconds.get(process.pid)
        if end is None:
            continue
        spent = end - before.seconds.get(process.pid, 0.0)
        by_kind[process.kind] = by_kind.get(process.kind, 0.0) + max(0.0, spent)
    return by_kind
