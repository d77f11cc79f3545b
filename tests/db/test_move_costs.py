"""What one move costs the database, and the engine state kept between moves.

The query counts are ceilings a regression would cross (a query per seat, a replay of the
deal's rows): the whole path of a move is counted, its on-commit work (the table's event, the
next turn's wake-up, the coach's check) included.
"""

import collections
import gc
import json
import math
import os
import subprocess
import sys
import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.core import dispatch, selectors, services, turns
from games.core.turns import WaitingFor
from games.engine import deal_to_record
from games.models import Match
from games.web import tasks
from games.web.consumers import TableConsumer
from tests.db.play import opened_by, person_move, play_until

# The ceilings hold on PostgreSQL too (CI's second pass).
pytestmark = pytest.mark.real_services


def bidder(match, seat):
    """The person's lowest bid when they have a call to make, else their first legal move."""
    legal = selectors.deal_state(selectors.current_deal(match)).observation(seat).legal_actions()
    return next((token for token in legal if token.isdigit()), person_move(match, seat))


# Counted on this code (SQLite and PostgreSQL alike; the test's transaction adds a savepoint
# pair): a person's move over HTTP 12 (session and user included), a bot's move 9, its
# on-commit work included (14 and 11 before issue 31: the match locked and its deal read in
# one query, the seats read once for whose turn and the coach); each with its deal state rebuilt once, as in a process that has not
# seen the deal (a worker child that did not make the last move): one query fewer when it has.
PERSON_MOVE_QUERIES = 12
# The same move sent over the table's socket: 10 (no session or user to read: the socket's own).
SOCKET_MOVE_QUERIES = 10
BOT_MOVE_QUERIES = 9


@pytest.fixture
def wakes(monkeypatch):
    """The background work a move asks for, recorded instead of run."""
    asked = []
    monkeypatch.setattr(
        dispatch, "enqueue", lambda task, *args, **kw: asked.append((task.name, args))
    )
    return asked


def at_turn(match, kind):
    return play_until(match, stop=lambda m: turns.waiting_on(m.pk).kind == kind)


def test_a_persons_move_costs_a_bounded_number_of_queries(
    logged_in_client, user, wakes, django_capture_on_commit_callbacks
):
    match = at_turn(services.do_start_match(user, rules_spec="house", bot_level="easy"), "person")
    turn = turns.waiting_on(match.pk)
    # A bid, never a pass: a pass could throw the hand in, and a deal's last move does more
    # (its result, the statistics rows, perhaps the match's end).
    token = selectors.deal_state(selectors.current_deal(match)).observation("S").legal_actions()[-1]
    selectors.forget_states()  # the dearer case, counted every time
    assert token != "pass"
    with (
        CaptureQueriesContext(connection) as queries,
        django_capture_on_commit_callbacks(execute=True),
    ):
        response = logged_in_client.post(
            reverse("act", args=[match.pk]),
            {"action": token, "version": turn.version},
            HTTP_HX_REQUEST="true",
        )
    assert response.status_code == 204
    assert len(queries) <= PERSON_MOVE_QUERIES, "\n".join(
        q["sql"][:120] for q in queries.captured_queries
    )


def test_a_persons_move_over_the_tables_socket_costs_fewer_queries_than_its_post(
    logged_in_client, user, wakes, django_capture_on_commit_callbacks
):
    match = at_turn(services.do_start_match(user, rules_spec="house", bot_level="easy"), "person")
    turn = turns.waiting_on(match.pk)
    token = selectors.deal_state(selectors.current_deal(match)).observation("S").legal_actions()[-1]
    selectors.forget_states()  # the dearer case, as above
    assert token != "pass"
    screen = TableConsumer()
    screen.match_id, screen.user = match.pk, user
    screen.session_checked_at = time.monotonic()  # checked when the socket opened
    move = json.dumps({"move": {"action": [token], "version": [str(turn.version)]}})
    with (
        CaptureQueriesContext(connection) as queries,
        django_capture_on_commit_callbacks(execute=True),
    ):
        assert screen._change(move) is None  # applied
    assert Match.objects.get(pk=match.pk).version == turn.version + 1
    assert len(queries) <= SOCKET_MOVE_QUERIES, "\n".join(
        q["sql"][:120] for q in queries.captured_queries
    )


