"""Ratings: openskill over the match's sides, ranked winner first; each bot level rated too."""

import pytest
from openskill.models import PlackettLuce

from games.stats import rating
from games.stats.models import MatchRecord, Rating, shown_rating

from .history import History

START = rating.new_skill()


def test_the_winner_ranks_first_even_with_fewer_points():
    # classic: the pitcher's side wins on making its bid, whatever the other side has.
    assert rating.ranks_of(["NS", "EW"], {"NS": 21, "EW": 24}, "NS") == [0, 1]
    assert rating.ranks_of(
        ["P1", "P2", "P3", "P4"], {"P1": 5, "P2": 11, "P3": 5, "P4": 7}, "P2"
    ) == [2, 0, 2, 1]


def test_a_partnership_is_rated_as_a_team_by_openskill():
    skills = {"alice": START, "bob": rating.Skill(30.0, 5.0), "carol": START, "dave": START}
    after = rating.rate_match([["alice", "bob"], ["carol", "dave"]], [0, 1], skills)
    model = PlackettLuce()
    expected = model.rate(
        [
            [model.rating(25, 25 / 3), model.rating(30, 5)],
            [model.rating(25, 25 / 3), model.rating(25, 25 / 3)],
        ],
        ranks=[0, 1],
    )
    assert after["alice"].mu == pytest.approx(expected[0][0].mu)
    assert after["bob"].sigma == pytest.approx(expected[0][1].sigma)
    assert after["carol"].mu == pytest.approx(expected[1][0].mu)
    assert after["alice"].mu > 25 > after["dave"].mu


def test_a_bot_level_on_several_seats_moves_once_by_the_average_of_its_seats():
    skills = {"alice": START, "easy": START}
    after = rating.rate_match([["alice", "easy"], ["easy", "easy"]], [0, 1], skills)
    model = PlackettLuce()
    fresh = [[model.rating(), model.rating()], [model.rating(), model.rating()]]
    seats = model.rate(fresh, ranks=[0, 1])
    average = (seats[0][1].mu + seats[1][0].mu + seats[1][1].mu) / 3
    assert after["easy"].mu == pytest.approx(average)
    assert after["alice"].mu == pytest.approx(seats[0][0].mu)
    # Mostly facing itself, the level moves far less than the person who won.
    assert abs(after["easy"].mu - 25) < (after["alice"].mu - 25) / 2


def test_a_cutthroat_table_orders_every_player_by_rank():
    skills = {name: START for name in ("a", "b", "c", "d")}
    after = rating.rate_match([["a"], ["b"], ["c"], ["d"]], [0, 1, 2, 3], skills)
    assert after["a"].mu > after["b"].mu > after["c"].mu > after["d"].mu


@pytest.mark.django_db
def test_a_finished_match_updates_ratings_and_keeps_a_history_row_per_player(user, make_user):
    bob = make_user("bob")
    first = History("house", {"N": "easy", "E": "easy", "S": user, "W": "easy"})
    first.deal(pitcher="S", bid=2, made=True, high="NS", low="NS", score={"NS": 2})
    first.finish("NS")
    records = {r.user_id or r.bot_level: r for r in MatchRecord.objects.filter(match=first.match)}
    assert set(records) == {user.pk, "easy"}  # one row for the level, however many seats
    mine = records[user.pk]
    assert (mine.won, mine.side, mine.preset, mine.opponents, mine.opponent_levels) == (
        True,
        "NS",
        "house",
        "bots",
        "easy",
    )
    assert mine.mu_before == pytest.approx(25) and mine.mu > 25
    assert records["easy"].won  # the partner's seat won
    assert Rating.objects.get(user=user).matches == 1
    assert Rating.objects.get(user=None, bot_level="easy").mu == pytest.approx(records["easy"].mu)

    second = History(
        "auction", {"P1": user, "P2": bob, "P3": "hard", "P4": "hard"}, day="2024-03-02"
    )
    second.deal(pitcher="P2", bid=2, made=True, high="P2", low="P2", score={"P2": 2})
    second.finish("P2")
    again = MatchRecord.objects.get(match=second.match, user=user)
    assert again.mu_before == pytest.approx(mine.mu)  # the history chains match to match
    assert not again.won and again.mu < mine.mu
    assert (again.opponents, again.opponent_levels, again.side) == ("mixed", "hard", "P1")
    assert MatchRecord.objects.get(match=second.match, user=bob).won
    assert Rating.objects.get(user=user).matches == 2
    assert Rating.objects.get(user=None, bot_level="hard").mu < 25
    assert Rating.objects.get(user=user).shown == shown_rating(again.mu)


@pytest.mark.django_db
def test_a_match_not_yet_finished_is_not_rated(user):
    history = History("house", {"N": "easy", "E": "easy", "S": user, "W": "easy"})
    history.deal(pitcher="S", bid=2, made=True, high="NS", low="NS", score={"NS": 2})
    assert not MatchRecord.objects.exists() and not Rating.objects.exists()
