"""Honest chances: the search's chances mapped to how often such chances came true.

Measured on self-play deals at the hard level (``coach_calibration --raw``, see docs/coach.md),
the search's chance of High is too timid: who holds the top trump is mostly settled by the
auction, yet the sampled worlds spread it too evenly (said 0.75, happened 0.87; said 0.14,
happened 0.06). A kind of chance gets a non-decreasing piecewise-linear map through knots
(said, happened) fitted on other self-play deals than the ones it is checked on, and only when
its gap is well beyond what the sample's size alone gives. On 350 deals only High's was; on
1,500 more, Low, Jack and Game showed gaps three to six times their noise floors (Game said
0.35, happened 0.29; Jack said 0.07, happened 0.12), and maps fitted on one seed brought the
other seed's to about their floors. The chance of making the bid is at its floor: no map.

Non-decreasing, so an order between chances is kept (a higher bid in the same suit is still never
likelier made than a lower one); 0 and 1 stay 0 and 1 (a point already decided stays certain).
The ranking of options (by expected margin or chance of winning the match) is not touched.
Pure Python (no Django).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..bots import OptionEstimate

FIELDS = {"make": "p_make", "high": "p_high", "low": "p_low", "jack": "p_jack", "game": "p_game"}

# Fitted by ``Calibration.fit_knots`` on the search's own chances (``coach_calibration --raw``):
# High on 114 deals of seed 11 and the tenths 0.1-0.9 of the 120 documented deals of seeds 1-2,
# checked on 116 deals of seed 12. Low, Jack and Game on the first 744 deals of seed 21
# (``coach_calibration --seed 21 --save``; unmapped then, so the search's own), checked on
# seed 22's deals (docs/coach.md).
KNOTS: dict[str, tuple[tuple[float, float], ...]] = {
    "make": (),
    "high": (
        (0.072, 0.028),
        (0.134, 0.03),
        (0.242, 0.124),
        (0.349, 0.269),
        (0.44, 0.408),
        (0.549, 0.569),
        (0.652, 0.805),
        (0.748, 0.887),
        (0.887, 0.984),
    ),
    "low": (
        (0.06, 0.076),
        (0.15, 0.184),
        (0.25, 0.238),
        (0.35, 0.336),
        (0.45, 0.458),
        (0.548, 0.533),
        (0.654, 0.624),
        (0.749, 0.731),
        (0.852, 0.795),
        (0.945, 0.926),
    ),
    "jack": (
        (0.072, 0.121),
        (0.14, 0.184),
        (0.242, 0.237),
        (0.339, 0.363),
        (0.438, 0.474),
        (0.54, 0.543),
        (0.647, 0.674),
        (0.761, 0.734),
        (0.861, 0.859),
        (0.964, 0.957),
    ),
    "game": (
        (0.045, 0.028),
        (0.15, 0.091),
        (0.252, 0.199),
        (0.351, 0.292),
        (0.45, 0.442),
        (0.549, 0.564),
        (0.651, 0.685),
        (0.75, 0.769),
        (0.851, 0.86),
        (0.955, 0.954),
    ),
}


# Per kind of chance, the (stated, happened) points its stated chances are mapped through.
Knots = Mapping[str, tuple[tuple[float, float], ...]]


def honest(kind: str, chance: float, knots: Knots | None = None) -> float:
    """The chance of ``kind`` the search stated, mapped through that kind's knots."""
    points = ((0.0, 0.0), *(knots or KNOTS)[kind], (1.0, 1.0))
    if chance <= 0.0 or chance >= 1.0:
        return chance
    i = bisect_right([x for x, _ in points], chance)
    (x0, y0), (x1, y1) = points[i - 1], points[i]
    return y0 + (y1 - y0) * (chance - x0) / (x1 - x0) if x1 > x0 else y1


def honest_estimate(est: OptionEstimate, knots: Knots | None = None) -> OptionEstimate:
    """The estimate with its chances of making the bid and of each point mapped (``p_set``,
    the chance of setting another side's bid, is not measured yet, so it is left as searched)."""
    changes: dict[str, Any] = {}  # OptionEstimate's fields by name
    for kind, name in FIELDS.items():
        value = getattr(est, name)
        if value is not None:
            changes[name] = honest(kind, value, knots)
    return replace(est, **changes)
