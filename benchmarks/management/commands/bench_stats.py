"""Time the statistics page for a player with a long history, then leave no trace.

Inside one transaction that is rolled back at the end, it has easy bots play 10,000 deals (real
engine results, so the figures have a true shape) for one throwaway user: mostly against bots of every
level, some against people, under every preset, in whole matches that end by the engine's rules,
the last one left unfinished. Summary rows and ratings are written by the same code the site
uses. Then it renders the page through the full Django stack several times and prints the
server time (median and 95th percentile) and the number of queries per render.
"""

import os
import random
import statistics
import time
from datetime import timedelta

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connection, reset_queries, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games import engine
from games.core.services import ACTION_KINDS
from games.engine import bots
from games.models import Action, BotLevel, Deal, Match, Seat
from games.stats import services
from games.stats.models import DealSummary

# (rules spec, share of matches)
PRESETS = [("house", 0.45), ("classic", 0.2), ("auction", 0.25), ("family", 0.1)]
# (opponents, share of matches): bots of one level, people, or people with a bot.
TABLES = [("easy", 0.2), ("medium", 0.3), ("hard", 0.2), ("people", 0.2), ("mixed", 0.1)]
MINUTES_PER_DEAL = 50  # 10,000 deals over about a year


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _pick(rng: random.Random, choices):
    return rng.choices([c for c, _ in choices], weights=[w for _, w in choices])[0]


def _bot_deal(rules, dealer, rng) -> tuple[engine.Deal, list[str]]:
    """A complete deal played by easy bots: bids and results of a realistic shape (random
    bidding sets nearly every pitcher, and matches would never end). Also the phase each
    action was taken in (its row's kind)."""
    deal = engine.Deal.new(rules, dealer, rng)
    phases = []
    while not deal.is_over:
        phases.append(deal.phase)
        deal.apply(bots.choose(deal.observation(deal.to_act), "easy", seed=rng.randrange(1 << 30)))
    return deal, phases


def _action_rows(deal_row: Deal, deal: engine.Deal, phases: list[str], seats) -> list[Action]:
    """The deal's actions as the services store them: one row each, by the seat's user or bot."""
    by_position = {seat.position: seat for seat in seats}
    return [
        Action(
            deal=deal_row,
            sequence=n,
            seat=position,
            kind=ACTION_KINDS[phase],
            token=token,
            user_id=by_position[position].user_id,
            bot_level=by_position[position].bot_level,
        )
        for n, ((position, token), phase) in enumerate(zip(deal.history, phases, strict=True))
    ]


def generate_history(deal_count: int, rng: random.Random, actions: bool = False) -> User:
    """One throwaway user who played `deal_count` deals: mostly against bots of every level,
    some against five other throwaway people, under every preset, in whole matches that end by
    the engine's rules, the last one left unfinished. Summary rows and ratings are written by
    the site's own code. With `actions`, every bid and card has its row too (a database of the
    size the site keeps: bench_backup), not only what statistics read."""
    suffix = rng.randrange(10**9)
    user = User.objects.create_user(f"bench-{suffix}")
    others = [User.objects.create_user(f"bench-{suffix}-{n}") for n in range(5)]
    now = timezone.now()
    first_time = now - timedelta(minutes=MINUTES_PER_DEAL * deal_count)
    played = 0
    summaries: list[DealSummary] = []
    action_rows: list[Action] = []
    while played < deal_count:
        rules = engine.Rules.from_spec(_pick(rng, PRESETS))
        table = _pick(rng, TABLES)
        match = Match.objects.create(
            rules=rules.to_spec(),
            host=user,
            first_dealer=rules.seats[0],
            totals={side: 0 for side in rules.sides},
        )
        seats = _seat(match, rules, table, user, others, rng)
        standing = engine.MatchState(rules, match.first_dealer)
        finished_rows: list[tuple[Deal, dict, engine.Deal, list]] = []
        while not standing.over and played < deal_count:
            deal, phases = _bot_deal(rules, standing.dealer, rng)
            finished_at = first_time + timedelta(minutes=MINUTES_PER_DEAL * played)
            result = deal.result().to_json()
            finished_rows.append(
                (
                    Deal(
                        match=match,
                        number=len(finished_rows) + 1,
                        dealer=deal.dealer,
                        hands={seat: list(cards) for seat, cards in deal.dealt_hands.items()},
                        stock=list(deal.stock),
                        phase=engine.OVER,
                        pitcher=deal.pitcher or "",
                        bid=deal.bid,
                        trump=deal.trump or "",
                        steps=len(deal.history),
                        result=result,
                        finished_at=finished_at,
                    ),
                    result,
                    deal,
                    phases,
                )
            )
            standing.add(deal)
            played += 1
        deal_rows = Deal.objects.bulk_create([row for row, *_ in finished_rows])
        for deal_row, (_, result, deal, phases) in zip(deal_rows, finished_rows, strict=True):
            summaries += services.deal_summaries(deal_row, result, rules, seats)
            if actions:
                action_rows += _action_rows(deal_row, deal, phases, seats)
        match.totals = dict(standing.totals)
        if standing.over:
            match.status = Match.Status.FINISHED
            match.winner = standing.winner
            match.finished_at = deal_rows[-1].finished_at
            services.do_record_match(match)
        match.save()
        if len(summaries) > 5000:
            DealSummary.objects.bulk_create(summaries)
            summaries = []
        if len(action_rows) > 20000:
            Action.objects.bulk_create(action_rows, batch_size=5000)
            action_rows = []
    DealSummary.objects.bulk_create(summaries)
    Action.objects.bulk_create(action_rows, batch_size=5000)
    return user