def test_a_bots_move_costs_a_bounded_number_of_queries(
    user, wakes, django_capture_on_commit_callbacks
):
    match = at_turn(services.do_start_match(user, rules_spec="house", bot_level="easy"), "bot")
    turn = turns.waiting_on(match.pk)
    selectors.forget_states()  # the dearer case, counted every time
    with (
        CaptureQueriesContext(connection) as queries,
        django_capture_on_commit_callbacks(execute=True),
    ):
        # As the wake-up enqueues it: the seat and the level named, so the task need not read them.
        played = tasks.play_bot_turn(match.pk, turn.version, turn.seat, turn.bot_level)
    assert played != "stale"
    assert len(queries) <= BOT_MOVE_QUERIES, "\n".join(
        q["sql"][:120] for q in queries.captured_queries
    )


def test_a_move_does_not_replay_the_deal_once_its_state_is_kept(
    user, wakes, monkeypatch, django_capture_on_commit_callbacks
):
    match = services.do_start_match(user, rules_spec="house", bot_level="easy")
    with django_capture_on_commit_callbacks(execute=True):
        match = at_turn(match, "bot")
    selectors.current_state(selectors.current_deal(match))  # this process now holds the state
    monkeypatch.setattr(selectors, "deal_state", lambda *a, **k: pytest.fail("replayed the deal"))
    monkeypatch.setattr(
        selectors, "match_standing", lambda *a, **k: pytest.fail("replayed the match")
    )
    for _ in range(3):  # a few moves in a row, each starting from the state the last one kept
        turn = turns.waiting_on(match.pk)
        if turn is None or turn.kind != WaitingFor.BOT:
            break
        with django_capture_on_commit_callbacks(execute=True):
            assert tasks.play_bot_turn(match.pk, turn.version) != "stale"


def test_a_process_that_kept_an_earlier_step_reads_only_the_moves_made_since(
    user, wakes, monkeypatch
):
    """Another process (the worker, the other Daphne) made the last moves: this one catches up
    from the step it kept with one query for the new action rows, to the state a rebuild gives."""
    # The player opens the auction with a bid: the deal is not thrown in under these moves.
    match = services.do_start_match(user, rules_spec="house", bot_level="easy", rng=opened_by("S"))
    match = play_until(match, stop=lambda m: selectors.current_deal(m).steps >= 3, person=bidder)
    then = selectors.current_deal(match)
    kept = selectors.current_state(then)
    match = play_until(
        match, stop=lambda m: selectors.current_deal(m).steps >= then.steps + 4, person=bidder
    )
    now = selectors.current_deal(match)
    assert now.number == then.number and now.steps == then.steps + 4
    selectors.forget_states()
    selectors.remember_state(then, kept)  # all this process saw of the deal
    rebuilt = selectors.deal_state(now)
    monkeypatch.setattr(selectors, "deal_state", lambda *a, **k: pytest.fail("replayed the deal"))
    with CaptureQueriesContext(connection) as queries:
        caught_up = selectors.current_state(now)
    assert len(queries.captured_queries) == 1
    assert deal_to_record(caught_up) == deal_to_record(rebuilt)
    assert (caught_up.to_act, caught_up.version) == (rebuilt.to_act, now.steps)
    assert selectors.state_is_cached(now)


@pytest.mark.django_db(transaction=True)  # so each move's on-commit work runs, keeping its state
def test_the_kept_state_and_the_standing_agree_with_a_rebuild_from_the_rows(user, wakes):
    """A whole match to its end: at every step the state a process keeps (or rebuilds when it
    has none) is the one replayed from the action rows, and the standing worked out deal by
    deal from the stored totals is the one replayed from every deal."""
    match = services.do_start_match(user, rules_spec="house", bot_level="easy")
    steps = 0

    def compare(m):
        nonlocal steps
        deal_row = selectors.current_deal(m)
        if deal_row.steps and steps % 7 != 1:  # the last move kept its state (unless forgotten)
            assert selectors.state_is_cached(deal_row)
        rebuilt = selectors.deal_state(deal_row)
        kept = selectors.current_state(deal_row)
        assert deal_to_record(kept) == deal_to_record(rebuilt)
        assert (kept.phase, kept.to_act, kept.version) == (
            rebuilt.phase,
            rebuilt.to_act,
            rebuilt.version,
        )
        if steps % 7 == 0:
            selectors.forget_states()  # now and then a process that never saw the deal
        steps += 1
        return False

    match = play_until(match, stop=compare)
    assert match.status == Match.Status.FINISHED and steps > 20
    replayed = selectors.match_standing(match)
    assert replayed.over and replayed.winner == match.winner
    assert replayed.totals == match.totals


