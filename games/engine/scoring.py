"""Scoring one deal: the four points (High, Low, Jack, Game) and the deal's score.

Kept apart from the ``Deal`` so the rules of docs/rules.md section 1 read in one place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .cards import game_points, rank_of, suit_of
from .rules import SMUDGE, Rules

POINT_NAMES = ("high", "low", "jack", "game")


@dataclass(frozen=True)
class Trick:
    """One completed trick: who led, the cards in the order played, who won it."""

    leader: str
    cards: tuple[tuple[str, str], ...]  # (seat, card) in play order
    winner: str

    def to_json(self) -> dict[str, Any]:
        return {
            "leader": self.leader,
            "cards": [card for _, card in self.cards],
            "winner": self.winner,
        }


@dataclass(frozen=True)
class DealResult:
    """What a finished deal scored. ``to_json()`` is what ``python -m games.engine score`` prints."""

    thrown_in: bool
    dealer: str
    trump: str | None
    pitcher: str | None
    pitcher_side: str | None
    bid: int | None  # 5 for smudge
    made: bool | None
    points: dict[str, str | None]  # "high"|"low"|"jack"|"game" -> side or None
    game_points: dict[str, int]
    score: dict[str, int]  # this deal's change, per side
    tricks: tuple[Trick, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {
            "thrown_in": self.thrown_in,
            "trump": self.trump,
            "pitcher": self.pitcher,
            "bid": self.bid,
            "made": self.made,
            "points": dict(self.points),
            "game_points": dict(self.game_points),
            "tricks": [trick.to_json() for trick in self.tricks],
            "score": dict(self.score),
        }


def thrown_in_result(rules: Rules, dealer: str) -> DealResult:
    return DealResult(
        thrown_in=True,
        dealer=dealer,
        trump=None,
        pitcher=None,
        pitcher_side=None,
        bid=None,
        made=None,
        points=dict.fromkeys(POINT_NAMES),
        game_points=dict.fromkeys(rules.sides, 0),
        score=dict.fromkeys(rules.sides, 0),
        tricks=(),
    )


def score_deal(
    rules: Rules,
    dealer: str,
    pitcher: str,
    bid: int,
    trump: str,
    tricks: Sequence[Trick],
) -> DealResult:
    """Score a deal whose six tricks are all played."""
    side_of = rules.side_of
    taker = {}  # card -> side that took the trick holding it
    holder = {}  # card -> side of the seat that played it (RULES: "low to holder")
    for trick in tricks:
        for seat, card in trick.cards:
            taker[card] = side_of(trick.winner)
            holder[card] = side_of(seat)
    points = _trump_points(rules, trump, taker, holder)
    game, points["game"] = _game(rules, taker)

    taken = dict.fromkeys(rules.sides, 0)
    for side in points.values():
        if side is not None:
            taken[side] += 1
    pitcher_side = side_of(pitcher)
    made = _made(rules, pitcher_side, bid, taken, tricks)
    score = dict(taken)
    if made:
        if bid == SMUDGE:
            score[pitcher_side] = SMUDGE
    else:
        score[pitcher_side] = -bid
    return DealResult(
        thrown_in=False,
        dealer=dealer,
        trump=trump,
        pitcher=pitcher,
        pitcher_side=pitcher_side,
        bid=bid,
        made=made,
        points=points,
        game_points=game,
        score=score,
        tricks=tuple(tricks),
    )


def _trump_points(
    rules: Rules, trump: str, taker: dict[str, str], holder: dict[str, str]
) -> dict[str, str | None]:
    """Who gets High, Low and Jack (Game still None), from who took and who played each card.

    Cards in play are the cards played to tricks (decided): every card held after the auction
    and any discards is played, so nothing else can be High, Low or Jack. Low to the holder
    goes to the side of the seat that played the card.
    """
    trumps = sorted((card for card in taker if suit_of(card) == trump), key=rank_of)
    points: dict[str, str | None] = dict.fromkeys(POINT_NAMES)
    if trumps:  # decided: a named trump with no card in play gives High, Low, Jack to nobody
        points["high"] = taker[trumps[-1]]
        low = trumps[0]  # if only one trump is in play it is both High and Low
        points["low"] = holder[low] if rules.low_to == "holder" else taker[low]
        jack = "J" + trump
        points["jack"] = taker.get(jack)  # nobody's if the jack of trump is not in play
    return points


def _game(rules: Rules, taker: dict[str, str]) -> tuple[dict[str, int], str | None]:
    """Each side's game points, and the side that gets Game (None on a tie)."""
    game = dict.fromkeys(rules.sides, 0)
    for card, side in taker.items():
        game[side] += game_points(card)
    best = max(game.values())
    leaders = [side for side, n in game.items() if n == best]
    return game, leaders[0] if len(leaders) == 1 else None


def _made(
    rules: Rules, pitcher_side: str, bid: int, taken: dict[str, int], tricks: Sequence[Trick]
) -> bool:
    if bid == SMUDGE:
        # A smudge is made only by taking all six tricks, and with them all four points
        # (decided: docs/rules.md names the tricks, seed 004 both).
        all_tricks = all(rules.side_of(t.winner) == pitcher_side for t in tricks)
        return all_tricks and taken[pitcher_side] == 4
    return taken[pitcher_side] >= bid
