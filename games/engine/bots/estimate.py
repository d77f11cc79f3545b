"""What the search says about one option: :class:`OptionEstimate` and the accumulator behind it."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any


@dataclass(frozen=True)
class OptionEstimate:
    """The search's estimate of one legal action, from the seat's point of view.

    Every option of a decision is valued on the same sampled worlds, so the figures compare
    fairly. ``value`` is what the ranking uses (see ``ranking``): the expected deal margin
    (the side's score change minus the others', averaged in cutthroat), or, near the end of a
    match, the chance of winning the match.
    """

    action: str
    value: float
    ranking: str  # "margin" (expected deal margin) or "match" (chance to win the match)
    expected_points: float  # the side's expected deal score change
    stderr: float  # standard error of expected_points
    expected_margin: float  # the side's score change minus the others' (mean of the others)
    margin_stderr: float
    p_make: float | None  # P(the side's own bid is made), if it ends up with the contract
    p_set: float | None  # P(another side's contract is set), if another side has it
    p_contract: float  # P(the side ends up with the contract)
    p_high: float  # P(the side takes High) ... over every sampled world
    p_low: float
    p_jack: float
    p_game: float
    p_thrown_in: float
    p_win_match: float | None  # with match totals: the chance to win the match afterwards
    samples: int  # sampled worlds (determinizations) behind the figures
    reason: str = ""
    detail: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "value": self.value,
            "ranking": self.ranking,
            "expected_points": self.expected_points,
            "stderr": self.stderr,
            "expected_margin": self.expected_margin,
            "margin_stderr": self.margin_stderr,
            "p_make": self.p_make,
            "p_set": self.p_set,
            "p_contract": self.p_contract,
            "p_high": self.p_high,
            "p_low": self.p_low,
            "p_jack": self.p_jack,
            "p_game": self.p_game,
            "p_thrown_in": self.p_thrown_in,
            "p_win_match": self.p_win_match,
            "samples": self.samples,
            "reason": self.reason,
        }


class Acc:
    """Weighted sums for one option over the sampled worlds."""

    __slots__ = (
        "w",
        "w2",
        "n",
        "pts",
        "pts2",
        "mar",
        "mar2",
        "mine",
        "made",
        "other",
        "set_",
        "high",
        "low",
        "jack",
        "game",
        "thrown",
        "win",
        "has_win",
    )

    def __init__(self) -> None:
        self.w = self.w2 = 0.0
        self.n = 0
        self.pts = self.pts2 = self.mar = self.mar2 = 0.0
        self.mine = self.made = self.other = self.set_ = 0.0
        self.high = self.low = self.jack = self.game = self.thrown = 0.0
        self.win = 0.0
        self.has_win = False

    def add(
        self,
        w: float,
        score: Sequence[int],
        points: Sequence[int],
        pitcher_side: int,
        my_side: int,
        win: float | None = None,
    ) -> None:
        self.n += 1
        self.w += w
        self.w2 += w * w
        mine = score[my_side]
        n_sides = len(score)
        others = (sum(score) - mine) / (n_sides - 1)
        margin = mine - others
        self.pts += w * mine
        self.pts2 += w * mine * mine
        self.mar += w * margin
        self.mar2 += w * margin * margin
        if pitcher_side < 0:
            self.thrown += w
        elif pitcher_side == my_side:
            self.mine += w
            if score[pitcher_side] > 0:
                self.made += w
        else:
            self.other += w
            if score[pitcher_side] < 0:
                self.set_ += w
        h, lo, j, g = points
        if h == my_side:
            self.high += w
        if lo == my_side:
            self.low += w
        if j == my_side:
            self.jack += w
        if g == my_side:
            self.game += w
        if win is not None:
            self.win += w * win
            self.has_win = True

    def merge(self, other: Acc) -> None:
        for name in Acc.__slots__:
            if name == "has_win":
                self.has_win = self.has_win or other.has_win
            else:
                setattr(self, name, getattr(self, name) + getattr(other, name))

    # ---------------------------------------------------------------- figures
    def mean_points(self) -> float:
        return self.pts / self.w if self.w else 0.0

    def mean_margin(self) -> float:
        return self.mar / self.w if self.w else 0.0

    def _stderr(self, s: float, s2: float) -> float:
        if self.w <= 0 or self.n < 2:
            return 0.0
        mean = s / self.w
        var = max(0.0, s2 / self.w - mean * mean)
        n_eff = self.w * self.w / self.w2 if self.w2 else 0.0
        return math.sqrt(var / max(1.0, n_eff - 1.0))

    def estimate(
        self,
        action: str,
        ranking: str,
        reason_fn: Callable[[OptionEstimate], str] | None = None,
        detail: dict[str, Any] | None = None,
    ) -> OptionEstimate:
        w = self.w or 1.0
        p_win = self.win / w if self.has_win else None
        margin = self.mean_margin()
        value = p_win if (ranking == "match" and p_win is not None) else margin
        est = OptionEstimate(
            action=action,
            value=value,
            ranking=ranking if p_win is not None else "margin",
            expected_points=self.mean_points(),
            stderr=self._stderr(self.pts, self.pts2),
            expected_margin=margin,
            margin_stderr=self._stderr(self.mar, self.mar2),
            p_make=self.made / self.mine if self.mine > 0 else None,
            p_set=self.set_ / self.other if self.other > 0 else None,
            p_contract=self.mine / w,
            p_high=self.high / w,
            p_low=self.low / w,
            p_jack=self.jack / w,
            p_game=self.game / w,
            p_thrown_in=self.thrown / w,
            p_win_match=p_win,
            samples=self.n,
            detail=detail or {},
        )
        if reason_fn is not None:
            est = _with_reason(est, reason_fn(est))
        return est


def _with_reason(est: OptionEstimate, reason: str) -> OptionEstimate:
    return replace(est, reason=reason)
