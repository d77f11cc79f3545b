"""One summary row per seat per finished deal, read from the engine's result JSON."""

import pytest

from games.stats.models import DealSummary

from .history import History

pytestmark = pytest.mark.django_db


def rows_of(deal_row):
    return {row.seat: row for row in DealSummary.objects.filter(deal=deal_row)}


def test_a_partnership_deal_gives_each_seat_its_sides_figures(user):
    history = History("house", {"N": "easy", "E": "easy", "S": user, "W": "easy"})
    deal_row = history.deal(
        pitcher="S",
        bid=2,
        made=True,
        high="NS",
        low="NS",
        jack="EW",
        game="NS",
        score={"NS": 3, "EW": 1},
    )
    rows = rows_of(deal_row)
    assert set(rows) == {"N", "E", "S", "W"}
    me, partner, east = rows["S"], rows["N"], rows["E"]
    assert (me.user, me.bot_level, me.side) == (user, "", "NS")
    assert (partner.user, partner.bot_level) == (None, "easy")
    assert (me.preset, me.cutthroat, me.thrown_in) == ("house", False, False)
    # The pitcher is the seat; its partner shares the side's bid and its fate.
    assert (me.pitcher, me.bid, me.made, me.set_pitcher) == (True, 2, True, None)
    assert (partner.pitcher, partner.bid, partner.made) == (False, 2, True)
    # Defenders did not set a bid that was made.
    assert (east.pitcher, east.bid, east.made, east.set_pitcher) == (False, None, None, False)
    assert (me.took_high, me.took_low, me.took_jack, me.took_game) == (True, True, False, True)
    assert (east.took_high, east.took_jack, east.jack_in_play) == (False, True, True)
    assert (me.score_change, east.score_change) == (3, 1)
    assert me.finished_at == deal_row.finished_at
    assert me.coach_accuracy is None


def test_a_set_pitcher_counts_for_the_defenders_and_against_the_pitchers_side(user):
    history = History("house", {"N": "medium", "E": "medium", "S": user, "W": "medium"})
    deal_row = history.deal(
        pitcher="E",
        bid=3,
        made=False,
        high="EW",
        low="NS",
        jack=None,
        game=None,
        score={"NS": 1, "EW": -3},
    )
    rows = rows_of(deal_row)
    assert (rows["S"].set_pitcher, rows["S"].bid, rows["S"].score_change) == (True, None, 1)
    assert (rows["W"].bid, rows["W"].made, rows["W"].score_change) == (3, False, -3)
    assert not rows["S"].jack_in_play and not rows["S"].took_jack
    assert not rows["S"].took_game and not rows["E"].took_game  # a tie for game


def test_a_thrown_in_deal_is_counted_with_no_pitcher_bid_or_points(user):
    history = History("house", {"N": "easy", "E": "easy", "S": user, "W": "easy"})
    row = rows_of(history.deal())["S"]
    assert row.thrown_in
    assert (row.pitcher, row.bid, row.made, row.set_pitcher) == (False, None, None, None)
    assert not (row.took_high or row.took_low or row.took_jack or row.took_game or row.jack_in_play)
    assert row.score_change == 0


def test_a_cutthroat_seat_is_its_own_side_and_every_other_seat_defends(user):
    history = History("auction", {"P1": user, "P2": "hard", "P3": "hard", "P4": "hard"})
    deal_row = history.deal(
        pitcher="P3",
        bid=3,
        made=False,
        high="P1",
        low="P2",
        jack="P3",
        game="P1",
        score={"P1": 2, "P2": 1, "P3": -3},
    )
    rows = rows_of(deal_row)
    assert [rows[s].side for s in ("P1", "P2", "P3", "P4")] == ["P1", "P2", "P3", "P4"]
    assert rows["P1"].cutthroat and rows["P1"].preset == "auction"
    assert (rows["P1"].set_pitcher, rows["P2"].set_pitcher, rows["P4"].set_pitcher) == (
        True,
        True,
        True,
    )
    assert (rows["P3"].pitcher, rows["P3"].bid, rows["P3"].made) == (True, 3, False)
    assert (rows["P1"].took_high, rows["P1"].took_game, rows["P1"].took_low) == (True, True, False)
    assert [rows[s].score_change for s in ("P1", "P2", "P3", "P4")] == [2, 1, -3, 0]


def test_six_players_sit_in_three_partnerships(user):
    seats = {f"P{n}": "easy" for n in range(1, 7)} | {"P1": user}
    history = History({"preset": "house", "six_players": True}, seats)
    rows = rows_of(
        history.deal(
            pitcher="P4",
            bid=2,
            made=True,
            high="P1P4",
            low="P1P4",
            game="P2P5",
            score={"P1P4": 2, "P2P5": 1},
        )
    )
    assert rows["P1"].side == "P1P4" and rows["P1"].bid == 2 and not rows["P1"].pitcher
    assert rows["P2"].set_pitcher is False and rows["P2"].took_game


def test_opponents_are_told_apart_bots_by_level_people_and_both(user, bob, make_user):
    carol = make_user("carol")
    bots = History("house", {"N": bob, "E": "easy", "S": user, "W": "hard"})
    row = rows_of(bots.deal())["S"]
    assert (row.opponents, row.opponent_levels) == ("bots", "easy,hard")
    people = History("house", {"N": "hard", "E": bob, "S": user, "W": carol})
    rows = rows_of(people.deal())
    assert (rows["S"].opponents, rows["S"].opponent_levels) == ("people", "")
    assert (rows["E"].opponents, rows["E"].opponent_levels) == ("mixed", "hard")
    mixed = History("auction", {"P1": user, "P2": bob, "P3": "medium", "P4": "medium"})
    row = rows_of(mixed.deal())["P1"]
    assert (row.opponents, row.opponent_levels) == ("mixed", "medium")
