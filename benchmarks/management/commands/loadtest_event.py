"""A Setback night of N people against a running site: `python manage.py loadtest_event`.

Issue 49: an event of 200 people (50 tables) starts every table within 5 s, and the standings
update within 1 s of each deal's end. The command runs in the site's database (the same
DATABASE_URL as the site, like `loadtest_users`) and talks to the site over loopback as the
browser does. In order:

1. It makes the people (`<prefix>-1` .. `<prefix>-N`, as `loadtest_users` does), schedules a
   public event organised by the first of them, starting 40 minutes ahead (so the sweeper leaves
   the start to this command), and checks everyone in through the service.
2. It logs everyone in through the login form and opens each person's event page socket
   (`/ws/events/<id>/`), and waits for each one's first fragment.
3. It starts the event as the sweeper does at its time (`services.do_start_event`, in this
   process; `--sweeper`: it moves the start to now and the workers' sweeper starts it). Measured:
   the start transaction (how long it took, its queries, and the span between its first and last
   table's match), and for every person, from the start until their socket shows their table
   (`data-my-table`, the fragment that carries `data-go-to`).
4. Everyone's page then does what it does on `data-go-to`: it loads the table page and opens
   its socket. The players (`--players`, half by default) hold it and play the first legal move
   on their turn (after `--think` seconds, 0 by default), over the socket as the page sends it;
   the others close it at once (they are away), and a stand-in plays their turns at the bots'
   pace once the away grace is over. Every person's event socket stays open all night besides
   (the worst case: everyone watching the standings).
5. For every deal's end, the delay from the deal row's `finished_at` to each event socket's
   first fragment reflecting it: a fragment whose round is later, whose list of tables shows that
   table finished or with that many deals done, or of the finished event (`reflects`); a deal
   everyone passed is dealt again and counts for nothing, so it is not measured. And for each
   later round, from its previous round's last deal to each person's socket showing their new
   table.

It prints those as p50 / p95 / max, the server's CPU over the night (every process of the site,
the load generator's aside: benchmarks/server_cpu.py) and the machine's load average, then one
SUMMARY line. It stops when every socket saw the event finished, or after `--timeout` seconds.
"""

import asyncio
import os
import random
import re
import time
from dataclasses import dataclass, field
from datetime import timedelta

import aiohttp
import psutil
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from benchmarks.management.commands.loadtest import ServerWatch, percentile
from benchmarks.site_client import (
    NEXT_DEAL,
    REFUSED,
    Screen,
    SiteClient,
    legal_move,
    loopback_only,
    socket_message,
)
from games.engine.phases import OVER
from games.events import services
from games.events.models import Event, EventTable
from games.models import Action, Deal, Match

# What the event page's fragments say (templates/events/_live.html and _my_place.html).
LIVE_RE = re.compile(r'<section id="event-live"[^>]*data-event-status="(\w+)" data-round="(\d+)"')
TABLE_ROW_RE = re.compile(
    r'data-event-table="(\d+)" data-table-playing="(yes|no)">\s*<strong>[^<]*</strong>\s*'
    r'<span class="muted small">([^<]*)</span>'
)
DEALS_DONE_RE = re.compile(r"(\d+) of \d+ deals? done")
MY_TABLE_RE = re.compile(r'href="/matches/(\d+)/" data-my-table')
OVER_STATUSES = ("finished", "cancelled")


@dataclass(frozen=True)
class LiveSeen:
    """What one `#event-live` fragment showed: the event's status and round, and for each table
    of that round its deals done (`finished`: the table's match is over)."""

    status: str
    round: int
    deals_done: dict[int, int] = field(default_factory=dict)
    finished: frozenset[int] = frozenset()


def parse_live(html: str) -> LiveSeen | None:
    """The `#event-live` part of a message from the event's socket; None if it has none."""
    found = LIVE_RE.search(html)
    if not found:
        return None
    deals_done: dict[int, int] = {}
    finished = set()
    for number, playing, note in TABLE_ROW_RE.findall(html):
        if playing == "no":
            finished.add(int(number))
        done = DEALS_DONE_RE.search(note)
        deals_done[int(number)] = int(done.group(1)) if done else 0
    return LiveSeen(found.group(1), int(found.group(2)), deals_done, frozenset(finished))


