"""In the embedded mode, searches run in processes of their own, below the web process's
priority, so bots and the coach cannot starve page requests (the figures come from
`manage.py bench_pages_under_load`; no timing is asserted here). Only plain engine values cross
into them, and one that dies costs a retry, never the site (issue 28: a stand-in's Django enum
killed the search process and broke every bot and the coach until a restart)."""

import os
import pickle
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from games import engine
from games.coach import services as coach_services
from games.coach import tasks as coach_tasks
from games.core import dispatch, searches, selectors, services, turns
from games.core.turns import WaitingFor
from games.engine.bots import choose
from games.engine.coach.advice import advise
from games.engine.observation import Observation
from games.models import Action, BotLevel
from games.replay import services as replay_services
from games.replay import tasks as replay_tasks
from games.tables import services as tables
from games.web import tasks
from tests.db.play import opened_by, person_move, play_until

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def search_processes(settings):
    if dispatch.uses_workers():
        pytest.skip("with Celery workers the search runs on the worker itself")
    assert settings.SEARCH_PROCESSES >= 1  # the site's default, which tests keep


def position():
    rules = engine.Rules.from_spec("house")
    deal = engine.Deal.new(rules, "N", random.Random(7))
    return Observation.of(deal, deal.to_act, {"NS": 4, "EW": 2})


def test_a_search_runs_in_another_process_at_a_lower_priority(search_processes):
    assert searches.compute(os.getpid) != os.getpid()
    play = searches.compute(os.nice, 0)
    analysis = searches.compute(os.nice, 0, lane=searches.Lane.ANALYSIS)
    assert play == min(19, os.nice(0) + searches.NICENESS[searches.Lane.PLAY])
    assert analysis == min(19, os.nice(0) + searches.NICENESS[searches.Lane.ANALYSIS])
    assert analysis > play  # a person's analysis yields to a table's move


def test_a_bot_and_the_coach_decide_there_exactly_as_they_would_here(search_processes):
    obs = position()
    assert searches.compute(choose, obs, "hard", seed=11) == choose(obs, "hard", seed=11)
    there = searches.compute(advise, obs, seed=5, lane=searches.Lane.ANALYSIS)
    assert [o.action for o in there] == [o.action for o in advise(obs, seed=5)]


def test_an_observation_crosses_processes_unchanged():
    obs = position()
    assert pickle.loads(pickle.dumps(obs)) == obs


def test_a_django_value_is_refused_before_it_reaches_a_search_process(search_processes):
    with pytest.raises(searches.NotPlain, match="BotLevel"):
        searches.compute(choose, position(), BotLevel.MEDIUM, seed=1)
    assert searches.compute(choose, position(), str(BotLevel.MEDIUM), seed=1)


# --- What every caller hands a search loads in a process without Django ---------------------


@pytest.fixture
def handed(monkeypatch, search_processes):
    """Every call handed to a search process during the test, as the bytes that cross."""
    calls = []
    real = searches.pickled_call

    def recording(function, args, kwargs):
        call = real(function, args, kwargs)
        calls.append((function.__name__, call))
        return call

    monkeypatch.setattr(searches, "pickled_call", recording)
    return calls


LOAD_WITHOUT_DJANGO = """
import pickle, sys
function, args, kwargs = pickle.loads(sys.stdin.buffer.read())
function(*args, **kwargs)
loaded = sorted(m for m in sys.modules if m == "django" or m.startswith(("django.", "games.models")))
print("django modules:", loaded)
sys.exit(1 if loaded else 0)
"""


def _loads_without_django(call: bytes) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", LOAD_WITHOUT_DJANGO],
        input=call,
        capture_output=True,
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"},
        timeout=120,
    )


def _alice_has_a_choice(match) -> bool:
    turn = turns.waiting_on(match.pk)
    if turn.kind != WaitingFor.PERSON or turn.seat != "S":
        return False
    state = selectors.current_state(selectors.current_deal(match))
    return len(state.legal_actions()) > 1


def _a_deal_played_out(match) -> bool:
    """The current deal is over with its cards played (a hand everyone passed has none)."""
    deal_row = selectors.current_deal(match)
    return deal_row.is_over and deal_row.actions.filter(kind="play").exists()


def _every_kind_of_search(user, bob) -> None:
    """A bot's move, a stand-in's, the coach's advice and review, and a face-up solve, each
    through the task that really runs it."""
    user.coach_enabled = True
    user.save()
    match = tables.do_create_table(user, rules_spec="house")
    tables.do_sit(match.pk, user=bob, position="W")
    tables.do_fill_with_bots(match.pk, host=user, level="easy")
    match = tables.do_start_table(match.pk, host=user)
    match = play_until(
        match,
        stop=lambda m: (t := turns.waiting_on(m.pk)).kind == WaitingFor.PERSON and t.seat == "W",
    )
    turn = turns.waiting_on(match.pk)
    # Bob's turn timed out: an "away" stand-in would wait for the grace after his turn began.
    assert tasks.stand_in_turn(match.pk, turn.version, "idle") != "stale"
    match = play_until(match, stop=_alice_has_a_choice)
    advice = coach_services.do_request_advice(match)
    assert advice is not None
    coach_tasks.advise_position(advice.pk)
    match = play_until(match, stop=_a_deal_played_out)
    deal_row = selectors.current_deal(match)
    review = coach_services.do_request_review(deal_row, seat="S")
    coach_tasks.review_deal(review.pk)
    step = deal_row.actions.filter(kind="play").order_by("sequence").first().sequence
    row = replay_services.do_request_faceup(deal_row, step=step, user=user)
    replay_tasks.analyse_faceup(row.pk)


