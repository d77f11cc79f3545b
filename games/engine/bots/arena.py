"""The duplicate-deal arena: two bot levels play the same cards from both sides.

A **duplicate pair** is one deal (the same cards, dealer and match totals) played twice: once
with level A on the even-numbered sides (N-S at a four-player table) and level B on the others,
once with the sides swapped. Luck of the cards cancels out; what is left is the difference
between the players. The pair's figure is A's average margin per deal over its two plays (its
side's deal score minus the other side's; with three or more sides, A's sides' mean minus B's).
Each pair starts from random match totals, which both bots see, so match-aware play is in the
test too.

For the match win rate, **duplicate matches** start from random totals and are played to their
end twice (deal ``k`` has the same cards in both), sides swapped; A's win rate is over all of
those matches.

Bids made and set are counted per level over every deal played.
"""

from __future__ import annotations

import math
import random
import sys
import time
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO

from ..deal import Deal
from ..match import MatchState
from ..rules import END_COUNT_OUT, Rules
from . import choose

MAX_MATCH_DEALS = 60


def _seed(*parts: int) -> int:
    x = 0x9E3779B97F4A7C15
    for p in parts:
        x = (x ^ (p & 0xFFFFFFFFFFFF)) * 0xBF58476D1CE4E5B9 % (1 << 64)
        x ^= x >> 31
    return x


@dataclass
class BidStats:
    made: dict[int, int] = field(default_factory=lambda: defaultdict(int))  # bid -> deals
    set_: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    deals: int = 0
    contracts: int = 0
    points: int = 0

    def line(self) -> str:
        made = sum(self.made.values())
        lost = sum(self.set_.values())
        total = made + lost
        by_bid = ", ".join(
            f"{'smudge' if b == 5 else b}: {self.made.get(b, 0)}/{self.made.get(b, 0) + self.set_.get(b, 0)}"
            for b in sorted(set(self.made) | set(self.set_))
        )
        rate = f"{made / total:.1%}" if total else "-"
        return f"{made} made, {lost} set ({rate} made; made/bid by bid {by_bid}) in {self.deals} seat-deals"


def random_totals(rules: Rules, rng: random.Random) -> dict[str, int]:
    """Match totals drawn to cover the middle and the end of a match."""
    hi = rules.target - 1 if rules.end_rule == END_COUNT_OUT else rules.target + 2
    return {side: rng.randint(-4, hi) for side in rules.sides}


def play_deal(
    rules: Rules,
    dealer: str,
    deal_seed: int,
    levels_by_side: dict[str, str],
    totals: Mapping[str, int],
    bot_seed: int,
    budgets: Mapping[str, int] | None = None,
    stats: Mapping[str, BidStats] | None = None,
) -> Deal:
    deal = Deal.new(rules, dealer, random.Random(deal_seed))
    budgets = budgets or {}
    while not deal.is_over:
        seat = deal.to_act
        assert seat is not None  # a deal not over has a seat to act
        level = levels_by_side[rules.side_of(seat)]
        obs = deal.observation(seat, match_totals=totals)
        action = choose(obs, level, seed=_seed(bot_seed, deal.version), budget=budgets.get(level))
        deal.apply(action)
    if stats is not None and not deal.thrown_in:
        result = deal.result()
        assert result.pitcher_side is not None and result.bid is not None  # not thrown in
        level = levels_by_side[result.pitcher_side]
        s = stats[level]
        if result.made:
            s.made[result.bid] += 1
        else:
            s.set_[result.bid] += 1
    if stats is not None:
        for side in rules.sides:
            stats[levels_by_side[side]].deals += len(rules.seats_of(side))
    return deal


def _assign(rules: Rules, a: str, b: str, swapped: bool) -> dict[str, str]:
    out = {}
    for i, side in enumerate(rules.sides):
        even = i % 2 == 0
        out[side] = a if even != swapped else b
    return out


def _margin(rules: Rules, score: dict[str, int], swapped: bool) -> float:
    a_sides = [s for i, s in enumerate(rules.sides) if (i % 2 == 0) != swapped]
    b_sides = [s for i, s in enumerate(rules.sides) if (i % 2 == 0) == swapped]
    return sum(score[s] for s in a_sides) / len(a_sides) - sum(score[s] for s in b_sides) / len(
        b_sides
    )


def mean_ci(values: list[float]) -> tuple[float, float, float]:
    n = len(values)
    if n == 0:
        return 0.0, 0.0, 0.0
    mean = sum(values) / n
    if n < 2:
        return mean, 0.0, 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    sd = math.sqrt(var)
    return mean, 1.96 * sd / math.sqrt(n), sd


def run_arena(
    rules: Rules,
    a: str,
    b: str,
    deals: int,
    seed: int,
    matches: int = 0,
    budgets: Mapping[str, int] | None = None,
    progress: bool = False,
    out: TextIO | None = None,
) -> dict[str, Any]:
    out = out or sys.stdout
    b_label = b + "'" if a == b else b
    stats = {a: BidStats(), b: BidStats()} if a != b else {a: BidStats()}
    rng = random.Random(_seed(seed, 1))
    started = time.perf_counter()
    cpu_started = time.process_time()
    levels = (a, b)
    diffs = _duplicate_pairs(rules, levels, deals, seed, rng, budgets, stats, progress, started)
    wins, match_deals = _duplicate_matches(
        rules, levels, matches, seed, rng, budgets, stats, progress
    )
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    mean, ci, sd = mean_ci(diffs)
    report = {
        "rules": rules.to_spec(),
        "a": a,
        "b": b,
        "seed": seed,
        "pairs": len(diffs),
        "mean_diff": mean,
        "ci95": ci,
        "low": mean - ci,
        "high": mean + ci,
        "sd": sd,
        "matches": len(wins),
        "match_win_rate": (sum(wins) / len(wins)) if wins else None,
        "match_win_ci95": mean_ci(wins)[1] if wins else None,
        "match_deals": match_deals,
        "bids": {lvl: {"made": dict(s.made), "set": dict(s.set_)} for lvl, s in stats.items()},
        "seconds": elapsed,
        "cpu_seconds": cpu,
    }
    _print_report(rules, report, b_label, wins, stats, out)
    return report