def reflects(seen: LiveSeen, round_number: int, table: int, deal_number: int) -> bool:
    """Whether a fragment shows that deal `deal_number` at table `table` of round `round_number`
    is over: the event is finished, or at a later round, or that table of that round is over or
    has that many deals done."""
    if seen.status == "finished" or seen.round > round_number:
        return True
    if seen.round < round_number:
        return False
    return table in seen.finished or seen.deals_done.get(table, 0) >= deal_number


def first_reflecting(
    seen: list[tuple[float, LiveSeen]], round_number: int, table: int, deal_number: int
) -> float | None:
    """When a socket first showed the deal over (`seen`: its fragments and their arrival, in
    order), or None if it never did."""
    for at, live in seen:
        if reflects(live, round_number, table, deal_number):
            return at
    return None


def played_deals(rows) -> list[tuple[int, int, float]]:
    """(match id, deal number among the deals played, when it ended) of the finished deals
    `rows` (match id, number, end, result): a deal everyone passed is dealt again and counts for
    nothing, so the table's "deals done" does not count it either."""
    played = []
    for match_id, number, ended, result in sorted(rows, key=lambda row: row[:2]):
        if not (result or {}).get("thrown_in"):
            played.append((match_id, number, ended))
    ordinals: dict[int, int] = {}
    counted = []
    for match_id, _, ended in played:
        ordinals[match_id] = ordinals.get(match_id, 0) + 1
        counted.append((match_id, ordinals[match_id], ended))
    return counted


def spread(values: list[float]) -> str:
    """p50 / p95 / max in milliseconds, and how many."""
    if not values:
        return "- (n=0)"
    return (
        f"{percentile(values, 50) * 1000:,.0f} / {percentile(values, 95) * 1000:,.0f} / "
        f"{max(values) * 1000:,.0f} ms (n={len(values)})"
    )


@dataclass
class Counts:
    moves: int = 0
    refused: int = 0
    reloads: int = 0
    reconnects: int = 0
    table_reconnects: int = 0
    errors: dict = field(default_factory=dict)

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


