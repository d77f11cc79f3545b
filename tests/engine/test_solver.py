"""The face-up solver is exact: it agrees with a plain minimax over the readable Deal on many
small random endings, and a whole deal played by its best cards scores what it said."""

from __future__ import annotations

import random
import zlib

import pytest

from games.engine import Deal, Rules, deal_to_record
from games.engine.solver import TooLarge, analyse

from .helpers import deal_from, play

TWO_SIDED = [
    "house",
    "classic",  # smudge bids
    {"preset": "house", "low_to": "holder"},
    {"preset": "house", "no_trump_first_trick": True},
    {"preset": "family", "players": 2},  # follow, else trump
    {"preset": "auction", "pitch_to_bid": True, "players": 2},
]


def _random_play_position(rules: Rules, rng: random.Random, tricks_left: int) -> Deal | None:
    """A random deal played at random until ``tricks_left`` tricks remain (plus, sometimes, a
    trick in progress)."""
    deal = Deal.new(rules, rng.choice(rules.seats), rng)
    while not deal.is_over and deal.phase != "play":
        deal.apply(rng.choice(deal.legal_actions()))
    if deal.is_over:
        return None
    stop_at = rules.tricks_per_deal - tricks_left
    extra = rng.randrange(len(rules.seats))
    while len(deal.tricks) < stop_at or (
        len(deal.tricks) == stop_at and len(deal.current_trick) < extra
    ):
        deal.apply(rng.choice(deal.legal_actions()))
    return deal


def _margin(rules: Rules, score) -> int:
    first, second = rules.sides
    return score[first] - score[second]


def _brute_force(deal: Deal) -> int:
    """The first side's margin under plain minimax, on the readable engine (no pruning)."""
    if deal.is_over:
        return _margin(deal.rules, deal.result().score)
    maximize = deal.rules.side_of(deal.to_act) == deal.rules.sides[0]
    values = []
    for card in deal.legal_actions():
        child = deal.copy()
        child.apply(card)
        values.append(_brute_force(child))
    return max(values) if maximize else min(values)


@pytest.mark.parametrize("spec", TWO_SIDED, ids=str)
def test_every_choice_agrees_with_brute_force_on_small_endings(spec):
    rules = Rules.from_spec(spec)
    rng = random.Random(zlib.crc32(str(spec).encode()))
    checked = 0
    while checked < 60:
        deal = _random_play_position(rules, rng, tricks_left=rng.choice((2, 3)))
        if deal is None:
            continue
        analysis = analyse(deal)
        assert analysis.seat == deal.to_act
        assert [line.card for line in analysis.lines] == sorted(
            deal.legal_actions(), key=deal.hand(deal.to_act).index
        )
        values = {}
        for line in analysis.lines:
            child = deal.copy()
            child.apply(line.card)
            values[line.card] = _brute_force(child)
            assert _margin(rules, line.score) == values[line.card], (deal_to_record(deal), line)
        sign = 1 if rules.side_of(deal.to_act) == rules.sides[0] else -1
        best = max(sign * v for v in values.values())
        assert {line.card for line in analysis.lines if line.best} == {
            c for c, v in values.items() if sign * v == best
        }
        checked += 1


def _points_and_made_agree(rules: Rules, line, result) -> None:
    assert line.score == result.score
    assert line.made == result.made
    assert line.takers == result.points
    for side in rules.sides:
        assert line.points[side] == sum(1 for taker in result.points.values() if taker == side)


@pytest.mark.parametrize(
    "spec", ["house", "classic", {"preset": "house", "low_to": "holder"}], ids=str
)
def test_a_whole_deal_played_by_the_best_cards_scores_what_the_solver_said(spec):
    """From the opening lead, every seat plays a best card; at every step the best line's
    margin stays what the opening analysis said, and at the end the engine's own scoring gives
    exactly the last analysis's score, points and made."""
    rules = Rules.from_spec(spec)
    rng = random.Random(7)
    played = 0
    while played < 2:
        deal = _random_play_position(rules, rng, tricks_left=rules.tricks_per_deal)
        if deal is None or deal.current_trick:
            continue
        first = analyse(deal)
        promised = max(
            _margin(rules, line.score) * (1 if rules.side_of(deal.to_act) == rules.sides[0] else -1)
            for line in first.lines
        )
        promised_margin = promised if rules.side_of(deal.to_act) == rules.sides[0] else -promised
        last = None
        while not deal.is_over:
            analysis = analyse(deal)
            best = next(line for line in analysis.lines if line.best)
            assert _margin(rules, best.score) == promised_margin
            deal.apply(best.card)
            last = best
        _points_and_made_agree(rules, last, deal.result())
        played += 1


