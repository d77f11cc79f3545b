"""``python -m games.engine bench-solver``: the face-up solver's cost per replay step.

Deals are dealt and bid at random, then played by random legal cards; every step from the
opening lead to the last card is analysed (every legal card valued exactly), on one core (processor time, so other work on the machine does not count).
Prints the seconds per step (p50, p95, largest), the same by trick, and how many steps were
too large for the node limit.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Sequence
from typing import Any

from .cli import command
from .deal import Deal
from .phases import PLAY
from .rules import Rules
from .solver import DEFAULT_MAX_NODES, TooLarge, analyse


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(rules: Rules, deals: int, seed: int, max_nodes: int) -> dict[str, Any]:
    rng = random.Random(seed)
    seconds: list[float] = []
    by_trick: dict[int, list[float]] = {}
    nodes: list[int] = []
    too_large = 0
    done = 0
    while done < deals:
        deal = Deal.new(rules, rng.choice(rules.seats), rng)
        while not deal.is_over and deal.phase != PLAY:
            deal.apply(rng.choice(deal.legal_actions()))
        if deal.is_over:
            continue
        while not deal.is_over:
            trick = len(deal.tricks) + 1
            start = time.process_time()
            try:
                analysis = analyse(deal, max_nodes=max_nodes)
                nodes.append(analysis.nodes)
            except TooLarge:
                too_large += 1
            spent = time.process_time() - start
            seconds.append(spent)
            by_trick.setdefault(trick, []).append(spent)
            deal.apply(rng.choice(deal.legal_actions()))
        done += 1
    return {
        "rules": rules.to_spec(),
        "deals": deals,
        "steps": len(seconds),
        "seconds_per_step": {
            "p50": round(_percentile(seconds, 0.5), 4),
            "p95": round(_percentile(seconds, 0.95), 4),
            "largest": round(max(seconds), 4),
        },
        "by_trick_p95": {t: round(_percentile(v, 0.95), 4) for t, v in sorted(by_trick.items())},
        "nodes_p95": _percentile(nodes, 0.95) if nodes else 0,
        "too_large": too_large,
        "max_nodes": max_nodes,
    }


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rules", default="house", help='a preset name or a JSON spec (default "house")'
    )
    parser.add_argument(
        "--deals", type=int, default=20, help="deals, every play step analysed (default 20)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-nodes", type=int, default=DEFAULT_MAX_NODES)


@command(
    "bench-solver",
    help="seconds per replay step of the face-up solver: p50, p95, largest",
    configure=_arguments,
)
def bench_solver_command(args: argparse.Namespace) -> int:
    spec: Any = json.loads(args.rules) if args.rules.strip().startswith("{") else args.rules
    report = run(Rules.from_spec(spec), args.deals, args.seed, args.max_nodes)
    print(json.dumps(report, indent=2))
    return 0
