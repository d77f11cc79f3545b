"""Valuing a deal's outcome by the chance of winning the match, near the end of a match.

Whether a deal's outcome ends the match is decided by the engine (``match.decide_winner`` on a
``DealResult``), never here. What happens after a deal that does not end the match is a
continuation value:

- two sides: a table ``V[a][b]`` (the chance that a side with ``a`` points beats one with
  ``b``), computed once per rules by value iteration over a distribution of deal outcomes. The
  distribution comes from simulated deals (model auction, policy play), mirrored so that both
  sides are alike;
- three or more sides (cutthroat, six players): a softmax of the totals.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from ..fast import kernel_for, outcome
from ..match import decide_winner
from ..rules import END_HOUSE, Rules
from ..scoring import POINT_NAMES, DealResult
from . import auction_model
from .core import play_out, start_position

if TYPE_CHECKING:
    from ..observation import Observation

NEAR = 4  # match-aware when a side is within this of the target (or of house's -6)

# A simulated deal's outcome: (score per side, (high, low, jack, game) sides, pitcher's side,
# bid); None for a deal thrown in.
Outcome = tuple[tuple[int, ...], tuple[int, ...], int, int]
Totals = tuple[int, int]  # two sides' points
# From totals: the chance that side 0 wins at once, and the chance of each next state.
Moves = tuple[float, list[tuple[Totals, float]]]


def _result(
    rules: Rules,
    score: Sequence[int],
    points: Sequence[int],
    pitcher_side: int,
    bid: int,
    dealer: str,
) -> DealResult:
    sides = rules.sides
    pside = sides[pitcher_side]
    return DealResult(
        thrown_in=False,
        dealer=dealer,
        trump=None,
        pitcher=rules.seats_of(pside)[0],
        pitcher_side=pside,
        bid=bid,
        made=score[pitcher_side] > 0,
        points={
            name: (sides[p] if p >= 0 else None)
            for name, p in zip(POINT_NAMES, points, strict=True)
        },
        game_points={},
        score={side: score[i] for i, side in enumerate(sides)},
    )


@lru_cache(maxsize=16)
def outcome_distribution(
    rules: Rules, deals: int = 1500, seed: int = 20240
) -> tuple[tuple[Outcome | None, float], ...]:
    """Deal outcomes of simulated play: ((score tuple, points, pitcher side, bid), probability)."""
    kernel = kernel_for(rules)
    rng = random.Random(seed)
    counts: Counter[Outcome | None] = Counter()
    copies = 2 if kernel.n_sides == 2 else 1  # two sides: each outcome also mirrored
    for i in range(deals):
        dealer = i % kernel.n
        dealt, stock_masks = kernel.deal_masks(rng.getrandbits)
        hands = list(dealt)
        stock = [c.bit_length() - 1 for c in stock_masks]
        rng.shuffle(stock)
        st = auction_model.AuctionState(kernel, dealer)
        auction_model.run_model_auction(st, hands)
        if st.high_seat < 0:
            counts[None] += copies
            continue
        pos = start_position(kernel, dealer, hands, stock, st.high_seat, st.high, pitch=st.pitch)
        play_out(pos)
        score, points = outcome(pos)
        pside = kernel.side_of[st.high_seat]
        counts[(tuple(score), points, pside, st.high)] += 1
        if copies == 2:
            mirror = (
                tuple(reversed(score)),
                tuple(-1 if p < 0 else 1 - p for p in points),
                1 - pside,
                st.high,
            )
            counts[mirror] += 1
    total = deals * copies
    return tuple((k, v / total) for k, v in counts.items())


@lru_cache(maxsize=16)
def two_side_table(rules: Rules) -> tuple[dict[Totals, float], int, int]:
    """``V[(a, b)]``: the chance that side 0 with ``a`` points wins against side 1 with ``b``."""
    if rules.end_rule == END_HOUSE:
        assert rules.lose_at is not None and rules.win_regardless_at is not None  # house rules
        lo, hi = rules.lose_at + 1, rules.win_regardless_at - 1
    else:
        lo, hi = -12, rules.target + 8
    states = [(a, b) for a in range(lo, hi + 1) for b in range(lo, hi + 1)]
    thrown = 0.0
    outcomes: list[tuple[Outcome, float]] = []
    for key, p in outcome_distribution(rules):
        if key is None:
            thrown += p
        else:
            outcomes.append((key, p))
    results = {key: _result(rules, *key, rules.seats[0]) for key, _ in outcomes}
    trans = {state: _transitions(rules, state, outcomes, results, lo, hi) for state in states}
    return _value_iteration(states, trans, thrown), lo, hi


def _transitions(
    rules: Rules,
    state: Totals,
    outcomes: list[tuple[Outcome, float]],
    results: dict[Outcome, DealResult],
    lo: int,
    hi: int,
) -> Moves:
    """From totals ``state``, over the deal outcomes (``results``: the engine's result of each,
    dealt by the first seat): the chance that side 0 wins at once, and the chance of each next
    state (totals kept within ``lo``..``hi``)."""
    a, b = state
    sides = rules.sides
    lose_at = rules.lose_at
    fixed = 0.0
    moves: dict[Totals, float] = {}
    for key, p in outcomes:
        score = key[0]
        na, nb = a + score[0], b + score[1]
        # No end rule can end the match unless a side reaches the target (or house's
        # losing line): only then ask the engine who won.
        if (
            na >= rules.target
            or nb >= rules.target
            or (lose_at is not None and min(na, nb) <= lose_at)
        ):
            after = {sides[0]: na, sides[1]: nb}
            winner = decide_winner(rules, {sides[0]: a, sides[1]: b}, after, results[key])
            if winner is not None:
                fixed += p if winner == sides[0] else 0.0
                continue
        nxt = (min(hi, max(lo, na)), min(hi, max(lo, nb)))
        moves[nxt] = moves.get(nxt, 0.0) + p
    return fixed, list(moves.items())


def _value_iteration(
    states: list[Totals], trans: dict[Totals, Moves], thrown: float
) -> dict[Totals, float]:
    """Value iteration (Gauss-Seidel), the thrown-in self-loop solved in place, states with the
    most points first (the match mostly moves towards them)."""
    order = sorted(states, key=lambda st: -(st[0] + st[1]))
    index = {st: i for i, st in enumerate(order)}
    rows = [(trans[st][0], [(index[nxt], p) for nxt, p in trans[st][1]]) for st in order]
    stay = 1.0 / (1.0 - thrown) if thrown < 1 else 1.0
    values = [0.5] * len(order)
    for _ in range(500):
        delta = 0.0
        for i, (fixed, moves) in enumerate(rows):
            v = fixed
            for j, p in moves:
                v += p * values[j]
            v *= stay
            d = v - values[i]
            if d > delta:
                delta = d
            elif -d > delta:
                delta = -d
            values[i] = v
        if delta < 2e-4:
            break
    return {st: values[index[st]] for st in states}


class MatchValuer:
    """P(the observer's side wins the match) after a deal outcome, from the match totals."""

    def __init__(self, rules: Rules, totals: dict[str, int], my_side: str, dealer: str) -> None:
        self.rules = rules
        self.sides = rules.sides
        self.totals = {s: int(totals.get(s, 0)) for s in rules.sides}
        self.my_side = my_side
        self.my_index = rules.sides.index(my_side)
        self.dealer = dealer
        self.next_dealer = rules.next_seat(dealer)
        target = rules.target
        near = any(v >= target - NEAR for v in self.totals.values())
        if rules.end_rule == END_HOUSE:
            assert rules.lose_at is not None  # house rules
            near = near or any(v <= rules.lose_at + NEAR for v in self.totals.values())
        self.active = near
        # Keyed by a deal's outcome (score, points, pitcher's side, bid), None for thrown in.
        self._memo: dict[Outcome | None, float] = {}

    @classmethod
    def for_observation(cls, obs: Observation) -> MatchValuer | None:
        if obs.match_totals is None:
            return None
        return cls(obs.rules, dict(obs.match_totals), obs.side, obs.dealer)

    def continuation(self, totals: dict[str, int]) -> float:
        rules = self.rules
        if len(self.sides) == 2:
            table, lo, hi = two_side_table(rules)
            a = min(hi, max(lo, totals[self.sides[self.my_index]]))
            b = min(hi, max(lo, totals[self.sides[1 - self.my_index]]))
            return table[(a, b)]  # the table is symmetric: (mine, theirs) either way
        scale = 0.3 * 11 / rules.target
        m = max(totals.values())
        weights = {s: math.exp(scale * (v - m)) for s, v in totals.items()}
        return weights[self.my_side] / sum(weights.values())

    def thrown_in_value(self) -> float:
        key = None
        if key not in self._memo:
            self._memo[key] = self.continuation(self.totals)
        return self._memo[key]

    def value(
        self, score: Sequence[int], points: Sequence[int], pitcher_side: int, bid: int
    ) -> float:
        key = (tuple(score), tuple(points), pitcher_side, bid)
        v = self._memo.get(key)
        if v is None:
            result = _result(self.rules, score, points, pitcher_side, bid, self.dealer)
            after = {s: self.totals[s] + score[i] for i, s in enumerate(self.sides)}
            winner = decide_winner(self.rules, self.totals, after, result)
            if winner is not None:
                v = 1.0 if winner == self.my_side else 0.0
            else:
                v = self.continuation(after)
            self._memo[key] = v
        return v
