"""Play K tables against a running site the way the browser does: `python manage.py loadtest`.

Each table is one person (a user `<prefix>-<n>`, signed up through the form the first time):
log in through the real login form, "Deal me in" from the home page's form, load the table
page, hold the table's websocket, and on their turn post the move to `/matches/<id>/act/`
with the version on screen, as htmx does. "Next deal" and "Play again" are clicked like the
page's buttons. A websocket that closes is reopened after a jittered pause, like htmx's ws
extension; a screen that stops changing for `--stall` seconds is reloaded (a full GET).
With `--think T` the person takes a random 0.5 T to 1.5 T to decide each move, as people do
(by default they answer at once, so every table is always busy and the site is saturated).

It measures what the person would notice, from the client side:
  move -> update      the move's POST until a websocket screen newer than the move's version
  last bot -> turn    the screen before "your turn" until the screen showing "your turn"
                      (the last bot's whole cycle: queue, decide, commit, push, render)
  wait for own turn   the move's POST until the screen shows "your turn" again
and moves per second (the person's, and the bots' as counted from the deal's step numbers),
errors and reloads. It ends with one summary line. It sends traffic only to a loopback address
and stops after `--seconds` (plus a short grace for logins and closing).

It also measures the server's work: the CPU of every process of the site under test (each
Daphne or the nginx in front of them, the workers and their search processes, PostgreSQL's
backends of the site's database and background processes, Redis; benchmarks/
server_cpu.py) over the measured window, divided by every move made in it (people's, bots',
new deals), as the site's database counts them; the load generator's own CPU is not counted.

`--paced` plays as people do: each thinks 2 to 6 s a move, the bots keep the site's pace.
`--capacity N,STEP,MAX` then finds the most tables the site carries: rounds of N, N+STEP, ...
tables (each `--seconds`) until move -> update p95 passes 200 ms, a screen stalls (is reloaded)
or an error happens; it prints each round and the largest that held.
"""

import asyncio
import os
import random
import time
from dataclasses import dataclass, field

import aiohttp
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from benchmarks import server_cpu
from benchmarks.site_client import (
    MATCH_URL_RE,
    NEXT_DEAL,
    PLAY_AGAIN_RE,
    REFUSED,
    Screen,
    SiteClient,
    legal_move,
    loopback_only,
    socket_message,
)
from games.engine.phases import OVER
from games.models import Action, Deal


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[index]


@dataclass
class Figures:
    move_to_update: list = field(default_factory=list)
    move_to_update_at: list = field(default_factory=list)  # when each of those moves was made
    bot_to_turn: list = field(default_factory=list)
    own_turn_wait: list = field(default_factory=list)
    post_seconds: list = field(default_factory=list)
    person_moves: int = 0
    actions_seen: int = 0
    errors: dict = field(default_factory=dict)
    reloads: int = 0
    reconnects: int = 0
    matches_started: int = 0

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


