"""The replay's worker task: solve one step of a finished deal face up. Thin: claim the row,
solve, store. It runs on the coach queue (settings.CELERY_TASK_ROUTES), so a search never delays a bot."""

import time

from celery import shared_task

from games import selectors as game_selectors
from games.engine.solver import DEFAULT_MAX_NODES, TooLarge, analyse

from . import services

# About four seconds of one core at most (bench-solver measures the cost per step).
MAX_NODES = DEFAULT_MAX_NODES


@shared_task(acks_late=True, reject_on_worker_lost=True, soft_time_limit=60, time_limit=90)
def analyse_faceup(row_id: int) -> str:
    row = services.do_claim_faceup(row_id)
    if row is None:
        return "done"
    deal = game_selectors.deal_state(row.deal, upto=row.step)
    started = time.process_time()
    try:
        analysis = analyse(deal, max_nodes=MAX_NODES)
    except TooLarge:
        services.do_store_faceup_too_large(
            row, deal.to_act, _first_exact_trick(row.deal, row.step), time.process_time() - started
        )
        return "too large"
    services.do_store_faceup(row, analysis, time.process_time() - started)
    return f"{len(analysis.lines)} choices"


def _first_exact_trick(deal_row, step: int) -> int | None:
    """The first later trick from whose opening lead on every trick is small enough to solve
    (1-based), or None. Tried from the last trick backwards, so only one position fails (at
    the cost of the node limit) however many tricks are too large."""
    final = game_selectors.deal_state(deal_row)
    trick_starts = []
    state = game_selectors.deal_state(deal_row, upto=0)
    for sequence, (seat, token) in enumerate(final.history):
        if state.phase == "play" and not state.current_trick and sequence > step:
            trick_starts.append((sequence, len(state.tricks) + 1))
        state.apply(token, seat)
    exact_from = None
    for sequence, trick in reversed(trick_starts):
        try:
            analyse(game_selectors.deal_state(deal_row, upto=sequence), max_nodes=MAX_NODES)
        except TooLarge:
            break
        exact_from = trick
    return exact_from
