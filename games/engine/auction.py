"""The auction: one round of calls from the dealer's left, ending with the dealer.

Calls are the record's tokens: ``pass``, ``1``..``4``, ``smudge`` (worth 5) and, with the
``pitch_to_bid`` option, ``pitch:KS`` (a bid of 4 made by leading the card). The ``Auction``
object replays calls and says what may be called next and why a call is illegal; both the
``Deal`` and the per-seat ``Observation`` use it, so they always agree.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from .actions import PASS, PITCH_PREFIX, pitch_token, pitched_card
from .cards import is_card, sort_cards
from .rules import BID_VALUES, SMUDGE, Rules


def call_value(token: str) -> int:
    """0 for pass, the number for a bid, 5 for smudge, 4 for a pitch."""
    if token == PASS:
        return 0
    if token.startswith(PITCH_PREFIX):
        return 4
    return BID_VALUES[token]


class Auction:
    """The state of one auction. ``apply`` assumes the call was checked with ``problem``."""

    def __init__(self, rules: Rules, dealer: str) -> None:
        self.rules = rules
        self.dealer = dealer
        self.order = rules.seats_from_left_of(dealer)
        self.calls: list[tuple[str, str]] = []
        self._turn = 0  # index in self.order of the seat to speak next
        self.high = 0  # the high bid's value (0: nobody has bid)
        self.high_seat: str | None = None
        self.high_call: str | None = None
        # A pitch made before the dealer has spoken: the turn passes straight to the dealer,
        # who may accept it (pass), take over with a pitch of their own, or smudge.
        self.pending_pitch: str | None = None
        self.over = False

    def copy(self) -> Auction:
        other = Auction.__new__(Auction)
        other.__dict__.update(self.__dict__)
        other.calls = list(self.calls)
        return other

    @classmethod
    def replay(cls, rules: Rules, dealer: str, calls: Iterable[tuple[str, str]]) -> Auction:
        auction = cls(rules, dealer)
        for seat, token in calls:
            auction.apply(seat, token)
        return auction

    # ------------------------------------------------------------------ questions
    @property
    def to_act(self) -> str | None:
        return None if self.over else self.order[self._turn]

    @property
    def all_passed(self) -> bool:
        return self.over and self.high_seat is None

    @property
    def winning_pitch(self) -> str | None:
        """The card of the pitch that won the auction (it is the opening lead), if any."""
        if not self.over or self.high_call is None:
            return None
        return pitched_card(self.high_call)

    def _min_bid(self, seat: str) -> int:
        # The dealer's steal: the dealer may equal the high bid instead of beating it.
        if seat == self.dealer and self.rules.dealer_steal and self.high > 0:
            return self.high
        return self.high + 1

    def legal_calls(self, hand: Collection[str]) -> list[str]:
        """Every legal call of the seat to act; ``hand`` is its cards (for pitches)."""
        if self.over:
            return []
        seat = self.to_act
        assert seat is not None  # an auction not over has a seat to call
        return [
            token for token in self._candidates(hand) if self.problem(seat, token, hand) is None
        ]

    def _candidates(self, hand: Collection[str]) -> list[str]:
        tokens = list(self.rules.calls)
        if self.rules.pitch_to_bid:
            tokens += [pitch_token(card) for card in sort_cards(hand)]
        return tokens

    def problem(self, seat: str, token: str, hand: Collection[str]) -> str | None:
        """Why ``seat`` may not call ``token`` now (None if it may)."""
        if self.over:
            return "the auction is over"
        if seat != self.to_act:
            return f"not your turn ({self.to_act} is to call)"
        card = pitched_card(token) if isinstance(token, str) else None
        unknown = (
            self._pitch_problem(seat, card, hand) if card is not None else self._unknown_call(token)
        )
        if unknown is not None:
            return unknown
        value = call_value(token)
        if self.pending_pitch is not None:
            return self._answer_to_pitch_problem(value, card)
        return self._bid_problem(seat, value)

    def _pitch_problem(self, seat: str, card: str, hand: Collection[str]) -> str | None:
        if not self.rules.pitch_to_bid:
            return "pitching is not allowed in these rules (option pitch_to_bid is off)"
        if not is_card(card):
            return f"unknown card {card!r}"
        if card not in hand:
            return f"{card} is not in {seat}'s hand"
        return None

    def _unknown_call(self, token: str) -> str | None:
        """Why a token that is not a pitch is not one of this preset's calls (None if it is)."""
        rules = self.rules
        if token in rules.calls:
            return None
        if token in BID_VALUES or token == PASS:
            return f"not a call in these rules ({', '.join(rules.calls)})"
        return f"unknown call (calls: {', '.join(rules.calls)}{', pitch:<card>' if rules.pitch_to_bid else ''})"

    def _answer_to_pitch_problem(self, value: int, card: str | None) -> str | None:
        """Only the dealer speaks after a pitch (decided, docs/rules-decisions.md): to pass, to
        take it over with a pitch of its own (where the dealer may steal) or to smudge."""
        rules = self.rules
        if value == 0 or value == SMUDGE:
            return None
        if card is not None:
            if not rules.dealer_steal:
                return "the dealer may not take over a pitch in these rules"
            return None
        allowed = "pass, pitch" + (" or smudge" if rules.smudge else "")
        return f"after a pitch the dealer may only {allowed}"

    def _bid_problem(self, seat: str, value: int) -> str | None:
        """A pass or a bid (``value``) in turn, no pitch pending."""
        if value == 0:
            if seat == self.dealer and self.rules.dealer_must_bid and self.high_seat is None:
                return "the dealer must bid when everyone else passed"
            return None
        minimum = self._min_bid(seat)
        if value < minimum:
            if minimum == self.high:
                return f"must bid at least {self.high}"
            return f"must bid higher than {self.high}"
        return None

    # ------------------------------------------------------------------ changes
    def apply(self, seat: str, token: str) -> None:
        rules = self.rules
        self.calls.append((seat, token))
        value = call_value(token)
        is_dealer = seat == self.dealer
        if value > 0:
            self.high = value
            self.high_seat = seat
            self.high_call = token
        if self.pending_pitch is not None:
            # The dealer answered a pitch: whatever it was, the auction is over.
            self.pending_pitch = None
            self.over = True
            return
        if value == 4 and rules.four_ends_auction:
            self.over = True  # house: a 4 cannot be outbid and the dealer gets no steal
            return
        if is_dealer:
            self.over = True
            return
        if pitched_card(token) is not None:
            # The pitch ends the auction except for the dealer's answer.
            self.pending_pitch = seat
            self._turn = len(self.order) - 1
            return
        self._turn += 1
