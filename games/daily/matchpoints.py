"""Duplicate scoring, on plain numbers: a result against the field's results on the same deal.

One point for every result beaten, half a point for every tie, as a percentage of the results
compared with. Alone on a deal, a result scores 50 % (nobody to be better or worse than).
"""

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence


class Field:
    """Every counted result of one deal, sorted once; each percentage is two binary searches."""

    def __init__(self, scores: Iterable[int]) -> None:
        self.scores: list[int] = sorted(scores)

    def __len__(self) -> int:
        return len(self.scores)

    def matchpoints(self, score: int, own: bool = True) -> float:
        """Points of `score` against the field; `own`: the score is one of the field's (it is
        not compared with itself)."""
        below = bisect_left(self.scores, score)
        ties = bisect_right(self.scores, score) - below - (1 if own else 0)
        return below + ties / 2

    def percent(self, score: int, own: bool = True) -> float:
        others = len(self.scores) - (1 if own else 0)
        if others <= 0:
            return 50.0
        return 100.0 * self.matchpoints(score, own) / others


def day_percent(percents: Sequence[float]) -> float:
    """A person's day: the average of their deals' percentages (0 with none played)."""
    return sum(percents) / len(percents) if percents else 0.0