class Person:
    """One person: their browser, their event page's socket all night, and (a player) the
    table the page sends them to, played at once on their turn."""

    def __init__(self, number: int, base: str, event_id: int, plays: bool, options, counts):
        self.username = f"{options['prefix']}-{number}"
        self.password = options["password"]
        self.prefix = options["prefix"]
        self.base = base
        self.event_id = event_id
        self.plays = plays
        self.stall = options["stall"]
        self.think = options["think"]
        self.counts = counts
        self.rng = random.Random(number)
        self.web = SiteClient(base, who=self.username)
        self.seen: list[tuple[float, LiveSeen]] = []  # (time.time() on arrival, fragment)
        self.tables_shown: dict[int, float] = {}  # match id -> when the socket first showed it
        self.ready = asyncio.Event()  # the socket's first fragment came
        self.over = asyncio.Event()  # the socket showed the event over
        self.table_task: asyncio.Task | None = None
        self.match_id: int | None = None

    async def log_in(self) -> None:
        await self.web.log_in(self.username, self.password, self.prefix)

    async def watch_event(self) -> None:
        """The event page's socket, reopened after a pause if it closes before the end."""
        url = self.base.replace("http://", "ws://") + f"/ws/events/{self.event_id}/"
        while not self.over.is_set():
            try:
                async with await self.web.socket(url) as socket_:
                    async for message in socket_:
                        if message.type != aiohttp.WSMsgType.TEXT:
                            break
                        self._heard(message.data)
                        if self.over.is_set():
                            return
            except (TimeoutError, aiohttp.ClientError) as error:
                self.counts.error(f"event socket {type(error).__name__}")
            if not self.over.is_set():
                self.counts.reconnects += 1
                await asyncio.sleep(self.rng.uniform(0.2, 1.0))

    def _heard(self, html: str) -> None:
        now = time.time()
        live = parse_live(html)
        if live is not None:
            self.seen.append((now, live))
        mine = MY_TABLE_RE.search(html)
        if mine:
            match_id = int(mine.group(1))
            if match_id not in self.tables_shown:
                self.tables_shown[match_id] = now
                self.go_to(match_id)
        self.ready.set()
        if live is not None and live.status in OVER_STATUSES:
            self.over.set()

    def go_to(self, match_id: int) -> None:
        """The page goes to the table (`data-go-to`): the last table is left behind."""
        if self.table_task is not None:
            self.table_task.cancel()
        self.match_id = match_id
        self.table_task = asyncio.create_task(self.play(match_id))

    async def play(self, match_id: int) -> None:
        """The table's page, its socket reopened after a jittered pause if it fails or closes
        (as htmx's ws extension does), until the next table or the night's end."""
        delay = 0.5
        while True:
            try:
                if self.plays:
                    await self._play(match_id)
                else:
                    await self._glance(match_id)
                return
            except asyncio.CancelledError:
                raise
            except (TimeoutError, aiohttp.ClientError) as error:
                self.counts.error(f"table {type(error).__name__}")
                self.counts.table_reconnects += 1
                await asyncio.sleep(self.rng.uniform(0, delay))
                delay = min(delay * 2, 8)
            except Exception as error:  # noqa: BLE001 - counted and shown; one person's failure
                self.counts.error(f"table {type(error).__name__}")  # must not stop the others
                return

    async def _load(self, match_id: int) -> Screen | None:
        answer = await self.web.get(f"/matches/{match_id}/")
        if answer.status != 200:
            self.counts.error(f"table page {answer.status}")
        return Screen.parse(answer.text)

    async def _glance(self, match_id: int) -> None:
        """Someone who is not there: their page opened the table and was closed. Seen once,
        they count as away after the grace, and a stand-in plays their turns at the bots' pace
        (never seen, each of their turns would wait the whole grace: docs/people.md)."""
        await self._load(match_id)
        async with await self.web.table_socket(match_id) as socket_:
            await socket_.receive(timeout=self.stall)

    async def _play(self, match_id: int) -> None:
        screen = await self._load(match_id)
        acted_on = -1  # the version of the last screen this person answered
        async with await self.web.table_socket(match_id) as socket_:
            while True:
                if screen is not None and screen.version > acted_on:
                    if screen.my_turn:
                        acted_on = screen.version
                        if self.think:
                            await asyncio.sleep(self.rng.uniform(0.5, 1.5) * self.think)
                        move = legal_move(screen, self.rng)
                        await socket_.send_str(socket_message("move", move))
                        self.counts.moves += 1
                    elif screen.phase == OVER and NEXT_DEAL in screen.html:
                        acted_on = screen.version
                        data = {"version": str(screen.version)}
                        await socket_.send_str(socket_message("next_deal", data))
                waiting = screen is not None and acted_on == screen.version
                try:
                    message = await socket_.receive(timeout=self.stall if waiting else None)
                except TimeoutError:
                    # Answered and nothing came back: reload, as a person would.
                    self.counts.reloads += 1
                    screen, acted_on = await self._load(match_id), -1
                    continue
                if message.type != aiohttp.WSMsgType.TEXT:
                    raise aiohttp.ClientConnectionError("the table's socket closed")
                if REFUSED in message.data:
                    self.counts.refused += 1
                    screen, acted_on = await self._load(match_id), -1
                    continue
                shown = Screen.parse(message.data)
                if shown is not None and (screen is None or shown.version > screen.version):
                    screen = shown

    async def close(self) -> None:
        if self.table_task is not None:
            self.table_task.cancel()
            await asyncio.gather(self.table_task, return_exceptions=True)
        await self.web.close()


@dataclass
class Start:
    """The start: when it was asked for (time.time()), when its transaction had committed and
    told the screens, and its queries (None when the sweeper started it)."""

    asked_at: float
    committed_at: float | None
    queries: int | None


def _start_now(event_id: int, starts_at) -> Start:
    asked_at = time.time()
    with CaptureQueriesContext(connection) as queries:
        started = services.do_start_event(event_id, now=starts_at)
    if started is None or started.status != Event.Status.PLAYING:
        raise CommandError("the event did not start")
    return Start(asked_at, time.time(), len(queries.captured_queries))


