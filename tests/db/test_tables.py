"""Tables shared by people: forming, seats, bots filling in, starting, leaving, rematch, chat,
and the stand-in bot that plays an absent person's turn."""

from datetime import timedelta

import pytest
from django.template.loader import render_to_string
from django.utils import timezone

from games.core import presenters, selectors, services, turns
from games.core.errors import GameError
from games.core.turns import WaitingFor
from games.models import Action, ChatMessage, Match
from games.tables import services as tables
from games.web import tasks
from tests.hidden import leaks

from .play import opened_by, play_until

pytestmark = pytest.mark.django_db


@pytest.fixture
def table(user):
    return tables.do_create_table(user, rules_spec="house")


def seats_of(match):
    return {
        s.position: (s.user.username if s.user_id else s.bot_level or "") for s in match.seats.all()
    }


def full_table(user, bob, **options):
    match = tables.do_create_table(user, rules_spec="house", **options)
    tables.do_sit(match.pk, user=bob, position="W")
    tables.do_fill_with_bots(match.pk, host=user, level="easy")
    return tables.do_start_table(match.pk, host=user)


def test_a_new_table_is_forming_with_the_host_seated_and_an_invite_code(user, table):
    assert table.status == Match.Status.FORMING
    assert len(table.invite_code) == 6 and table.invite_code.isalnum()
    assert seats_of(table) == {"N": "", "E": "", "S": "alice", "W": ""}
    assert not table.deals.exists()
    assert selectors.table_by_code(table.invite_code.lower()) == table


def test_joining_by_choosing_a_free_seat_and_moving_to_another(table, bob):
    tables.do_sit(table.pk, user=bob, position="E")
    tables.do_sit(table.pk, user=bob, position="N")
    assert seats_of(table)["N"] == "bob" and seats_of(table)["E"] == ""


def test_a_taken_seat_and_a_full_table_are_refused_and_change_nothing(table, bob, make_user):
    with pytest.raises(services.GameError, match="already taken"):
        tables.do_sit(table.pk, user=bob, position="S")
    tables.do_fill_with_bots(table.pk, host=table.host, level="easy")
    version = Match.objects.get(pk=table.pk).version
    with pytest.raises(tables.TableFull, match="full"):
        tables.do_sit(table.pk, user=make_user("carol"), position="N")
    assert Match.objects.get(pk=table.pk).version == version
    assert "carol" not in seats_of(table).values()


def test_only_the_host_fills_seats_with_bots_and_starts(table, bob):
    tables.do_sit(table.pk, user=bob, position="N")
    with pytest.raises(services.Forbidden):
        tables.do_set_seat_bot(table.pk, host=bob, position="E", level="easy")
    with pytest.raises(services.Forbidden):
        tables.do_start_table(table.pk, host=bob)
    with pytest.raises(services.GameError, match="bob sits there"):
        tables.do_set_seat_bot(table.pk, host=table.host, position="N", level="easy")
    tables.do_set_seat_bot(table.pk, host=table.host, position="E", level="hard")
    tables.do_set_seat_bot(table.pk, host=table.host, position="W", level="easy")
    assert seats_of(table) == {"N": "bob", "E": "hard", "S": "alice", "W": "easy"}


def test_starting_with_empty_seats_is_refused_then_a_full_table_deals(table, bob):
    with pytest.raises(services.GameError, match="Fill the empty seats"):
        tables.do_start_table(table.pk, host=table.host)
    assert Match.objects.get(pk=table.pk).status == Match.Status.FORMING
    tables.do_sit(table.pk, user=bob, position="N")
    tables.do_fill_with_bots(table.pk, host=table.host, level="easy")
    match = tables.do_start_table(table.pk, host=table.host)
    assert match.status == Match.Status.PLAYING and match.deals.count() == 1
    with pytest.raises(services.GameError, match="already started"):
        tables.do_sit(table.pk, user=bob, position="E")


def test_each_person_sees_only_their_own_hand_and_a_spectator_none(user, bob):
    match = full_table(user, bob)
    for position in ("S", "W", None):
        view = presenters.table_view(match, position)
        assert (len(view.hand) > 0) == (position is not None)
    deal = selectors.current_deal(match)
    assert {c.code for c in presenters.table_view(match, "W").hand} == set(deal.hands["W"])

    for position in ("S", "W", None):
        html = render_to_string(
            "games/_table.html", {"view": presenters.table_view(match, position)}
        )
        assert not leaks(html, match, position)


def test_a_stand_in_bot_plays_the_turn_of_an_absent_person_who_takes_it_back_by_acting(user, bob):
    match = full_table(user, bob)
    match = play_until(
        match,
        stop=lambda m: (t := turns.waiting_on(m.pk)).kind == WaitingFor.PERSON and t.seat == "W",
    )
    turn = turns.waiting_on(match.pk)
    assert turn.timeout_seconds == 30 and not turn.connected
    assert tasks.stand_in_turn(match.pk, turn.version, "away") == "stale"  # his page may be opening
    Match.objects.filter(pk=match.pk).update(
        updated_at=timezone.now() - timedelta(seconds=turns.AWAY_GRACE_SECONDS)
    )
    assert tasks.stand_in_turn(match.pk, turn.version, "away") != "stale"
    last = Action.objects.filter(deal__match=match).order_by("-id").first()
    assert last.seat == "W" and last.user is None and last.bot_level == tables.STAND_IN_LEVEL
    match.refresh_from_db()
    assert match.seats.get(position="W").user == bob  # the seat is still bob's
    # A late timer for that turn changes nothing.
    assert tasks.stand_in_turn(match.pk, turn.version, "idle") == "stale"


