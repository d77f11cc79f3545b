"""Through the real services: every finished deal leaves one summary per seat, read from the
engine's result, and the end of the match rates every player, in the game's own transaction."""

import pytest
from django.urls import reverse

from games.core import selectors, services
from games.models import Action, Match
from games.stats.models import DealSummary, MatchRecord, Rating

from ..play import play_until

pytestmark = pytest.mark.django_db


def play_with_stand_in(match: Match, user, level: str) -> Match:
    """Like `play_until`, but a bot of `level` makes every other move of the user's seat, as when
    it stands in for an absent person: the Action rows carry the user and the bot's level."""
    return play_until(
        match,
        actor=lambda seat, step: services.Actor(user=user, bot_level=level if step % 2 else ""),
    )


def assert_summaries_agree_with_results(match: Match):
    rules = selectors.rules_of(match)
    deals = list(match.deals.filter(finished_at__isnull=False))
    assert DealSummary.objects.filter(match=match).count() == len(rules.seats) * len(deals)
    for deal_row in deals:
        result = deal_row.result
        for row in DealSummary.objects.filter(deal=deal_row):
            assert row.side == rules.side_of(row.seat)
            assert row.score_change == result["score"][row.side]
            assert row.thrown_in == result["thrown_in"]
            assert row.took_high == (result["points"]["high"] == row.side)
            assert row.took_game == (result["points"]["game"] == row.side)
            assert row.pitcher == (result["pitcher"] == row.seat)
            assert row.finished_at == deal_row.finished_at


def test_a_whole_match_against_bots_is_summarised_and_rated(user, client):
    match = services.do_start_match(user, rules_spec="house", bot_level="easy")
    match = play_until(match)
    assert_summaries_agree_with_results(match)
    mine = MatchRecord.objects.get(match=match, user=user)
    assert mine.won == (match.winner == "NS")
    assert mine.finished_at == match.finished_at
    assert MatchRecord.objects.get(match=match, bot_level="easy").won  # easy sat on both sides
    assert Rating.objects.get(user=user).matches == 1

    client.force_login(user)
    html = client.get(reverse("my_stats")).content.decode()
    deals = match.deals.count()
    assert f'data-figure="deals">{deals}<' in html
    assert f'data-figure="win-rate">{100 if mine.won else 0}%<' in html


def test_a_bot_standing_in_for_a_person_counts_for_the_persons_seat(user):
    match = services.do_start_match(user, rules_spec="house", bot_level="easy")
    match = play_with_stand_in(match, user, "hard")
    assert Action.objects.filter(deal__match=match, seat="S", user=user, bot_level="hard").exists()
    assert_summaries_agree_with_results(match)
    south = DealSummary.objects.filter(match=match, seat="S")
    assert south.count() == match.deals.count()
    assert all(row.user_id == user.pk and row.bot_level == "" for row in south)
    assert not Rating.objects.filter(user=None, bot_level="hard").exists()


def test_a_cutthroat_match_in_progress_is_summarised_but_not_rated(user):
    match = services.do_start_match(
        user, rules_spec={"preset": "auction", "players": 3}, bot_level="easy"
    )
    match = play_until(match, stop=lambda m: m.deals.filter(finished_at__isnull=False).count() >= 3)
    assert match.status == Match.Status.PLAYING
    assert_summaries_agree_with_results(match)
    assert set(DealSummary.objects.filter(match=match).values_list("side", flat=True)) == {
        "P1",
        "P2",
        "P3",
    }
    assert not MatchRecord.objects.filter(match=match).exists()
