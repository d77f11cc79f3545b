"""A match: deals in a row, the dealer passing to the left, running totals, and how it ends.

Each preset's end-of-match rule is exactly docs/rules.md section 2 ("Ending the match"), checked
after each deal's score is added:

- house (partnerships): the pitcher's side wins if it made its bid and has the target (11) or
  more, even if another side reached 15 on the same deal; otherwise a side with target + 4
  (15) wins; otherwise a side at -6 or below loses.
- classic, and house played cutthroat: only the pitcher's side can win, by making its bid and
  having the target or more.
- auction, family: whoever reaches the target wins; if several do on one deal the pitcher
  counts first, then the deal's points are counted in the order High, Low, Jack, Game and the
  first to reach the target wins.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .rules import END_COUNT_OUT, END_HOUSE, Rules
from .scoring import POINT_NAMES, DealResult

if TYPE_CHECKING:
    from .deal import Deal


def count_out(totals_before: Mapping[str, int], result: DealResult, threshold: int) -> str | None:
    """The first side to reach ``threshold`` when the deal's points are counted one by one:
    the pitcher's side first (its whole score), then High, Low, Jack, Game for the others."""
    running = dict(totals_before)
    pitcher_side = result.pitcher_side
    assert pitcher_side is not None  # a deal thrown in ends no match
    running[pitcher_side] += result.score[pitcher_side]
    if running[pitcher_side] >= threshold:
        return pitcher_side
    for name in POINT_NAMES:
        side = result.points[name]
        if side is None or side == pitcher_side:
            continue
        running[side] += 1
        if running[side] >= threshold:
            return side
    return None


def decide_winner(
    rules: Rules, before: Mapping[str, int], after: Mapping[str, int], result: DealResult
) -> str | None:
    """The side that has won the match after this deal, or None if it goes on."""
    if result.thrown_in:
        return None
    target = rules.target
    if rules.end_rule == END_COUNT_OUT:
        if not any(total >= target for total in after.values()):
            return None
        return count_out(before, result, target)
    pitcher_side = result.pitcher_side
    assert pitcher_side is not None  # a deal thrown in ends no match
    if result.made and after[pitcher_side] >= target:
        return pitcher_side
    if rules.end_rule != END_HOUSE:
        return None  # classic: points taken against the other side's bid never end it
    return _house_ends(rules, before, after, result)


def _house_ends(
    rules: Rules, before: Mapping[str, int], after: Mapping[str, int], result: DealResult
) -> str | None:
    """House's other ends, once the pitcher has not gone out: a side reaching 15 whoever bid,
    or a side falling to -6."""
    regardless = rules.win_regardless_at
    lose_at = rules.lose_at
    assert regardless is not None and lose_at is not None  # both set under house rules
    if any(total >= regardless for total in after.values()):
        # Two sides can get there on one deal only with three sides (six players): decided,
        # the first to reach it counting the deal's points in the order High, Low, Jack, Game.
        return count_out(before, result, regardless)
    losers = [side for side, total in after.items() if total <= lose_at]
    if not losers:
        return None
    # Only the pitcher's side can go down on a deal, so there is at most one loser. With
    # three sides the highest other side wins; a tie goes to the one that scored more on
    # this deal, then to the first clockwise from the dealer's left (decided).
    others = [side for side in rules.sides if side not in losers]
    order = {side: i for i, side in enumerate(_sides_from_left_of(rules, result.dealer))}
    others.sort(key=lambda side: (-after[side], -result.score[side], order[side]))
    return others[0]


def _sides_from_left_of(rules: Rules, dealer: str) -> list[str]:
    sides: list[str] = []
    for seat in rules.seats_from_left_of(dealer):
        side = rules.side_of(seat)
        if side not in sides:
            sides.append(side)
    return sides


class MatchState:
    """The running state of a match: ``totals``, ``dealer`` (of the next deal), ``winner``."""

    def __init__(self, rules: Rules | str | dict[str, Any], first_dealer: str) -> None:
        self.rules = Rules.from_spec(rules)
        if first_dealer not in self.rules.seats:
            raise ValueError(f"{first_dealer!r} is not a seat at this table")
        self.first_dealer = first_dealer
        self.dealer = first_dealer
        self.totals: dict[str, int] = dict.fromkeys(self.rules.sides, 0)
        self.deals: list[DealResult] = []
        self.history: list[dict[str, Any]] = []  # per deal: {"score": ..., "totals": ...}
        self.winner: str | None = None
        self.played_deals: list[Any] = []  # the Deal objects, when add() was given them
        self.current: Any = None  # from a match record: its last deal, if still in progress

    @classmethod
    def resume(
        cls,
        rules: Rules | str | dict[str, Any],
        first_dealer: str,
        totals: Mapping[str, int],
        dealer: str,
    ) -> MatchState:
        """A match under way, from its running totals and the dealer of its next deal: the end
        rule needs only those, so the earlier deals need not be replayed (their ``history`` is
        left empty)."""
        state = cls(rules, first_dealer)
        state.totals.update(totals)
        state.dealer = dealer
        return state

    @property
    def over(self) -> bool:
        return self.winner is not None

    def add(self, result: DealResult | Deal) -> str | None:
        """Add one finished deal (a ``DealResult``, or a finished ``Deal``): its score goes on
        the totals, the deal passes to the left, and the end rule is checked. Returns the
        winner (or None)."""
        deal = None
        if not isinstance(result, DealResult):
            deal = result
            result = deal.result()
        if self.over:
            raise ValueError(f"the match is over ({self.winner} won)")
        if result.dealer != self.dealer:
            raise ValueError(f"this deal was dealt by {result.dealer}, but {self.dealer} deals it")
        before = dict(self.totals)
        for side, delta in result.score.items():
            self.totals[side] += delta
        self.deals.append(result)
        if deal is not None:
            self.played_deals.append(deal)
        self.history.append({"score": dict(result.score), "totals": dict(self.totals)})
        self.dealer = self.rules.next_seat(self.dealer)
        self.winner = decide_winner(self.rules, before, self.totals, result)
        return self.winner

    def to_json(self) -> dict[str, Any]:
        """What ``python -m games.engine match`` prints."""
        return {
            "deals": [dict(d) for d in self.history],
            "totals": dict(self.totals),
            "winner": self.winner,
        }
