"""Consistency (issue 47, item 3): at one and the same position the live coach's first choice,
the review's best move and the exercise's expected answer are the same move, 0 contradictions.

Each is computed as its part of the site computes it, independently: the live coach on the
deal as it stands at the table; the review on the deal rebuilt from its record (as the review
task rebuilds it from the stored actions, when no advice was stored); the exercise and "Play
from here" on a fresh deal of the same cards with the same moves applied (another match). All
use ``advise`` seeded by the position (``worth.position_seed``) and told who sits where.

The default run is a fast subset (a few seconds, small budget); ``SETBACK_CONSISTENCY_FULL=1``
runs 500 positions, 125 from each preset, at the coach's full budget (minutes).
The contradictions found are written to the assertion; 0 is the figure.
"""

import os
import random

import pytest

from games.engine import Deal, Rules, deal_from_record, deal_to_record
from games.engine.coach.advice import advise
from games.engine.coach.judging import judge
from tests.engine.bots.helpers import PRESETS

FULL = os.environ.get("SETBACK_CONSISTENCY_FULL") == "1"
PER_PRESET = 125 if FULL else 3
# The full run's budget: the coach's own unless SETBACK_CONSISTENCY_BUDGET says otherwise (the
# agreement is by construction, so a smaller budget tests the same thing, faster).
BUDGET = int(os.environ.get("SETBACK_CONSISTENCY_BUDGET", 0)) or None if FULL else 40
LEVELS = ("casual", "easy", "medium", "hard")  # what a seat may be modelled as


def positions(preset: str, count: int):
    rng = random.Random(f"one-judgement-{preset}")
    rules = Rules.from_spec(preset)
    found = []
    while len(found) < count:
        deal = Deal.new(rules, rng.choice(rules.seats), rng)
        stop = rng.randrange(0, 30)
        while not deal.is_over and deal.version < stop:
            deal.apply(rng.choice(deal.legal_actions()))
        if deal.is_over or len(deal.legal_actions()) < 2:
            continue
        totals = None
        if rng.random() < 0.4:
            totals = {side: rng.randint(-5, rules.target - 1) for side in rules.sides}
        models = {seat: rng.choice(LEVELS) for seat in rules.seats}
        models[deal.to_act] = "hard"
        found.append((deal, totals, models))
    return found


def _rebuilt(deal: Deal) -> Deal:
    """The deal as the review sees it: from its record, the moves applied again."""
    return deal_from_record(deal_to_record(deal))


def _replayed(deal: Deal) -> Deal:
    """The deal as an exercise or "Play from here" sees it: a fresh deal of the same cards."""
    fresh = deal.as_dealt()
    for seat, token in deal.history:
        fresh.apply(token, seat)
    return fresh


@pytest.mark.parametrize("preset", PRESETS)
def test_coach_review_and_exercise_never_disagree(preset):
    contradictions = []
    for deal, totals, models in positions(preset, PER_PRESET):
        seat = deal.to_act
        live = advise(deal.observation(seat, totals), budget=BUDGET, seat_models=models)
        review = advise(_rebuilt(deal).observation(seat, totals), budget=BUDGET, seat_models=models)
        exercise = advise(
            _replayed(deal).observation(seat, totals), budget=BUDGET, seat_models=models
        )
        verdict = judge(review[0].figures, live[0].figures)
        if not (live[0].action == review[0].action == exercise[0].action) or verdict.mark:
            contradictions.append((deal_to_record(deal), live[0].action, review[0].action))
    assert contradictions == []
