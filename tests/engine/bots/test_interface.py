"""The bots' interface: every level answers legally under every rules combination, the same seed
gives the same answer, and the bots never use hidden cards."""

from __future__ import annotations

import random
import zlib

import pytest

from games.engine import Deal, Rules
from games.engine.bots import LEVELS, SITE_LEVELS, choose

from .helpers import SPECS, other_deal_with_same_view, random_positions, spec_id

SMALL = 24  # a tiny search budget: these tests check legality, not strength


def test_levels():
    assert LEVELS == ("random", "easy", "medium", "hard")
    assert SITE_LEVELS == ("easy", "medium", "hard")
    deal = Deal.new("house", "W", random.Random(1))
    with pytest.raises(ValueError, match="unknown bot level"):
        choose(deal.observation("N"), "expert")
    with pytest.raises(ValueError, match="not E's turn"):
        choose(deal.observation("E"), "easy")


@pytest.mark.parametrize("spec", SPECS, ids=spec_id)
def test_every_level_answers_legally_under_every_rules_combination(spec):
    rules = Rules.from_spec(spec)
    rng = random.Random(zlib.crc32(spec_id(spec).encode()))
    for deal, obs in random_positions(rules, rng, 6):
        legal = deal.legal_actions()
        for level in LEVELS:
            action = choose(obs, level, seed=rng.randrange(1 << 30), budget=SMALL)
            assert action in legal, (level, obs.phase, action, legal)


@pytest.mark.parametrize(
    "spec",
    [
        "house",
        "classic",
        {"preset": "auction", "players": 3},
        {"preset": "house", "draw": True},
        {"preset": "family", "six_players": True},
    ],
    ids=spec_id,
)
def test_whole_deals_at_every_level(spec):
    """Every seat a different level, deal after deal, to the end (the engine checks each move)."""
    rules = Rules.from_spec(spec)
    rng = random.Random(5)
    for d in range(2):
        deal = Deal.new(rules, rules.seats[d % len(rules.seats)], rng)
        while not deal.is_over:
            level = LEVELS[rules.seats.index(deal.to_act) % len(LEVELS)]
            deal.apply(
                choose(deal.observation(deal.to_act), level, seed=deal.version, budget=SMALL)
            )


@pytest.mark.parametrize("level", LEVELS)
def test_the_same_seed_gives_the_same_choice(level):
    rng = random.Random(11)
    for spec in (
        "house",
        {"preset": "auction", "players": 5},
        {"preset": "classic", "pitch_to_bid": True},
    ):
        for _, obs in random_positions(spec, rng, 4):
            first = choose(obs, level, seed=1234, budget=SMALL)
            assert all(choose(obs, level, seed=1234, budget=SMALL) == first for _ in range(2))


@pytest.mark.parametrize(
    "spec",
    [
        "house",
        "classic",
        {"preset": "auction", "players": 3},
        {"preset": "family", "players": 5},
        {"preset": "house", "pitch_to_bid": True},
        {"preset": "classic", "no_trump_first_trick": True},
    ],
    ids=spec_id,
)
def test_bots_never_read_hidden_cards(spec):
    """The same observation from a different deal (other hidden cards) gives the same choice."""
    rules = Rules.from_spec(spec)
    rng = random.Random(zlib.crc32(spec_id(spec).encode()) + 1)
    checked = 0
    for deal, obs in random_positions(rules, rng, 8, with_totals=False):
        other = other_deal_with_same_view(deal, obs.seat, rng)
        assert other.observation(obs.seat) == obs
        assert [other.hand(s) for s in rules.seats] != [
            deal.hand(s) for s in rules.seats
        ] or obs.phase == "play"
        for level in LEVELS:
            seed = rng.randrange(1 << 30)
            assert choose(obs, level, seed=seed, budget=SMALL) == choose(
                other.observation(obs.seat), level, seed=seed, budget=SMALL
            )
        checked += 1
    assert checked == 8


def test_hidden_hands_swapped_at_the_start_of_the_auction():
    rules = Rules.from_spec("house")
    rng = random.Random(3)
    for _ in range(4):
        deal = Deal.new(rules, "W", rng)
        hands = {s: deal.hand(s) for s in rules.seats}
        swapped = dict(hands, E=hands["W"], W=hands["S"], S=hands["E"])
        other = Deal(rules, "W", swapped, list(deal.stock))
        for level in LEVELS:
            assert choose(deal.observation("N"), level, seed=9, budget=SMALL) == choose(
                other.observation("N"), level, seed=9, budget=SMALL
            )
