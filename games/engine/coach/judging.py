"""How much a decision cost against the coach's choice, its mark, and a deal's accuracy.

Pure Python. A decision is judged on the figures of the option taken and of the coach's first
choice, both from the same sampled worlds. The loss is counted in the unit the coach ranked by:
net points (the side's expected points minus the other side's) in most of a match, the chance
of winning the match near its end. A loss counts only when it exceeds the estimates'
uncertainty (their standard errors combined), so the search's noise never marks a decision.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..worth import MATCH, NET, worth

# Smallest loss for each mark, largest first: net points, and chance of winning the match.
MARKS = {
    "points": (("blunder", 1.0), ("mistake", 0.5), ("inaccuracy", 0.2)),
    "match": (("blunder", 0.15), ("mistake", 0.07), ("inaccuracy", 0.03)),
}
MARK_NAMES = ("inaccuracy", "mistake", "blunder")


@dataclass(frozen=True)
class Judgement:
    loss: float  # how much worse the option taken is than the coach's choice (>= 0)
    uncertainty: float
    unit: str  # "points" or "match"
    mark: str  # "", "inaccuracy", "mistake" or "blunder"

    @property
    def counted(self) -> bool:
        return self.loss > self.uncertainty

    @property
    def credit(self) -> float:
        """1 for a decision the review does not mark, falling linearly with the loss of a
        marked one to 0 at a blunder's size: a review never shows less than 100% accuracy
        without a marked decision to say why."""
        if not self.mark:
            return 1.0
        blunder = MARKS[self.unit][0][1]
        return max(0.0, 1.0 - self.loss / blunder)


def _match_stderr(figures: Mapping[str, Any]) -> float:
    # The search gives no spread for the chance of winning; treat it as a proportion over its worlds.
    p = figures["p_win_match"]
    return math.sqrt(max(p * (1 - p), 0.0) / max(1, figures["samples"]))


def judge(best: Mapping[str, Any], taken: Mapping[str, Any]) -> Judgement:
    """``best`` and ``taken`` are option figures (``OptionEstimate.to_json()``), judged by their
    worth (``games.engine.worth``): net points, or the chance of winning the match where the
    coach ranked by it."""
    best_worth = worth(best)
    if best["action"] == taken["action"]:
        return Judgement(0.0, 0.0, best_worth.unit, "")
    taken_worth = worth(taken)
    if best_worth.unit == MATCH and taken_worth.unit == MATCH:
        unit = MATCH
        uncertainty = math.hypot(_match_stderr(best), _match_stderr(taken))
    else:
        unit = NET
        best_worth, taken_worth = worth({**best, "ranking": NET}), worth({**taken, "ranking": NET})
        uncertainty = math.hypot(best_worth.net_stderr, taken_worth.net_stderr)
    loss = max(0.0, best_worth.value - taken_worth.value)
    mark = ""
    if loss > uncertainty:
        mark = next((name for name, size in MARKS[unit] if loss >= size), "")
    return Judgement(loss, uncertainty, unit, mark)


def accuracy(judgements: list[Judgement]) -> float | None:
    """The deal's accuracy in percent: the mean credit of the decisions (None without any)."""
    if not judgements:
        return None
    return 100.0 * sum(j.credit for j in judgements) / len(judgements)
