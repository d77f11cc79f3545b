"""Time the daily deals' pages with a busy day behind them.

    python manage.py bench_daily --results 10000 --repeat 40

Writes a day (a date long past, so that every deal's field is shown: the heaviest page) with
`--results` finished, counted plays spread over its eight deals (one player for every eight
results, rows only, as the services leave them), then times the day's page and a deal's
comparison through Django's test client as one of those players, prints p50 and p95 of each,
and rolls everything back. The issue's bar: p95 at most 200 ms with 10,000 results.
"""

import datetime
import random
import statistics
import time

from django.core.management.base import BaseCommand
from django.db import transaction
from django.test import Client
from django.test.utils import setup_test_environment
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games.daily import deals, services
from games.daily.models import DailyPlay
from games.models import Match

BENCH_DAY = datetime.date(2001, 1, 1)
AUCTIONS = [
    "pass 2 pass pass",
    "2 3 pass pass",
    "pass pass pass 2",
    "3 pass 4",
    "pass pass pass pass",
]


class Rollback(Exception):
    """Raised to undo everything the bench wrote."""


def write_day(results: int, rng: random.Random) -> list[User]:
    """A day with `results` finished plays: players of all eight deals, rows only."""
    daily_set = services.ensure_day(BENCH_DAY)
    deal_rows = list(daily_set.deals.order_by("number"))
    people = max(1, results // deals.DEALS_A_DAY)
    users = User.objects.bulk_create(
        User(username=f"bench-daily-{i}", password="!") for i in range(people)
    )
    now = timezone.now()
    matches = Match.objects.bulk_create(
        (
            Match(rules="house", host=users[i % people], first_dealer="N", single_deal=True)
            for i in range(results)
        ),
        batch_size=2000,
    )
    DailyPlay.objects.bulk_create(
        (
            _play(rng, users[i % people], deal_rows[i // people % len(deal_rows)], match, now)
            for i, match in enumerate(matches)
        ),
        batch_size=2000,
    )
    return users


def _play(rng, user, deal_row, match, now) -> DailyPlay:
    pitcher = rng.choice("NESW")
    made = rng.random() < 0.7
    bid = rng.choice((2, 2, 3, 4))
    ours = pitcher in "NS"
    score = (rng.randint(bid, 4) if made else -bid) if ours else rng.randint(0, 2 if made else 4)
    return DailyPlay(
        deal=deal_row,
        user=user,
        match=match,
        counted=True,
        finished_at=now,
        score=score,
        pitcher=pitcher,
        bid=bid,
        made=made,
        auction=rng.choice(AUCTIONS),
    )


def timed(client: Client, url: str, repeat: int) -> tuple[float, float]:
    """p50 and p95 of `repeat` GETs of `url`, in milliseconds (one unmeasured warm-up)."""
    assert client.get(url).status_code == 200, url
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        client.get(url)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return statistics.median(times), times[max(0, round(0.95 * len(times)) - 1)]


class Command(BaseCommand):
    help = "Time the daily deals' pages with a day of N results (default 10,000)."

    def add_arguments(self, parser):
        parser.add_argument("--results", type=int, default=10_000)
        parser.add_argument("--repeat", type=int, default=40)

    def handle(self, *args, results, repeat, **options):
        setup_test_environment()
        try:
            with transaction.atomic():
                self._run(results, repeat)
                raise Rollback
        except Rollback:
            pass

    def _run(self, results: int, repeat: int) -> None:
        started = time.perf_counter()
        users = write_day(results, random.Random(33))
        self.stdout.write(
            f"wrote {results} results of {len(users)} players in {time.perf_counter() - started:.1f} s"
        )
        client = Client()
        client.force_login(users[len(users) // 2])
        day = BENCH_DAY.isoformat()
        for label, url in (
            ("day's page", reverse("daily:day", args=[day])),
            ("deal vs field", reverse("daily:deal", args=[day, 1])),
        ):
            p50, p95 = timed(client, url, repeat)
            self.stdout.write(
                f"{label:14} p50 {p50:6.1f} ms  p95 {p95:6.1f} ms  ({repeat} requests)"
            )