def _start_by_sweeper(event_id: int) -> Start:
    now = timezone.now()
    Event.objects.filter(pk=event_id).update(starts_at=now)
    return Start(now.timestamp(), None, None)


def _prepare(options) -> tuple[Event, list[str]]:
    """The people, the event, and everyone checked in (in the site's database)."""
    count, prefix = options["people"], options["prefix"]
    call_command("loadtest_users", count, prefix=prefix, password=options["password"])
    names = [f"{prefix}-{n}" for n in range(1, count + 1)]
    users = {u.username: u for u in get_user_model().objects.filter(username__in=names)}
    organiser = users[names[0]]
    # Earlier runs' events of this organiser that never started (a run cut short) go first:
    # one person may have only a few scheduled at once.
    for waiting in Event.objects.filter(organiser=organiser, status=Event.Status.SCHEDULED):
        services.do_cancel_event(waiting.pk, user=organiser)
    now = timezone.now()
    event = services.do_schedule_event(
        organiser,
        name=f"Load test night {now:%H:%M:%S}",
        preset="house",
        movement=options["movement"],
        rounds=options["rounds"],
        deals_per_round=options["deals"],
        minutes_per_round=options["minutes"],
        bot_level=options["bot_level"],
        starts_at=now + timedelta(minutes=40),
        now=now,
    )
    for name in names:
        services.do_check_in(event.pk, user=users[name], now=now + timedelta(minutes=15))
    return event, names


def _own_cpu() -> float:
    times = psutil.Process().cpu_times()
    return times.user + times.system


async def _night(bases: list[str], event: Event, options, counts: Counts, watch: ServerWatch):
    people = [
        Person(n, bases[(n - 1) % len(bases)], event.pk, n <= options["players"], options, counts)
        for n in range(1, options["people"] + 1)
    ]
    gate = asyncio.Semaphore(8)

    async def log_in(person: Person) -> None:
        async with gate:
            await person.log_in()

    watching: list[asyncio.Task] = []
    try:
        await asyncio.gather(*(log_in(p) for p in people))
        print(f"logged in {len(people)} people; opening their event pages", flush=True)
        watching = [asyncio.create_task(p.watch_event()) for p in people]
        await asyncio.wait_for(asyncio.gather(*(p.ready.wait() for p in people)), 120)
        print("every event page is open; starting the event", flush=True)
        await asyncio.sleep(1)  # the check-in announcements' renders are over
        await asyncio.to_thread(watch.start)
        loads = [os.getloadavg()[0]]
        own_cpu = _own_cpu()
        if options["sweeper"]:
            start = await asyncio.to_thread(_start_by_sweeper, event.pk)
        else:
            start = await asyncio.to_thread(_start_now, event.pk, event.starts_at)
        try:
            await asyncio.wait_for(
                asyncio.gather(*(p.over.wait() for p in people)), options["timeout"]
            )
        except TimeoutError:
            counts.error("the night overran --timeout")
        ended = time.time()
        loads.append(os.getloadavg()[0])
        loads.append(_own_cpu() - own_cpu)
        work = await asyncio.to_thread(watch.stop)
        return people, start, ended, work, loads
    finally:
        for task in watching:
            task.cancel()
        await asyncio.gather(*watching, return_exceptions=True)
        await asyncio.gather(*(p.close() for p in people), return_exceptions=True)


@dataclass
class Figures:
    """What the night measured, from the people's sockets and the stored rows."""

    transaction: float | None
    queries: int | None
    tables: int
    tables_span: float
    shown_from_start: list[float]
    shown_from_commit: list[float]
    not_shown: int
    next_rounds: dict[int, list[float]]
    deal_delays: list[float]
    deal_worst: list[float]  # per deal, its slowest screen
    deals: int
    missed: int
    night_seconds: float
    person_moves: int
    stand_in_moves: int