class Table:
    """One person at one table, driving it as the page and its scripts do."""

    def __init__(self, number: int, base: str, options, figures: Figures, stop_at: float):
        self.prefix = options["prefix"]
        self.username = f"{self.prefix}-{number}"
        self.password = options["password"]
        self.base = base
        self.bot_level = options["bot_level"]
        self.preset = options["preset"]
        self.stall = options["stall"]
        self.think = options["think"]
        self.figures = figures
        self.stop_at = stop_at
        self.rng = random.Random(number)
        self.web = SiteClient(base, who=self.username)
        self.match_id: int | None = None
        self.screen: Screen | None = None
        self.screen_at = 0.0
        self.previous_at = 0.0
        self.changed = asyncio.Event()
        self.pending_move: tuple[int, float] | None = None  # (version moved on, when)
        self.moved_at: float | None = None  # the person's last move, until their next turn
        self.socket = None
        self.refused = False
        self.last_deal_step: tuple[int, int] = (0, 0)

    # --- The pages -------------------------------------------------------------------------

    async def log_in(self) -> None:
        await self.web.log_in(self.username, self.password, self.prefix)

    async def deal_me_in(self) -> None:
        await self.web.form_token("/")
        data = {"preset": self.preset, "bot_level": self.bot_level}
        answer = await self.web.post("/matches/new/", data, follow=False)
        found = MATCH_URL_RE.search(answer.headers.get("Location", ""))
        if not found:
            raise RuntimeError(f"Deal me in did not lead to a table ({answer.status})")
        self.figures.matches_started += 1
        await self.load_table(int(found.group(1)))

    @property
    def table_id(self) -> int:
        """The match of the table page loaded (every table's play starts with load_table)."""
        assert self.match_id is not None
        return self.match_id

    async def load_table(self, match_id: int) -> None:
        """The table page, as a browser loads it (and as a reload does)."""
        self.match_id = match_id
        answer = await self.web.get(f"/matches/{match_id}/")
        self.show(Screen.parse(answer.text))

    # --- The screen --------------------------------------------------------------------------

    def show(self, screen: Screen | None) -> None:
        if screen is None:
            return
        if self.screen is not None and screen.version <= self.screen.version:
            return  # the socket's copy of a screen already shown (or an older one)
        now = time.monotonic()
        self._count_actions(screen)
        if self.pending_move and screen.version > self.pending_move[0]:
            self.figures.move_to_update.append(now - self.pending_move[1])
            self.figures.move_to_update_at.append(self.pending_move[1])
        if screen.my_turn and not (self.screen and self.screen.my_turn):
            if self.moved_at is not None:
                self.figures.own_turn_wait.append(now - self.moved_at)
            if self.screen is not None and self.pending_move is None:
                self.figures.bot_to_turn.append(now - self.screen_at)
            self.moved_at = None
        if self.pending_move and screen.version > self.pending_move[0]:
            self.pending_move = None
        self.previous_at, self.screen_at, self.screen = self.screen_at, now, screen
        self.changed.set()

    def _count_actions(self, screen: Screen) -> None:
        deal, step = self.last_deal_step
        if screen.deal == deal:
            self.figures.actions_seen += max(0, screen.step - step)
        elif screen.deal > deal and deal:
            self.figures.actions_seen += screen.step  # a new deal (the last one was seen over)
        self.last_deal_step = (screen.deal, screen.step)

    async def hold_socket(self) -> None:
        """The page's websocket: reopened after a jittered pause whenever it closes."""
        delay = 0.5
        while time.monotonic() < self.stop_at:
            match_id = self.table_id
            try:
                async with await self.web.table_socket(match_id) as socket_:
                    self.socket = socket_
                    delay = 0.5
                    async for message in socket_:
                        if message.type != aiohttp.WSMsgType.TEXT:
                            break
                        if REFUSED in message.data:  # a move sent over this socket, refused
                            self.refused = True
                            self.changed.set()
                        self.show(Screen.parse(message.data))
                        if self.match_id != match_id:
                            break  # a new match: the new page opens its own socket
            except (TimeoutError, aiohttp.ClientError) as error:
                status = getattr(error, "status", "")
                self.figures.error(f"websocket {type(error).__name__} {status}".strip())
            if time.monotonic() >= self.stop_at:
                return
            if self.match_id == match_id:
                self.figures.reconnects += 1
                await asyncio.sleep(self.rng.uniform(0, delay))
                delay = min(delay * 2, 8)

    # --- The person --------------------------------------------------------------------------

    async def play(self) -> None:
        socket_task = asyncio.create_task(self.hold_socket())
        try:
            while time.monotonic() < self.stop_at:
                screen = self.screen
                if self.refused:
                    self.refused = False
                    self.figures.error("act refused")
                    self.pending_move = self.moved_at = None
                    self.figures.reloads += 1
                    await self.load_table(self.table_id)
                    continue
                if screen is not None and self.pending_move is None:
                    if screen.my_turn:
                        await self.move(screen)
                        continue
                    if screen.phase == OVER and NEXT_DEAL in screen.html:
                        await self.next_deal(screen)
                        continue
                    if screen.phase == OVER and (again := PLAY_AGAIN_RE.search(screen.html)):
                        await self.play_again(again.group(1))
                        continue
                self.changed.clear()
                try:
                    remaining = max(0.01, min(self.stall, self.stop_at - time.monotonic()))
                    await asyncio.wait_for(self.changed.wait(), remaining)
                except TimeoutError:
                    if time.monotonic() < self.stop_at:
                        self.figures.reloads += 1
                        self.pending_move = self.moved_at = None
                        await self.load_table(self.table_id)
        finally:
            socket_task.cancel()
            await asyncio.gather(socket_task, return_exceptions=True)

    async def move(self, screen: Screen) -> None:
        if self.think:
            await asyncio.sleep(self.rng.uniform(0.5, 1.5) * self.think)
            if self.screen is not None and self.screen.version > screen.version:
                return  # the table moved on while the person thought (a reload): look again
        data = legal_move(screen, self.rng)
        started = time.monotonic()
        self.pending_move = (screen.version, started)
        self.moved_at = started
        if self.socket is not None and not self.socket.closed:
            # As the page does: over the table's socket while it is open; its answer is the
            # next screen, or this one with the reason it was refused.
            await self.socket.send_str(socket_message("move", data))
            self.figures.person_moves += 1
            return
        answer = await self.web.post(f"/matches/{self.match_id}/act/", data, htmx=True)
        status = answer.status
        self.figures.post_seconds.append(time.monotonic() - started)
        if status >= 400:
            self.figures.error(f"act {status}")
            self.pending_move = self.moved_at = None
            self.figures.reloads += 1
            await self.load_table(self.table_id)
            return
        # The screen measured is the websocket's push (what every screen at the table gets);
        # a fragment in the response, which htmx would swap in, is not counted as an update.
        self.figures.person_moves += 1

    async def next_deal(self, screen: Screen) -> None:
        data = {"version": str(screen.version)}
        if self.socket is not None and not self.socket.closed:
            await self.socket.send_str(socket_message("next_deal", data))  # as the page does
        else:
            answer = await self.web.post(f"/matches/{self.match_id}/next/", data, htmx=True)
            if answer.status >= 400:
                self.figures.error(f"next {answer.status}")
        await self._await_change(screen.version)

    async def play_again(self, path: str) -> None:
        answer = await self.web.post(path, {}, htmx=True)
        found = MATCH_URL_RE.search(answer.headers.get("HX-Redirect", ""))
        if not found:
            self.figures.error("play again")
            await asyncio.sleep(1)
            return
        self.figures.matches_started += 1
        self.screen = None
        self.last_deal_step = (0, 0)
        await self.load_table(int(found.group(1)))
        if self.socket is not None:
            await self.socket.close()  # the new page opens the new table's socket

    async def _await_change(self, version: int) -> None:
        deadline = time.monotonic() + self.stall
        while self.screen is not None and self.screen.version <= version:
            self.changed.clear()
            remaining = deadline - time.monotonic()
            if remaining <= 0 or time.monotonic() >= self.stop_at:
                return
            try:
                await asyncio.wait_for(self.changed.wait(), remaining)
            except TimeoutError:
                return

    async def close(self) -> None:
        await self.web.close()


