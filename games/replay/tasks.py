"""The replay's worker task: solve one step of a finished deal face up. Thin: claim the row,
solve, store. It runs on the coach queue (settings.CELERY_TASK_ROUTES) and its search in the
analysis lane (games/core/searches.py), so a solve never delays a bot."""

from celery import shared_task
from django.core.cache import cache

from games.core import searches
from games.core import selectors as game_selectors
from games.engine.solver import DEFAULT_MAX_NODES, analyse_step

from . import services

# About four seconds of one core at most (bench-solver measures the cost per step).
MAX_NODES = DEFAULT_MAX_NODES
# From which trick on a deal is exact depends on the deal alone: found once (its search costs a
# failed solve), then known for every other step of the deal that is too large.
EXACT_FROM_SECONDS = 24 * 3600


@shared_task(acks_late=True, reject_on_worker_lost=True, soft_time_limit=60, time_limit=90)
def analyse_faceup(row_id: int) -> str:
    row = services.do_claim_faceup(row_id)
    if row is None:
        return "done"
    final = game_selectors.deal_state(row.deal)
    exact_key = f"faceup-exact-from:{row.deal_id}"
    known = cache.get(exact_key)
    solved = searches.compute(
        analyse_step, final, row.step, MAX_NODES, known, lane=searches.Lane.ANALYSIS
    )
    if solved.deal_exact_from_trick is not None:
        cache.set(exact_key, solved.deal_exact_from_trick, EXACT_FROM_SECONDS)
    services.do_store_faceup(row, solved=solved)
    if solved.analysis is None:
        return "too large"
    return f"{len(solved.analysis.lines)} choices"
