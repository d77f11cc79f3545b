"""The bots' fast copies of the auction agree with the engine's ``Auction``.

The engine's ``Auction`` is the one source of truth for who speaks and which calls are legal.
The search bots keep two faster copies on the kernel's call codes: ``AuctionState`` (the
bidding model that predicts and infers calls) and ``fast._random_auction`` (random auctions in
simulations). Each is checked here against ``Auction`` call by call, for every preset and option.
"""

from __future__ import annotations

import random
import zlib

import pytest

from games.engine import Rules, fast
from games.engine.auction import Auction
from games.engine.bots.auction_model import AuctionState, call_code
from games.engine.cards import INDEX

from .helpers import ALL_SPECS

AUCTIONS_PER_SPEC = 150


def _deal_hands(rules: Rules, rng: random.Random) -> dict[str, list[str]]:
    deck = sorted(INDEX, key=lambda _: rng.random())
    size = rules.hand_size
    return {seat: deck[i * size:(i + 1) * size] for i, seat in enumerate(rules.seats)}


def _model_codes(state: AuctionState, seat: int, hand: list[str]) -> set[int]:
    calls, pitch_ok = state.options(seat)
    codes = set(calls)
    if pitch_ok:
        codes |= {fast.PITCH + INDEX[card] for card in hand}
    return codes


@pytest.mark.parametrize("spec", ALL_SPECS, ids=str)
def test_bidding_model_offers_exactly_the_engines_calls(spec):
    rules = Rules.from_spec(spec)
    kernel = fast.kernel_for(rules)
    rng = random.Random(zlib.crc32(repr(spec).encode()))
    for _ in range(AUCTIONS_PER_SPEC):
        dealer = rng.randrange(len(rules.seats))
        hands = _deal_hands(rules, rng)
        auction = Auction(rules, rules.seats[dealer])
        state = AuctionState(kernel, dealer)
        while not auction.over:
            assert not state.over
            seat = auction.to_act
            assert state.to_act == rules.seats.index(seat)
            legal = auction.legal_calls(hands[seat])
            assert _model_codes(state, state.to_act, hands[seat]) == {call_code(t) for t in legal}
            token = rng.choice(legal)
            auction.apply(seat, token)
            state.apply(state.to_act, call_code(token))
        assert state.over and state.to_act == -1
        expected_high_seat = -1 if auction.high_seat is None else rules.seats.index(auction.high_seat)
        assert (state.high_seat, state.high) == (expected_high_seat, auction.high)


@pytest.mark.parametrize("spec", ALL_SPECS, ids=str)
def test_random_auctions_are_legal_auctions(spec):
    rules = Rules.from_spec(spec)
    kernel = fast.kernel_for(rules)
    rng = random.Random(zlib.crc32(repr(spec).encode()) ^ 0x5EED)
    for _ in range(AUCTIONS_PER_SPEC):
        dealer = rng.randrange(len(rules.seats))
        hands = _deal_hands(rules, rng)
        masks = [fast.card_mask(hands[seat]) for seat in rules.seats]
        pitcher, bid, pitch, calls = fast._random_auction(kernel, masks, dealer, rng.random)
        auction = Auction(rules, rules.seats[dealer])
        for code in calls:
            seat = auction.to_act
            assert seat is not None, "the fast auction called after the auction was over"
            by_code = {call_code(t): t for t in auction.legal_calls(hands[seat])}
            assert code in by_code, f"{seat} made an illegal call (code {code})"
            auction.apply(seat, by_code[code])
        assert auction.over
        assert pitcher == (-1 if auction.high_seat is None else rules.seats.index(auction.high_seat))
        assert bid == (0 if auction.high_seat is None else auction.high)
        winning = auction.winning_pitch
        assert pitch == (-1 if winning is None else INDEX[winning])
