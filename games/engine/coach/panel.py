"""What the coach's panel shows of its options, from the options' figures and the seat's
observation only: which contract chance an option shows (making the seat's side's bid, or
setting another side's), each point's chance, and the auction's grid of calls against their
chance of being made.

Pure Python: the site's coach (``games.coach.selectors``) and the offline page in the browser
build their panels from these, so both show the same figures for the same advice.
"""

from __future__ import annotations

from typing import Any, overload

from .. import AUCTION
from ..actions import PITCH, Action
from ..cards import suit_of
from ..observation import Observation
from ..scoring import POINT_NAMES
from .advice import Option

POINT_LABELS = tuple(name.title() for name in POINT_NAMES)  # "High", "Low", "Jack", "Game"


@overload
def percent(p: float) -> int: ...
@overload
def percent(p: None) -> None: ...
def percent(p: float | None) -> int | None:
    return None if p is None else round(100 * p)


def contract_chance(obs: Observation, figures: dict[str, Any]) -> tuple[str, int] | None:
    """("Make", percent) for a bid the seat's side holds or is likely to hold after this call,
    ("Set", percent) for another side's, or None when the search gave no such chance."""
    mine_has_contract = obs.pitcher is not None and obs.rules.side_of(obs.pitcher) == obs.side
    if obs.phase == AUCTION:
        if figures["p_contract"] >= 0.5 and figures["p_make"] is not None:
            return ("Make", percent(figures["p_make"]))
        if figures["p_set"] is not None:
            return ("Set", percent(figures["p_set"]))
        return None
    if mine_has_contract and figures["p_make"] is not None:
        return ("Make", percent(figures["p_make"]))
    if not mine_has_contract and figures["p_set"] is not None:
        return ("Set", percent(figures["p_set"]))
    return None


def point_chances(figures: dict[str, Any]) -> list[tuple[str, int | None]]:
    """(point name, percent) for High, Low, Jack and Game."""
    return [(name, percent(figures[f"p_{name.lower()}"])) for name in POINT_LABELS]


def match_chance(figures: dict[str, Any]) -> int | None:
    """The chance of winning the match, in percent, when the coach ranks by it (near the end)."""
    return percent(figures["p_win_match"]) if figures["ranking"] == "match" else None


def bid_rows(options: list[Option], obs: Observation) -> list[tuple[str, str, int | None]]:
    """Each call but a pass, in the auction's order, as (label, the trump suit it plans or "",
    percent chance of making it)."""
    order = {token: i for i, token in enumerate(obs.legal_actions())}
    rows = []
    for option in sorted(options, key=lambda o: order.get(o.action, 99)):
        action = Action.parse(option.action)
        if action.is_pass:
            continue
        suit = option.figures.get("suit") or ""
        if action.kind == PITCH:
            suit = suit_of(action.word)
        rows.append((option.label, suit, percent(option.figures["p_make"])))
    return rows
