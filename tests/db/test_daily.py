"""The daily deals (games/daily, docs/daily.md): one set a day, played once, compared fairly,
nothing of a deal shown before one has played it."""

import datetime
import importlib
import re

import pytest
from django.apps import apps
from django.urls import reverse

from games.coach import selectors as coach_selectors
from games.core import selectors as game_selectors
from games.core import turns
from games.daily import deals, selectors, services
from games.daily.matchpoints import Field, day_percent
from games.daily.models import DailyDeal, DailyPlay, DailySet
from games.engine import Rules, bots
from games.engine.bots.search import Config
from games.engine.display import seat_name
from games.engine.wording import move_label
from games.models import Match
from tests.hidden import leaks

from .play import play_until

pytestmark = pytest.mark.django_db


@pytest.fixture
def quick_hard_bots(monkeypatch, searches_in_this_process):
    """The hard level with a tiny search budget, in this process: the same seeding, in a blink."""
    monkeypatch.setitem(bots.CONFIGS, "hard", Config(budget=8, bid_budget=8, exact_tricks=0))
    bots.level_config.cache_clear()
    yield
    bots.level_config.cache_clear()


def finish(match: Match) -> Match:
    """Play a daily deal to its end: the bots' turns with the bot task, the person's first legal move."""
    return play_until(match)


def tokens_of(match: Match) -> list[str]:
    deal_row = game_selectors.current_deal(match)
    return list(deal_row.actions.order_by("sequence").values_list("token", flat=True))


# --- Matchpoints, on hand-made results ---------------------------------------------------------


def test_matchpoints_one_per_result_beaten_half_per_tie():
    field = Field([4, 2, 2, -3, 0])
    assert field.matchpoints(4) == 4 and field.percent(4) == 100.0
    assert field.matchpoints(2) == 2.5 and field.percent(2) == 62.5  # beats 0 and -3, ties one 2
    assert field.percent(0) == 25.0
    assert field.percent(-3) == 0.0
    assert Field([1]).percent(1) == 50.0  # alone: nobody to compare with
    assert Field([3, 1]).percent(2, own=False) == 50.0  # a practice score, not one of the field
    assert day_percent([100.0, 62.5, 25.0]) == pytest.approx(62.5)


def _hand_made_play(
    user, deal_row, net, pitcher="S", bid=2, made=True, auction="pass 2", score=None, counted=True
):
    """A finished play with its net points (the side's score less the other's); `score`, the
    side's own, defaults to the net."""
    match = Match.objects.create(
        rules="house", host=user, first_dealer="N", status=Match.Status.FINISHED, single_deal=True
    )
    return DailyPlay.objects.create(
        deal=deal_row,
        user=user,
        match=match,
        counted=counted,
        finished_at=match.created_at,
        score=net if score is None else score,
        net=net,
        pitcher=pitcher,
        bid=bid,
        made=made,
        auction=auction,
    )


def test_the_day_s_table_from_hand_made_results(make_user):
    day = services.today()
    daily_set = services.ensure_day(day)
    one, two = daily_set.deals.get(number=1), daily_set.deals.get(number=2)
    ann, ben, cat = make_user("ann"), make_user("ben"), make_user("cat")
    # Deal 1: ann 4, ben 2, cat 2.  Deal 2: ann -2, ben 3.
    _hand_made_play(ann, one, 4)
    _hand_made_play(ben, one, 2)
    _hand_made_play(cat, one, 2, pitcher="E", made=False)
    _hand_made_play(ann, two, -2, made=False)
    _hand_made_play(ben, two, 3)
    table, my_row, people = selectors.day_table(daily_set, {1, 2}, ann)
    # ann: 100 % and 0 % -> 50; ben: 25 % and 100 % -> 62.5; cat: 25 %.
    assert [(r.rank, r.name, r.percent, r.played) for r in table] == [
        (1, "ben", 62.5, 2),
        (2, "ann", 50.0, 2),
        (3, "cat", 25.0, 1),
    ]
    assert my_row.name == "ann" and my_row.me
    assert people == 3
    # Ranked on deal 1 only (what a viewer who finished only deal 1 sees): ben and cat tie.
    table, _, _ = selectors.day_table(daily_set, {1}, ann)
    assert [(r.rank, r.name) for r in table] == [(1, "ann"), (2, "ben"), (2, "cat")]
    comparison = selectors.deal_comparison(day, 1, ann)
    assert [(r.contract, r.outcome, r.net, r.count) for r in comparison.results] == [
        ("2 by South", "made", 4, 1),
        ("2 by East", "set", 2, 1),
        ("2 by South", "made", 2, 1),
    ]
    assert comparison.my_percent == 100.0 and comparison.others == 2
    # The callers, from the dealer's left (deal 1's dealer).
    seats = deals_rules().seats_from_left_of(one.dealer)
    assert comparison.auctions == [(f"{seat_name(seats[0])} Pass, {seat_name(seats[1])} 2", 3)]


