"""When a stand-in bot plays a person's turn at a shared table (issue 44): a reload or a dropped
connection is not leaving; a person really gone is played for within the documented time
(turns.stand_in_left, docs/people.md); a former player's seat plays at a bot's pace."""

import math
from datetime import timedelta

import pytest
from django.template.loader import render_to_string
from django.utils import timezone

from accounts.services import do_delete_account
from games.core import pages, presenters, services, turns
from games.core.turns import AWAY_GRACE_SECONDS, WaitingFor, stand_in_left
from games.models import Action, Match, Seat
from games.replay import selectors as replay
from games.tables import services as tables
from games.web import tasks

from .play import person_move as play_move
from .play import play_until

pytestmark = pytest.mark.django_db


def test_the_rule_connected_keeps_the_clock_a_short_absence_is_not_away_a_long_one_is(settings):
    settings.BOT_PACE_SECONDS = 0.7
    # Connected: the table's timeout from the turn's start, whatever happened before.
    assert stand_in_left(30, 15, connected=True, gone_for=None) == 15
    # A reload 15 s into the turn, the socket gone for 1 s: the clock's 15 s, not at once.
    assert stand_in_left(30, 15, connected=False, gone_for=1) == AWAY_GRACE_SECONDS - 1
    assert stand_in_left(30, 25, connected=False, gone_for=1) == 5  # the turn's own clock first
    # Gone for the whole grace: away, played for now.
    assert stand_in_left(30, 15, connected=False, gone_for=AWAY_GRACE_SECONDS) <= 0
    # Gone long ago: at a bot's pace, not at once and not after a stall.
    assert stand_in_left(30, 0, connected=False, gone_for=600) == pytest.approx(0.7)
    # Never here yet (the page may be opening): the grace from the turn's start.
    assert stand_in_left(30, 4, connected=False, gone_for=math.inf) == AWAY_GRACE_SECONDS - 4
    assert stand_in_left(0, 15, connected=False, gone_for=math.inf) is None  # no stand-ins


def shared_table_at_persons_turn(user, bob, timeout=30):
    """A shared table at its first turn: `user`'s (South's) opening call, bob sitting West."""
    match = tables.do_create_table(user, rules_spec="house", turn_timeout_seconds=timeout)
    tables.do_sit(match.pk, user=bob, position="W")
    tables.do_fill_with_bots(match.pk, host=user, level="easy")
    Match.objects.filter(pk=match.pk).update(first_dealer="E")  # South, on East's left, opens
    match = tables.do_start_table(match.pk, host=user)
    turn = turns.waiting_on(match.pk)
    assert (turn.kind, turn.seat) == (WaitingFor.PERSON, "S")
    return match, turn, user


def as_if(match, person, turn_began_ago: float, socket_closed_ago: float | None) -> None:
    now = timezone.now()
    Match.objects.filter(pk=match.pk).update(updated_at=now - timedelta(seconds=turn_began_ago))
    if socket_closed_ago is not None:
        Seat.objects.filter(match=match, user=person).update(
            connections=0, last_seen_at=now - timedelta(seconds=socket_closed_ago)
        )


def test_a_reload_late_in_the_turn_is_not_leaving(user, bob):
    match, turn, person = shared_table_at_persons_turn(user, bob)
    tables.do_presence(match.pk, user=person, delta=+1)
    tables.do_presence(match.pk, user=person, delta=-1)  # the reload's close
    as_if(match, person, turn_began_ago=15, socket_closed_ago=0.5)
    assert tasks.stand_in_turn(match.pk, turn.version, "away") == "stale"
    assert not services.resume_stalled_turn(match.pk)  # the sweeper, or the socket's return
    tables.do_presence(match.pk, user=person, delta=+1)  # the page is back
    as_if(match, person, turn_began_ago=25, socket_closed_ago=None)
    assert not services.resume_stalled_turn(match.pk)
    assert tasks.stand_in_turn(match.pk, turn.version, "away") == "stale"
    assert Match.objects.get(pk=match.pk).version == turn.version  # still their turn


def test_a_person_really_gone_is_played_for_once_the_grace_has_passed(user, bob):
    match, turn, person = shared_table_at_persons_turn(user, bob)
    as_if(match, person, turn_began_ago=4, socket_closed_ago=AWAY_GRACE_SECONDS - 1)
    assert tasks.stand_in_turn(match.pk, turn.version, "away") == "stale"
    as_if(match, person, turn_began_ago=5, socket_closed_ago=AWAY_GRACE_SECONDS)
    assert tasks.stand_in_turn(match.pk, turn.version, "away") != "stale"
    assert Match.objects.get(pk=match.pk).version == turn.version + 1


