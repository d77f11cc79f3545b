"""Nothing stalls: a saved move is never answered with an error, and lost turns are found again
by the sweeper, not only when someone opens the page (issue 15; the fault suite in tests/faults
proves the same with real processes killed)."""

import threading
import time
from datetime import timedelta

import pytest
from django.db import OperationalError, connections
from django.urls import reverse
from django.utils import timezone

from games.core import dispatch, realtime, selectors, services, turns
from games.core.turns import WaitingFor
from games.models import Action, Match
from games.tables import services as tables
from games.web import sweeper, tasks
from games.web.tasks import stand_in_turn

from .play import opened_by, play_until


def age(match: Match, seconds: float) -> None:
    """As if the table had been still for `seconds`."""
    Match.objects.filter(pk=match.pk).update(updated_at=timezone.now() - timedelta(seconds=seconds))


def wait_for_version_above(match: Match, version: int, timeout: float = 30) -> int:
    """The table's version once it passes `version` (tasks run in-process or on a worker)."""
    dispatch.wait_for_in_process_tasks()
    deadline = time.monotonic() + timeout
    while True:
        current = Match.objects.get(pk=match.pk).version
        if current > version or time.monotonic() > deadline:
            return current
        time.sleep(0.05)


def quietly_to_a_turn(user, monkeypatch, kind: str) -> Match:
    """A new match whose first call is of `kind` (the person's, South, or a bot's, West), with no
    task on its way (as a restarted server finds it)."""
    opener = "S" if kind == WaitingFor.PERSON else "W"
    with monkeypatch.context() as quiet:
        quiet.setattr(services, "announce_after_commit", lambda match, deal_row=None: None)
        match = services.do_start_match(
            user, rules_spec="house", bot_level="easy", rng=opened_by(opener)
        )
    assert turns.waiting_on(match.pk).kind == kind
    return match


@pytest.mark.django_db(transaction=True)
def test_a_saved_move_is_answered_normally_and_the_bot_still_wakes_when_the_screens_cannot_be_told(
    client, user, monkeypatch
):
    match = quietly_to_a_turn(user, monkeypatch, "person")
    turn = turns.waiting_on(match.pk)
    deal_row = selectors.current_deal(match)
    state = selectors.deal_state(deal_row)

    def channel_layer_down(group, message):
        raise ConnectionError("Error 111 connecting to redis: Connection refused.")

    monkeypatch.setattr(realtime, "group_send", channel_layer_down)
    client.force_login(user)
    token = "pass"  # the auction's first call: a bot speaks next
    response = client.post(
        reverse("act", args=[match.pk]),
        {"version": turn.version, "action": token},
        HTTP_HX_REQUEST="true",
    )

    assert response.status_code == 204  # applied; the new table reaches screens by websocket
    assert Action.objects.filter(
        deal=deal_row, sequence=state.version, user=user, token=token
    ).exists()
    # The bot after the person was woken although telling the screens failed.
    assert wait_for_version_above(match, turn.version + 1) > turn.version + 1


def cut_once(monkeypatch, where: str) -> None:
    """The next change in this thread loses its database connection, as in a PostgreSQL
    restart: before anything is saved, or after the commit is saved but before it answers."""
    test_thread = threading.get_ident()
    cuts = []

    def cut() -> bool:
        if threading.get_ident() != test_thread or cuts:
            return False
        cuts.append(where)
        return True

    lost = OperationalError("server closed the connection unexpectedly")
    if where == "before the commit":
        lock_match = services.lock_match

        def lock_then_lose(match_id):
            if cut():
                raise lost
            return lock_match(match_id)

        monkeypatch.setattr(services, "lock_match", lock_then_lose)
    else:
        wrapper = type(connections["default"])
        commit = wrapper._commit  # the driver's commit, where a cut connection raises

        def commit_then_lose(self):
            commit(self)
            if cut():
                raise lost

        monkeypatch.setattr(wrapper, "_commit", commit_then_lose)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("where", ["before the commit", "after the commit, before its answer"])
