"""How a table is laid out for a person: the order of a hand, where each seat sits around the
felt, how a score is written, and which cards won High, Low and Jack.

Pure Python, beside the rules, because two places draw the table: the site's presenters
(``games.core.presenters``, Django templates) and the offline page, where this module runs in the
browser in the engine's wheel. The rules never depend on it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .cards import sort_cards
from .phases import OVER

if TYPE_CHECKING:
    from .rules import Rules

RANK_ORDER = "AKQJT98765432"


def in_hand_order(cards: Iterable[str], trump: str | None = None) -> list[str]:
    """A hand as a player holds it: trumps first, then the suits alternating red and black,
    each from the ace down (easier to read than the engine's fixed suit order)."""
    suits = "SHCD"
    if trump:
        start = suits.index(trump)
        suits = suits[start:] + suits[:start]
    return sorted(cards, key=lambda c: (suits.index(c[1]), RANK_ORDER.index(c[0])))


@dataclass(frozen=True)
class Place:
    """Where a seat sits on screen: a name for CSS, and its point as percentages of the felt."""

    name: str
    x: int
    y: int
    trick_x: int
    trick_y: int


def screen_places(seats: tuple[str, ...], me: str | None) -> dict[str, Place]:
    """Each seat's place, going clockwise around the felt from the viewer at the bottom.

    Seats go clockwise and the next seat is the player's left, so on screen the order runs
    bottom, left, top, right (for four): angle 90 degrees plus a step each, y pointing down.
    """
    start = seats.index(me) if me in seats else 0
    ordered = seats[start:] + seats[:start]
    named = {0: "bottom", 1: "left", 2: "top", 3: "right"} if len(seats) == 4 else {0: "bottom"}
    places = {}
    for i, seat in enumerate(ordered):
        angle = math.radians(90 + i * 360 / len(seats))
        places[seat] = Place(
            name=named.get(i, "around"),
            x=round(50 + 42 * math.cos(angle)),
            y=round(50 + 40 * math.sin(angle)),
            trick_x=round(50 + 17 * math.cos(angle)),
            trick_y=round(50 + 22 * math.sin(angle)),
        )
    return places


def points_text(points: int) -> str:
    """A score as people write it: a true minus sign, so "−3" never reads like a range."""
    return f"\u2212{-points}" if points < 0 else str(points)


def point_cards(plays: Iterable[str], trump: str | None) -> dict[str, str | None]:
    """The cards behind High, Low and Jack of a played-out deal (every card in play was
    played), from its cards in the order played and its trump."""
    trumps = sort_cards(c for c in plays if c[1] == trump)  # highest first
    if not trumps:
        return {}
    assert trump is not None  # a card of suit None is never played
    jack = "J" + trump
    return {"high": trumps[0], "low": trumps[-1], "jack": jack if jack in trumps else None}


SEAT_NAMES = {"N": "North", "E": "East", "S": "South", "W": "West"}


def seat_name(position: str) -> str:
    """North, East, South, West at a partnership table; Player 1..7 elsewhere."""
    return SEAT_NAMES.get(position) or f"Player {position[1:]}"


def going_out_note(rules: Rules, totals: Iterable[Sequence[Any]]) -> str:
    """Said on the table when it bites: a side has reached the target, yet play goes on,
    because only the pitcher's side can win, by making its bid. ``totals`` is each side's
    (label, points, ...) as the scoreboard shows it, of a match still being played."""
    if not rules.pitcher_only_wins:
        return ""
    over = [(label, points) for label, points, *_ in totals if points >= rules.target]
    if not over:
        return ""
    who = " and ".join(f"{label} ({points})" for label, points in over)
    have = "have" if len(over) > 1 or " & " in over[0][0] or over[0][0] == "You" else "has"
    rule = (
        f"{who} {have} reached {rules.target}, but a match is won only by bidding and making "
        "the bid"
    )
    if rules.win_regardless_at:
        rule += f" (or by reaching {rules.win_regardless_at})"
    return rule + ": to go out, bid."


def status_line(
    phase: str,
    to_act: str | None,
    current_trick: Sequence[Any],
    names: Mapping[str, str],
    my_turn: bool,
) -> str:
    """The line under the player's name: whose turn, or what the player is to do.
    ``names`` gives each seat's name as the viewer reads it."""
    if phase == OVER:
        return "The deal is over."
    if not my_turn:
        assert to_act is not None  # a deal not over always has a seat to act
        return f"Waiting for {names[to_act]}."
    return {
        "auction": "Your call: bid or pass.",
        "trump": "You won the bid: name trump.",
        "discard": "Choose the cards to discard.",
        "play": "Your lead." if not current_trick else "Your turn to play.",
    }[phase]