@dataclass
class ServerWork:
    """The server's CPU over the measured window, by kind of process, and the moves it made."""

    seconds: dict
    moves: int

    @property
    def per_move_ms(self) -> float:
        return 1000 * sum(self.seconds.values()) / self.moves if self.moves else float("nan")


class ServerWatch:
    """The site's processes' CPU, sampled when the clock starts and when it stops."""

    def __init__(self, bases: list[str]):
        self.ports = {int(base.rsplit(":", 1)[1]) for base in bases}
        db = settings.DATABASES["default"]
        self.database = str(db["NAME"]) if "postgresql" in db["ENGINE"] else None
        self.redis = bool(settings.REDIS_URL)
        self.processes = self._find()
        if not any(p.kind in {"daphne", "nginx"} for p in self.processes):
            raise CommandError(f"no process of this machine listens on {sorted(self.ports)}")

    def _find(self) -> list:
        return server_cpu.server_processes(
            self.ports, self.database, self.redis, exclude=os.getpid()
        )

    def start(self) -> None:
        self.before = server_cpu.sample(self.processes)
        self.since = timezone.now()

    def stop(self) -> ServerWork:
        # The processes started meanwhile too (search processes start at the first search),
        # counted from nothing.
        known = {p.pid for p in self.processes}
        self.processes += [p for p in self._find() if p.pid not in known]
        after = server_cpu.sample(self.processes)
        until = timezone.now()
        moves = Action.objects.filter(created_at__gte=self.since, created_at__lt=until).count()
        moves += Deal.objects.filter(started_at__gte=self.since, started_at__lt=until).count()
        return ServerWork(server_cpu.used(self.processes, self.before, after), moves)


