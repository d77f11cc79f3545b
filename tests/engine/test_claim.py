"""Claiming the rest (games/engine/claim.py): a certain claim, a claim one card still out
defeats, the refusals' words, and, over random deals of every preset, that an allowed claim
wins every trick and scores the same whatever the others hold and play."""

import random

import pytest

from games.engine import Rules
from games.engine.claim import (
    NO_TRUMP_YET,
    NOT_IN_PLAY,
    NOT_YOUR_LEAD,
    claim_moves,
    claim_order,
    claim_refusal,
)
from games.engine.phases import PLAY
from games.engine.play import trick_winner

from .helpers import PRESETS, deal_from, play, random_game, specs_of

# Dealer W: N bids first. N holds the six best spades and pitches the ace.
CERTAIN = {
    "N": "AS KS QS JS TS 9S",
    "E": "2S 3H 4H 5H 6H 7H",
    "S": "2C 3C 4C 5C 6C 7C",
    "W": "2D 3D 4D 5D 6D 7D",
}


def test_a_certain_claim_plays_out_every_trick_to_the_claimer():
    deal = play(deal_from("house", "W", CERTAIN), "2 pass pass pass AS 2S 2C 2D")
    assert deal.to_act == "N" and not deal.current_trick
    assert claim_refusal(deal.observation("N")) is None
    moves = claim_moves(deal, "N")
    assert deal.version == 8  # the deal itself is left as it was
    assert [card for seat, card in moves if seat == "N"] == ["KS", "QS", "JS", "TS", "9S"]
    finished = deal.copy()
    for seat, card in moves:
        finished.apply(card, seat)
    assert finished.is_over
    assert all(trick_winner(t.cards, "S") == "N" for t in finished.tricks)
    # Everyone else plays their lowest card: E's hearts from the bottom.
    assert [card for seat, card in moves if seat == "E"] == ["3H", "4H", "5H", "6H", "7H"]


def test_one_card_still_out_defeats_a_claim_and_the_refusal_names_only_what_is_out():
    hands = dict(CERTAIN, N="AS QS JS TS 9S 8S", E="KS 2S 4H 5H 6H 7H")
    deal = play(deal_from("house", "W", hands), "2 pass pass pass AS 2S 2C 2D")
    refusal = claim_refusal(deal.observation("N"))
    assert refusal == (
        "Not every trick is surely yours: the queen of trump could lose to the king of trump, still out."
    )
    assert "E" not in refusal.split(":")[1]  # never who holds it


def test_a_trump_still_out_defeats_a_claim_on_side_aces():
    hands = {
        "N": "AS AH AD AC KH KD",
        "E": "2S 3H 4H 5H 6H 7H",
        "S": "3S 3C 4C 5C 6C 7C",
        "W": "2D 3D 4D 5D 6D 7D",
    }
    deal = play(deal_from("house", "W", hands), "2 pass pass pass AS 2S 3S 2D")
    assert claim_refusal(deal.observation("N")) == (
        "Not every trick is surely yours: the ace of hearts could lose to a trump, still out."
    )


def test_refusals_before_the_play_out_of_turn_and_mid_trick():
    deal = deal_from("house", "W", CERTAIN)
    assert claim_refusal(deal.observation("N")) == NOT_IN_PLAY
    play(deal, "2 pass pass pass")
    assert claim_refusal(deal.observation("N")) == NO_TRUMP_YET
    play(deal, "AS")
    assert claim_refusal(deal.observation("E")) == NOT_YOUR_LEAD  # E follows, it does not lead
    assert claim_refusal(deal.observation("S")) == NOT_YOUR_LEAD  # not S's turn


def test_the_claim_order_leads_trumps_from_the_top_then_each_suit():
    assert claim_order(["2C", "AS", "KH", "3H", "QS"], "H") == ["KH", "3H", "AS", "QS", "2C"]


def _claims_in(rules: Rules, rng: random.Random, games: int):
    """(deal, seat) for every moment of `games` random deals where a seat on lead may claim."""
    for _ in range(games):
        deal = random_game(rules, rng, upto=0)
        while not deal.is_over:
            seat = deal.to_act
            if deal.phase == PLAY and claim_refusal(deal.observation(seat)) is None:
                yield deal.copy(), seat
            deal.apply(rng.choice(deal.legal_actions()))


@pytest.mark.parametrize("preset", PRESETS)
def test_an_allowed_claim_wins_every_trick_whatever_the_others_hold_and_play(preset):
    """Over random deals of the preset and its options: wherever a claim is allowed, the claim's
    moves give the claimer every trick, and so does every other way the others could play
    against the claimer's leads; the deal's score is the same each way."""
    rng = random.Random(f"claims {preset}")
    claims = 0
    for spec in specs_of(preset):
        rules = Rules.from_spec(spec)
        for deal, seat in _claims_in(rules, rng, games=60):
            claims += 1
            claimed = deal.copy()
            for mover, card in claim_moves(deal, seat):
                claimed.apply(card, mover)
            tricks_left = len(claimed.tricks) - len(deal.tricks)
            assert all(
                trick_winner(t.cards, deal.trump) == seat for t in claimed.tricks[-tricks_left:]
            )
            for _ in range(5):
                other = deal.copy()
                leads = claim_order(other.hand(seat), other.trump)
                while not other.is_over:
                    mover = other.to_act
                    choice = leads.pop(0) if mover == seat else rng.choice(other.legal_actions())
                    other.apply(choice, mover)
                assert all(
                    trick_winner(t.cards, deal.trump) == seat for t in other.tricks[-tricks_left:]
                )
                assert other.result().score == claimed.result().score
    assert claims >= 20, f"only {claims} claims came up in {preset}'s random deals"