def deals_rules():
    return Rules.from_spec("house")


def test_matchpoints_count_what_the_other_side_scored(make_user):
    """Issue 47: the opponents bid 3 and scored 4; my 0 is not a thrown-in deal's 0."""
    day = services.today()
    one = services.ensure_day(day).deals.get(number=1)
    ann, ben, cat = make_user("ann"), make_user("ben"), make_user("cat")
    _hand_made_play(ann, one, -4, pitcher="E", bid=3, made=True, score=0)  # they made 3, +4
    _hand_made_play(ben, one, 3, pitcher="E", bid=3, made=False, score=0)  # ben set them
    _hand_made_play(cat, one, 0, pitcher="", bid=None, made=None, auction="pass pass pass pass")
    comparison = selectors.deal_comparison(day, 1, ann)
    assert comparison.my_percent == 0.0 and comparison.others == 2
    assert [(r.contract, r.outcome, r.net) for r in comparison.results] == [
        ("3 by East", "set", 3),
        ("thrown in", "everyone passed", 0),
        ("3 by East", "made", -4),
    ]
    assert comparison.my_result == "\u22124 points net (East's 3 made)"
    assert selectors.deal_comparison(day, 1, ben).my_percent == 100.0
    assert selectors.deal_comparison(day, 1, cat).my_percent == 50.0
    # Alone on a deal: 50 %, against nobody else.
    two = services.ensure_day(day).deals.get(number=2)
    _hand_made_play(ann, two, 1)
    alone = selectors.deal_comparison(day, 2, ann)
    assert alone.my_percent == 50.0 and alone.others == 0
    assert alone.my_result == "+1 point net (your 2 made)"


def test_the_words_of_a_comparison():
    assert selectors.points_words(1) == "+1 point"
    assert selectors.points_words(-1) == "\u22121 point"
    assert selectors.points_words(0) == "0 points"
    assert selectors.contract_words("S", 4) == "4 by South"
    assert selectors.play_words("ann", "S", 4, True, 4) == "ann bid 4 and made it, +4"
    assert selectors.play_words("ann", "W", 3, False, 3) == "West bid 3 and ann's side set it, +3"
    assert (
        selectors.play_words("ann", "N", 2, False, -4)
        == "ann's partner (North) bid 2 and was set, \u22124"
    )
    assert selectors.play_words("ann", "", None, None, 0) == "everyone passed: thrown in, 0"


def test_the_share_line_counts_made_only_where_someone_bid():
    day = datetime.date(2026, 12, 3)
    thrown = selectors.DealLine(1, "done", net=0, contract=False, percent=50.0)
    assert selectors.share_line(day, [thrown]) == "Setback daily 2026-12-03: 50%"
    made = selectors.DealLine(2, "done", net=4, made=True, contract=True, percent=100.0)
    assert selectors.share_line(day, [thrown, made]) == "Setback daily 2026-12-03: 1/1 made, 75%"


def test_history_names_daily_plays_and_never_calls_a_passed_out_deal_lost(logged_in_client, user):
    day = services.today()
    one = services.ensure_day(day).deals.get(number=2)
    play = _hand_made_play(user, one, 0, pitcher="", bid=None, made=None)
    for seat in "NESW":
        play.match.seats.create(
            position=seat,
            user=user if seat == "S" else None,
            bot_level="" if seat == "S" else "hard",
        )
    play.match.totals = {"NS": 0, "EW": 0}
    play.match.save()
    page = logged_in_client.get(reverse("replay:history")).content.decode()
    assert f"Daily {day.isoformat()} · deal 2" in page
    assert 'outcome-passed_out">Passed out<' in page and "outcome-lost" not in page


