"""Matches: dealer rotation, thrown-in deals, totals, and each preset's end rule."""

import random

import pytest

from games.engine import Deal, MatchState, Rules, match_from_record, match_record_json
from games.engine.scoring import DealResult

from .helpers import play


def result(rules, dealer, pitcher, bid, made, points, score):
    rules = Rules.from_spec(rules)
    names = ("high", "low", "jack", "game")
    return DealResult(
        thrown_in=False,
        dealer=dealer,
        trump="S",
        pitcher=pitcher,
        pitcher_side=rules.side_of(pitcher),
        bid=bid,
        made=made,
        points=dict(zip(names, points, strict=True)),
        game_points={},
        score=score,
    )


def match_at(rules, totals, dealer="W"):
    state = MatchState(rules, dealer)
    state.totals.update(totals)
    return state


def test_dealer_rotates_and_thrown_in_deals_count():
    state = MatchState("house", "W")
    deal = Deal.new("house", "W", random.Random(1))
    play(deal, "pass pass pass pass")
    assert state.add(deal) is None
    assert state.dealer == "N" and state.totals == {"NS": 0, "EW": 0} and len(state.deals) == 1
    assert state.deals[0].thrown_in
    with pytest.raises(ValueError, match="dealt by W, but N deals it"):
        state.add(deal)


def test_house_pitcher_out_at_11_even_if_the_others_reach_15_on_the_same_deal():
    state = match_at("house", {"NS": 8, "EW": 14})
    winner = state.add(
        result("house", "W", "N", 2, True, ("NS", "NS", "EW", "NS"), {"NS": 3, "EW": 1})
    )
    assert state.totals == {"NS": 11, "EW": 15} and winner == "NS" and state.over


def test_house_reaching_11_against_the_others_bid_does_not_end_it():
    state = match_at("house", {"NS": 3, "EW": 9})
    assert (
        state.add(
            result("house", "W", "N", 2, False, ("EW", "EW", None, "NS"), {"NS": -2, "EW": 2})
        )
        is None
    )
    assert state.totals == {"NS": 1, "EW": 11} and not state.over


def test_house_15_wins_regardless_of_who_bid():
    state = match_at("house", {"NS": 3, "EW": 13})
    assert (
        state.add(
            result("house", "W", "N", 2, False, ("EW", "EW", None, "NS"), {"NS": -2, "EW": 2})
        )
        == "EW"
    )


def test_house_minus_6_loses():
    state = match_at("house", {"NS": -4, "EW": 2})
    assert (
        state.add(
            result("house", "W", "N", 2, False, ("EW", "NS", None, None), {"NS": -2, "EW": 1})
        )
        == "EW"
    )
    assert state.totals == {"NS": -6, "EW": 3}


def test_house_other_targets_win_regardless_at_target_plus_4():
    rules = Rules.from_spec({"preset": "house", "target": 21})
    assert rules.win_regardless_at == 25
    state = match_at(rules, {"NS": 3, "EW": 23})
    assert (
        state.add(result(rules, "W", "N", 2, False, ("EW", "EW", None, "NS"), {"NS": -2, "EW": 2}))
        == "EW"
    )


def test_house_six_players_minus_6_and_the_highest_other_side():
    rules = Rules.from_spec({"preset": "house", "six_players": True})
    state = match_at(rules, {"P1P4": -3, "P2P5": 7, "P3P6": 5}, dealer="P6")
    score = {"P1P4": -3, "P2P5": 0, "P3P6": 1}
    assert (
        state.add(result(rules, "P6", "P1", 3, False, ("P3P6", None, None, None), score)) == "P2P5"
    )


def test_house_six_players_tie_for_highest_goes_to_this_deals_scorer():
    rules = Rules.from_spec({"preset": "house", "six_players": True})
    state = match_at(rules, {"P1P4": -3, "P2P5": 7, "P3P6": 6}, dealer="P6")
    score = {"P1P4": -3, "P2P5": 0, "P3P6": 1}
    assert (
        state.add(result(rules, "P6", "P1", 3, False, ("P3P6", None, None, None), score)) == "P3P6"
    )
    # Same totals and same deal scores: the first side clockwise from the dealer's left.
    state = match_at(rules, {"P1P4": -3, "P2P5": 7, "P3P6": 7}, dealer="P1")
    score = {"P1P4": -3, "P2P5": 0, "P3P6": 0}
    assert state.add(result(rules, "P1", "P1", 3, False, (None, None, None, None), score)) == "P2P5"


def test_classic_pitcher_out_at_21_and_defending_never_ends_it():
    state = match_at("classic", {"NS": 18, "EW": 24})  # EW got there defending: no winner yet
    assert (
        state.add(
            result("classic", "W", "N", 3, True, ("NS", "NS", "EW", "NS"), {"NS": 3, "EW": 1})
        )
        == "NS"
    )
    assert state.totals == {"NS": 21, "EW": 25}  # the winner has fewer points than the loser
    state = match_at("classic", {"NS": 5, "EW": 20})
    assert (
        state.add(
            result("classic", "W", "N", 3, False, ("EW", "EW", None, "NS"), {"NS": -3, "EW": 2})
        )
        is None
    )