async def run(bases: list[str], options, watch: ServerWatch | None = None):
    figures = Figures()
    tables_count = options["tables"]
    # Log everyone in first (password hashing is deliberately slow); the clock starts after.
    stop_far = time.monotonic() + 10**6
    # Several processes: each table talks to one of them, as a load balancer would send it.
    tables = [
        Table(n, bases[(n - 1) % len(bases)], options, figures, stop_far)
        for n in range(1, tables_count + 1)
    ]
    gate = asyncio.Semaphore(8)

    async def log_in(table):
        async with gate:
            await table.log_in()

    try:
        await asyncio.gather(*(log_in(t) for t in tables))
    except BaseException:
        await asyncio.gather(*(t.close() for t in tables), return_exceptions=True)
        raise
    print(f"logged in {tables_count} users; playing for {options['seconds']:.0f} s", flush=True)
    if watch is not None:
        await asyncio.to_thread(watch.start)
    started = time.monotonic()
    stop_at = started + options["seconds"]
    for table in tables:
        table.stop_at = stop_at

    async def one(table):
        try:
            await table.deal_me_in()  # all at once: the start-up burst is measured too
            await table.play()
        except Exception as error:  # noqa: BLE001 - counted and shown; one table's failure
            figures.error(type(error).__name__)  # must not stop the others' measurements

    try:
        await asyncio.wait_for(asyncio.gather(*(one(t) for t in tables)), options["seconds"] + 30)
    except TimeoutError:
        figures.error("overran")
    elapsed = time.monotonic() - started
    work = await asyncio.to_thread(watch.stop) if watch is not None else None
    await asyncio.gather(*(t.close() for t in tables), return_exceptions=True)
    return figures, elapsed, work


# The paced capacity's bar: an update reaches the screen this fast for 95 moves in 100.
CAPACITY_P95 = 0.200