@pytest.mark.django_db(transaction=True)
def test_what_every_caller_hands_a_search_loads_in_a_process_without_django(
    handed, user, make_user, monkeypatch
):
    # Each task is run here, in turn; the same tasks enqueued after commit would race it on
    # threads of their own (a face-up solve claimed there left nothing for this one to hand).
    monkeypatch.setattr(dispatch, "enqueue", lambda task, *args, **kwargs: None)
    _every_kind_of_search(user, make_user("bob"))
    kinds = {name for name, _ in handed}
    assert {"choose", "advise", "analyse_step"} <= kinds
    for name in sorted(kinds):
        call = next(call for n, call in handed if n == name)
        loaded = _loads_without_django(call)
        assert loaded.returncode == 0, f"{name}: {loaded.stdout!r} {loaded.stderr[-2000:]!r}"


# --- A search process that dies costs one retry ----------------------------------------------


def test_a_search_process_killed_mid_search_costs_one_retry(search_processes):
    searches.compute(os.getpid)  # the pool is up
    [pid] = searches.search_process_ids(searches.Lane.PLAY)
    answer = []
    searching = threading.Thread(
        target=lambda: answer.append(searches.compute(time.sleep, 1.0)), daemon=True
    )
    searching.start()
    deadline = time.monotonic() + 10
    while _state(pid) != "S" and time.monotonic() < deadline:  # asleep inside the search
        time.sleep(0.01)
    os.kill(pid, signal.SIGKILL)
    searching.join(timeout=30)
    assert answer == [None]  # the search was made again, in a new process
    assert searches.search_process_ids(searches.Lane.PLAY) != [pid]


def test_search_processes_end_when_their_web_process_is_killed(search_processes):
    # `kill -9` of `make run` (or the out-of-memory killer) never shuts its pools down.
    script = (
        "import os, sys, django; django.setup()\n"
        "from games.core import searches\n"
        "print(searches.compute(os.getpid), flush=True)\n"
        "sys.stdin.read()\n"
    )
    web = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "setback_site.settings"},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    search = int(web.stdout.readline())
    assert _state(search) not in ("", "Z")
    os.kill(web.pid, signal.SIGKILL)
    web.wait(timeout=10)
    deadline = time.monotonic() + 10
    while _state(search) not in ("", "Z") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _state(search) in ("", "Z"), "the search process outlived its web process"


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return ""


@pytest.mark.django_db(transaction=True)
def test_after_a_search_process_is_killed_the_table_moves_on(search_processes, user):
    searches.compute(os.getpid)
    for pid in searches.search_process_ids(searches.Lane.PLAY):
        os.kill(pid, signal.SIGKILL)
    match = services.do_start_match(
        user, rules_spec="house", bot_level="easy"
    )  # its bots' tasks run by themselves
    started = time.monotonic()
    while not Action.objects.filter(deal__match=match, user__isnull=True).exists():
        # A broken pool stayed broken for good; a new one is a fresh interpreter importing the
        # engine, a second or two, but several times that on a machine busy with other tests.
        # The bound tells "moves on" from "never", not a speed.
        assert time.monotonic() - started < 60, "no bot moved: the search processes stayed broken"
        turn = turns.waiting_on(match.pk)
        if turn is not None and turn.kind == WaitingFor.PERSON:
            person = services.Actor(user=user)
            services.do_act(
                match.pk,
                seat=turn.seat,
                token=person_move(match, turn.seat),
                version=turn.version,
                actor=person,
            )
        time.sleep(0.05)


@pytest.mark.django_db(transaction=True)
def test_a_search_asked_for_while_the_process_stops_is_left_for_the_sweeper(
    search_processes, caplog, monkeypatch, user
):
    """Soak (issue 28): stopping `make run` with tables in play logged each bot task still
    running as a failure with its traceback."""

    class ShutDown:
        def submit(self, *args, **kwargs):
            raise RuntimeError("cannot schedule new futures after interpreter shutdown")

    monkeypatch.setattr(searches, "_pool", lambda lane: ShutDown())
    # West, a bot, opens the auction: its task runs by itself.
    match = services.do_start_match(user, rules_spec="house", bot_level="easy", rng=opened_by("W"))
    assert dispatch.wait_for_in_process_tasks(timeout=30)
    assert dispatch.take_failures() == []
    assert "the process is stopping" in caplog.text
    assert not Action.objects.filter(deal__match=match, user__isnull=True).exists()
