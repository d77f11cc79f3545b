"""Known weaknesses of other Pitch bots, each a hand-built position (built from a deal record,
so the engine checks it) that our bots must get right.

The search levels (medium, hard) must pass every position with several seeds; the rule-based
easy level passes those its rules of thumb cover.
"""

from __future__ import annotations

import pytest

from games.engine import deal_from_record
from games.engine.bots import choose

SEEDS = (0, 1, 2)
BUDGET = 500


def deal_from(rules, dealer, hands, auction, plays=()):
    return deal_from_record(
        {
            "format": "setback-deal/1",
            "rules": rules,
            "dealer": dealer,
            "hands": {seat: cards.split() for seat, cards in hands.items()},
            "auction": list(auction),
            "plays": list(plays),
        }
    )


def no_four_without_high_over_a_three():
    # W deals; N passes, E bids 3. S holds J-9-3-2 of hearts: High (A, K, Q out) is unlikely,
    # and a four needs all four points. Pass.
    deal = deal_from(
        "house",
        "W",
        {
            "N": "AS 9S 5C 7D 8D 4S",
            "E": "AH KH 8H TD 9D 3C",
            "S": "JH 9H 3H 2H 9C 4D",
            "W": "KS QS TS 6H 5H AC",
        },
        ["pass", "3"],
    )
    return deal.observation("S"), lambda a: a == "pass"


def no_four_without_high_opening():
    # N opens with the same J-high hearts: whatever it bids, not a four.
    deal = deal_from(
        "house",
        "W",
        {
            "N": "JH 9H 3H 2H 9C 4D",
            "E": "AH KH 8H TD 9D 3C",
            "S": "AS 9S 5C 7D 8D 4S",
            "W": "KS QS TS 6H 5H AC",
        },
        [],
    )
    return deal.observation("N"), lambda a: a != "4"


def dealer_steals_by_equalling():
    # Classic: the dealer (W) may take the contract by equalling N's 2. With a strong hand it
    # takes it at 2: bidding 3 or 4 only adds risk (the score is what is taken either way).
    deal = deal_from(
        "classic",
        "W",
        {
            "N": "KD 9D 5C 7D 8D 4S",
            "E": "TH 8H 7H 6D 9C 3C",
            "S": "QH JH 3H 2H 9S 4D",
            "W": "AS KS JS 2S 6H AC",
        },
        ["2", "pass", "pass"],
    )
    return deal.observation("W"), lambda a: a == "2"


def two_of_trump_onto_partners_trick():
    # N pitched and led the ace of spades (trump); E followed. S holds the 2 and 7 of spades:
    # the 2 is Low, and the ace takes the trick, so the 2 goes on it now (Low to the taker).
    deal = deal_from(
        "house",
        "W",
        {
            "N": "AS KD 5C 7D 8D 4H",
            "E": "5S 8H 7H 6D 9C 3C",
            "S": "2S 7S QH 3H 9H 4D",
            "W": "TS 8S JS 6H AC KC",
        },
        ["2", "pass", "pass", "pass"],
        ["AS", "5S"],
    )
    return deal.observation("S"), lambda a: a == "2S"


def no_jack_lead_into_higher_trump():
    # E bid 3 and led a heart (trump); S won the first trick with the queen and leads now with
    # the jack of trump and the ace and king still out (E bid 3 on them). Do not lead the jack.
    deal = deal_from(
        "house",
        "N",
        {
            "E": "AH KH 9H TD 9D 3C",
            "S": "QH JH 4D 4C 5C 6S",
            "W": "3H 8S 7S 7D 8D 2C",
            "N": "4H AS KS KD QD 9C",
        },
        ["3", "pass", "pass", "pass"],
        ["9H", "QH", "3H", "4H"],
    )
    return deal.observation("S"), lambda a: a != "JH"


def keep_the_ten():
    # Spades are trump. W leads the ace of diamonds, N and E follow low; S (no trump) holds the
    # ten and three of diamonds and cannot win: keep the ten, play the three.
    deal = deal_from(
        "house",
        "N",
        {
            "E": "5D KH 9H 3S 9S 3C",
            "S": "TD 3D JH 4C 5C 6H",
            "W": "AD 3H 7S 8D 2D 2C",
            "N": "4D 4H AH KC QD 9C",
        },
        ["pass", "pass", "2", "pass"],
        ["7S", "4H", "3S", "6H", "AD", "4D", "5D"],
    )
    return deal.observation("S"), lambda a: a == "3D"


def partner_already_holds_high():
    # N's ace of spades (High) is taking the trick; S must not overtake it with the king of
    # trump (wasting a trick-taker): follow with a diamond.
    deal = deal_from(
        "house",
        "N",
        {
            "N": "2S AS 4H KC QD 9C",
            "E": "3S 8D 8H 9H TC 3C",
            "S": "4S KS 4D 9D 4C 5C",
            "W": "8S 7D 3H 6D 2D 2C",
        },
        ["pass", "pass", "pass", "2"],
        ["2S", "3S", "4S", "8S", "7D", "AS", "8D"],
    )
    return deal.observation("S"), lambda a: a != "KS"


def keep_the_contract_from_them():
    # House, E-W have 10 of 11: if W (the dealer, last to speak) gets the contract and makes
    # it, they win. N and E passed; S has a modest hand and bids to keep the contract.
    deal = deal_from(
        "house",
        "W",
        {
            "N": "AS 9S 5C 7D 8D 4S",
            "E": "TH 8S 6H TD 9D 3C",
            "S": "QH 8H 4H 9C 5D 2S",
            "W": "KS QS TS 6C 5H AC",
        },
        ["pass", "pass"],
    )
    return deal.observation("S", match_totals={"NS": 3, "EW": 10}), lambda a: a != "pass"


POSITIONS = [
    no_four_without_high_over_a_three,
    no_four_without_high_opening,
    dealer_steals_by_equalling,
    two_of_trump_onto_partners_trick,
    no_jack_lead_into_higher_trump,
    keep_the_ten,
    partner_already_holds_high,
    keep_the_contract_from_them,
]
EASY_COVERS = [p for p in POSITIONS if p is not keep_the_contract_from_them]


@pytest.mark.parametrize("level", ["medium", "hard"])
@pytest.mark.parametrize("position", POSITIONS, ids=lambda p: p.__name__)
def test_search_levels_pass(position, level):
    obs, ok = position()
    for seed in SEEDS:
        action = choose(obs, level, seed=seed, budget=BUDGET)
        assert ok(action), f"{level} chose {action} (seed {seed})"


@pytest.mark.parametrize("position", EASY_COVERS, ids=lambda p: p.__name__)
def test_easy_passes_what_its_rules_cover(position):
    obs, ok = position()
    action = choose(obs, "easy", seed=0)
    assert ok(action), f"easy chose {action}"
