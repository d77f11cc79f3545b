"""``python -m games.engine arena`` and ``bench-bots`` (tiny runs: the figures are not tested)."""

from __future__ import annotations

import json

from games.engine import Rules
from games.engine.bots.arena import run_arena
from games.engine.cli import main


def test_arena_command_prints_the_figures(capsys):
    assert (
        main(
            [
                "arena",
                "--a",
                "easy",
                "--b",
                "random",
                "--deals",
                "6",
                "--matches",
                "2",
                "--seed",
                "3",
                "--json",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "points per deal, A - B:" in out and "95% CI" in out
    assert "match wins from random scores" in out
    assert "bids by easy:" in out and "bids by random:" in out
    report = json.loads(out[out.index("{") :])
    assert report["pairs"] == 6 and report["matches"] == 4
    assert report["low"] <= report["mean_diff"] <= report["high"]


def test_duplicate_pairs_cancel_the_cards():
    """The same level on both sides of every duplicate pair: exactly zero difference."""
    report = run_arena(Rules.from_spec("house"), "easy", "easy", 10, seed=2)
    assert report["mean_diff"] == 0 and report["ci95"] == 0


def test_arena_with_three_sides_and_cutthroat():
    for spec in ({"preset": "house", "six_players": True}, {"preset": "auction", "players": 3}):
        report = run_arena(Rules.from_spec(spec), "random", "easy", 2, seed=1, matches=1)
        assert report["pairs"] == 2 and report["matches"] == 2


def test_bench_bots_command(capsys):
    assert (
        main(["bench-bots", "--levels", "easy,medium", "--deals", "1", "--budget", "20", "--json"])
        == 0
    )
    out = capsys.readouterr().out
    assert "medium card: p50" in out
    report = json.loads(out[out.index("{") :])
    assert set(report) == {"easy", "medium"} and report["medium"]["card"]["decisions"] > 0