def _windows(figures: Figures, width: float = 10.0) -> str:
    """Move -> update p95 in each `width`-second window of the round, in order: whether the
    slow updates are spread out (a busy machine) or come in bursts (a pause somewhere)."""
    if not figures.move_to_update_at:
        return "-"
    start = min(figures.move_to_update_at)
    windows: dict[int, list[float]] = {}
    for at, seconds in zip(figures.move_to_update_at, figures.move_to_update, strict=True):
        windows.setdefault(int((at - start) // width), []).append(seconds)
    return (
        " ".join(
            f"{percentile(windows.get(i, []), 95) * 1000:.0f}" for i in range(max(windows) + 1)
        )
        + " ms"
    )


def _ms(values: list[float]) -> str:
    return " / ".join(f"{percentile(values, p) * 1000:,.0f}" for p in (50, 95, 99)) + " ms"


class Command(BaseCommand):
    help = "Play K tables against a running site over HTTP and websockets; print latencies."

    def add_arguments(self, parser):
        parser.add_argument(
            "--url",
            default="http://127.0.0.1:8000",
            help="the site (loopback only); several, comma-separated, are "
            "shared round-robin among the tables (one per Daphne process)",
        )
        parser.add_argument("--tables", type=int, default=10)
        parser.add_argument("--seconds", type=float, default=60)
        parser.add_argument("--bot-level", default="easy", choices=["easy", "medium", "hard"])
        parser.add_argument("--preset", default="house")
        parser.add_argument("--prefix", default="loadtest")
        parser.add_argument("--password", default="Quiet-harbor-58213")
        parser.add_argument(
            "--think",
            type=float,
            default=0,
            help="the person's time to decide a move, in seconds (0: at once)",
        )
        parser.add_argument(
            "--stall",
            type=float,
            default=10,
            help="reload a table whose screen has not changed for this long",
        )
        parser.add_argument(
            "--paced",
            action="store_true",
            help="people think 2 to 6 s a move (as --think 4); the bots keep the site's pace",
        )
        parser.add_argument(
            "--capacity",
            default="",
            help="N,STEP,MAX: rounds of N, N+STEP ... MAX tables until one fails (p95 of move "
            "-> update over 200 ms, a stalled screen or an error); the largest that held",
        )

    def handle(self, *args, url, **options):
        bases = [loopback_only(u) for u in url.split(",")]
        if options["paced"]:
            options["think"] = 4.0
        if options["capacity"]:
            self._capacity(bases, options)
            return
        figures, elapsed, work = asyncio.run(run(bases, options, ServerWatch(bases)))
        self._report(figures, elapsed, options, bases, work)

    def _capacity(self, bases, options) -> None:
        try:
            first, step, most = (int(n) for n in options["capacity"].split(","))
        except ValueError:
            raise CommandError("--capacity takes N,STEP,MAX, e.g. 50,25,250") from None
        held = 0
        for tables in range(first, most + 1, step):
            figures, elapsed, work = asyncio.run(
                run(bases, {**options, "tables": tables}, ServerWatch(bases))
            )
            self._report(figures, elapsed, {**options, "tables": tables}, bases, work)
            p95 = percentile(figures.move_to_update, 95)
            if not (p95 <= CAPACITY_P95 and not figures.reloads and not figures.errors):
                break
            held = tables
        self.stdout.write(
            f"CAPACITY tables={held} (move -> update p95 <= {CAPACITY_P95 * 1000:.0f} ms, "
            "no stalled screen, no error)"
        )

    def _report(self, figures: Figures, elapsed: float, options, bases, work=None) -> None:
        out = self.stdout.write
        bot_moves = max(0, figures.actions_seen - figures.person_moves)
        out(
            f"tables {options['tables']}, bots {options['bot_level']}, think "
            f"{options['think']:g} s, {elapsed:.0f} s against "
            f"{', '.join(bases)}; {figures.matches_started} matches started"
        )
        out(
            f"move -> update        p50/p95/p99 {_ms(figures.move_to_update)}"
            f"  (n={len(figures.move_to_update)})"
        )
        out(f"  p95 per 10 s window  {_windows(figures)}")
        out(
            f"last bot -> your turn p50/p95/p99 {_ms(figures.bot_to_turn)}"
            f"  (n={len(figures.bot_to_turn)})"
        )
        out(
            f"wait for own turn     p50/p95/p99 {_ms(figures.own_turn_wait)}"
            f"  (n={len(figures.own_turn_wait)})"
        )
        out(f"move POST response    p50/p95/p99 {_ms(figures.post_seconds)}")
        out(
            f"moves/s: people {figures.person_moves / elapsed:.1f}, bots {bot_moves / elapsed:.1f}, "
            f"all {figures.actions_seen / elapsed:.1f}"
        )
        out(
            f"errors {sum(figures.errors.values())} {figures.errors or ''}, reloads "
            f"{figures.reloads}, socket reconnects {figures.reconnects}"
        )
        if work is not None:
            share = ", ".join(
                f"{kind} {1000 * spent / work.moves:.1f}"
                for kind, spent in sorted(work.seconds.items(), key=lambda item: -item[1])
                if work.moves
            )
            out(
                f"server CPU per move  {work.per_move_ms:.1f} ms over {work.moves} moves "
                f"({share}; ms a move)"
            )
        out(
            f"SUMMARY tables={options['tables']} bots={options['bot_level']} "
            f"think={options['think']:g}s "
            f"update_p50={percentile(figures.move_to_update, 50) * 1000:.0f}ms "
            f"update_p95={percentile(figures.move_to_update, 95) * 1000:.0f}ms "
            f"update_p99={percentile(figures.move_to_update, 99) * 1000:.0f}ms "
            f"turn_wait_p50={percentile(figures.own_turn_wait, 50):.2f}s "
            f"turn_wait_p95={percentile(figures.own_turn_wait, 95):.2f}s "
            f"moves_per_s={figures.actions_seen / elapsed:.1f} "
            f"errors={sum(figures.errors.values())} reloads={figures.reloads}"
            + (f" cpu_per_move_ms={work.per_move_ms:.1f}" if work is not None else "")
        )