def measure(event: Event, people: list[Person], start: Start, ended: float) -> Figures:
    round_of: dict[int, tuple[int, int]] = {
        t.match_id: (t.round, t.number)
        for t in EventTable.objects.filter(event=event)
        if t.match_id is not None
    }
    matches = Match.objects.filter(pk__in=list(round_of))
    created = {m.pk: m.created_at.timestamp() for m in matches}
    first_round = [match_id for match_id, (number, _) in round_of.items() if number == 1]
    span = max(created[m] for m in first_round) - min(created[m] for m in first_round)
    deals = played_deals(
        (match_id, number, finished_at.timestamp(), result)
        for match_id, number, finished_at, result in Deal.objects.filter(
            match_id__in=list(round_of), finished_at__isnull=False
        ).values_list("match_id", "number", "finished_at", "result")
        if finished_at is not None
    )
    # Round 1: from the start to each person's socket showing their table.
    shown_from_start: list[float] = []
    shown_from_commit: list[float] = []
    not_shown = 0
    for person in people:
        shown = [when for match_id, when in person.tables_shown.items() if match_id in first_round]
        if not shown:
            not_shown += 1
            continue
        shown_from_start.append(shown[0] - start.asked_at)
        if start.committed_at is not None:
            shown_from_commit.append(shown[0] - start.committed_at)
    # Later rounds: from the previous round's last deal to each person's new table.
    last_deal: dict[int, float] = {}
    for match_id, _, finished_at in deals:
        number = round_of[match_id][0]
        last_deal[number] = max(last_deal.get(number, 0.0), finished_at)
    next_rounds: dict[int, list[float]] = {}
    for person in people:
        for match_id, when in person.tables_shown.items():
            number = round_of.get(match_id, (1, 0))[0]
            if number > 1 and number - 1 in last_deal:
                next_rounds.setdefault(number, []).append(when - last_deal[number - 1])
    # Every deal's end on every event socket.
    delays: list[float] = []
    worst: list[float] = []
    missed = 0
    for match_id, number, finished_at in deals:
        round_number, table = round_of[match_id]
        slowest = 0.0
        for person in people:
            at = first_reflecting(person.seen, round_number, table, number)
            if at is None:
                missed += 1
                continue
            delay = max(0.0, at - finished_at)
            delays.append(delay)
            slowest = max(slowest, delay)
        worst.append(slowest)
    moves = Action.objects.filter(deal__match_id__in=list(round_of))
    return Figures(
        transaction=None if start.committed_at is None else start.committed_at - start.asked_at,
        queries=start.queries,
        tables=len(first_round),
        tables_span=span,
        shown_from_start=shown_from_start,
        shown_from_commit=shown_from_commit,
        not_shown=not_shown,
        next_rounds=next_rounds,
        deal_delays=delays,
        deal_worst=worst,
        deals=len(deals),
        missed=missed,
        night_seconds=ended - start.asked_at,
        person_moves=moves.exclude(user=None).count(),
        stand_in_moves=moves.filter(user=None).count(),
    )


