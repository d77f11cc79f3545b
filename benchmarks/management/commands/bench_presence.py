"""How fast a presence change reaches friends over /ws/me/: a person with `--friends` friends,
on one or more Daphne processes started here, over loopback.

    REDIS_URL=redis://... DATABASE_URL=postgres://... python manage.py bench_presence --friends 100

Two measures, each a latency from just before a socket's upgrade request is written to the
first frame another socket receives about it:
- "one watching": the person's page is open; each friend in turn opens a page (and closes it
  again): time until the person's socket gets that friend's row (the issue's "a friend's socket
  connects, the person's page shows it");
- "fan-out": every friend's page is open; the person opens a page, `--repeat` times (closing it
  between): time until each friend's socket gets the person's row (100 deliveries per round).
Sockets are spread over the servers. Prints p50/p95/max and how many heard nothing within 10 s.
Everything it created is deleted at the end.
"""

import asyncio
import base64
import secrets
import statistics
import time

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from django.test import Client

from games.social.models import Friendship, Presence

from .bench_lobby import Viewer, percentile, start_servers, stop_servers

BENCH_PREFIX = "bench-presence-"
WAIT_FOR_DELIVERY = 10.0


class MePage(Viewer):
    """A signed-in page's /ws/me/ socket: its first frame is the bell."""

    async def connect(self):
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        key = base64.b64encode(secrets.token_bytes(16)).decode()
        self.writer.write(
            (
                f"GET /ws/me/ HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                f"Origin: http://127.0.0.1:{self.port}\r\nCookie: sessionid={self.cookie}\r\n\r\n"
            ).encode()
        )
        head = await asyncio.wait_for(self.reader.readuntil(b"\r\n\r\n"), 30)
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise CommandError(f"the websocket upgrade was refused: {head[:80]!r}")
        await asyncio.wait_for(self._frame(), 30)  # the bell


async def _until_heard(pages, before, mark) -> tuple[list[float], int]:
    deadline = mark + WAIT_FOR_DELIVERY
    while time.perf_counter() < deadline and any(
        len(p.times) == b for p, b in zip(pages, before, strict=True)
    ):
        await asyncio.sleep(0.002)
    latencies, missed = [], 0
    for page, b in zip(pages, before, strict=True):
        if len(page.times) > b:
            latencies.append(page.times[b] - mark)
        else:
            missed += 1
    return latencies, missed


async def _open(page) -> asyncio.Future:
    await page.connect()
    return asyncio.ensure_future(page.listen())


async def _close(page, listener) -> None:
    page.close()
    await asyncio.wait([listener], timeout=10)


class Command(BaseCommand):
    help = "Presence fan-out latency over /ws/me/ (needs REDIS_URL for several processes)."

    def add_arguments(self, parser):
        parser.add_argument("--friends", type=int, default=100)
        parser.add_argument("--repeat", type=int, default=10, help="fan-out rounds")
        parser.add_argument("--servers", type=int, default=1, help="Daphne processes")
        parser.add_argument("--port", type=int, default=8450, help="the first server's port")

    def handle(self, *args, friends, repeat, servers, port, **options):
        if not (1 <= friends <= 1000 and 1 <= repeat <= 100 and 1 <= servers <= 4):
            raise CommandError("at most 1000 friends, 100 rounds and 4 servers")
        if servers > 1 and not settings.REDIS_URL:
            raise CommandError("several Daphne processes need REDIS_URL (a shared channel layer)")
        User = get_user_model()
        run = secrets.token_hex(3)
        people = [User.objects.create_user(f"{BENCH_PREFIX}{run}-{n}") for n in range(friends + 1)]
        person, others = people[0], people[1:]
        Friendship.objects.bulk_create(
            Friendship(
                low_id=min(person.pk, o.pk),
                high_id=max(person.pk, o.pk),
                asked_by=person,
                accepted_at=person.date_joined,
            )
            for o in others
        )
        cookies = []
        for user in people:
            client = Client()
            client.force_login(user)
            cookies.append(client.cookies["sessionid"].value)
        connection.close()  # the servers and the threads below open their own
        processes = []
        try:
            processes = start_servers(servers, port)
            one, fan = asyncio.run(self._measure(cookies, servers, port, repeat))
        finally:
            stop_servers(processes)
            Presence.objects.filter(user__in=people).delete()
            User.objects.filter(pk__in=[p.pk for p in people]).delete()
        database = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
        layer = "redis" if settings.REDIS_URL else "in-memory"
        self.stdout.write(
            f"presence: a person with {friends} friends, {servers} Daphne process(es), "
            f"{database}, {layer} channel layer"
        )
        for label, (latencies, missed) in (("one watching", one), ("fan-out", fan)):
            ms = [value * 1000 for value in latencies] or [float("nan")]
            self.stdout.write(
                f"  {label:12} ms: p50 {statistics.median(ms):.0f}  p95 {percentile(ms, 0.95):.0f}"
                f"  max {max(ms):.0f}  ({len(latencies)} deliveries, {missed} missed)"
            )

    async def _measure(self, cookies, servers, first_port, repeat):
        pages = [MePage(first_port + n % servers, c) for n, c in enumerate(cookies)]
        person, friends = pages[0], pages[1:]
        # One watching: the person's page is open; each friend comes and goes in turn.
        listener = await _open(person)
        await asyncio.sleep(0.5)
        one, one_missed = [], 0
        for friend in friends:
            before = [len(person.times)]
            mark = time.perf_counter()
            friend_listener = await _open(friend)
            got, missed = await _until_heard([person], before, mark)
            one += got
            one_missed += missed
            await _close(friend, friend_listener)
            await _until_heard([person], [len(person.times)], time.perf_counter())  # "offline"
            friend.times.clear()
        await _close(person, listener)
        # Fan-out: every friend's page is open; the person comes, `repeat` times.
        listeners = []
        for start in range(0, len(friends), 20):
            batch = friends[start : start + 20]
            listeners += await asyncio.gather(*(_open(f) for f in batch))
        await asyncio.sleep(1.0)
        fan, fan_missed = [], 0
        for _ in range(repeat):
            mark = time.perf_counter()
            before = [len(f.times) for f in friends]
            page = MePage(person.port, person.cookie)
            listener = await _open(page)
            got, missed = await _until_heard(friends, before, mark)
            fan += got
            fan_missed += missed
            before = [len(f.times) for f in friends]
            await _close(page, listener)
            await _until_heard(friends, before, time.perf_counter())  # gone again
        for friend in friends:
            friend.close()
        await asyncio.wait(listeners, timeout=10)
        return (one, one_missed), (fan, fan_missed)
