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
from ..rules import Rules

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

# Against opponents played in the search by rules of their own (``bots/seats.py``: easy bots,
# casual people), the chances mapped by ``KNOTS`` are still timid (against easy bots: said 0.85,
# made 0.95). The worlds play the coach's own side by the playout policy, weaker than the coach
# plays it; in self-play that understates both sides alike, here only the stronger one. So a
# second map, by the weakest model among the opponents, follows ``KNOTS``: fitted
# (``coach_calibration --load ... --fit``) on deals the coach's side played against them, and
# checked on other deals (docs/coach.md, "Chances that know who sits").
TABLE_KNOTS: dict[str, dict[str, tuple[tuple[float, float], ...]]] = {
    # Fitted on 500 deals against the outside greedy player, its style learned as casual (seeds
    # 4711 and the first 200 deals of 4721), checked on the rest of seed 4721. Making the bid
    # was at its noise floor there (0.032, floor 0.028): no map.
    "casual": {
        "high": (
            (0.045, 0.04),
            (0.143, 0.149),
            (0.249, 0.362),
            (0.351, 0.527),
            (0.452, 0.587),
            (0.546, 0.724),
            (0.654, 0.773),
            (0.753, 0.861),
            (0.855, 0.88),
            (0.962, 0.975),
        ),
        "low": (
            (0.068, 0.133),
            (0.156, 0.145),
            (0.298, 0.305),
            (0.457, 0.426),
            (0.552, 0.708),
            (0.645, 0.877),
            (0.764, 0.909),
            (0.85, 0.953),
            (0.957, 0.98),
        ),
        "jack": (
            (0.069, 0.145),
            (0.156, 0.206),
            (0.238, 0.261),
            (0.344, 0.336),
            (0.441, 0.405),
            (0.539, 0.537),
            (0.666, 0.654),
            (0.742, 0.746),
            (0.868, 0.938),
            (0.966, 0.983),
        ),
        "game": (
            (0.047, 0.142),
            (0.15, 0.261),
            (0.252, 0.416),
            (0.354, 0.488),
            (0.456, 0.561),
            (0.55, 0.612),
            (0.653, 0.682),
            (0.749, 0.792),
            (0.85, 0.87),
            (0.957, 0.949),
        ),
    },
    # Fitted on 1,000 deals against easy bots (seed 4702), checked on seed 4706.
    "easy": {
        "make": ((0.571, 0.574), (0.655, 0.701), (0.756, 0.804), (0.852, 0.944), (0.941, 0.958)),
        "high": (
            (0.036, 0.022),
            (0.146, 0.119),
            (0.255, 0.422),
            (0.35, 0.531),
            (0.454, 0.622),
            (0.54, 0.731),
            (0.655, 0.762),
            (0.754, 0.824),
            (0.856, 0.869),
            (0.962, 0.98),
        ),
        "low": (
            (0.061, 0.078),
            (0.16, 0.196),
            (0.244, 0.36),
            (0.351, 0.386),
            (0.46, 0.518),
            (0.553, 0.735),
            (0.649, 0.889),
            (0.764, 0.921),
            (0.845, 0.937),
            (0.958, 0.99),
        ),
        "jack": (
            (0.072, 0.11),
            (0.153, 0.188),
            (0.239, 0.265),
            (0.345, 0.338),
            (0.44, 0.438),
            (0.536, 0.613),
            (0.64, 0.677),
            (0.752, 0.751),
            (0.866, 0.882),
            (0.965, 0.949),
        ),
        "game": (
            (0.05, 0.104),
            (0.152, 0.272),
            (0.254, 0.381),
            (0.356, 0.503),
            (0.453, 0.599),
            (0.551, 0.678),
            (0.653, 0.724),
            (0.749, 0.814),
            (0.85, 0.899),
            (0.954, 0.958),
        ),
    },
}


def honest(kind: str, chance: float, knots: Knots | None = None) -> float:
    """The chance of ``kind`` the search stated, mapped through that kind's knots."""
    points = ((0.0, 0.0), *(knots or KNOTS)[kind], (1.0, 1.0))
    if chance <= 0.0 or chance >= 1.0:
        return chance
    i = bisect_right([x for x, _ in points], chance)
    (x0, y0), (x1, y1) = points[i - 1], points[i]
    return y0 + (y1 - y0) * (chance - x0) / (x1 - x0) if x1 > x0 else y1


def honest_estimate(
    est: OptionEstimate, knots: Knots | None = None, table: str | None = None
) -> OptionEstimate:
    """The estimate with its chances of making the bid and of each point mapped, then by the
    table's map (``TABLE_KNOTS[table]``) where it has one (``p_set``, the chance of setting
    another side's bid, is not measured yet, so it is left as searched)."""
    changes: dict[str, Any] = {}  # OptionEstimate's fields by name
    table_knots = TABLE_KNOTS.get(table or "", {})
    for kind, name in FIELDS.items():
        value = getattr(est, name)
        if value is not None:
            value = honest(kind, value, knots)
            if table_knots.get(kind):
                value = honest(kind, value, table_knots)
            changes[name] = value
    return replace(est, **changes)


def table_of(seat_models: Mapping[str, str] | None, seat: str, rules: Rules) -> str | None:
    """Which of ``TABLE_KNOTS`` maps the chances of ``seat``: its opponents' weakest model
    among them (casual, then easy), or None when they are all played by the playout policy."""
    if not seat_models:
        return None
    side = rules.side_of(seat)
    theirs = {seat_models.get(s) for s in rules.seats if rules.side_of(s) != side}
    return next((model for model in TABLE_KNOTS if model in theirs), None)
