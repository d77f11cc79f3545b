"""Item 7: in the embedded mode, searches run in processes of their own, below the web
process's priority, so bots and the coach cannot starve page requests (the figures, before and
after, come from `manage.py bench_pages_under_load`; no timing is asserted here)."""

import os
import pickle
import random

import pytest

from games import dispatch, engine
from games.engine.bots import choose
from games.engine.coach.advice import advise
from games.engine.observation import Observation


@pytest.fixture
def search_processes(settings):
    if dispatch.uses_workers():
        pytest.skip("with Celery workers the search runs on the worker itself")
    settings.SEARCH_PROCESSES = 1


def position():
    rules = engine.Rules.from_spec("house")
    deal = engine.Deal.new(rules, "N", random.Random(7))
    return Observation.of(deal, deal.to_act, {"NS": 4, "EW": 2})


def test_a_search_runs_in_another_process_at_a_lower_priority(search_processes):
    assert dispatch.compute(os.getpid) != os.getpid()
    assert dispatch.compute(os.nice, 0) == min(19, os.nice(0) + dispatch.SEARCH_NICENESS)


def test_a_bot_and_the_coach_decide_there_exactly_as_they_would_here(search_processes):
    obs = position()
    assert dispatch.compute(choose, obs, "hard", seed=11) == choose(obs, "hard", seed=11)
    there = dispatch.compute(advise, obs, seed=5)
    assert [o.action for o in there] == [o.action for o in advise(obs, seed=5)]


def test_an_observation_crosses_processes_unchanged():
    obs = position()
    assert pickle.loads(pickle.dumps(obs)) == obs
