"""How fast lobby screens hear of a change: N websocket viewers on one or more Daphne
processes, tables opening and filling through the real services, over loopback.

    REDIS_URL=redis://... DATABASE_URL=postgres://... python manage.py bench_lobby --viewers 500

It starts its own Daphne processes (on `--port` and up), connects the viewers as one bench user,
then makes `--changes` changes (a public table opens; a person sits; the host fills it with bots
and it leaves the list), each once every screen heard the last one (plus `--gap` seconds). A
viewer's latency for a change is the time from just before the service call to its first lobby
message after it. Prints p50/p95/max and
how many viewers heard nothing. Everything it created is deleted at the end. Bounded: at most
2000 viewers and 300 changes, and every wait has a timeout.
"""

import asyncio
import base64
import os
import secrets
import socket
import statistics
import struct
import subprocess
import sys
import time

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.test import Client

from games.models import Match
from games.tables import services as tables

BENCH_PREFIX = "bench-lobby-"
WAIT_FOR_DELIVERY = 10.0  # seconds; a screen that hears nothing by then counts as missed


class Viewer:
    """A minimal websocket client: the upgrade, then text frames read; pings answered."""

    def __init__(self, port: int, cookie: str):
        self.port, self.cookie = port, cookie
        self.times: list[float] = []
        self.closed = False

    async def connect(self):
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        key = base64.b64encode(secrets.token_bytes(16)).decode()
        self.writer.write(
            (
                f"GET /ws/lobby/ HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                f"Origin: http://127.0.0.1:{self.port}\r\nCookie: sessionid={self.cookie}\r\n\r\n"
            ).encode()
        )
        head = await asyncio.wait_for(self.reader.readuntil(b"\r\n\r\n"), 30)
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise CommandError(f"the websocket upgrade was refused: {head[:80]!r}")
        await asyncio.wait_for(self._frame(), 30)  # the list as it is on connect

    async def _frame(self) -> tuple[int, bytes]:
        b1, b2 = await self.reader.readexactly(2)
        length = b2 & 0x7F
        if length == 126:
            (length,) = struct.unpack(">H", await self.reader.readexactly(2))
        elif length == 127:
            (length,) = struct.unpack(">Q", await self.reader.readexactly(8))
        payload = await self.reader.readexactly(length)
        return b1 & 0x0F, payload

    def _send(self, opcode: int, payload: bytes = b""):
        mask = secrets.token_bytes(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.writer.write(bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + masked)

    async def listen(self):
        try:
            while True:
                opcode, payload = await self._frame()
                if opcode == 0x9:
                    self._send(0xA, payload)
                elif opcode == 0x8:
                    break
                else:
                    self.times.append(time.perf_counter())
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        self.closed = True

    def close(self):
        try:
            self._send(0x8)
            self.writer.close()
        except (ConnectionError, RuntimeError):
            pass


def _wait_for_port(port: int, process, timeout: float = 60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise CommandError(f"Daphne on port {port} exited at start-up")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise CommandError(f"Daphne on port {port} did not start within {timeout} s")


def start_servers(servers: int, first_port: int) -> list:
    """`servers` Daphne processes on `first_port` and up, each answering before this returns."""
    processes = []
    try:
        for n in range(servers):
            port = first_port + n
            processes.append(
                subprocess.Popen(
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
                    env={**os.environ, "LOG_LEVEL": "ERROR"},
                    stdout=subprocess.DEVNULL,
                )
            )
            _wait_for_port(port, processes[-1])
    except BaseException:
        stop_servers(processes)
        raise
    return processes


def stop_servers(processes: list) -> None:
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def _open_table(host) -> Match:
    match = tables.do_create_table(host, rules_spec="house", public=True)
    tables.do_presence(match.pk, user=host, delta=+1)
    return match


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


class Command(BaseCommand):
    help = (
        "Lobby update latency for many websocket viewers (needs REDIS_URL for several processes)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--viewers", type=int, default=500)
        parser.add_argument("--changes", type=int, default=30)
        parser.add_argument("--servers", type=int, default=2, help="Daphne processes")
        parser.add_argument("--port", type=int, default=8350, help="the first server's port")
        parser.add_argument(
            "--gap",
            type=float,
            default=0.3,
            help="seconds between one change reaching every screen and the next",
        )

    def handle(self, *args, **options):
        viewers, changes, servers = options["viewers"], options["changes"], options["servers"]
        if not (1 <= viewers <= 2000 and 1 <= changes <= 300 and 1 <= servers <= 4):
            raise CommandError("at most 2000 viewers, 300 changes and 4 servers")
        if servers > 1 and not settings.REDIS_URL:
            raise CommandError("several Daphne processes need REDIS_URL (a shared channel layer)")
        User = get_user_model()
        run = secrets.token_hex(3)
        people = [User.objects.create_user(f"{BENCH_PREFIX}{run}-{n}") for n in range(3)]
        host, sitter, viewer = people
        client = Client()
        client.force_login(viewer)
        cookie = client.cookies["sessionid"].value
        processes = []
        try:
            processes = start_servers(servers, options["port"])
            latencies, missed = asyncio.run(
                self._measure(
                    viewers, changes, servers, options["port"], options["gap"], cookie, host, sitter
                )
            )
        finally:
            stop_servers(processes)
            Match.objects.filter(host__in=people).delete()
            User.objects.filter(pk__in=[p.pk for p in people]).delete()
        ms = [value * 1000 for value in latencies]
        database = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
        layer = "redis" if settings.REDIS_URL else "in-memory"
        self.stdout.write(
            f"lobby: {viewers} viewers on {servers} Daphne process(es), {changes} changes, "
            f"{database}, {layer} channel layer\n"
            f"  update latency ms: p50 {statistics.median(ms):.0f}  p95 {percentile(ms, 0.95):.0f}  "
            f"max {max(ms):.0f}  ({len(ms)} deliveries, {missed} missed)"
        )

    async def _measure(self, viewers, changes, servers, first_port, gap, cookie, host, sitter):
        clients = [Viewer(first_port + n % servers, cookie) for n in range(viewers)]
        for start in range(
            0, viewers, 20
        ):  # connect in batches: a burst of 500 handshakes is not the point
            await asyncio.gather(*(c.connect() for c in clients[start : start + 20]))
        listeners = [asyncio.ensure_future(c.listen()) for c in clients]
        # One change before measuring: connections to Redis and the database, templates compiled.
        await asyncio.to_thread(_open_table, host)
        await asyncio.sleep(max(gap, 1.0))
        latencies, missed = [], 0
        table = None
        for n in range(changes):
            step = n % 3
            heard_before = [len(c.times) for c in clients]
            mark = time.perf_counter()
            if step == 0:  # a public table opens (its host's page is open: presence)
                table = await asyncio.to_thread(_open_table, host)
            elif step == 1:  # a person sits down
                await asyncio.to_thread(tables.do_sit, table.pk, user=sitter, position="W")
            else:  # the host fills it with bots: full, it leaves the list
                await asyncio.to_thread(tables.do_fill_with_bots, table.pk, host=host, level="easy")
            # Every screen hears this change before the next one is made (or it counts as missed).
            deadline = mark + WAIT_FOR_DELIVERY
            while time.perf_counter() < deadline and any(
                len(c.times) == before for c, before in zip(clients, heard_before, strict=True)
            ):
                await asyncio.sleep(0.005)
            for client, before in zip(clients, heard_before, strict=True):
                if len(client.times) > before:
                    latencies.append(client.times[before] - mark)
                else:
                    missed += 1
            await asyncio.sleep(gap)
        for client in clients:
            client.close()
        await asyncio.wait(listeners, timeout=10)
        return latencies, missed