def test_past_plays_are_scored_by_net_by_the_migration(user):
    """The data migration (daily 0002) scores a stored play from its deal's result."""
    migration = importlib.import_module("games.daily.migrations.0002_net_scores")
    day = services.today()
    deal_row = services.ensure_day(day).deals.get(number=1)
    play = _hand_made_play(user, deal_row, 0, pitcher="E", bid=3, made=True, score=0)
    play.match.deals.create(
        number=1, dealer="N", hands={}, stock=[], result={"score": {"NS": 0, "EW": 4}}
    )
    DailyPlay.objects.filter(pk=play.pk).update(net=None)
    migration.score_by_net(apps, None)
    play.refresh_from_db()
    assert play.net == -4


# --- The day's set ---------------------------------------------------------------------------


def test_a_day_s_deals_come_from_the_date_and_the_secret():
    day = datetime.date(2026, 12, 3)
    first = deals.deal_the_day("secret", day)
    assert first == deals.deal_the_day("secret", day)  # every process deals the same set
    assert len(first) == deals.DEALS_A_DAY == 8
    assert first != deals.deal_the_day("another secret", day)  # not computable without it
    assert first != deals.deal_the_day("secret", day + datetime.timedelta(days=1))
    assert len({tuple(d.hands["S"]) for d in first}) == 8


def test_the_day_s_set_is_made_once():
    day = services.today()
    first = services.ensure_day(day)
    assert services.ensure_day(day) == first
    assert DailySet.objects.count() == 1 and DailyDeal.objects.count() == 8


# --- Playing -----------------------------------------------------------------------------------


def test_a_deal_is_played_once_in_order(user, quick_hard_bots):
    day = services.today()
    with pytest.raises(services.GameError, match="in order"):
        services.do_play(user, day=day, number=2)
    match = services.do_play(user, day=day, number=1)
    assert (
        services.do_play(user, day=day, number=1) == match
    )  # a reload, a second tab: the same play
    assert match.single_deal and match.bot_seed == DailyDeal.objects.get(number=1).bot_seed
    assert {s.position: s.bot_level for s in match.seats.all()} == {
        "N": "hard",
        "E": "hard",
        "S": "",
        "W": "hard",
    }
    match = finish(match)
    assert match.status == Match.Status.FINISHED and match.deals.count() == 1
    play = DailyPlay.objects.get(match=match)
    assert play.counted and play.finished_at is not None
    assert play.score == match.deals.get().result["score"]["NS"]
    final = match.deals.get().result["score"]
    assert play.net == final["NS"] - final["EW"]
    # No second try: asking again gives the finished play, and no new match is made.
    assert services.do_play(user, day=day, number=1) == match
    assert DailyPlay.objects.filter(user=user).count() == 1
    assert (
        services.do_play(user, day=day, number=2) != match
    )  # the next one opens once this one is done


def test_the_same_play_meets_the_same_replies(make_user, quick_hard_bots):
    day = services.today()
    alice, bob = make_user("alice"), make_user("bob")
    first = finish(services.do_play(alice, day=day, number=1))
    second = finish(services.do_play(bob, day=day, number=1))
    assert first.pk != second.pk
    assert tokens_of(first) == tokens_of(second)


def test_a_past_day_is_practice_never_counted(user, quick_hard_bots):
    yesterday = services.today() - datetime.timedelta(days=1)
    with pytest.raises(services.NotFound):
        services.do_play(user, day=yesterday, number=3)  # a day nobody dealt: nothing to practise
    assert not DailySet.objects.exists()
    services.ensure_day(yesterday)
    match = finish(services.do_play(user, day=yesterday, number=3))  # any deal, any order
    play = DailyPlay.objects.get(match=match)
    assert not play.counted
    again = services.do_play(user, day=yesterday, number=3)
    assert again != match  # practice can be played again
    page = selectors.day_page(yesterday, user)
    assert page.table == [] and page.people == 0


def test_tomorrow_cannot_be_played_or_seen(logged_in_client, user):
    tomorrow = (services.today() + datetime.timedelta(days=1)).isoformat()
    assert logged_in_client.get(reverse("daily:day", args=[tomorrow])).status_code == 404
    response = logged_in_client.post(reverse("daily:play", args=[tomorrow, 1]))
    assert response.status_code == 404
    assert not DailySet.objects.exists()


