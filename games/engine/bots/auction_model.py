"""A model of how players bid, on bitmasks: used to predict the rest of an auction inside a
simulation, and (as a likelihood) to infer hidden hands from the calls already made.

The auction's own legality is the engine's (``games.engine.auction``); :class:`AuctionState`
follows the same steps on the fast kernel's call codes (0 pass, 1..4 bids, 5 smudge,
``PITCH + card``) and only offers calls from the kernel's option tables, exactly as
``fast._random_auction`` does.

The model player makes the cheapest call that takes the contract when its hand's strength
(:func:`core.best_suit`) reaches that call's threshold (``THRESHOLDS``, fitted to the search
bots' own bidding), else passes; a dealer forced to bid bids the least. A four is made as a
pitch where the rules allow it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..actions import PASS, pitched_card
from ..cards import INDEX
from ..fast import PITCH, SUIT_MASK, Kernel
from ..rules import SMUDGE
from .core import best_suit, suit_strength

# The strength (core.best_suit) at which a player makes a call of this value, fitted to how the
# medium bot bids under house rules (half of the hands at the threshold bid).
THRESHOLDS = {1: 0.6, 2: 1.0, 3: 1.5, 4: 2.5, 5: 3.6}
TAU = 0.3  # how soft the likelihood of a call is around its threshold


class AuctionState:
    __slots__ = (
        "kernel",
        "dealer",
        "order",
        "turn",
        "high",
        "high_seat",
        "pitch",
        "pending",
        "over",
    )

    def __init__(self, kernel: Kernel, dealer: int) -> None:
        self.kernel = kernel
        self.dealer = dealer
        self.order = kernel.order_from[dealer]
        self.turn = 0
        self.high = 0
        self.high_seat = -1
        self.pitch = -1
        self.pending = False
        self.over = False

    def copy(self) -> AuctionState:
        other = AuctionState.__new__(AuctionState)
        other.kernel = self.kernel
        other.dealer = self.dealer
        other.order = self.order
        other.turn = self.turn
        other.high = self.high
        other.high_seat = self.high_seat
        other.pitch = self.pitch
        other.pending = self.pending
        other.over = self.over
        return other

    @property
    def to_act(self) -> int:
        return -1 if self.over else self.order[self.turn]

    def options(self, seat: int) -> tuple[tuple[int, ...], bool]:
        """``(calls, pitch allowed)`` for ``seat`` now (the engine's legal calls as codes)."""
        k = self.kernel
        is_dealer = seat == self.dealer
        if self.pending:
            return ((0, SMUDGE) if k.has_smudge else (0,)), k.steal
        low = self.high if (is_dealer and k.steal and self.high) else self.high + 1
        if is_dealer and k.must_bid and self.high_seat < 0:
            calls = k.options_no_pass[low]
        else:
            calls = k.options[low]
        return calls, bool(k.pitch_to_bid and low <= 4)

    def min_bid(self, seat: int) -> int:
        k = self.kernel
        if seat == self.dealer and k.steal and self.high:
            return self.high
        return self.high + 1

    def apply(self, seat: int, call: int) -> None:
        k = self.kernel
        if call:
            self.high_seat = seat
            if call >= PITCH:
                self.high = 4
                self.pitch = call - PITCH
            else:
                self.high = call
                self.pitch = -1
        if self.pending:
            self.pending = False
            self.over = True
            return
        if call and self.high == 4 and k.four_ends:
            self.over = True
            return
        if seat == self.dealer:
            self.over = True
            return
        if call >= PITCH:
            self.pending = True
            self.turn = len(self.order) - 1
            return
        self.turn += 1

    def apply_token(self, seat: int, token: str) -> None:
        self.apply(seat, call_code(token))


def model_call(state: AuctionState, seat: int, hand: int, eager: float = 0.0) -> int:
    """The model player's call (a code) for ``seat`` holding ``hand``."""
    calls, pitch_ok = state.options(seat)
    suit, strength = best_suit(hand)
    strength += eager
    bids = [c for c in calls if c]
    if bids:
        low = bids[0]
        if strength >= THRESHOLDS[low]:
            if low == 4 and pitch_ok and hand & SUIT_MASK[suit]:
                return PITCH + (hand & SUIT_MASK[suit]).bit_length() - 1
            return low
    elif pitch_ok and strength >= THRESHOLDS[4] and hand & SUIT_MASK[suit]:
        return PITCH + (hand & SUIT_MASK[suit]).bit_length() - 1
    if calls[0] == 0:
        return 0
    return bids[0]  # a dealer forced to bid bids the least


def run_model_auction(
    state: AuctionState, hands: Sequence[int], eager: Sequence[float] | None = None
) -> AuctionState:
    """Finish the auction with every seat bidding by the model. Changes and returns ``state``."""
    while not state.over:
        seat = state.order[state.turn]
        state.apply(
            seat, model_call(state, seat, hands[seat], 0.0 if eager is None else eager[seat])
        )
    return state


def _sigmoid(x: float) -> float:
    if x < -30:
        return 0.0
    if x > 30:
        return 1.0
    return 1.0 / (1.0 + math.exp(-x))


def call_log_likelihood(
    state: AuctionState, seat: int, hand: int, token: str, trump: int = -1
) -> float:
    """log P(``seat`` made this call | it held ``hand``) under a soft version of the model.

    ``trump`` is the suit the pitcher chose (when known), which sharpens the inference for the
    seat that won the auction. Never below log(0.05): players do surprising things.
    """
    calls, _ = state.options(seat)
    strength = _strength(hand, token, trump)
    if token == PASS:
        return _pass_log_likelihood(state, seat, calls, strength)
    if token == "smudge":
        value = 5
    elif pitched_card(token) is not None:
        value = 4
    else:
        value = int(token)
    if calls[0] != 0 and not state.pending:
        return 0.0  # a forced bid says nothing
    p = _sigmoid((strength - THRESHOLDS[value]) / TAU)
    return math.log(max(p, 0.03))


def _strength(hand: int, token: str, trump: int) -> float:
    """The hand's strength in the suit the call is about: the trump chosen, the suit pitched,
    else the hand's best suit."""
    if trump >= 0:
        return suit_strength(hand, trump)
    card = pitched_card(token)
    if card is not None:
        return suit_strength(hand, INDEX[card] // 13)
    return best_suit(hand)[1]


def _pass_log_likelihood(
    state: AuctionState, seat: int, calls: tuple[int, ...], strength: float
) -> float:
    """log P(a pass | the hand's strength): unlikely with a hand worth the lowest bid open,
    less so when the partner already holds the contract."""
    if state.pending or calls[0] != 0:
        return 0.0
    low = min((c for c in calls if c), default=0)
    if not low or low > 4:
        return 0.0
    p = 1.0 - _sigmoid((strength - THRESHOLDS[low]) / TAU)
    partner_has_it = (
        state.high_seat >= 0 and state.kernel.side_of[state.high_seat] == state.kernel.side_of[seat]
    )
    return math.log(max(p, 0.25 if partner_has_it else 0.05))


def call_code(token: str) -> int:
    """The fast kernel's call code of an auction token (0 pass, 1..5 bids, PITCH + card)."""
    if token == PASS:
        return 0
    if token == "smudge":
        return 5
    card = pitched_card(token)
    if card is not None:
        return PITCH + INDEX[card]
    return int(token)
