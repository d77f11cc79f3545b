"""What a move is worth to a side: the one definition every part of the site judges by.

In Setback a deal's worth to a side is what it gained against the other side, not its own score
alone: taking 2 points while giving the pitcher 4 is worse than taking 1 and setting them. So:

- **net points** of a finished deal for a side: the side's score change minus the other side's
  (in cutthroat, minus the mean of the others'). ``deal_net``.
- a move's **worth**: the expected net points of the deal after it, over the worlds the coach
  samples from what the seat has seen (``OptionEstimate.expected_margin``); near the end of a
  match, where the match score changes the best choice (a safe 2 that wins the match beats a
  bold 4 that risks losing it), the chance of winning the match instead (``worth``).

The live coach (online and offline), the review, the exercises, "Play from here" and the
daily comparison all read these, so they never judge one moment on two scales. The coach's
search is seeded by the position (``position_seed``): the same position, met at the table, in a
review, in an exercise or after "Play from here", gets the same figures. docs/coach.md says it
in words. Pure Python (no Django): the offline page runs it in Pyodide.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .observation import Observation

NET = "points"  # the unit of net points (a review's loss, the coach's "net")
MATCH = "match"  # the unit of the chance of winning the match


def deal_net(score: Sequence[int] | Mapping[Any, int], side: Any) -> float:
    """Net points of a finished deal for ``side``: its score change minus the other side's (the
    mean of the others' with more than two sides). ``score`` is a list per side index or a
    mapping side -> points; a side missing from a mapping scored 0."""
    if isinstance(score, Mapping):
        values = dict(score)
        mine = values.get(side, 0)
        others = [v for s, v in values.items() if s != side]
    else:
        mine = score[side]
        others = [v for i, v in enumerate(score) if i != side]
    if not others:
        return float(mine)
    return float(mine - sum(others) / len(others))


@dataclass(frozen=True)
class Worth:
    """What an option is worth to the seat's side, in the unit the coach ranks by."""

    value: float  # net points, or the chance of winning the match (0..1)
    unit: str  # NET or MATCH
    net: float  # expected net points (always given, whatever the unit)
    net_stderr: float


def worth(figures: Mapping[str, Any]) -> Worth:
    """An option's worth from its figures (``OptionEstimate.to_json()`` or an Advice option's
    ``figures``): the chance of winning the match where the search ranked by it, else net."""
    net = figures["expected_margin"]
    stderr = figures.get("margin_stderr") or 0.0
    if figures.get("ranking") == MATCH and figures.get("p_win_match") is not None:
        return Worth(figures["p_win_match"], MATCH, net, stderr)
    return Worth(net, NET, net, stderr)


def net_text(figures: Mapping[str, Any]) -> str:
    """Expected net points as the panels write them: "+0.42", "−1.10" (the table's minus sign)."""
    return signed(figures["expected_margin"], 2)


def signed(value: float, places: int = 0) -> str:
    """A signed number with the typographic minus the tables use: "+4", "0", "−4"."""
    text = f"{abs(value):.{places}f}"
    if float(text) == 0:
        return text
    return ("+" if value > 0 else "\u2212") + text


def position_seed(obs: Observation) -> int:
    """The coach's seed for a position: a hash of everything the seat sees (its hand, the
    auction with its callers, the tricks, the match score, the rules). The same position gives
    the same seed, and so the same figures, wherever it is met."""
    data = obs.to_json()
    data["calls"] = [[seat, token] for seat, token in obs.calls]
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    # CRC-32, not hashlib: the offline page runs this module in Pyodide, whose Python has no
    # hashlib (its engine could not start); a seed needs spread, not secrecy.
    return zlib.crc32(text.encode()) & 0x7FFFFFFF


__all__ = ["MATCH", "NET", "Worth", "deal_net", "net_text", "position_seed", "signed", "worth"]
