"""The calibration command runs on a small sample (as in CI) and its figures add up; the ECE
and the contradiction check find what they should."""

import json
import random
from io import StringIO

from django.core.management import call_command

from games.coach.advice import Option, advise
from games.coach.calibration import Calibration, contradictions
from games.coach.chances import FIELDS, honest
from games.engine import Deal, Rules


def test_the_command_runs_on_a_small_sample_and_its_tenths_add_up():
    out = StringIO()
    call_command("coach_calibration", deals=2, budget=60, seed=3, json=True, stdout=out)
    report = json.loads(out.getvalue())
    assert report["deals"] == 2
    assert report["decisions"] > 0
    for point in ("high", "low", "jack", "game"):
        kind = report["kinds"][point]
        assert kind["n"] == report["decisions"]  # one stated chance per decision and point
        assert sum(row["n"] for row in kind["tenths"]) == kind["n"]
        for i, row in enumerate(kind["tenths"]):
            if row["n"]:
                assert i / 10 <= row["stated"] <= (i + 1) / 10 + 1e-9
                assert 0 <= row["happened"] <= 1
        assert 0 <= kind["ece"] <= 1
    # The chance of making a bid is tested only for the bid that became the contract.
    assert report["kinds"]["make"]["n"] <= report["deals"]
    assert report["contradictions"] == []


def test_the_text_report_names_every_kind():
    out = StringIO()
    call_command("coach_calibration", deals=1, budget=40, seed=4, stdout=out)
    text = out.getvalue()
    for kind in ("make", "high", "low", "jack", "game"):
        assert f"{kind}: n=" in text
    assert "contradictions: 0" in text


def test_expected_calibration_error_weighs_each_tenths_gap_by_its_share():
    cal = Calibration()
    for _ in range(3):
        cal.add("make", 0.85, True)  # said 0.85, happened 1.0: gap 0.15
    cal.add("make", 0.25, False)  # said 0.25, happened 0: gap 0.25
    assert abs(cal.ece("make") - (3 * 0.15 + 1 * 0.25) / 4) < 1e-9


def _bid(action, suit, p_make):
    return Option(action, action, "", {"p_make": p_make, "suit": suit})


def test_a_higher_bid_said_likelier_made_in_the_same_suit_is_a_contradiction():
    options = [
        _bid("2", "S", 0.6),
        _bid("3", "S", 0.7),
        _bid("4", "H", 0.9),
        Option("pass", "Pass", "", {"p_make": None}),
    ]
    assert contradictions(options) == [("2", "3")]
    assert contradictions([_bid("2", "S", 0.6), _bid("3", "S", 0.5)]) == []


def test_honest_chances_keep_certainties_and_order_and_follow_the_knots():
    knots = {"high": ((0.25, 0.1), (0.75, 0.95))}
    assert honest("high", 0.0, knots) == 0.0 and honest("high", 1.0, knots) == 1.0
    assert abs(honest("high", 0.75, knots) - 0.95) < 1e-12
    assert abs(honest("high", 0.5, knots) - 0.525) < 1e-12  # halfway between the knots
    said = [i / 100 for i in range(101)]
    for kind in ("make", "high", "low", "jack", "game"):
        mapped = [honest(kind, p) for p in said]  # the shipped map
        assert mapped == sorted(mapped)  # a lower chance never becomes the higher one
        assert all(0 <= p <= 1 for p in mapped)


def test_the_coachs_chances_are_the_searchs_mapped_and_its_choice_is_the_searchs():
    rules = Rules.from_spec("house")
    deal = Deal.new(rules, "N", random.Random(8))
    obs = deal.observation(deal.to_act)
    raw = advise(obs, seed=5, budget=80, raw=True)
    told = advise(obs, seed=5, budget=80)
    assert [o.action for o in told] == [o.action for o in raw]
    for searched, said in zip(raw, told, strict=True):
        for kind, name in FIELDS.items():
            if searched.figures[name] is not None:
                assert said.figures[name] == honest(kind, searched.figures[name])


def test_a_fitted_map_follows_what_happened_and_never_falls():
    cal = Calibration()
    rng = random.Random(1)
    for deal in range(400):
        said = rng.random()
        truth = min(1.0, said + 0.2) if said < 0.5 else said  # too timid below one half
        cal.deals = deal
        cal.add("jack", said, rng.random() < truth)
    knots = cal.fit_knots("jack")
    assert [y for _, y in knots] == sorted(y for _, y in knots)
    low = [y - x for x, y in knots if x < 0.4]
    assert low and sum(low) / len(low) > 0.1  # the timid tenths are lifted
    lo, hi = cal.ece_interval("jack")
    assert lo <= cal.ece("jack") + 0.02 and hi > lo
    assert cal.noise_floor("jack") < cal.ece("jack")


def test_raw_runs_fit_a_map_for_every_kind():
    out = StringIO()
    call_command("coach_calibration", deals=1, budget=40, seed=4, raw=True, json=True, stdout=out)
    report = json.loads(out.getvalue())
    assert set(report["fitted_knots"]) == {"make", "high", "low", "jack", "game"}
