"""The coach's Celery tasks, routed to the coach queue (settings.CELERY_TASK_ROUTES) so that a
search for advice never delays a bot's move. Thin: claim the row, compute, store."""

import time

from celery import shared_task

from games import engine
from games.core import searches
from games.engine.coach import judging
from games.engine.coach.advice import Option, advise

from . import selectors, services
from .models import Advice, Review, Work


@shared_task(acks_late=True, reject_on_worker_lost=True, soft_time_limit=30, time_limit=40)
def advise_position(advice_id: int) -> str:
    """Search the position of one Advice row from the seat's observation, seeded by the position
    (``worth.position_seed``): a review or an exercise of it later gets these very figures."""
    advice = services.do_claim(Advice, pk=advice_id)
    if advice is None:
        return "done"
    match = advice.deal.match
    if match.version != advice.version:
        services.do_release(advice)  # the player moved on first: this advice would never be shown
        return "stale"
    obs = selectors.observation_at(advice.deal, advice.step, advice.seat, dict(match.totals))
    started = time.perf_counter()
    options = searches.compute(
        advise,
        obs,
        seat_models=selectors.seat_models(match, advice.seat, advice.deal),
        lane=searches.Lane.ANALYSIS,
    )
    services.do_store_advice(
        advice, phase=obs.phase, options=options, seconds=time.perf_counter() - started
    )
    return options[0].action


@shared_task(acks_late=True, reject_on_worker_lost=True, soft_time_limit=240, time_limit=300)
def review_deal(review_id: int) -> str:
    """Judge each decision a person made in a finished deal against the coach's choice."""
    review = services.do_claim(Review, pk=review_id)
    if review is None:
        return "done"
    deal_row = review.deal
    totals = selectors.totals_before(deal_row)
    entries, judgements = [], []
    # Only the person's own decisions: a bot that stood in for them is not theirs to answer for.
    for action in deal_row.actions.filter(seat=review.seat, user__isnull=False).order_by(
        "sequence"
    ):
        step = action.sequence
        obs = selectors.observation_at(deal_row, step, review.seat, totals)
        if len(obs.legal_actions()) < 2:
            continue
        advice = selectors.advice_for(deal_row, step, review.seat)
        if advice is not None and advice.status == Work.READY:
            options = [Option.from_json(o) for o in advice.options]
            origin = "shown"  # the very figures the coach showed at the table
        else:
            origin = "computed"
            version = advice.version if advice is not None else selectors.version_at(deal_row, step)
            started = time.perf_counter()
            # The same evaluator, budget, seed (the position's) and table as the live coach.
            options = searches.compute(
                advise,
                obs,
                seat_models=selectors.seat_models(deal_row.match, review.seat, deal_row),
                lane=searches.Lane.ANALYSIS,
            )
            services.do_save_computed_advice(
                deal_row,
                step=step,
                seat=review.seat,
                version=version,
                phase=obs.phase,
                options=options,
                seconds=time.perf_counter() - started,
            )
        taken = next((o for o in options if o.action == action.token), None)
        if taken is None:
            continue  # the search did not value this option (it keeps the likeliest discards and pitches)
        judgement = judging.judge(options[0].figures, taken.figures)
        judgements.append(judgement)
        best = options[0]
        entries.append(
            {
                "step": step,
                "moment": _moment(obs),
                "action": taken.action,
                "action_label": taken.label,
                "reason": taken.reason,
                "best": best.action,
                "best_label": best.label,
                "best_reason": best.reason,
                "loss": judgement.loss,
                "uncertainty": judgement.uncertainty,
                "unit": judgement.unit,
                "mark": judgement.mark,
                # "computed": no advice was stored for it (the coach was off); the figures were
                # searched after the deal with the coach's evaluator, budget, seed and table.
                "origin": origin,
            }
        )
    services.do_store_review(review, entries=entries, judgements=judgements)
    return f"{len(entries)} decisions"


def _moment(obs) -> str:
    if obs.phase == engine.PLAY:
        return f"Trick {obs.trick_number + 1}"
    return {engine.AUCTION: "Auction", engine.TRUMP: "Trump", engine.DISCARD: "Discard"}[obs.phase]