def _duplicate_pairs(
    rules: Rules,
    levels: tuple[str, str],
    deals: int,
    seed: int,
    rng: random.Random,
    budgets: Mapping[str, int] | None,
    stats: Mapping[str, BidStats],
    progress: bool,
    started: float,
) -> list[float]:
    """A's average margin over the two plays of each duplicate deal."""
    a, b = levels
    diffs: list[float] = []
    for p in range(deals):
        totals = random_totals(rules, rng)
        dealer = rules.seats[rng.randrange(len(rules.seats))]
        deal_seed = _seed(seed, 2, p)
        pair = 0.0
        for swapped in (False, True):
            by_side = _assign(rules, a, b, swapped)
            deal = play_deal(
                rules, dealer, deal_seed, by_side, totals, _seed(seed, 3, p), budgets, stats
            )
            pair += _margin(rules, deal.result().score, swapped)
        diffs.append(pair / 2)
        if progress and (p + 1) % 25 == 0:
            m, ci, _ = mean_ci(diffs)
            b_label = b + "'" if a == b else b
            print(
                f"[{p + 1}/{deals}] {a} - {b_label}: {m:+.3f} ± {ci:.3f} ({time.perf_counter() - started:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
    return diffs


def _duplicate_matches(
    rules: Rules,
    levels: tuple[str, str],
    matches: int,
    seed: int,
    rng: random.Random,
    budgets: Mapping[str, int] | None,
    stats: Mapping[str, BidStats],
    progress: bool,
) -> tuple[list[float], int]:
    """A's result (1 won, 0 lost, 0.5 unfinished) in each duplicate match, and the deals played."""
    wins: list[float] = []
    match_deals = 0
    for p in range(matches):
        totals = random_totals(rules, rng)
        dealer = rules.seats[rng.randrange(len(rules.seats))]
        for swapped in (False, True):
            state = _play_match(rules, levels, swapped, dealer, totals, seed, p, budgets, stats)
            match_deals += len(state.deals)
            if state.winner is None:
                wins.append(0.5)
            else:
                a_sides = {s for i, s in enumerate(rules.sides) if (i % 2 == 0) != swapped}
                wins.append(1.0 if state.winner in a_sides else 0.0)
        if progress and (p + 1) % 10 == 0:
            m, ci, _ = mean_ci(wins)
            print(
                f"[match {p + 1}/{matches}] {levels[0]} wins {m:.1%} ± {ci:.1%}",
                file=sys.stderr,
                flush=True,
            )
    return wins, match_deals


def _play_match(
    rules: Rules,
    levels: tuple[str, str],
    swapped: bool,
    dealer: str,
    totals: Mapping[str, int],
    seed: int,
    p: int,
    budgets: Mapping[str, int] | None,
    stats: Mapping[str, BidStats],
) -> MatchState:
    """Match ``p`` played from ``totals`` to its end (at most MAX_MATCH_DEALS deals)."""
    by_side = _assign(rules, levels[0], levels[1], swapped)
    state = MatchState(rules, dealer)
    state.totals.update(totals)
    k = 0
    while not state.over and k < MAX_MATCH_DEALS:
        deal = play_deal(
            rules,
            state.dealer,
            _seed(seed, 4, p, k),
            by_side,
            dict(state.totals),
            _seed(seed, 5, p, k),
            budgets,
            stats,
        )
        state.add(deal.result())
        k += 1
    return state


def _print_report(
    rules: Rules,
    report: dict[str, Any],
    b_label: str,
    wins: list[float],
    stats: Mapping[str, BidStats],
    out: TextIO,
) -> None:
    a, mean, ci, sd = report["a"], report["mean_diff"], report["ci95"], report["sd"]
    print(
        f"arena: {a} (A) vs {b_label} (B), rules {rules.to_spec()}, seed {report['seed']}", file=out
    )
    print(f"  {rules.describe()}", file=out)
    print(
        f"points per deal, A - B: {mean:+.3f} ± {ci:.3f} (95% CI [{mean - ci:+.3f}, {mean + ci:+.3f}]), "
        f"{report['pairs']} duplicate pairs, sd {sd:.2f}",
        file=out,
    )
    if wins:
        wr, wci, _ = mean_ci(wins)
        print(
            f"match wins from random scores: A {wr:.1%} ± {wci:.1%} of {len(wins)} matches "
            f"({len(wins) // 2} duplicate pairs, {report['match_deals']} deals)",
            file=out,
        )
    for lvl, s in stats.items():
        print(f"bids by {lvl}: {s.line()}", file=out)
    print(f"time: {report['seconds']:.0f} s wall, {report['cpu_seconds']:.0f} s CPU", file=out)