def test_analysis_values_the_choices_of_a_written_position():
    # North leads the last two tricks with both high trumps: North-South take every trick.
    deal = deal_from(
        "house",
        "W",
        {
            "N": "AS KS 2H 3H 4H 5H",
            "E": "QS 6H 7H 8H 9H 2C",
            "S": "JS 2S 3C 4C 5C 6C",
            "W": "TS 3S 4D 5D 6D 7D",
        },
    )
    play(deal, "2 pass pass pass")  # North bids 2
    analysis = analyse(deal)
    assert analysis.seat == "N"
    lead_ace = analysis.line("AS")
    assert lead_ace.best and lead_ace.made
    assert lead_ace.takers["high"] == "NS"


def test_the_lowest_trump_is_never_taken_for_its_neighbour():
    # North holds the two lowest trumps, 2S and 3S, with nothing live between them; East holds
    # the ace. Leading 3S lets East's ace take it and keeps 2S to win the last trick: Low for
    # North-South. Leading 2S gives Low to East-West. The cards look alike but are not.
    deal = deal_from(
        "house",
        "W",
        {
            "N": "9S KC QC JC 2S 3S",
            "E": "8S 2C 3C 4C AS 2H",
            "S": "5C 6C 7C 8C 3H 4H",
            "W": "9C TC 2D 3D 4D 5D",
        },
    )
    play(deal, "2 pass pass pass 9S 8S 5C 9C KC 2C 6C TC QC 3C 7C 2D JC 4C 8C")
    # One card earlier, the choice is inside the search, where runs of cards are pruned.
    assert all(line.takers["low"] == "NS" for line in analyse(deal).lines)
    deal.apply("3D")
    analysis = analyse(deal)
    assert analysis.line("3S").takers["low"] == "NS" and analysis.line("3S").best
    assert analysis.line("2S").takers["low"] == "EW" and not analysis.line("2S").best


def test_too_large_a_position_is_refused_rather_than_guessed():
    rng = random.Random(3)
    rules = Rules.from_spec("house")
    deal = None
    while deal is None:
        deal = _random_play_position(rules, rng, tricks_left=6)
    with pytest.raises(TooLarge):
        analyse(deal, max_nodes=50)


@pytest.mark.parametrize("spec", ["house", "classic", {"preset": "auction", "players": 3}])
def test_a_search_cut_off_anywhere_says_too_large_and_nothing_else(spec):
    """The replay's face-up analysis says "too large" for such a step: any other error there
    would fail the task instead."""
    rules = Rules.from_spec(spec)
    rng = random.Random(zlib.crc32(repr(spec).encode()))
    outcomes = set()
    for _ in range(40):
        deal = None
        while deal is None:
            deal = _random_play_position(rules, rng, tricks_left=rng.choice([3, 4, 6]))
        for limit in (20, 100, 500, 2000):
            try:
                analyse(deal, max_nodes=limit)
                outcomes.add("solved")
            except TooLarge:
                outcomes.add("too large")
    assert outcomes == {"solved", "too large"}


def test_a_deal_outside_its_play_phase_is_refused():
    deal = Deal.new(Rules.from_spec("house"), "W", random.Random(1))
    with pytest.raises(ValueError, match="auction"):
        analyse(deal)


def test_three_sides_value_every_legal_card():
    rules = Rules.from_spec({"preset": "auction", "players": 3})
    rng = random.Random(5)
    done = 0
    while done < 10:
        deal = _random_play_position(rules, rng, tricks_left=3)
        if deal is None:
            continue
        analysis = analyse(deal)
        assert sorted(line.card for line in analysis.lines) == sorted(deal.legal_actions())
        assert any(line.best for line in analysis.lines)
        done += 1