def test_a_connected_person_keeps_their_turn_until_the_timeout(user, bob):
    match = full_table(user, bob)
    match = play_until(
        match,
        stop=lambda m: (t := turns.waiting_on(m.pk)).kind == WaitingFor.PERSON and t.seat == "W",
    )
    tables.do_presence(match.pk, user=bob, delta=+1)
    turn = turns.waiting_on(match.pk)
    assert turn.connected
    assert tasks.stand_in_turn(match.pk, turn.version, "away") == "stale"
    assert tasks.stand_in_turn(match.pk, turn.version, "idle") != "stale"  # the idle timer ran out


def test_a_solo_match_against_bots_has_no_stand_in(user):
    match = services.do_start_match(user, rules_spec="house", bot_level="easy", rng=opened_by("S"))
    turn = turns.waiting_on(match.pk)
    assert (turn.kind, turn.timeout_seconds) == (WaitingFor.PERSON, 0)
    assert tasks.stand_in_turn(match.pk, turn.version, "away") == "stale"


def test_presence_counts_connections_and_never_goes_below_zero(table, bob):
    tables.do_sit(table.pk, user=bob, position="N")
    tables.do_presence(table.pk, user=bob, delta=+1)
    tables.do_presence(table.pk, user=bob, delta=+1)
    tables.do_presence(table.pk, user=bob, delta=-1)
    seat = table.seats.get(user=bob)
    assert seat.connections == 1 and seat.last_seen_at is not None
    tables.do_presence(table.pk, user=bob, delta=-1)
    tables.do_presence(table.pk, user=bob, delta=-1)
    assert table.seats.get(user=bob).connections == 0
    assert not tables.do_presence(
        table.pk, user=table.host.__class__.objects.create(username="x"), delta=+1
    )


def test_leaving_during_play_hands_the_seat_to_a_bot_for_good(user, bob):
    match = full_table(user, bob)
    tables.do_leave(match.pk, user=bob)
    seat = match.seats.get(position="W")
    assert seat.user is None and seat.bot_level == tables.STAND_IN_LEVEL
    finished = play_until(match)
    assert finished.status == Match.Status.FINISHED
    with pytest.raises(services.GameError, match="not sitting"):
        tables.do_leave(match.pk, user=bob)


def test_leaving_a_forming_table_frees_the_seat_but_the_host_cannot_leave(table, bob):
    tables.do_sit(table.pk, user=bob, position="N")
    tables.do_leave(table.pk, user=bob)
    assert seats_of(table)["N"] == ""
    with pytest.raises(services.GameError, match="host cannot leave"):
        tables.do_leave(table.pk, user=table.host)


def test_a_rematch_keeps_the_seats_and_the_bots_levels_once(user, bob):
    match = tables.do_create_table(
        user, rules_spec={"preset": "house", "target": 7}, turn_timeout_seconds=12
    )
    tables.do_sit(match.pk, user=bob, position="W")
    tables.do_set_seat_bot(match.pk, host=user, position="N", level="hard")
    tables.do_set_seat_bot(match.pk, host=user, position="E", level="easy")
    tables.do_start_table(match.pk, host=user)
    with pytest.raises(services.GameError, match="not over"):
        tables.do_table_rematch(match.pk, user=bob)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
    again = tables.do_table_rematch(match.pk, user=bob)
    assert (
        tables.do_table_rematch(match.pk, user=user) == again
    )  # the second click finds the same one
    assert (
        seats_of(again) == seats_of(match) == {"N": "hard", "E": "easy", "S": "alice", "W": "bob"}
    )
    assert again.status == Match.Status.PLAYING and again.rematch_of_id == match.pk
    assert again.turn_timeout_seconds == 12 and again.invite_code != match.invite_code
    assert presenters.table_view(Match.objects.get(pk=match.pk), "W").rematch_id == again.pk


def test_chat_is_for_players_limited_in_length_and_rate(table, bob, make_user):
    tables.do_chat(table.pk, user=table.host, text="  hello <b>all</b>  ")
    assert ChatMessage.objects.get().text == "hello <b>all</b>"
    with pytest.raises(services.Forbidden):
        tables.do_chat(table.pk, user=bob, text="let me in")
    with pytest.raises(services.GameError, match="at most 200"):
        tables.do_chat(table.pk, user=table.host, text="x" * 201)
    with pytest.raises(services.GameError, match="Write something"):
        tables.do_chat(table.pk, user=table.host, text="   ")
    for i in range(4):
        tables.do_chat(table.pk, user=table.host, text=f"line {i}")
    with pytest.raises(services.GameError, match="Slow down"):
        tables.do_chat(table.pk, user=table.host, text="one too many")
    assert ChatMessage.objects.count() == 5


def test_bad_timeouts_are_refused(user):
    with pytest.raises(services.GameError, match="between 5 and 600"):
        tables.do_create_table(user, rules_spec="house", turn_timeout_seconds=2)


def test_a_match_against_bots_cannot_be_left_to_play_itself(user):
    """Found by the access matrix (issue 29): "leave" on a match against bots put a bot in the
    person's seat, and the bots played on by themselves, for nobody."""
    match = services.do_start_match(user, rules_spec="house", bot_level="easy")
    with pytest.raises(GameError, match="Only a table with people can be left"):
        tables.do_leave(match.pk, user=user)
    assert match.seats.get(user=user)
