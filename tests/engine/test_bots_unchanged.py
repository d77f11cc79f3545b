"""The bots make exactly the choices they made when the golden file was recorded.

Fixed-seed deals are played with every seat at one level, for every level and every preset (and
the options that change what a bot searches: draw, six players, pitch to bid, no trump on the
first trick, cutthroat tables), from match totals that are often near the end of a match, so the
match-aware ranking is in play too. Every action is compared with the golden list, and for the
searching levels every option's figures (a fingerprint of ``evaluate``'s whole answer at every
decision), so a change that keeps the choice but moves the search's numbers shows too. The coach's
words for the same kind of deals are compared line by line.

Budgets are small to keep the test quick; they count simulated deals, so the same code runs as
at the full budget, only fewer times. Recording: see golden.py.
"""

from __future__ import annotations

import random

import pytest

from games.engine import Deal, Rules
from games.engine.bots import choose, evaluate
from games.engine.bots.arena import _seed, random_totals
from games.engine.coach.advice import advise

from .golden import check, digest

GOLDEN = "bots_unchanged"

SPECS = [
    "house",
    "classic",
    "auction",
    "family",
    {"preset": "house", "draw": True},
    {"preset": "classic", "six_players": True},
    {"preset": "auction", "players": 3},
    {"preset": "classic", "pitch_to_bid": True},
    {"preset": "family", "players": 5, "no_trump_first_trick": True},
    {"preset": "house", "cutthroat": True, "players": 3, "low_to": "holder"},
]
# Deals per spec and level, and the budget (simulated deals per decision) of the searchers.
LEVELS = {
    "random": (3, None),
    "easy": (6, None),
    "medium": (2, 60),
    "hard": (2, 80),
    # Not a site level: the same search weighing worlds by how the policy explains the others'
    # plays, the one place the bots call the policy card by card (worlds.Info.play_weight).
    "medium+play_inference=0.3": (1, 60),
}
SEARCHING = ("medium", "hard", "medium+play_inference=0.3")


def spec_id(spec) -> str:
    if isinstance(spec, str):
        return spec
    return "-".join(f"{k}={v}" for k, v in spec.items())


def play(rules: Rules, level: str, number: int, budget: int | None, figures: bool):
    """One deal with every seat at ``level``: its actions and, if asked, a fingerprint of every
    option's figures at every decision."""
    rng = random.Random(_seed(7, number))
    totals = random_totals(rules, rng)
    dealer = rules.seats[number % len(rules.seats)]
    deal = Deal.new(rules, dealer, random.Random(_seed(8, number)))
    fingerprints = []
    while not deal.is_over:
        obs = deal.observation(deal.to_act, match_totals=totals)
        seed = _seed(9, number, deal.version)
        action = choose(obs, level, seed=seed, budget=budget)
        if figures and len(obs.legal_actions()) > 1:
            options = evaluate(obs, seed=seed, budget=budget, level=level)
            assert options[0].action == action
            fingerprints.append([option.to_json() for option in options])
        deal.apply(action)
    return " ".join(token for _, token in deal.history), digest(fingerprints)


@pytest.mark.parametrize("level", list(LEVELS))
@pytest.mark.parametrize("spec", SPECS, ids=spec_id)
def test_every_level_plays_as_recorded(spec, level):
    rules = Rules.from_spec(spec)
    deals, budget = LEVELS[level]
    actions, figures = [], []
    for number in range(deals):
        tokens, fingerprint = play(rules, level, number, budget, level in SEARCHING)
        actions.append(tokens)
        figures.append(fingerprint)
    check(GOLDEN, f"actions {spec_id(spec)} {level}", actions)
    if level in SEARCHING:
        check(GOLDEN, f"figures {spec_id(spec)} {level}", figures)


@pytest.mark.parametrize("spec", SPECS[:4] + SPECS[6:8], ids=spec_id)
def test_the_coach_says_what_it_said(spec):
    """Every option's label and reason at every decision of a deal the hard bot plays (the
    coach's first option is its move), from totals near the end of a match and without totals."""
    rules = Rules.from_spec(spec)
    fingerprints = []
    for number in range(2):
        lines = []
        rng = random.Random(_seed(10, number))
        totals = random_totals(rules, rng) if number == 0 else None
        deal = Deal.new(rules, rules.seats[number], random.Random(_seed(11, number)))
        while not deal.is_over:
            obs = deal.observation(deal.to_act, match_totals=totals)
            if len(obs.legal_actions()) == 1:
                deal.apply(obs.legal_actions()[0])
                continue
            options = advise(obs, seed=_seed(12, number, deal.version), budget=60)
            lines += [f"{option.label} | {option.reason}" for option in options]
            deal.apply(options[0].action)
        fingerprints.append(digest(lines))
    check(GOLDEN, f"coach {spec_id(spec)}", fingerprints)
