"""How fast the one path for every move is: `python manage.py bench_moves`.

Plays whole matches through `services.do_act` (lock, version check, engine, rows, on-commit
push) with every seat held by a throwaway user whose moves the easy bot picks, on the configured
database, from several threads at once. Prints moves per second and the latency of `do_act`.
Everything it creates is deleted at the end.
"""

import random
import statistics
import threading
import time

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import connection, connections

from games.core import selectors, services, turns
from games.engine.bots import choose
from games.models import Match


class Command(BaseCommand):
    help = "Benchmark moves through the service layer on the configured database."

    def add_arguments(self, parser):
        parser.add_argument("--matches", type=int, default=8)
        parser.add_argument("--threads", type=int, default=4)
        parser.add_argument("--rules", default="house")

    def handle(self, *args, matches, threads, rules, **options):
        User = get_user_model()
        stamp = f"bench{random.randrange(10**9)}"
        players = [
            User.objects.create_user(f"{stamp}-{i}", password=None) for i in range(threads * 7)
        ]
        latencies: list[float] = []
        lock = threading.Lock()
        match_ids: list[int] = []

        def play(worker: int):
            mine = []
            try:
                for _ in range(worker, matches, threads):
                    host = players[worker * 7]
                    match = services.do_start_match(host, rules_spec=rules, bot_level="easy")
                    mine.append(match.pk)
                    seats = list(match.seats.exclude(user=host))
                    for i, seat in enumerate(seats, start=1):
                        seat.user, seat.bot_level = players[worker * 7 + i], ""
                        seat.save()
                    times = _play_match(match.pk)
                    with lock:
                        latencies.extend(times)
            finally:
                with lock:
                    match_ids.extend(mine)
                connections.close_all()

        started = time.perf_counter()
        workers = [threading.Thread(target=play, args=(w,)) for w in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        elapsed = time.perf_counter() - started
        Match.objects.filter(pk__in=match_ids).delete()
        User.objects.filter(username__startswith=stamp).delete()

        latencies.sort()
        p95 = latencies[int(0.95 * (len(latencies) - 1))]
        self.stdout.write(
            f"database: {connection.vendor}; {matches} {rules} matches, {threads} threads, "
            f"{len(latencies)} moves in {elapsed:.1f} s"
        )
        self.stdout.write(
            f"do_act latency: median {statistics.median(latencies) * 1000:.1f} ms, "
            f"p95 {p95 * 1000:.1f} ms"
        )
        self.stdout.write(f"{len(latencies) / elapsed:.0f} moves/s")


def _play_match(match_id: int) -> list[float]:
    times = []
    while True:
        turn = turns.waiting_on(match_id)
        if turn is None:
            return times
        if turn.kind == turns.WaitingFor.NEXT_DEAL:
            services.do_next_deal(match_id, version=turn.version)
            continue
        match = Match.objects.get(pk=match_id)
        state = selectors.deal_state(selectors.current_deal(match))
        action = choose(state.observation(turn.seat), "easy", seed=turn.version)
        seat = match.seats.get(position=turn.seat)
        started = time.perf_counter()
        services.do_act(
            match_id,
            seat=turn.seat,
            token=action,
            version=turn.version,
            actor=services.Actor(user=seat.user),
        )
        times.append(time.perf_counter() - started)
