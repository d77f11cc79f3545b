"""The calibration command runs on a small sample (as in CI) and its figures add up; the ECE
and the contradiction check find what they should."""

import json
import random
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from games.engine import Deal, Rules
from games.engine.coach.advice import Option, advise
from games.engine.coach.calibration import Calibration, contradictions
from games.engine.coach.chances import FIELDS, TABLE_KNOTS, honest, table_of


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


def test_saved_deals_from_two_runs_report_as_one_run_of_them_all(tmp_path):
    """A long measurement is split over processes and may be stopped: every finished deal is
    saved as it ends, and the saved deals of several runs report as one sample."""
    first, second = tmp_path / "seed5.jsonl", tmp_path / "seed6.jsonl"
    call_command(
        "coach_calibration", deals=2, budget=40, seed=5, save=str(first), stdout=StringIO()
    )
    call_command(
        "coach_calibration", deals=1, budget=40, seed=6, save=str(second), stdout=StringIO()
    )
    assert len(first.read_text().splitlines()) == 2

    out = StringIO()
    call_command("coach_calibration", load=[str(first), str(second)], json=True, stdout=out)
    merged = json.loads(out.getvalue())
    alone = []
    for seed, deals in ((5, 2), (6, 1)):
        out = StringIO()
        call_command("coach_calibration", deals=deals, budget=40, seed=seed, json=True, stdout=out)
        alone.append(json.loads(out.getvalue()))
    assert merged["deals"] == 3
    assert merged["decisions"] == sum(r["decisions"] for r in alone)
    for kind in ("make", "high", "low", "jack", "game"):
        assert merged["kinds"][kind]["n"] == sum(r["kinds"][kind]["n"] for r in alone)
        for i, row in enumerate(merged["kinds"][kind]["tenths"]):
            assert row["n"] == sum(r["kinds"][kind]["tenths"][i]["n"] for r in alone)


def test_saved_deals_are_refused_when_counted_twice_mixed_or_damaged(tmp_path):
    saved = tmp_path / "saved.jsonl"
    call_command(
        "coach_calibration", deals=1, budget=40, seed=7, save=str(saved), stdout=StringIO()
    )
    raw = tmp_path / "raw.jsonl"
    call_command(
        "coach_calibration", deals=1, budget=40, seed=8, raw=True, save=str(raw), stdout=StringIO()
    )
    line = json.loads(saved.read_text())
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text(json.dumps({**line, "records": [["make", 1.7, True]]}) + "\n")
    torn = tmp_path / "torn.jsonl"
    torn.write_text(saved.read_text()[:-20])  # a run killed mid-line
    missing = tmp_path / "none.jsonl"

    for paths, said in (
        ([saved, saved], "saved twice"),
        ([saved, raw], "mixed"),
        ([damaged], "out of range"),
        ([torn], "not JSON"),
        ([missing], "cannot read"),
    ):
        with pytest.raises(CommandError, match=said):
            call_command("coach_calibration", load=[str(p) for p in paths], stdout=StringIO())


def test_a_raw_runs_saved_deals_still_fit_a_map(tmp_path):
    raw = tmp_path / "raw.jsonl"
    call_command(
        "coach_calibration", deals=1, budget=40, seed=4, raw=True, save=str(raw), stdout=StringIO()
    )
    out = StringIO()
    call_command("coach_calibration", load=[str(raw)], json=True, stdout=out)
    assert set(json.loads(out.getvalue())["fitted_knots"]) == {
        "make",
        "high",
        "low",
        "jack",
        "game",
    }


def test_a_tables_map_follows_the_self_play_map_against_rule_bound_opponents():
    rules = Rules()
    assert table_of(None, "S", rules) is None
    assert table_of(dict.fromkeys("NESW", "hard"), "S", rules) is None
    # The opponents' weakest model, never the partner's.
    assert table_of({"N": "easy", "E": "hard", "S": "hard", "W": "hard"}, "S", rules) is None
    assert table_of({"N": "hard", "E": "easy", "S": "hard", "W": "hard"}, "S", rules) == "easy"
    assert table_of({"N": "hard", "E": "easy", "S": "hard", "W": "casual"}, "S", rules) == "casual"
    said = [i / 100 for i in range(101)]
    for table, knots in TABLE_KNOTS.items():
        for kind in knots:
            mapped = [honest(kind, honest(kind, p), knots) for p in said]
            assert mapped == sorted(mapped), (table, kind)  # orders between chances are kept
            assert mapped[0] == 0.0 and mapped[-1] == 1.0


def test_a_saved_sample_mapped_anew_states_what_the_map_says_and_keeps_what_happened():
    cal = Calibration()
    cal.add("make", 0.85, True)
    cal.add("make", 0.65, False)
    cal.deals = 1
    mapped = cal.mapped({"make": ((0.5, 0.6), (0.9, 0.95))})
    assert [round(s, 4) for _, _, s, _ in mapped.records] == [0.9062, 0.7312]
    assert [h for *_, h in mapped.records] == [True, False]
    assert mapped.deals == 1 and cal.records[0][2] == 0.85  # the sample itself is unchanged
