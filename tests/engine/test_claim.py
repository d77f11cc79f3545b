"""Claiming the rest (games/engine/claim.py): a certain claim, a claim one card still out
defeats, the refusals' words, and, over random deals of every preset, that an allowed claim
wins every trick and scores the same whatever the others hold and play."""

import copy
import random

import pytest

from games.engine import Rules, bots, deal_from_record, deal_to_record
from games.engine.claim import (
    CLAIM,
    NO_TRUMP_YET,
    NOT_IN_PLAY,
    NOT_YOUR_LEAD,
    claim_moves,
    claim_order,
    claim_refusal,
    claimed_at,
)
from games.engine.offline import bot_seed, deal_seed, redecide_bots
from games.engine.phases import PLAY
from games.engine.play import trick_winner
from games.offline import worker

from .helpers import PRESETS, deal_from, play, random_game, specs_of
from .offline_helpers import offline_match

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


# --- Offline: the page's claims, and the server's check of a deal that came home -----------


def _offline_deal_with_a_claim(by_person: bool):
    """An offline match's first deal, played to its end, in which the person (or a bot) claims:
    the first seed whose deal comes to such a claim."""
    for seed in range(200):
        match = offline_match("house", level="easy", seed=seed)
        claimed = None
        while not match.deal.is_over:
            if match.bot_to_act:
                if match.play_bot() == CLAIM:
                    claimed = "bot"
            elif claim_refusal(match.observation(match.seat)) is None:
                match.claim()
                claimed = "person"
            else:
                seen = match.observation(match.seat)
                match.act(bots.choose(seen, "easy", seed=match.deal.version))
        if claimed == ("person" if by_person else "bot"):
            return match
    raise AssertionError("no deal came to a claim")


@pytest.mark.parametrize("by_person", [True, False], ids=["the person", "a bot"])
def test_an_offline_claim_comes_home_and_passes_the_check(by_person):
    match = _offline_deal_with_a_claim(by_person)
    envelope = match.envelope("deal-0001")
    assert redecide_bots(envelope) == []
    found = claimed_at(match.deal.as_dealt(), match.deal.history)
    assert found is not None and (found[1] == match.seat) == by_person
    note = worker._claim_note(match.deal, {seat: seat for seat in match.rules.seats})
    assert note.endswith("tricks.") or note.endswith("trick.")


def _forged_after_claim(match):
    """The envelope of `match`'s deal, with the first bot card after the person's claim began
    that could be otherwise replaced by a legal card neither the claim nor the bot would play
    (the deal then finished legally); None if no bot had such a choice."""
    envelope = match.envelope("deal-0001")
    deal = deal_from_record(envelope["record"])
    step, claimer = claimed_at(deal.as_dealt(), deal.history)
    seed = deal_seed(envelope["match_seed"], envelope["number"])
    replay = deal.as_dealt()
    for number, (seat, token) in enumerate(deal.history):
        if number > step and seat != claimer:
            seen = replay.observation(seat, match_totals=envelope["totals_before"])
            wanted = bots.choose(seen, envelope["bots"][seat], seed=bot_seed(seed, number))
            others = [c for c in replay.legal_actions() if c not in (token, wanted)]
            if others:
                replay.apply(others[0], seat)
                while not replay.is_over:
                    replay.apply(replay.legal_actions()[0])
                forged = copy.deepcopy(envelope)
                forged["record"] = deal_to_record(replay)
                forged["score"] = dict(replay.result().score)
                return forged
        replay.apply(token, seat)
    return None


def test_a_claims_cards_changed_on_the_way_home_are_found():
    for seed in range(200):
        match = offline_match("house", level="easy", seed=seed)
        while not match.deal.is_over:
            if match.bot_to_act:
                match.play_bot()
            elif claim_refusal(match.observation(match.seat)) is None:
                match.claim()
            else:
                seen = match.observation(match.seat)
                match.act(bots.choose(seen, "easy", seed=match.deal.version))
        found = claimed_at(match.deal.as_dealt(), match.deal.history)
        if found is None or found[1] != match.seat:
            continue
        forged = _forged_after_claim(match)
        if forged is not None:
            assert redecide_bots(match.envelope("deal-0001")) == []
            [mismatch] = redecide_bots(forged)
            assert mismatch.seat != match.seat
            return
    raise AssertionError("no offline deal had a claim whose cards could be forged")
