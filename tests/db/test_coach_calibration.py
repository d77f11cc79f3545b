"""The calibration command runs on a small sample (as in CI) and its figures add up; the ECE
and the contradiction check find what they should."""

import json
from io import StringIO

from django.core.management import call_command

from games.coach.advice import Option
from games.coach.calibration import Calibration, contradictions


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
    options = [_bid("2", "S", 0.6), _bid("3", "S", 0.7), _bid("4", "H", 0.9), Option("pass", "Pass", "", {"p_make": None})]
    assert contradictions(options) == [("2", "3")]
    assert contradictions([_bid("2", "S", 0.6), _bid("3", "S", 0.5)]) == []