# --- What is shown, and to whom ------------------------------------------------------------


def test_the_field_is_hidden_until_one_has_finished_the_deal(
    client, make_user, password, quick_hard_bots
):
    day = services.today()
    alice, bob = make_user("alice"), make_user("bob")
    finish(services.do_play(alice, day=day, number=1))
    bob_match = services.do_play(bob, day=day, number=1)  # started, not finished
    alice_play = DailyPlay.objects.get(user=alice)
    client.login(username="bob", password=password)
    deal_url = reverse("daily:deal", args=[day.isoformat(), 1])
    replay_url = reverse("daily:play_replay", args=[day.isoformat(), 1, alice_play.pk, 0])
    assert client.get(deal_url).status_code == 404
    assert client.get(replay_url).status_code == 404
    page = client.get(reverse("daily:today")).content.decode()
    assert "alice" not in page  # not even on the day's table
    finish(bob_match)
    response = client.get(deal_url)
    assert response.status_code == 200
    assert "alice" in response.content.decode()
    assert client.get(replay_url).status_code == 200
    page = client.get(reverse("daily:today")).content.decode()
    assert "alice" in page and re.search(r"Setback daily \d{4}-\d\d-\d\d: \d/1 made, \d+%", page)


def test_a_private_history_is_not_replayed_to_others(client, make_user, password, quick_hard_bots):
    day = services.today()
    alice, bob = make_user("alice"), make_user("bob")
    alice.history_public = False
    alice.save()
    finish(services.do_play(alice, day=day, number=1))
    finish(services.do_play(bob, day=day, number=1))
    client.login(username="bob", password=password)
    response = client.get(reverse("daily:deal", args=[day.isoformat(), 1]))
    assert "play_replay" not in response.content.decode()
    alice_play = DailyPlay.objects.get(user=alice)
    url = reverse("daily:play_replay", args=[day.isoformat(), 1, alice_play.pk, 0])
    assert client.get(url).status_code == 404


def test_par_is_the_bots_playing_the_person_s_seat(quick_hard_bots):
    daily_set = services.ensure_day(services.today())
    deal_row = daily_set.deals.get(number=1)
    score = services.do_compute_par(deal_row.pk, level="medium")
    deal_row.refresh_from_db()
    assert deal_row.par_score == score and deal_row.par_tokens
    final = selectors._par_state(deal_row).result().score
    assert deal_row.par_net == final["NS"] - final["EW"]
    assert services.do_compute_par(deal_row.pk, level="easy") == score  # kept once


def test_pages_link_the_daily_deals(logged_in_client):
    home = logged_in_client.get(reverse("home")).content.decode()
    assert reverse("daily:today") in home
    page = logged_in_client.get(reverse("daily:today"))
    assert page.status_code == 200
    assert b"Play</button>" in page.content
    assert not DailySet.objects.exists()  # a GET makes nothing


def test_the_player_page_shows_the_last_30_days_and_the_streak(client, make_user):
    now = services.today()
    ann, ben = make_user("ann"), make_user("ben")
    for days_ago, ann_score, ben_score in ((1, 4, 2), (2, -2, 3), (40, 4, 0)):
        daily_set = services.ensure_day(now - datetime.timedelta(days=days_ago))
        deal_row = daily_set.deals.get(number=1)
        _hand_made_play(ann, deal_row, ann_score)
        _hand_made_play(ben, deal_row, ben_score)
    today_deal = services.ensure_day(now).deals.get(number=1)
    _hand_made_play(ann, today_deal, 1)  # today's: counts for the streak, shows no result yet
    record = selectors.player_record(ann)
    assert [(d.day, d.played, d.percent) for d in record.days] == [
        (now - datetime.timedelta(days=1), 1, 100.0),
        (now - datetime.timedelta(days=2), 1, 0.0),
    ]
    assert record.streak == 3 and record.average == 50.0
    page = client.get(reverse("player", args=["ann"])).content.decode()
    assert "Streak: <strong>3</strong>" in page and "50.0%" in page
    ann.history_public = False
    ann.save()
    assert "Streak" not in client.get(reverse("player", args=["ann"])).content.decode()


