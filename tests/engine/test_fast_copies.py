"""The bots' fast copies of the auction agree with the engine's ``Auction``.

The engine's ``Auction`` is the one source of truth for who speaks and which calls are legal.
The search bots keep two faster copies on the kernel's call codes: ``AuctionState`` (the
bidding model that predicts and infers calls) and ``fast._random_auction`` (random auctions in
simulations). Each is checked here against ``Auction`` call by call, over STATES_PER_PRESET
calls of every preset, its options in turn.
``fast._random_discards`` (random discards on bitmasks) is checked against the engine's
``discards.discard_tokens``, the rule the ``Deal`` and the ``Observation`` both use.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import Rules, fast
from games.engine.actions import discard_token
from games.engine.auction import Auction
from games.engine.bots.auction_model import AuctionState, call_code
from games.engine.cards import CODES, INDEX, SUITS, codes_of
from games.engine.discards import discard_tokens

from .helpers import ALL_SPECS, PRESETS, over_the_preset


def _deal_hands(rules: Rules, rng: random.Random) -> dict[str, list[str]]:
    deck = sorted(INDEX, key=lambda _: rng.random())
    size = rules.hand_size
    return {seat: deck[i * size : (i + 1) * size] for i, seat in enumerate(rules.seats)}


def _model_codes(state: AuctionState, seat: int, hand: list[str]) -> set[int]:
    calls, pitch_ok = state.options(seat)
    codes = set(calls)
    if pitch_ok:
        codes |= {fast.PITCH + INDEX[card] for card in hand}
    return codes


@pytest.mark.parametrize("preset", PRESETS)
def test_bidding_model_offers_exactly_the_engines_calls(preset):
    """Over STATES_PER_PRESET random calls of the preset (each option in turn)."""
    over_the_preset(preset, _bid_against_the_auction)


def _bid_against_the_auction(rules: Rules, rng: random.Random) -> int:
    kernel = fast.kernel_for(rules)
    dealer = rng.randrange(len(rules.seats))
    hands = _deal_hands(rules, rng)
    auction = Auction(rules, rules.seats[dealer])
    state = AuctionState(kernel, dealer)
    calls = 0
    while not auction.over:
        assert not state.over
        seat = auction.to_act
        assert state.to_act == rules.seats.index(seat)
        legal = auction.legal_calls(hands[seat])
        assert _model_codes(state, state.to_act, hands[seat]) == {call_code(t) for t in legal}
        token = rng.choice(legal)
        auction.apply(seat, token)
        state.apply(state.to_act, call_code(token))
        calls += 1
    assert state.over and state.to_act == -1
    expected_high_seat = -1 if auction.high_seat is None else rules.seats.index(auction.high_seat)
    assert (state.high_seat, state.high) == (expected_high_seat, auction.high)
    return calls


@pytest.mark.parametrize("preset", PRESETS)
def test_random_auctions_are_legal_auctions(preset):
    """Over STATES_PER_PRESET random calls of the preset (each option in turn)."""
    over_the_preset(preset, _random_auction_in_the_engine, salt=0x5EED)


def _random_auction_in_the_engine(rules: Rules, rng: random.Random) -> int:
    kernel = fast.kernel_for(rules)
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
    return len(calls)


DISCARD_SPECS = [spec for spec in ALL_SPECS if Rules.from_spec(spec).discard_kind]


def _preset(spec) -> str:
    return spec if isinstance(spec, str) else spec["preset"]


@settings(max_examples=300, deadline=None)
@given(
    spec=st.sampled_from(DISCARD_SPECS),
    seed=st.integers(0, 2**32 - 1),
    trump=st.integers(0, 3),
    dealer=st.integers(0, 6),
)
def test_random_discards_are_legal_discards(spec, seed, trump, dealer):
    """Every seat's random discard is one of the engine's legal discard tokens, and the seat
    draws its replacements from the top of the stock, in turn from the dealer's left."""
    _discards_against_the_engine(Rules.from_spec(spec), seed, trump, dealer)


@pytest.mark.parametrize("preset", sorted({_preset(s) for s in DISCARD_SPECS}))
def test_random_discards_of_each_preset_are_legal_discards(preset):
    """The same over STATES_PER_PRESET seats' discards of the preset (its options in turn)."""

    def discards(rules: Rules, rng: random.Random) -> int:
        seed, trump, dealer = rng.getrandbits(32), rng.randrange(4), rng.randrange(7)
        return _discards_against_the_engine(rules, seed, trump, dealer)

    over_the_preset(preset, discards, salt=0xD15C, specs=DISCARD_SPECS)


def _discards_against_the_engine(rules: Rules, seed: int, trump: int, dealer: int) -> int:
    kernel = fast.kernel_for(rules)
    dealer %= len(rules.seats)
    rng = random.Random(seed)
    dealt, stock = kernel.deal_masks(rng.getrandbits)
    hands = list(dealt)
    if kernel.discard_kind == "draw":
        rng.shuffle(stock)
    record = {"discards": {}}
    fast._random_discards(kernel, hands, list(stock), dealer, trump, rng.random, record)
    stock_cards = [CODES[card.bit_length() - 1] for card in stock]
    drawn_so_far = 0
    for seat in kernel.order_from[dealer]:
        hand = codes_of(dealt[seat])
        chosen = codes_of(record["discards"][seat])
        legal = discard_tokens(
            rules.discard_kind, hand, SUITS[trump], len(stock_cards) - drawn_so_far
        )
        assert discard_token(chosen) in legal
        drawn = (
            stock_cards[drawn_so_far : drawn_so_far + len(chosen)]
            if rules.discard_kind == "draw"
            else []
        )
        drawn_so_far += len(drawn)
        assert set(codes_of(hands[seat])) == (set(hand) - set(chosen)) | set(drawn)
    return len(kernel.order_from[dealer])
