"""Serve the site behind nginx, as a deployment does: `make proxy` (docs/deploy.md).

nginx listens on PORT, serves /static/ from collectstatic's folder itself, and passes pages and
websockets to Daphne processes on loopback (the site believes nginx's X-Forwarded-For, from a
trusted proxy address only: setback_site/proxies.py, so the login lockout and the request limits
see each client's address, not the proxy's). With DATABASE_URL and REDIS_URL set
it starts two Daphne processes (run `make worker` beside it); without them one, because the
embedded default's in-memory channel layer and in-process tasks live in one process.

Standard library only. It stops everything it started on Ctrl-C or SIGTERM.
"""

import argparse
import getpass
import os
import shutil
import signal
import socket
import string
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "deploy" / "nginx.conf.template"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def nginx_binary() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else "")
    if not found:
        sys.exit("serve_behind_proxy: nginx is not installed (apt-get install nginx-light)")
    return found


def write_config(run_dir: Path, listen: str, upstream_ports: list[int]) -> Path:
    for folder in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (run_dir / folder).mkdir(parents=True, exist_ok=True)
    servers = "\n        ".join(f"server 127.0.0.1:{port};" for port in upstream_ports)
    text = string.Template(TEMPLATE.read_text()).safe_substitute(
        run_dir=run_dir,
        listen=listen,
        upstream_servers=servers,
        static_root=ROOT / "staticfiles",
        user=getpass.getuser(),
    )
    config = run_dir / "nginx.conf"
    config.write_text(text)
    return config


def wait_until_serving(url: str, processes: list[subprocess.Popen], seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if any(p.poll() is not None for p in processes):
            sys.exit(
                "serve_behind_proxy: a process exited at start-up (see the logs in PROXY_RUN_DIR, var/proxy/ by default)"
            )
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)  # polling a server that is starting: nothing else to wait on
    sys.exit(f"serve_behind_proxy: {url} did not answer within {seconds:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8080, help="where nginx listens")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--daphne", type=int, default=0, help="how many (default: 2 or 1)")
    args = parser.parse_args()
    services = bool(os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL"))
    count = args.daphne or (2 if services else 1)
    if count > 1 and not services:
        sys.exit("serve_behind_proxy: several Daphne processes need DATABASE_URL and REDIS_URL")
    # Its configuration, logs and nginx's temporary files (the journeys give one of their own).
    run_dir = Path(os.environ.get("PROXY_RUN_DIR") or ROOT / "var" / "proxy")
    run_dir.mkdir(parents=True, exist_ok=True)
    ports = [free_port() for _ in range(count)]
    processes = []
    for port in ports:
        log = (run_dir / f"daphne-{port}.log").open("w")
        processes.append(
            subprocess.Popen(
                [str(ROOT / ".venv" / "bin" / "daphne"), "-b", "127.0.0.1"]
                + ["-p", str(port), "setback_site.asgi:application"],
                cwd=ROOT,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        )
    # nginx starts once every Daphne answers: a request it passes to a process still starting
    # is refused, and nginx then counts that process down for ten seconds (each of its workers
    # on its own), so people got 502 pages after "Serving" was printed.
    for port in ports:
        wait_until_serving(f"http://127.0.0.1:{port}/", processes)
    config = write_config(run_dir, f"{args.host}:{args.port}", ports)
    nginx_log = (run_dir / "nginx.out").open("w")
    processes.append(
        subprocess.Popen(
            [
                nginx_binary(),
                "-c",
                str(config),
                "-p",
                str(run_dir),
                "-e",
                str(run_dir / "error.log"),
            ],
            stdout=nginx_log,
            stderr=subprocess.STDOUT,
        )
    )

    def stop(*_):
        for process in processes:
            if process.poll() is None:
                process.terminate()
        for process in processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    url = f"http://{args.host}:{args.port}/"
    wait_until_serving(url, processes)
    print(f"Serving Setback on {url} (nginx, {count} Daphne: ports {ports})", flush=True)
    while all(p.poll() is None for p in processes):
        time.sleep(1)  # a supervisor's beat: a process that stops stops the rest
    stop()


if __name__ == "__main__":
    main()
