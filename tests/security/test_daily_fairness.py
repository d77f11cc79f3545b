"""Issue 45, findings 2 and 9: a daily deal left unfinished at midnight (UTC) is closed, not
finished later with every card known; par, others' replays and practice copies stay shut to an
open counted play; a daily match is shared only after its day; a former player has no number;
a deleted account's name does not play the day's deals again."""

import datetime

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.services import do_delete_account
from games.core import services as game_services
from games.core import turns
from games.core.errors import GameError, NotFound
from games.core.turns import WaitingFor
from games.daily import selectors, services
from games.daily.models import DailyDeal, DailyPlay
from games.engine import bots
from games.engine.bots.search import Config
from games.models import Match
from games.replay import selectors as replay_selectors
from games.replay import services as replay_services
from tests.db.play import person_move, play_until, seat_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def quick_hard_bots(monkeypatch, searches_in_this_process):
    monkeypatch.setitem(bots.CONFIGS, "hard", Config(budget=8, bid_budget=8, exact_tricks=0))
    bots.level_config.cache_clear()
    yield
    bots.level_config.cache_clear()


@pytest.fixture
def clock(monkeypatch):
    """Moves the site's clock (timezone.now) to a chosen moment."""

    def set_to(moment: datetime.datetime) -> None:
        monkeypatch.setattr(timezone, "now", lambda: moment)

    return set_to


def at_persons_turn(match: Match) -> Match:
    return play_until(match, stop=lambda m: turns.waiting_on(m.pk).kind == WaitingFor.PERSON)


def just_after_midnight(day: datetime.date) -> datetime.datetime:
    return services.end_of_day(day) + datetime.timedelta(seconds=1)


def test_an_unfinished_counted_play_closes_at_midnight_and_ranks_last(
    make_user, clock, quick_hard_bots
):
    day = services.today()
    alice, bob = make_user("alice"), make_user("bob")
    play_until(services.do_play(bob, day=day, number=1))  # bob plays honestly
    match = at_persons_turn(services.do_play(alice, day=day, number=1))
    assert match.closes_at == services.end_of_day(day)
    turn = turns.waiting_on(match.pk)
    clock(just_after_midnight(day))
    # Par and everyone's plays are open now: no move of the counted play may follow.
    with pytest.raises(GameError, match="closed at the end of its day"):
        game_services.do_act(
            match.pk, seat=turn.seat, token=person_move(match, turn.seat), version=turn.version,
            actor=seat_user(match.seats.get(position=turn.seat), 0),
        )  # fmt: skip
    assert services.close_overdue_plays() == 1
    play = DailyPlay.objects.get(user=alice)
    assert play.closed and Match.objects.get(pk=match.pk).status == Match.Status.FINISHED
    page = selectors.day_page(day, alice)
    assert page.deals[0].state == "closed"
    ranks = {row.name: row.percent for row in page.table}
    assert ranks == {"bob": 50.0, "alice": 0.0}  # 0 %, below the one honest play
    assert services.close_overdue_plays() == 0  # idempotent


def test_par_replays_and_practice_stay_shut_while_the_counted_play_is_open(
    make_user, quick_hard_bots
):
    """A play started before this change has no closing time: until it is closed, the day
    being over opens nothing of its deal to its player."""
    yesterday = services.today() - datetime.timedelta(days=1)
    services.ensure_day(yesterday)
    alice, bob = make_user("alice"), make_user("bob")
    deal_row = DailyDeal.objects.get(daily_set__day=yesterday, number=1)
    bobs = services._start(bob, deal_row, deal_row.daily_set.rules, counted=True).match
    Match.objects.filter(pk=bobs.pk).update(closes_at=None)  # played on the day, as it were
    bobs = play_until(bobs)
    open_play = services._start(alice, deal_row, deal_row.daily_set.rules, counted=True)
    Match.objects.filter(pk=open_play.match_id).update(closes_at=None)  # as before the change
    bob_play = DailyPlay.objects.get(match=bobs)
    assert 1 not in selectors.visible_numbers(yesterday, alice)
    with pytest.raises(NotFound):
        selectors.field_play(yesterday, 1, bob_play.pk, alice)
    with pytest.raises(NotFound):
        selectors.deal_comparison(yesterday, 1, alice)
    assert 1 in selectors.visible_numbers(yesterday, bob)
    # Asking for a practice copy closes the counted play first: it is never played on beside it.
    practice = services.do_play(alice, day=yesterday, number=1)
    assert practice.pk != open_play.match_id
    assert DailyPlay.objects.get(pk=open_play.pk).closed
    assert 1 in selectors.visible_numbers(yesterday, alice)


def test_a_daily_match_is_shared_only_after_its_day(make_user, clock, client, quick_hard_bots):
    day = services.today()
    alice = make_user("alice")
    match = play_until(services.do_play(alice, day=day, number=1))
    with pytest.raises(GameError, match="once its day is over"):
        replay_services.do_share_match(match.pk, user=alice)
    # A link made anyway (a token set before this change) leads nowhere on the day itself.
    Match.objects.filter(pk=match.pk).update(share_token="early-token")
    with pytest.raises(NotFound):
        replay_selectors.shared_match("early-token")
    clock(just_after_midnight(day))
    token = replay_services.do_share_match(match.pk, user=alice)
    assert replay_selectors.shared_match(token).pk == match.pk


def test_a_former_player_has_no_number_and_the_name_does_not_play_the_day_again(
    make_user, password, client, clock, quick_hard_bots
):
    day = services.today()
    alice, bob = make_user("alice"), make_user("bob")
    play_until(services.do_play(alice, day=day, number=1))
    play_until(services.do_play(bob, day=day, number=1))
    do_delete_account(alice, password=password)
    page = selectors.day_page(day, bob)
    names = [row.name for row in page.table]
    assert "a former player" in names and not any("former player " in n for n in names)
    client.force_login(bob)
    html = client.get(reverse("daily:day", args=[day.isoformat()])).content.decode()
    assert "former player 1" not in html and f"former player {alice.pk}" not in html
    again = make_user("ALICE")  # the same name, as the sign-up would take it
    with pytest.raises(GameError, match="deleted"):
        services.do_play(again, day=day, number=1)
    assert not DailyPlay.objects.filter(user=again).exists()
    # From the next day on, the name plays like anyone, and the hash is gone.
    clock(just_after_midnight(day))
    services.make_todays_set()
    assert not services.DailyLeaver.objects.exists()
    assert DailyPlay.objects.get(
        match=services.do_play(again, day=day + datetime.timedelta(1), number=1)
    ).counted