def test_cutthroat_house_keeps_only_the_pitcher_rule():
    rules = Rules.from_spec({"preset": "house", "cutthroat": True, "players": 3})
    state = match_at(rules, {"P1": -5, "P2": 14, "P3": 0}, dealer="P3")
    score = {"P1": -3, "P2": 2, "P3": 0}
    assert (
        state.add(result(rules, "P3", "P1", 3, False, ("P2", "P2", None, None), score)) is None
    )  # no 15, no -6
    assert state.totals == {"P1": -8, "P2": 16, "P3": 0}


def test_count_out_pitcher_first():
    state = match_at("auction", {"P1": 9, "P2": 10, "P3": 0, "P4": 0}, dealer="P4")
    score = {"P1": 2, "P2": 2, "P3": 0, "P4": 0}
    assert (
        state.add(result("auction", "P4", "P1", 2, True, ("P2", "P1", "P1", "P2"), score)) == "P1"
    )


def test_count_out_order_high_low_jack_game():
    state = match_at("auction", {"P1": 0, "P2": 10, "P3": 10, "P4": 0}, dealer="P4")
    score = {"P1": -2, "P2": 2, "P3": 2, "P4": 0}
    # Low (P2) is counted before Game (P3), though P3 also has High: High P3 first!
    assert (
        state.add(result("auction", "P4", "P1", 2, False, ("P3", "P2", "P2", "P3"), score)) == "P3"
    )
    state = match_at("auction", {"P1": 0, "P2": 10, "P3": 10, "P4": 0}, dealer="P4")
    assert (
        state.add(
            result(
                "auction",
                "P4",
                "P1",
                2,
                False,
                ("P1", "P2", "P3", "P3"),
                {"P1": -2, "P2": 1, "P3": 2, "P4": 0},
            )
        )
        == "P2"
    )


def test_count_out_any_player_may_win_without_bidding():
    state = match_at("family", {"P1": 0, "P2": 6, "P3": 0, "P4": 0}, dealer="P4")
    score = {"P1": 1, "P2": 1, "P3": 0, "P4": 0}
    assert state.add(result("family", "P4", "P1", 1, True, ("P1", None, None, "P2"), score)) == "P2"


def test_count_out_in_partnerships():
    rules = Rules.from_spec({"preset": "auction", "cutthroat": False})
    state = match_at(rules, {"NS": 10, "EW": 10})
    assert (
        state.add(result(rules, "W", "N", 2, False, ("EW", "NS", "NS", "EW"), {"NS": -2, "EW": 2}))
        == "EW"
    )


def test_add_after_the_end_is_refused():
    state = match_at("house", {"NS": 13, "EW": 0})
    state.add(result("house", "W", "E", 2, False, ("NS", "NS", None, None), {"NS": 2, "EW": -2}))
    assert state.winner == "NS"
    with pytest.raises(ValueError, match="the match is over"):
        state.add(result("house", "N", "E", 2, True, ("EW", "EW", None, None), {"NS": 0, "EW": 2}))


@pytest.mark.parametrize(
    "spec", ["house", "classic", "auction", "family", {"preset": "house", "six_players": True}]
)
def test_random_matches_end_by_their_rule(spec):
    rules = Rules.from_spec(spec)
    rng = random.Random(11)
    for _ in range(2):
        state = MatchState(rules, rng.choice(rules.seats))
        for _ in range(1000):
            deal = Deal.new(rules, state.dealer, rng)
            while not deal.is_over:
                legal = deal.legal_actions()
                if deal.phase == "auction":
                    # Mostly pass, else the lowest bid: random bids are set back too often
                    # for a classic match to end.
                    bids = [t for t in legal if t != "pass"]
                    choice = "pass" if "pass" in legal and rng.random() < 0.75 else bids[0]
                    deal.apply(choice)
                else:
                    deal.apply(rng.choice(legal))
            before = dict(state.totals)
            if state.add(deal):
                break
        assert state.over, state.totals
        last = state.deals[-1]
        after = state.totals
        if rules.end_rule == "count_out":
            assert after[state.winner] >= rules.target
        elif rules.end_rule == "pitcher_out":
            assert (
                state.winner == last.pitcher_side
                and last.made
                and after[state.winner] >= rules.target
            )
        else:
            assert (
                (
                    last.made
                    and state.winner == last.pitcher_side
                    and after[state.winner] >= rules.target
                )
                or (after[state.winner] >= rules.target + 4)
                or min(after.values()) <= -6
            )
        assert before != after
        record = match_record_json(state.rules, state.played_deals)
        again = match_from_record(record)
        assert again.totals == state.totals and again.winner == state.winner
