"""``python -m games.engine bench-bots``: how long each level takes per decision, on one core.

Plays deals with every seat at the same level (from random match totals), timing each decision
that has a choice (a single legal action is answered at once and not counted). Decisions are
split into cards and bids (auction calls, naming trump, discards). Times are CPU seconds of
this process (``time.process_time``), so other work on a shared machine does not inflate them;
wall-clock figures are printed too.
"""

from __future__ import annotations

import random
import sys
import time
from typing import Any, TextIO

from ..deal import Deal
from ..phases import PLAY
from ..rules import Rules
from . import LEVELS, choose
from .arena import _seed, random_totals


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    k = (len(values) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def bench_level(
    rules: Rules, level: str, deals: int, seed: int, budget: int | None = None
) -> dict[str, dict[str, float]]:
    rng = random.Random(_seed(seed, 11))
    times: dict[str, list[float]] = {"card": [], "bid": []}
    walls: dict[str, list[float]] = {"card": [], "bid": []}
    for d in range(deals):
        dealer = rules.seats[d % len(rules.seats)]
        deal = Deal.new(rules, dealer, random.Random(_seed(seed, 12, d)))
        totals = random_totals(rules, rng)
        while not deal.is_over:
            seat = deal.to_act
            assert seat is not None  # a deal not over has a seat to act
            obs = deal.observation(seat, match_totals=totals)
            kind = "card" if deal.phase == PLAY else "bid"
            many = len(obs.legal_actions()) > 1
            c0 = time.process_time()
            w0 = time.perf_counter()
            action = choose(obs, level, seed=_seed(seed, 13, d, deal.version), budget=budget)
            c1 = time.process_time()
            w1 = time.perf_counter()
            if many:
                times[kind].append(c1 - c0)
                walls[kind].append(w1 - w0)
            deal.apply(action)
    return {
        kind: {
            "decisions": len(times[kind]),
            "p50": percentile(times[kind], 0.5),
            "p95": percentile(times[kind], 0.95),
            "max": max(times[kind], default=float("nan")),
            "wall_p50": percentile(walls[kind], 0.5),
            "wall_p95": percentile(walls[kind], 0.95),
        }
        for kind in times
    }


def run_bench_bots(
    rules: Rules,
    levels: list[str],
    deals: int,
    seed: int,
    budget: int | None = None,
    out: TextIO | None = None,
) -> dict[str, Any]:
    out = out or sys.stdout
    for level in levels:
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}")
    print(
        f"bench-bots: {rules.to_spec()}, {deals} deals per level, seed {seed}; seconds per decision (CPU of one core)",
        file=out,
    )
    report = {}
    for level in levels:
        r = bench_level(rules, level, deals, seed, budget)
        report[level] = r
        for kind in ("card", "bid"):
            x = r[kind]
            print(
                f"{level:>6} {kind:>4}: p50 {x['p50']:.3f} s  p95 {x['p95']:.3f} s  max {x['max']:.3f} s  "
                f"({x['decisions']} decisions; wall p50 {x['wall_p50']:.3f} p95 {x['wall_p95']:.3f})",
                file=out,
                flush=True,
            )
    return report
