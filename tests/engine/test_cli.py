"""The command line, run as a subprocess: output keys, exit codes, the stderr line."""

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine import Deal, Rules, cli, deal_to_record

from .test_records import draw_record, record_a

ROOT = Path(__file__).resolve().parents[2]


def run(*args, stdin: str | None = None):
    return subprocess.run(
        [sys.executable, "-m", "games.engine", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_score_prints_the_rules_md_fields():
    done = run("score", "-", stdin=json.dumps(record_a()))
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert set(data) == {
        "thrown_in",
        "trump",
        "pitcher",
        "bid",
        "made",
        "points",
        "game_points",
        "tricks",
        "score",
    }
    assert (
        data["trump"] == "S"
        and data["pitcher"] == "N"
        and data["bid"] == 2
        and data["made"] is True
    )
    assert data["points"] == {"high": "NS", "low": "NS", "jack": None, "game": "NS"}
    assert data["game_points"] == {"NS": 26, "EW": 8} and data["score"] == {"NS": 3, "EW": 0}
    assert data["tricks"][1] == {"leader": "N", "cards": ["KH", "AH", "JH", "2H"], "winner": "E"}


def test_score_reads_a_file(tmp_path):
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(record_a()))
    done = run("score", str(path))
    assert done.returncode == 0 and json.loads(done.stdout)["score"] == {"NS": 3, "EW": 0}


def test_score_of_a_thrown_in_deal():
    record = record_a(auction=["pass"] * 4, plays=[])
    data = json.loads(run("score", "-", stdin=json.dumps(record)).stdout)
    assert data["thrown_in"] is True and data["score"] == {"NS": 0, "EW": 0}


def test_score_of_cutthroat_and_six_players_uses_their_side_names():
    for spec, sides in (
        ("auction", {"P1", "P2", "P3", "P4"}),
        ({"preset": "classic", "six_players": True}, {"P1P4", "P2P5", "P3P6"}),
    ):
        rng = random.Random(2)
        deal = Deal.new(Rules.from_spec(spec), "P1", rng)
        while not deal.is_over or deal.thrown_in:
            if deal.is_over:
                deal = Deal.new(Rules.from_spec(spec), "P1", rng)
            deal.apply(rng.choice(deal.legal_actions()))
        data = json.loads(run("score", "-", stdin=json.dumps(deal_to_record(deal))).stdout)
        assert set(data["score"]) == sides and set(data["game_points"]) == sides


def test_score_of_a_deal_in_progress_is_an_error():
    record = record_a(plays=record_a()["plays"][:7])
    done = run("score", "-", stdin=json.dumps(record))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "error: the deal is not over\n"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"auction": ["pass", "3", "2"]}, "error: auction[2] 2 by S: must bid higher than 3"),
        (
            {"plays": record_a()["plays"][:9] + ["TH"]},
            "error: plays[9] TH by S: must follow diamonds or trump",
        ),
        (
            {"plays": ["AS", "2C"]},
            "error: plays[1] 2C by E: not in E's hand (S holds it; E is to play)",
        ),
        (
            {"plays": record_a()["plays"] + ["2S"]},
            "error: plays[24] 2S: too many plays (the deal is over after 24 cards)",
        ),
        ({"hands": dict(record_a()["hands"], E=record_a()["hands"]["E"][:5]), "stock": None}, None),
    ],
)
def test_broken_records_exit_2_with_one_error_line(change, message):
    record = record_a(**change)
    if record.get("stock", 0) is None:
        del record["stock"]
        message = "error: hands.E: 5 cards, expected 6"
    done = run("score", "-", stdin=json.dumps(record))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == message + "\n"


def test_malformed_json_and_missing_fields():
    done = run("legal", "-", stdin="{not json")
    assert (
        done.returncode == 2
        and done.stderr.startswith("error: invalid JSON")
        and done.stderr.count("\n") == 1
    )
    record = record_a()
    del record["hands"]
    done = run("legal", "-", stdin=json.dumps(record))
    assert done.returncode == 2 and done.stderr == "error: hands: missing\n"
    done = run("score", "/nonexistent/deal.json")
    assert done.returncode == 2 and done.stderr.startswith("error: cannot read")


