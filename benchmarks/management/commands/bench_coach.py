"""``python manage.py bench_coach``: how long the coach takes to advise, at the 50th and 95th
percentile, over the decisions one seat meets in many random deals (bids and cards).

Times the work of the advice task (the hard search at the hard bot's budget, and the wording),
not the queue or the websocket. Wall-clock seconds are what a player waits; CPU seconds of this
process are shown too, since other work on a shared machine inflates the wall clock.
"""

import json
import random
import time

from django.core.management.base import BaseCommand

from games import engine
from games.engine import Deal, Rules
from games.engine.bots import choose
from games.engine.bots.bench import percentile
from games.engine.coach.advice import advise


class Command(BaseCommand):
    help = "Time the coach's advice on random positions and print p50/p95."

    def add_arguments(self, parser):
        parser.add_argument(
            "--rules", default="house", help='a preset name or a JSON spec (default "house")'
        )
        parser.add_argument("--deals", type=int, default=20, help="deals to play (default 20)")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument(
            "--seated",
            nargs="?",
            const="easy",
            choices=("easy", "casual"),
            help="tell the coach who sits at the table, as the site's coach is "
            "(engine.bots.seats): the others modelled as easy bots (the default) or casual people",
        )

    def handle(self, *args, rules, deals, seed, seated=None, **options):
        spec = json.loads(rules) if rules.strip().startswith("{") else rules
        rules = Rules.from_spec(spec)
        rng = random.Random(seed)
        walls = {"bid": [], "card": []}
        cpus = {"bid": [], "card": []}
        for number in range(deals):
            deal = Deal.new(rules, rules.seats[number % len(rules.seats)], rng)
            coached = rules.seats[0]
            models = (
                {seat: "hard" if seat == coached else seated for seat in rules.seats}
                if seated
                else None
            )
            totals = (
                {side: rng.randint(-3, rules.target - 1) for side in rules.sides}
                if rng.random() < 0.3
                else None
            )
            while not deal.is_over:
                obs = deal.observation(deal.to_act, match_totals=totals)
                if deal.to_act == coached and len(obs.legal_actions()) > 1:
                    kind = "card" if deal.phase == engine.PLAY else "bid"
                    wall, cpu = time.perf_counter(), time.process_time()
                    action = advise(obs, seed=rng.randrange(1 << 30), seat_models=models)[0].action
                    walls[kind].append(time.perf_counter() - wall)
                    cpus[kind].append(time.process_time() - cpu)
                else:
                    action = choose(obs, "easy", seed=rng.randrange(1 << 30))
                deal.apply(action)
        self.stdout.write(
            f"bench_coach: {rules.to_spec()}, {deals} deals, seed {seed}"
            f"{f', seated ({seated})' if seated else ''}: seconds per piece of advice"
        )
        every_wall = walls["bid"] + walls["card"]
        every_cpu = cpus["bid"] + cpus["card"]
        for label, wall, cpu in (
            ("bids", walls["bid"], cpus["bid"]),
            ("cards", walls["card"], cpus["card"]),
            ("all", every_wall, every_cpu),
        ):
            self.stdout.write(
                f"{label:>6}: {len(wall):4} decisions  p50 {percentile(wall, 0.5):.3f} s  p95 {percentile(wall, 0.95):.3f} s"
                f"  max {max(wall, default=float('nan')):.3f} s  (CPU p50 {percentile(cpu, 0.5):.3f} p95 {percentile(cpu, 0.95):.3f})"
            )