# A screen's render, as the table's socket makes it at every version: the match with its
# current deal, its seats with their users (the coach's panel adds its advice when it has some).
# Once every SESSION_RECHECK_SECONDS the render also checks that the login still holds (the
# session and its user): two more.
RENDER_QUERIES = 2
RECHECK_QUERIES = 2


# The table's page, as a browser loads it to sit down and on every reload: the session and its
# user, the match and the user's seat (may they see it at all), the seats with their users, the
# match again with its current deal (the table and the coach's panel share them), and the bell's
# unread count (every signed-in page). 9 before issue 31's last cut, when the table and the coach
# read the seats and the deal each on their own.
TABLE_PAGE_QUERIES = 7


def test_the_table_page_costs_a_bounded_number_of_queries(logged_in_client, user):
    match = at_turn(services.do_start_match(user, rules_spec="house", bot_level="easy"), "person")
    selectors.current_state(selectors.current_deal(match))  # as a running process keeps it
    with CaptureQueriesContext(connection) as queries:
        page = logged_in_client.get(reverse("table", args=[match.pk]))
    assert page.status_code == 200 and "table-my-turn" in page.content.decode()
    assert len(queries) <= TABLE_PAGE_QUERIES, "\n".join(
        q["sql"][:120] for q in queries.captured_queries
    )


@pytest.mark.parametrize("login_checked", [True, False], ids=["login-fresh", "login-rechecked"])
def test_one_screens_render_costs_a_bounded_number_of_queries(
    logged_in_client, user, login_checked
):
    match = at_turn(services.do_start_match(user, rules_spec="house", bot_level="easy"), "person")
    selectors.current_state(
        selectors.current_deal(match)
    )  # the state, as the mover's process keeps it
    screen = TableConsumer()
    screen.match_id, screen.user = match.pk, user
    screen.session_key = logged_in_client.session.session_key
    screen.scope = {"session": logged_in_client.session, "headers": []}
    screen._invited()  # the socket read its session's invites once, when it connected
    # connect() notes when the middleware read the session; a render past the recheck window
    # reads it again.
    screen.session_checked_at = time.monotonic() if login_checked else -math.inf
    with CaptureQueriesContext(connection) as queries:
        version, html = screen._render_table()
    assert version == match.version and 'id="table"' in html and "table-my-turn" in html
    ceiling = RENDER_QUERIES + (0 if login_checked else RECHECK_QUERIES)
    assert len(queries) <= ceiling, "\n".join(q["sql"][:120] for q in queries.captured_queries)


def test_a_screens_render_and_a_move_over_its_socket_leave_no_reference_cycles(
    logged_in_client, user, wakes
):
    """Garbage in reference cycles waits for the garbage collector, which pauses the whole web
    process to find it: under load, every screen it serves waits
    (docs/journal/2026-12-03-server-cpu-per-move.md). A render and a move, the work done at every
    version, make none."""
    match = at_turn(services.do_start_match(user, rules_spec="house", bot_level="easy"), "person")
    screen = TableConsumer()
    screen.match_id, screen.user = match.pk, user
    screen.session_key = logged_in_client.session.session_key
    screen.scope = {"session": logged_in_client.session, "headers": []}
    screen.session_checked_at = -math.inf  # the login's recheck is part of the work too
    screen._render_table()  # as on a running server: the templates compiled, the state kept
    token = selectors.deal_state(selectors.current_deal(match)).observation("S").legal_actions()[-1]
    move = json.dumps({"move": {"action": [token], "version": [str(match.version)]}})
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what a collection finds is kept in gc.garbage, to be seen
    try:
        screen._render_table()
        assert screen._change(move) is None  # applied
        screen._render_table()
        gc.collect()
        cycles = collections.Counter(type(thing).__name__ for thing in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert Match.objects.get(pk=match.pk).version == match.version + 1
    assert not cycles, cycles.most_common(10)


def test_a_web_process_has_the_tables_templates_compiled_before_it_serves_anyone():
    """Compiled at the first request instead, the start of a busy site had every waiting thread
    compile the same Jinja template at once (docs/journal/2026-12-03-server-cpu-per-move.md): the
    process compiles it as it starts, as `make run`'s Daphne loads it."""
    started = subprocess.run(
        [
            sys.executable,
            "-c",
            "import setback_site.asgi\n"
            "from django.template import engines\n"
            "print(sorted(name for _, name in engines['jinja2'].env.cache))",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "setback_site.settings"},
    )
    assert started.returncode == 0, started.stderr
    assert "games/_table.html" in started.stdout
