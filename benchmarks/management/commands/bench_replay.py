"""Time the history list and a replay step the way a browser asks for them.

    python manage.py bench_replay --matches 100 1000 5000

Writes a throwaway player with that many matches (rows only, as the services leave them), plays
one real match against bots for the replay and export figures, times each page over
`--repeat` requests through Django's test client, prints the medians, and rolls everything back.
"""

import random
import statistics
import time

from django.core.management.base import BaseCommand
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext, setup_test_environment
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games import engine
from games.core import selectors, services, turns
from games.models import Match, Seat
from games.web import tasks

# Mixed tables so every kind of seat and side is in the list.
HISTORY_RULES = [
    "house",
    "classic",
    {"preset": "auction", "players": 3},
    "family",
    {"preset": "house", "six_players": True},
    {"preset": "family", "players": 7},
]


def write_history(user, count: int, start: int = 0) -> list[Match]:
    """`count` matches for `user`, written straight as rows (rules, seats, status, winner,
    totals) as the services leave them; no deals, which the history list never reads."""
    matches = []
    for i in range(start, start + count):
        rules = engine.Rules.from_spec(HISTORY_RULES[i % len(HISTORY_RULES)])
        finished = i % 3 != 2
        matches.append(
            Match(
                rules=rules.to_spec(),
                host=user,
                first_dealer=rules.seats[0],
                status=Match.Status.FINISHED if finished else Match.Status.PLAYING,
                winner=rules.sides[i % len(rules.sides)] if finished else "",
                totals={side: (i + k) % 12 for k, side in enumerate(rules.sides)},
                finished_at=timezone.now() if finished else None,
            )
        )
    matches = Match.objects.bulk_create(matches)
    seats = []
    for match in matches:
        rules = engine.Rules.from_spec(match.rules)
        mine = services.human_seat(rules)
        for position in rules.seats:
            seats.append(
                Seat(
                    match=match,
                    position=position,
                    user=user if position == mine else None,
                    bot_level="" if position == mine else "easy",
                )
            )
    Seat.objects.bulk_create(seats, batch_size=2000)
    return matches


def play_out(match: Match) -> Match:
    """Play a match to its end: bots through their task, the person with any legal move."""
    rng = random.Random(1)
    while True:
        match.refresh_from_db()
        turn = turns.waiting_on(match.pk)
        if turn is None:
            return match
        if turn.kind == turns.WaitingFor.BOT:
            tasks.play_bot_turn(match.pk, turn.version)
        elif turn.kind == turns.WaitingFor.NEXT_DEAL:
            services.do_next_deal(match.pk, version=turn.version)
        else:
            state = selectors.deal_state(selectors.current_deal(match))
            seat = match.seats.get(position=turn.seat)
            services.do_act(
                match.pk,
                seat=turn.seat,
                token=rng.choice(state.legal_actions()),
                version=turn.version,
                actor=services.Actor(user=seat.user),
            )


class Rollback(Exception):
    pass


class Command(BaseCommand):
    help = "Time the history page and a replay step (medians); writes nothing that stays."

    def add_arguments(self, parser):
        parser.add_argument("--matches", type=int, nargs="+", default=[100, 1000, 5000])
        parser.add_argument("--repeat", type=int, default=20)

    def handle(self, *args, matches, repeat, **options):
        setup_test_environment()
        self.stdout.write(f"database: {connection.vendor}")
        try:
            with transaction.atomic():
                self._run(matches, repeat)
                raise Rollback
        except Rollback:
            pass

    def _time(self, client, url, repeat) -> tuple[float, int]:
        client.get(url)  # warm
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            response = client.get(url)
            times.append(time.perf_counter() - start)
            assert response.status_code == 200, (url, response.status_code)
        with CaptureQueriesContext(connection) as queries:
            client.get(url)
        return statistics.median(times) * 1000, len(queries)

    def _run(self, counts, repeat):
        user = User.objects.create_user("bench-replay", password="x")
        client = Client()
        client.force_login(user)
        written = 0
        for count in sorted(counts):
            write_history(user, count - written, start=written)
            written = count
            for label, query in [
                ("first page", ""),
                ("won, page 2", "?outcome=won&page=2"),
                ("family, last page", "?preset=family&page=9999"),
            ]:
                ms, queries = self._time(client, reverse("replay:history") + query, repeat)
                self.stdout.write(
                    f"history, {count} matches, {label}: {ms:.1f} ms median, {queries} queries"
                )
        match = play_out(services.do_start_match(user, rules_spec="house", bot_level="easy"))
        deal_row = next(d for d in match.deals.order_by("number") if not d.result["thrown_in"])
        steps = deal_row.actions.count()
        for label, url in [
            ("match page", reverse("replay:match", args=[match.pk])),
            (
                "replay step (page)",
                reverse("replay:deal_step", args=[match.pk, deal_row.number, steps // 2]),
            ),
            ("match record export", reverse("replay:match_record", args=[match.pk])),
        ]:
            ms, queries = self._time(client, url, repeat)
            self.stdout.write(
                f"{label} ({match.deals.count()} deals): {ms:.1f} ms median, {queries} queries"
            )
        client.defaults["HTTP_HX_REQUEST"] = "true"
        ms, queries = self._time(
            client,
            reverse("replay:deal_step", args=[match.pk, deal_row.number, steps // 2]),
            repeat,
        )
        self.stdout.write(f"replay step (htmx fragment): {ms:.1f} ms median, {queries} queries")