class Command(BaseCommand):
    help = "A Setback night of N people against a running site: start and standings latencies."

    def add_arguments(self, parser):
        parser.add_argument(
            "--url",
            default="http://127.0.0.1:8000",
            help="the site (loopback only); several, comma-separated, are shared round-robin "
            "among the people (one per Daphne process)",
        )
        parser.add_argument("--people", type=int, default=200)
        parser.add_argument(
            "--players",
            type=int,
            default=None,
            help="how many of them play their own table (default: half); the others' turns "
            "are played by stand-ins",
        )
        parser.add_argument("--movement", default="rotation", choices=Event.Movement.values)
        parser.add_argument("--rounds", type=int, default=2)
        parser.add_argument("--deals", type=int, default=1, help="deals per round")
        parser.add_argument("--minutes", type=int, default=20, help="minutes per round")
        parser.add_argument("--bot-level", default="easy", choices=["easy", "medium", "hard"])
        parser.add_argument(
            "--sweeper",
            action="store_true",
            help="let the site's sweeper start the event (its start moved to now) instead of "
            "starting it from this command",
        )
        parser.add_argument("--prefix", default="eventload")
        parser.add_argument("--password", default="Quiet-harbor-58213")
        parser.add_argument(
            "--stall",
            type=float,
            default=15,
            help="a player reloads a table that has not answered their move for this long",
        )
        parser.add_argument(
            "--think",
            type=float,
            default=0,
            help="a player's time to decide a move, in seconds (a random 0.5 to 1.5 times it; "
            "0: at once, every table always busy)",
        )
        parser.add_argument("--timeout", type=float, default=900, help="the night's longest")

    def handle(self, *args, url, **options):
        bases = [loopback_only(u) for u in url.split(",")]
        if options["people"] < 4:
            raise CommandError("--people: at least 4, a table")
        if options["players"] is None:
            options["players"] = options["people"] // 2
        watch = ServerWatch(bases)
        event, _ = _prepare(options)
        self.stdout.write(
            f"event {event.pk}: {options['people']} people checked in, {options['movement']}, "
            f"{options['rounds']} rounds of {options['deals']} deal(s), {options['bot_level']} "
            f"bots; {options['players']} play their own table, stand-ins the others"
        )
        counts = Counts()
        try:
            people, start, ended, work, loads = asyncio.run(
                _night(bases, event, options, counts, watch)
            )
        finally:
            event.refresh_from_db()
            if event.status == Event.Status.SCHEDULED:
                services.do_cancel_event(event.pk, user=event.organiser)
        figures = measure(event, people, start, ended)
        self._report(figures, counts, work, loads, options, bases)

    def _report(self, figures: Figures, counts: Counts, work, loads, options, bases) -> None:
        out = self.stdout.write
        out(
            f"against {', '.join(bases)}; load average {loads[0]:.2f} at the start, "
            f"{loads[1]:.2f} at the end; the night took {figures.night_seconds:.0f} s"
        )
        if figures.transaction is not None:
            out(
                f"start transaction     {figures.transaction * 1000:,.0f} ms, "
                f"{figures.queries} queries, {figures.tables} tables (first to last table "
                f"made {figures.tables_span * 1000:,.0f} ms apart)"
            )
        else:
            out(
                f"started by the sweeper: {figures.tables} tables (first to last table made "
                f"{figures.tables_span * 1000:,.0f} ms apart)"
            )
        out(
            f"start -> my table     p50/p95/max {spread(figures.shown_from_start)}"
            f"{f', never shown {figures.not_shown}' if figures.not_shown else ''}"
        )
        if figures.shown_from_commit:
            out(f"  from its commit     p50/p95/max {spread(figures.shown_from_commit)}")
        for number, delays in sorted(figures.next_rounds.items()):
            out(f"round {number}: last deal -> my next table p50/p95/max {spread(delays)}")
        out(
            f"deal end -> standings p50/p95/max {spread(figures.deal_delays)} over "
            f"{figures.deals} deals x {options['people']} screens; missed {figures.missed}"
        )
        out(f"  each deal's slowest screen p50/p95/max {spread(figures.deal_worst)}")
        out(
            f"moves: people {figures.person_moves}, stand-ins {figures.stand_in_moves}; "
            f"refused {counts.refused}, reloads {counts.reloads}, socket reconnects: event "
            f"{counts.reconnects}, table {counts.table_reconnects}; "
            f"errors {sum(counts.errors.values())} {counts.errors or ''}"
        )
        total = sum(work.seconds.values())
        share = ", ".join(
            f"{kind} {spent:.1f} s"
            for kind, spent in sorted(work.seconds.items(), key=lambda item: -item[1])
        )
        out(
            f"server CPU            {total:.1f} s over {figures.night_seconds:.0f} s "
            f"({total / max(figures.night_seconds, 1e-9):.2f} cores; {share}); the load "
            f"generator's own {loads[2]:.1f} s"
        )
        out(
            f"SUMMARY people={options['people']} players={options['players']} "
            f"think={options['think']:g}s "
            f"tables={figures.tables} "
            f"start_ms={'-' if figures.transaction is None else f'{figures.transaction * 1000:.0f}'} "
            f"shown_p95_s={percentile(figures.shown_from_start, 95):.2f} "
            f"shown_max_s={max(figures.shown_from_start, default=float('nan')):.2f} "
            f"standings_p95_s={percentile(figures.deal_delays, 95):.2f} "
            f"standings_max_s={max(figures.deal_delays, default=float('nan')):.2f} "
            f"missed={figures.missed} errors={sum(counts.errors.values())} "
            f"cpu_s={total:.1f} load={loads[0]:.2f}/{loads[1]:.2f}"
        )
