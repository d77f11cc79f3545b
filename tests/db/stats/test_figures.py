"""Every figure of the statistics page, on a hand-built history whose answers are worked out
by hand: a won match against easy bots (with a thrown-in deal), an unfinished cutthroat match
against hard bots, and a lost match against people."""

from datetime import date

import pytest

from games.stats import services
from games.stats.models import DealSummary
from games.stats.selectors import Filters, player_stats

from .history import History

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice_history(user, make_user):
    bob, carol, dave = (make_user(name) for name in ("bob", "carol", "dave"))
    easy = History("house", {"N": "easy", "E": "easy", "S": user, "W": "easy"}, day="2024-03-01")
    easy.deal()  # thrown in
    easy.deal(
        pitcher="S",
        bid=2,
        made=True,
        high="NS",
        low="NS",
        jack="EW",
        game="NS",
        score={"NS": 3, "EW": 1},
    )
    easy.deal(
        pitcher="E",
        bid=3,
        made=False,
        high="EW",
        low="NS",
        jack="NS",
        game="NS",
        score={"NS": 3, "EW": -3},
    )
    # The partner bids: the side's bid, not alice's.
    easy.deal(
        pitcher="N", bid=2, made=True, high="NS", low="NS", jack=None, game=None, score={"NS": 2}
    )
    easy.deal(
        pitcher="S",
        bid=3,
        made=False,
        high="NS",
        low="EW",
        jack=None,
        game="EW",
        score={"NS": -3, "EW": 2},
    )
    easy.finish("NS")

    hard = History(
        "auction", {"P1": user, "P2": "hard", "P3": "hard", "P4": "hard"}, day="2024-04-10"
    )
    hard.deal(
        pitcher="P1",
        bid=2,
        made=True,
        high="P1",
        low="P2",
        jack="P1",
        game="P3",
        score={"P1": 2, "P2": 1, "P3": 1},
    )
    hard.deal(
        pitcher="P3",
        bid=3,
        made=True,
        high="P3",
        low="P3",
        jack="P4",
        game="P3",
        score={"P3": 3, "P4": 1},
    )
    # ...not finished.

    people = History("house", {"N": bob, "E": carol, "S": user, "W": dave}, day="2024-05-20")
    people.deal(
        pitcher="W",
        bid=2,
        made=True,
        high="EW",
        low="EW",
        jack="NS",
        game="NS",
        score={"EW": 2, "NS": 2},
    )
    people.finish("EW")
    return user


def test_deals_thrown_in_and_points_per_deal(alice_history):
    stats = player_stats(alice_history)
    assert (stats.deals, stats.thrown_in, stats.scored_deals) == (8, 1, 7)
    # 3 + 3 + 2 − 3 (easy) + 2 + 0 (hard) + 2 (people) over 7 scored deals.
    assert stats.average_points == pytest.approx(9 / 7)


def test_matches_won_by_preset_and_by_opponents_and_unfinished(alice_history):
    stats = player_stats(alice_history)
    assert (stats.matches.played, stats.matches.won) == (2, 1)
    assert stats.matches.win_rate == pytest.approx(0.5)
    assert [(r.label, r.played, r.won) for r in stats.by_preset] == [("House", 2, 1)]
    assert [(r.label, r.played, r.won) for r in stats.by_opponents] == [
        ("Easy bots", 1, 1),
        ("People", 1, 0),
    ]
    assert stats.unfinished_matches == 1


def test_bids_by_level_as_pitcher(alice_history):
    stats = player_stats(alice_history)
    assert [(b.label, b.count, b.made, b.average_points) for b in stats.bids] == [
        ("2", 2, 2, pytest.approx(2.5)),
        ("3", 1, 0, pytest.approx(-3)),
    ]
    assert (stats.pitched, stats.pitched_made) == (3, 2)
    assert stats.pitched_made_rate == pytest.approx(2 / 3)


def test_pitchers_set_as_defender(alice_history):
    stats = player_stats(alice_history)
    # Set E's 3 (easy); not P3's 3 (hard), not W's 2 (people).
    assert (stats.defended, stats.sets) == (3, 1)
    assert stats.set_rate == pytest.approx(1 / 3)


def test_points_taken_by_kind_jack_counted_where_it_was_in_play(alice_history):
    points = {line.label: (line.taken, line.out_of) for line in player_stats(alice_history).points}
    assert points == {"High": (4, 7), "Low": (3, 7), "Jack": (3, 5), "Game": (3, 7)}


def test_the_rating_and_its_history(alice_history):
    stats = player_stats(alice_history)
    assert stats.rating.matches == 2
    labels = [point.label for point in stats.rating.history]
    assert labels == ["Start", "Match 1", "2024-05-20"]  # the axis shows the first and last
    start, after_win, after_loss = (point.value for point in stats.rating.history)
    assert start == 1000 and after_win > 1000 and after_loss < after_win
    assert stats.rating.shown == after_loss
    assert stats.rating.last_change == after_loss - after_win
    # The hard bots' only match is unfinished: not rated yet.
    assert [label for label, _ in stats.bot_ratings] == ["Easy"]


def test_a_preset_filter(alice_history):
    stats = player_stats(alice_history, Filters(preset="auction"))
    assert (stats.deals, stats.matches.played, stats.unfinished_matches) == (2, 0, 1)
    assert [(b.label, b.count) for b in stats.bids] == [("2", 1)]
    assert (stats.defended, stats.sets) == (1, 0)


def test_a_date_range_takes_whole_days(alice_history):
    april = player_stats(alice_history, Filters(since=date(2024, 4, 10), until=date(2024, 4, 10)))
    assert (april.deals, april.matches.played) == (2, 0)
    spring = player_stats(alice_history, Filters(since=date(2024, 4, 1)))
    assert (spring.deals, spring.matches.played, spring.matches.won) == (3, 1, 0)
    assert [point.label for point in spring.rating.history] == ["Start", "2024-05-20"]
    assert spring.rating.history[0].value > 1000  # the rating it had when the range begins
    none = player_stats(alice_history, Filters(until=date(2024, 2, 1)))
    assert none.empty


def test_another_users_figures_stay_theirs(alice_history, make_user):
    eve = make_user("eve")
    assert player_stats(eve).empty
    bob_stats = player_stats(type(eve).objects.get(username="bob"))
    assert (bob_stats.deals, bob_stats.matches.played, bob_stats.matches.won) == (1, 1, 0)


def test_the_coach_accuracy_shows_once_the_coach_has_judged_deals(alice_history):
    assert player_stats(alice_history).coach_accuracy == []
    first, second = DealSummary.objects.filter(user=alice_history).order_by("finished_at")[1:3]
    services.do_record_coach_accuracy(first.deal_id, seat=first.seat, accuracy=0.5)
    services.do_record_coach_accuracy(second.deal_id, seat=second.seat, accuracy=1.0)
    assert [(p.label, p.value) for p in player_stats(alice_history).coach_accuracy] == [
        ("2024-03-01", pytest.approx(0.75))
    ]
    with pytest.raises(ValueError, match="between 0 and 1"):
        services.do_record_coach_accuracy(first.deal_id, seat=first.seat, accuracy=1.5)
    with pytest.raises(DealSummary.DoesNotExist):
        services.do_record_coach_accuracy(first.deal_id, seat="X", accuracy=0.5)
