"""The hard search's ``evaluate`` (what the coach shows): every legal option, ranked, with its
figures from the same sampled worlds, and ``choose(obs, "hard")`` is its first option."""

from __future__ import annotations

import math
import random

import pytest

from games.engine import Deal, Rules
from games.engine.bots import OptionEstimate, choose, evaluate

from .helpers import random_positions

BUDGET = 60


def _check(estimates: list[OptionEstimate], legal: list[str]) -> None:
    actions = [e.action for e in estimates]
    assert len(actions) == len(set(actions))
    assert set(actions) <= set(legal)
    values = [e.value for e in estimates]
    assert values == sorted(values, reverse=True)
    samples = {e.samples for e in estimates}
    assert len(samples) == 1  # the same worlds for every option
    for e in estimates:
        assert e.samples > 0
        # The coach's "±": nought only when every sampled world scored the same (whole) points.
        assert e.stderr > 0 or math.isclose(e.expected_points, round(e.expected_points))
        for p in (e.p_high, e.p_low, e.p_jack, e.p_game, e.p_contract, e.p_thrown_in):
            assert -1e-9 <= p <= 1 + 1e-9
        assert e.p_make is None or 0 <= e.p_make <= 1
        assert e.p_set is None or 0 <= e.p_set <= 1
        assert e.reason
        assert e.to_json()["action"] == e.action


@pytest.mark.parametrize(
    "spec",
    [
        "house",
        "classic",
        {"preset": "house", "draw": True},
        {"preset": "classic", "six_players": True},
        {"preset": "auction", "players": 3},
        {"preset": "family", "pitch_to_bid": True, "players": 4},
    ],
)
def test_evaluate_ranks_every_decision_and_choose_is_its_first(spec):
    rng = random.Random(21)
    phases = set()
    for _, obs in random_positions(spec, rng, 10):
        legal = obs.legal_actions()
        estimates = evaluate(obs, seed=5, budget=BUDGET)
        _check(estimates, legal)
        if obs.phase != "discard":
            assert {e.action for e in estimates} == set(legal) or obs.phase == "auction"
        assert choose(obs, "hard", seed=5, budget=BUDGET) == estimates[0].action or len(legal) == 1
        phases.add(obs.phase)
    assert "play" in phases


def test_bids_trump_and_discards_are_evaluated():
    rng = random.Random(8)
    for spec in ({"preset": "house", "draw": True}, {"preset": "house", "six_players": True}):
        seen = set()
        for _ in range(40):
            rules = Rules.from_spec(spec)
            deal = Deal.new(rules, rules.seats[-1], rng)
            while deal.phase in ("auction", "trump", "discard"):
                obs = deal.observation(deal.to_act)
                if deal.phase in seen:
                    deal.apply(choose(obs, "easy"))
                    continue
                estimates = evaluate(obs, seed=1, budget=BUDGET)
                _check(estimates, obs.legal_actions())
                seen.add(deal.phase)
                deal.apply(estimates[0].action)
            if {"auction", "trump", "discard"} <= seen:
                break
        assert {"auction", "trump", "discard"} <= seen


def test_bid_figures_say_make_or_set():
    deal = Deal.new("house", "W", random.Random(2))
    deal.apply("2")  # N bids 2; E decides
    estimates = {e.action: e for e in evaluate(deal.observation("E"), seed=3, budget=200)}
    assert (
        estimates["pass"].p_contract < 1 and estimates["pass"].p_set is not None
    )  # W may still bid
    assert estimates["3"].p_make is not None and estimates["3"].p_contract > 0.5


def test_match_totals_switch_the_ranking_near_the_end():
    deal = Deal.new("house", "W", random.Random(4))
    far = evaluate(deal.observation("N", match_totals={"NS": 2, "EW": 3}), seed=1, budget=BUDGET)
    near = evaluate(deal.observation("N", match_totals={"NS": 9, "EW": 10}), seed=1, budget=BUDGET)
    assert all(e.ranking == "margin" and e.p_win_match is None for e in far)
    assert all(e.ranking == "match" and 0 <= e.p_win_match <= 1 for e in near)
    assert all(e.value == e.p_win_match for e in near)


def test_include_values_an_option_the_search_would_skip():
    rules = Rules.from_spec({"preset": "house", "pitch_to_bid": True})
    deal = Deal.new(rules, "W", random.Random(12))
    obs = deal.observation("N")
    legal = obs.legal_actions()
    skipped = [
        a for a in legal if a not in {e.action for e in evaluate(obs, seed=1, budget=BUDGET)}
    ]
    assert skipped  # low pitches are not worth valuing by default
    estimates = evaluate(obs, seed=1, budget=BUDGET, include=[skipped[0]])
    assert skipped[0] in {e.action for e in estimates}
    with pytest.raises(ValueError, match="not a legal action"):
        evaluate(obs, seed=1, budget=BUDGET, include=["discard:"])