def test_a_daily_table_leads_back_to_the_day_not_to_a_rematch(
    logged_in_client, user, quick_hard_bots
):
    day = services.today()
    match = services.do_play(user, day=day, number=1)
    page = logged_in_client.get(reverse("table", args=[match.pk])).content.decode()
    assert "Daily deal 1 of" in page and "data-next-deal" not in page
    finish(match)
    page = logged_in_client.get(reverse("table", args=[match.pk])).content.decode()
    assert reverse("daily:deal", args=[day.isoformat(), 1]) in page
    assert "data-next-deal" not in page and "match-over" not in page
    refused = logged_in_client.post(reverse("rematch", args=[match.pk]), HTTP_HX_REQUEST="true")
    assert refused.status_code == 400
    assert Match.objects.count() == 1


def test_the_coach_keeps_quiet_during_a_daily_deal_and_reviews_it_after(
    logged_in_client, user, quick_hard_bots
):
    """Everyone holding these cards is compared: advice during the deal would not be fair."""
    user.coach_enabled = True
    user.save(update_fields=["coach_enabled"])
    match = services.do_play(user, day=services.today(), number=1)
    assert coach_selectors.coached_turn(match) is None
    assert coach_selectors.coached_seats(match) == []
    assert not turns.waiting_on(match.pk).coached  # no advice task is ever asked for
    page = logged_in_client.get(reverse("table", args=[match.pk])).content.decode()
    assert "The coach keeps quiet during a daily deal" in page
    finish(match)
    page = logged_in_client.get(reverse("table", args=[match.pk])).content.decode()
    assert "The coach keeps quiet" not in page  # the deal is over: its review is offered


def test_the_par_line_is_replayed_once_the_deal_is_finished(
    logged_in_client, user, quick_hard_bots
):
    day = services.today()
    services.ensure_day(day)
    deal_row = DailyDeal.objects.get(number=1)
    services.do_compute_par(deal_row.pk, level="easy")
    url = reverse("daily:par_replay", args=[day.isoformat(), 1, 0])
    assert logged_in_client.get(url).status_code == 404  # not before one's own play
    finish(services.do_play(user, day=day, number=1))
    response = logged_in_client.get(url)
    assert response.status_code == 200 and b"Par of daily deal 1" in response.content
    comparison = selectors.deal_comparison(day, 1, user)
    par_line = DailyDeal.objects.get(number=1).par_tokens
    par_moves = [p.split(" ", 1)[1] for _, _, p, _ in comparison.side_by_side if p]
    assert par_moves == [move_label(token) for token in par_line]
    assert all(differ == (m != p) for _, m, p, differ in comparison.side_by_side)
    last = len(DailyDeal.objects.get(number=1).par_tokens)
    assert logged_in_client.get(url.replace("/0/", f"/{last}/")).status_code == 200
    assert logged_in_client.get(url.replace("/0/", f"/{last + 1}/")).status_code == 404


def test_par_is_asked_for_when_a_deal_is_first_played(
    user, bob, django_capture_on_commit_callbacks, monkeypatch
):
    asked = []
    monkeypatch.setattr("games.core.dispatch.enqueue", lambda task, *args, **kw: asked.append(args))
    day = services.today()
    services.ensure_day(day)
    assert asked == []  # a day's set alone costs no search
    with django_capture_on_commit_callbacks(execute=True):
        services.do_play(user, day=day, number=1)
    deal_id = DailyDeal.objects.get(number=1).pk
    assert (deal_id,) in asked
    asked.clear()
    with django_capture_on_commit_callbacks(execute=True):
        services.do_play(bob, day=day, number=1)
    assert (deal_id,) not in asked  # asked once, by the first play


def test_a_daily_table_and_the_day_s_page_show_no_hidden_card(
    logged_in_client, user, bob, quick_hard_bots
):
    day = services.today()
    finish(services.do_play(bob, day=day, number=1))  # someone has played the deal out
    match = services.do_play(user, day=day, number=1)
    play_until(match, stop=lambda m: m.version >= 6)  # the auction is over, cards are falling
    page = logged_in_client.get(reverse("table", args=[match.pk])).content.decode()
    assert not leaks(page, match, "S")
    # The day's page names no card at all while the deal is unfinished.
    day_page = logged_in_client.get(reverse("daily:today")).content.decode()
    cards = {card for hand in DailyDeal.objects.get(number=1).hands.values() for card in hand}
    assert not [card for card in cards if f">{card}<" in day_page or f'"{card}"' in day_page]