def test_the_sweeper_wakes_a_stand_in_only_once_the_person_is_away(user, bob, monkeypatch):
    match, turn, person = shared_table_at_persons_turn(user, bob)
    woken = []
    monkeypatch.setattr(
        tables, "_enqueue_stand_in", lambda m, v, reason, countdown: woken.append(reason)
    )
    grace = services.STALL_SECONDS
    as_if(match, person, turn_began_ago=20, socket_closed_ago=2)
    assert not services.resume_stalled_turn(match.pk) and woken == []
    as_if(match, person, turn_began_ago=20, socket_closed_ago=AWAY_GRACE_SECONDS + grace)
    assert services.resume_stalled_turn(match.pk) and "away" in woken


def test_a_former_players_seat_plays_as_a_bot_at_a_bots_pace(user, bob, password, settings):
    match, turn, person = shared_table_at_persons_turn(user, bob)
    if person == user:  # the host stays; bob deletes his account when it is his turn
        match = play_until(
            match,
            stop=lambda m: (
                (t := turns.waiting_on(m.pk)).kind == WaitingFor.PERSON and t.seat == "W"
            ),
        )
    do_delete_account(bob, password=password)
    turn = turns.waiting_on(match.pk)
    assert turn.kind == WaitingFor.BOT and turn.seat == "W"
    assert turn.bot_level == turns.STAND_IN_LEVEL
    assert turn.pace_seconds == settings.BOT_PACE_SECONDS
    assert tasks.play_bot_turn(match.pk, turn.version, turn.seat, turn.bot_level) != "stale"
    assert Seat.objects.get(match=match, position="W").user_id == bob.pk  # still their seat


def test_a_person_is_told_what_their_stand_in_did_and_never_reads_it_as_their_own(
    user, bob, settings
):
    match, turn, person = shared_table_at_persons_turn(user, bob)
    seat = turn.seat
    as_if(match, person, turn_began_ago=AWAY_GRACE_SECONDS, socket_closed_ago=None)
    assert tasks.stand_in_turn(match.pk, turn.version, "away") != "stale"
    match.refresh_from_db()
    mine = presenters.table_view(match, seat)
    assert mine.away_notice.startswith("While you were away a bot ")
    assert mine.away_notice.endswith(" for you.")
    html = render_to_string("games/_table.html", {"view": mine}, using=pages.TABLE_ENGINE)
    assert "While you were away a bot" in html
    names = [name for name, _ in mine.auction]
    assert "Your bot" in names and "You" not in names
    other = "S" if seat == "W" else "W"
    theirs = presenters.table_view(match, other)
    assert theirs.away_notice == ""
    assert any(name.endswith("'s bot") for name, _ in theirs.auction)
    # Once they move themselves, the notice has told its story.
    match = play_until(match, stop=lambda m: turns.waiting_on(m.pk).kind == WaitingFor.PERSON)
    if turns.waiting_on(match.pk).seat == seat:
        turn = turns.waiting_on(match.pk)
        services.do_act(
            match.pk,
            seat=seat,
            token=play_move(match, seat),
            version=turn.version,
            actor=services.Actor(user=person),
        )
        assert presenters.table_view(Match.objects.get(pk=match.pk), seat).away_notice == ""


def test_one_deal_tables_show_only_what_applies_to_one_deal(user):
    match = services.do_start_match(user, rules_spec="house", bot_level="easy")
    deal = play_until(match, stop=lambda m: m.deals.filter(phase="over").exists())
    practice = services.do_start_practice(
        user, match_id=deal.pk, number=1, step=0, bot_level="easy"
    )
    view = presenters.table_view(practice, "S")
    html = render_to_string("games/_table.html", {"view": view}, using=pages.TABLE_ENGINE)
    assert view.one_deal
    assert "Deal 1</span>" not in html and "To 11" not in html and "score-sides" not in html
    normal = presenters.table_view(Match.objects.get(pk=match.pk), "S")
    assert not normal.one_deal


def test_the_replay_and_the_deals_record_mark_a_stand_ins_moves(user, bob):
    match, turn, person = shared_table_at_persons_turn(user, bob)
    as_if(match, person, turn_began_ago=AWAY_GRACE_SECONDS, socket_closed_ago=None)
    assert tasks.stand_in_turn(match.pk, turn.version, "away") != "stale"
    stood_in = Action.objects.filter(deal__match=match).order_by("-sequence").first().sequence
    match = play_until(match, stop=lambda m: m.deals.filter(phase="over").exists())
    deal_row = match.deals.get(number=1)
    assert replay.deal_record(match, deal_row)["meta"]["stand_in"] == [stood_in]
    frame = replay.match_deal_frame(match, deal_row, 1, turn.seat, str)
    assert [m.step - 1 for m in frame.moves if m.stand_in] == [stood_in]