def _seat(match, rules, table, user, others, rng) -> list[Seat]:
    """The user first; the rest bots of one level, people, or people and one bot."""
    people = rng.sample(others, k=min(len(others), len(rules.seats) - 1))
    seats = []
    for n, position in enumerate(rules.seats):
        if n == 0:
            seats.append(Seat(match=match, position=position, user=user))
        elif table in BotLevel.values:
            seats.append(Seat(match=match, position=position, bot_level=table))
        elif table == "mixed" and n == 1:
            seats.append(
                Seat(match=match, position=position, bot_level=rng.choice(BotLevel.values))
            )
        else:
            seats.append(Seat(match=match, position=position, user=people[n - 1]))
    return Seat.objects.bulk_create(seats)


class Command(BaseCommand):
    help = "Render the statistics page for a generated 10,000-deal history; print time and queries."

    def add_arguments(self, parser):
        parser.add_argument("--deals", type=int, default=10_000)
        parser.add_argument("--renders", type=int, default=30)
        parser.add_argument("--seed", type=int, default=1)

    def handle(self, *args, deals, renders, seed, **options):
        with transaction.atomic():
            started = time.perf_counter()
            user = generate_history(deals, random.Random(seed))
            self.stdout.write(
                f"generated {DealSummary.objects.filter(user=user).count()} deals for one player "
                f"in {time.perf_counter() - started:.1f} s (rolled back at the end)"
            )
            host = next((h.lstrip(".") for h in settings.ALLOWED_HOSTS if h != "*"), "localhost")
            client = Client(SERVER_NAME=host)
            client.force_login(user)
            url = reverse("my_stats")
            for label, query in [
                ("all", {}),
                (
                    "filtered",
                    {
                        "preset": "house",
                        "since": (timezone.localdate() - timedelta(days=120)).isoformat(),
                    },
                ),
            ]:
                self._measure(client, url, query, label, renders, options["verbosity"])
            transaction.set_rollback(True)

    def _measure(self, client, url, query, label, renders, verbosity=1):
        for _ in range(2):  # warm up caches: templates, rules, the database's pages
            client.get(url, query)
        reset_queries()  # the query log is capped: a full one would count nothing new
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url, query)
        if response.status_code != 200:
            raise CommandError(f"the page answered {response.status_code}")
        if verbosity > 1:  # -v 2: where the database time goes
            for captured in queries.captured_queries:
                self.stdout.write(
                    f"  {float(captured['time']) * 1000:6.1f} ms  {captured['sql'][:110]}"
                )
        wall, cpu = [], []
        for _ in range(renders):
            start, start_cpu = time.perf_counter(), time.process_time()
            client.get(url, query)
            wall.append((time.perf_counter() - start) * 1000)
            cpu.append((time.process_time() - start_cpu) * 1000)
        self.stdout.write(
            f"stats page ({label}, {connection.vendor}): median {statistics.median(wall):.1f} ms, "
            f"p95 {_p95(wall):.1f} ms over {renders} renders ({statistics.median(cpu):.1f} ms of "
            f"CPU time; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores), "
            f"{len(queries.captured_queries)} queries"
        )