def test_a_move_cut_off_by_a_database_restart_is_made_once_answered_normally_and_the_table_goes_on(
    client, user, monkeypatch, where
):
    match = quietly_to_a_turn(user, monkeypatch, "person")
    turn = turns.waiting_on(match.pk)
    deal_row = selectors.current_deal(match)
    state = selectors.deal_state(deal_row)
    token = "pass"  # the auction's first call: a bot speaks next
    client.force_login(user)
    cut_once(monkeypatch, where)

    response = client.post(
        reverse("act", args=[match.pk]),
        {"version": turn.version, "action": token},
        HTTP_HX_REQUEST="true",
    )

    assert response.status_code == 204
    made = Action.objects.filter(deal=deal_row, user=user)
    assert [(a.sequence, a.token) for a in made] == [(state.version, token)]
    # The move was announced although its commit's hooks never ran: the bot after it plays.
    assert wait_for_version_above(match, turn.version + 1) > turn.version + 1


@pytest.mark.django_db(transaction=True)
def test_the_sweeper_wakes_a_lost_bot_turn_but_not_a_table_that_just_moved(user, monkeypatch):
    match = quietly_to_a_turn(user, monkeypatch, "bot")
    version = match.version
    assert sweeper.sweep() == 0  # just moved: its task may well be on its way
    assert Match.objects.get(pk=match.pk).version == version

    age(match, services.STALL_SECONDS + 5)
    assert sweeper.sweep() == 1
    assert wait_for_version_above(match, version) > version


@pytest.mark.django_db(transaction=True)
def test_a_bot_still_thinking_is_not_set_thinking_again_by_a_wake_up(user, monkeypatch):
    # On a busy machine a bot can think past the sweeper's patience (or its player reconnects
    # meanwhile): waking its turn again must not queue a second search of the same position
    # behind the first, which on a loaded machine only made every table wait longer.
    match = quietly_to_a_turn(user, monkeypatch, "bot")
    version = match.version
    thinking, go_on, plays = threading.Event(), threading.Event(), []
    play = tasks._play

    def slow_play(match_id, at_version, turn):
        plays.append(at_version)
        if at_version == version:
            thinking.set()
            go_on.wait(10)
        return play(match_id, at_version, turn)

    monkeypatch.setattr(tasks, "_play", slow_play)
    age(match, services.STALL_SECONDS + 5)
    assert sweeper.sweep() == 1
    assert thinking.wait(10)
    age(match, services.STALL_SECONDS + 5)
    assert services.resume_stalled_turn(match.pk)  # as the player's socket does on connecting
    go_on.set()
    assert wait_for_version_above(match, version) > version
    assert plays.count(version) == 1


@pytest.mark.django_db
def test_a_long_turn_timer_is_a_stored_due_time_that_the_sweeper_acts_on(
    user, make_user, monkeypatch
):
    bob = make_user("bob")
    match = tables.do_create_table(user, rules_spec="house", turn_timeout_seconds=120)
    tables.do_sit(match.pk, user=bob, position="W")
    tables.do_fill_with_bots(match.pk, host=user, level="easy")
    match = play_until(
        tables.do_start_table(match.pk, host=user),
        stop=lambda m: turns.waiting_on(m.pk).kind == WaitingFor.PERSON,
    )
    turn = turns.waiting_on(match.pk)
    person = user if turn.seat == "S" else bob
    tables.do_presence(
        match.pk, user=person, delta=+1
    )  # at the table, just slow: only the idle timer
    turn = turns.waiting_on(match.pk)
    sent = []
    monkeypatch.setattr(
        dispatch,
        "enqueue",
        lambda task, *args, countdown=0, **kw: sent.append((task.name, args, countdown)),
    )

    tables.wake_stand_in(turn, match.pk)
    assert sent == []  # 120 s is longer than a broker may hold a task: no countdown

    age(match, 60)
    sweeper.sweep()
    assert sent == []  # not due yet

    age(match, 121)
    assert sweeper.sweep() == 1
    assert sent == [("games.web.tasks.stand_in_turn", (match.pk, turn.version, "idle"), 0.0)]


def test_a_countdown_longer_than_the_broker_holds_a_task_is_refused():
    with pytest.raises(ValueError, match="store a due time"):
        dispatch.enqueue(stand_in_turn, 1, 1, "idle", countdown=dispatch.LONGEST_COUNTDOWN + 1)