def test_legal_in_each_phase():
    auction = json.loads(
        run("legal", "-", stdin=json.dumps(record_a(auction=["pass", "3"], plays=[]))).stdout
    )
    assert auction == {"to_act": "S", "phase": "auction", "legal": ["pass", "4"]}
    play = json.loads(
        run("legal", "-", stdin=json.dumps(record_a(plays=record_a()["plays"][:9]))).stdout
    )
    assert play == {"to_act": "S", "phase": "play", "legal": ["TD", "9D"]}
    over = json.loads(run("legal", "-", stdin=json.dumps(record_a())).stdout)
    assert over == {"to_act": None, "phase": "over", "legal": []}
    draw = deal_to_record(draw_record())
    trump_phase = dict(draw, discards={}, plays=[])
    del trump_phase["trump"]
    data = json.loads(run("legal", "-", stdin=json.dumps(trump_phase)).stdout)
    assert data == {"to_act": "N", "phase": "trump", "legal": ["S", "H", "D", "C"]}
    data = json.loads(run("legal", "-", stdin=json.dumps(draw)).stdout)
    # The discard phase lists the cards W may discard: its non-trumps.
    assert data["to_act"] == "W" and data["phase"] == "discard"
    assert data["legal"] == [c for c in draw_record().hand("W") if c[1] != "H"]


def test_match_command():
    suits = {
        "H": "AH KH QH JH TH 9H",
        "S": "2S 3S 4S 5S 6S 7S",
        "C": "2C 3C 4C 5C 6C 7C",
        "D": "2D 3D 4D 5D 6D 7D",
    }
    rules = Rules.from_spec("house")
    deals = []
    for dealer in ("W", "N"):
        order = rules.seats_from_left_of(dealer)
        pitcher = next(seat for seat in order if seat in "NS")
        start = order.index(pitcher)
        seats = order[start:] + order[:start]
        hands = {seat: suits[suit].split() for seat, suit in zip(seats, "HSCD", strict=True)}
        plays = [hands[seat][t] for t in range(6) for seat in seats]
        deals.append(
            {"dealer": dealer, "hands": hands, "auction": ["pass"] * start + ["4"], "plays": plays}
        )
    deals[1].pop("dealer")
    record = {"format": "setback-match/1", "rules": "house", "deals": deals}
    done = run("match", "-", stdin=json.dumps(record))
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data == {
        "deals": [
            {"score": {"NS": 4, "EW": 0}, "totals": {"NS": 4, "EW": 0}},
            {"score": {"NS": 4, "EW": 0}, "totals": {"NS": 8, "EW": 0}},
        ],
        "totals": {"NS": 8, "EW": 0},
        "winner": None,
    }
    record["deals"][1]["dealer"] = "S"
    done = run("match", "-", stdin=json.dumps(record))
    assert (
        done.returncode == 2
        and done.stderr == "error: deals[1].dealer: S, but the deal passes to N\n"
    )


def test_bench_prints_deals_per_second_last():
    done = run("bench", "--seconds", "0.3")
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    number, unit = last.split(" ", 1)
    assert unit == "deals/s" and int(number) > 0


def test_help_lists_the_commands():
    done = run("--help")
    assert done.returncode == 0
    for name in ("score", "legal", "match", "bench"):
        assert name in done.stdout


def test_the_rules_md_example_error_line():
    hands = {
        "W": ["AS", "2D", "3D", "4D", "5D", "6D"],
        "N": ["2S", "7D", "8D", "9D", "TD", "JD"],
        "E": ["QH", "KH", "7H", "8H", "9H", "QD"],
        "S": ["2H", "3H", "4H", "5H", "6H", "2C"],
    }
    record = {
        "format": "setback-deal/1",
        "rules": "house",
        "dealer": "S",
        "hands": hands,
        "auction": ["2", "pass", "pass", "pass"],
        "plays": ["AS", "2S", "7H", "2C", "2D", "7D", "QH"],
    }
    done = run("legal", "-", stdin=json.dumps(record))
    assert done.returncode == 2
    assert done.stderr == "error: plays[6] QH by E: must follow diamonds or trump\n"
    record["plays"][6] = "QD"
    data = json.loads(run("legal", "-", stdin=json.dumps(record)).stdout)
    assert data == {"to_act": "S", "phase": "play", "legal": ["6H", "5H", "4H", "3H", "2H"]}


def test_a_module_can_add_a_subcommand():
    calls = []

    @cli.command(
        "hello", help="say hello", configure=lambda p: p.add_argument("--name", default="world")
    )
    def hello(args):
        calls.append(args.name)
        return 0

    try:
        assert cli.main(["hello", "--name", "Setback"]) == 0
        assert calls == ["Setback"]
    finally:
        cli._COMMANDS.pop("hello")
