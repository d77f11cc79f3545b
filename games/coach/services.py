"""Every write the coach makes: asking for advice or a review, claiming and storing the work.

A request creates the row (unique per position, or per deal and seat) and enqueues its task
after commit, so the same position is never searched twice: a repeated request finds the row.
A task claims its row before computing; a claim older than CLAIM_SECONDS is taken to be lost
(its worker died) and may be claimed again.

A review is expensive work (each decision the coach did not advise on is searched afresh): a
new one is admitted to the person's budget (games/core/budget.py, the analysis lane) with its
estimated cost, and refused with `budget.Busy` (nothing asked) beyond it.
"""

from __future__ import annotations

from contextlib import suppress
from datetime import timedelta
from functools import partial

from django.db import IntegrityError, transaction
from django.db.models import OuterRef, Q, Subquery
from django.utils import timezone

from games.core import budget, dispatch, hooks
from games.core import selectors as game_selectors
from games.core.errors import GameError, NotFound
from games.engine.coach import judging
from games.engine.coach.advice import Option
from games.models import Deal, Match, Seat

from . import realtime, selectors
from .models import Advice, ExerciseAttempt, Review, Work

# A request finding a row still pending after this long enqueues its task again (a lost message).
RETRY_SECONDS = 30
# A claim this old belongs to a worker that died.
CLAIM_SECONDS = 90


def after_change(match_id: int, version: int, turn=None) -> None:
    """Called after every change of a table (games.core.services.announce_change). A change that
    worked out what the table waits on says whether anyone there has the coach on."""
    if turn is not None and not turn.coached:
        return
    do_prepare(match_id, version)


def do_prepare(match_id: int, version: int | None = None) -> None:
    """Ask for what the table's coached people need now: advice if one of them is to decide,
    reviews of the deal once it is over. Repeating it is harmless. With `version`, only if the
    table is still at that version (else a later change asks)."""
    if not Seat.objects.filter(match_id=match_id, user__coach_enabled=True).exists():
        return  # nobody at this table has the coach on: no lock, no work
    with transaction.atomic():
        match = _locked(match_id)
        if match is None or (version is not None and match.version != version):
            return
        deal_row = game_selectors.current_deal(match)
        if deal_row is None:
            return  # a table still forming: nothing is dealt yet
        if deal_row.is_over:
            for seat in selectors.coached_seats(match):
                # Not now if the person's share (or the lane) is full: asked again when the
                # table's socket opens, or from the review page's button.
                with suppress(budget.Busy):
                    do_request_review(deal_row, seat=seat)
        else:
            _request_advice(match)


def _locked(match_id: int) -> Match | None:
    # The match row is locked while the position is read, so the position and the version
    # stored with its advice (the seed of the search, the staleness check) belong together.
    return Match.objects.select_for_update().filter(pk=match_id).first()


def do_request_advice(match: Match) -> Advice | None:
    """Ask for advice on the current decision, if a person with the coach on has it and has a
    choice. Returns the advice row (new, pending or ready), or None."""
    with transaction.atomic():
        return _request_advice(_locked(match.pk))


def _request_advice(match: Match) -> Advice | None:
    turn = selectors.coached_turn(match)
    if turn is None or turn.choices < 2:
        return None
    advice, created = _get_or_create(
        Advice, deal=turn.deal, step=turn.step, seat=turn.seat, defaults={"version": turn.version}
    )
    if created or _lost(advice):
        _enqueue_after_commit("advise_position", advice)
    return advice


def do_request_review(deal_row: Deal, *, seat: str) -> Review | None:
    """Ask for the review of a finished deal for one seat (held by a person). The same row if
    it was asked for before; a new one is admitted to the person's budget with its estimated
    cost, else `budget.OverBudget` / `budget.LaneFull` and nothing is asked."""
    if not deal_row.is_over:
        return None
    held = (
        deal_row.match.seats.filter(position=seat, user__isnull=False)
        .select_related("user")
        .first()
    )
    if held is None:
        return None
    with transaction.atomic():
        review = Review.objects.filter(deal=deal_row, seat=seat).first()
        if review is None:
            cost = selectors.review_cost(deal_row, seat)
            budget.admit(held.user, budget.ANALYSIS, cost)  # Busy: nothing asked
            review, created = _get_or_create(
                Review, deal=deal_row, seat=seat, defaults={"cost": cost}
            )
        else:
            created = False
        if created or _lost(review):
            _enqueue_after_commit("review_deal", review)
    return review


def reviews_in_flight(owner_id: int | None) -> list[budget.Work]:
    """The reviews waiting or being computed, each under the person whose seat it reviews (the
    budget's source, registered by the app)."""
    holder = Seat.objects.filter(
        match_id=OuterRef("deal__match_id"), position=OuterRef("seat")
    ).values("user_id")[:1]
    rows = Review.objects.filter(status__in=(Work.PENDING, Work.COMPUTING)).annotate(
        owner_id=Subquery(holder)
    )
    if owner_id is not None:
        rows = rows.filter(owner_id=owner_id)
    return [
        budget.Work(budget.ANALYSIS, owner, cost)
        for owner, cost in rows.values_list("owner_id", "cost")
    ]


def _get_or_create(model, defaults=None, **key):
    try:
        with transaction.atomic():
            return model.objects.get_or_create(**key, defaults=defaults or {})
    except IntegrityError:  # created by a concurrent request between the get and the create
        return model.objects.get(**key), False


def _lost(row) -> bool:
    """A row whose task never started, or whose worker died, asked for again: touch it and say
    so (the caller enqueues its task again)."""
    now = timezone.now()
    stuck = Q(status=Work.PENDING, requested_at__lt=now - timedelta(seconds=RETRY_SECONDS)) | Q(
        status=Work.COMPUTING, started_at__lt=now - timedelta(seconds=CLAIM_SECONDS)
    )
    return bool(type(row).objects.filter(Q(pk=row.pk) & stuck).update(requested_at=now))


def _enqueue_after_commit(task_name: str, row) -> None:
    task = dispatch.task_named(f"games.coach.tasks.{task_name}")
    transaction.on_commit(lambda: dispatch.enqueue(task, row.pk))


def do_claim(model, *, pk: int):
    """Take a pending row (or one whose claim was lost) for computing; None if another worker
    has it or it is done."""
    now = timezone.now()
    lost = Q(status=Work.COMPUTING, started_at__lt=now - timedelta(seconds=CLAIM_SECONDS))
    taken = model.objects.filter(Q(pk=pk) & (Q(status=Work.PENDING) | lost)).update(
        status=Work.COMPUTING, started_at=now
    )
    return model.objects.select_related("deal__match").get(pk=pk) if taken else None


def do_release(row) -> None:
    """Give a claimed row back (its position moved on before it was computed): a review computes
    it later if it needs it."""
    type(row).objects.filter(pk=row.pk, status=Work.COMPUTING).update(
        status=Work.PENDING, started_at=None
    )


def do_store_advice(advice: Advice, *, phase: str, options: list[Option], seconds: float) -> None:
    """Save computed advice and tell the seat's screen, if the table is still at that moment."""
    advice.phase = phase
    advice.options = [option.to_json() for option in options]
    advice.seconds = seconds
    advice.status = Work.READY
    advice.computed_at = timezone.now()
    advice.save(update_fields=["phase", "options", "seconds", "status", "computed_at"])
    transaction.on_commit(
        partial(realtime.tell_seat, advice.deal.match_id, advice.seat, advice.version)
    )


def do_store_review(
    review: Review, *, entries: list[dict], judgements: list[judging.Judgement]
) -> None:
    review.decisions = entries
    review.accuracy = judging.accuracy(judgements)
    for name, column in (
        ("inaccuracy", "inaccuracies"),
        ("mistake", "mistakes"),
        ("blunder", "blunders"),
    ):
        setattr(review, column, sum(1 for j in judgements if j.mark == name))
    review.status = Work.READY
    review.computed_at = timezone.now()
    review.save()
    if review.accuracy is not None:
        _tell_statistics(review)
    version = (
        Match.objects.filter(pk=review.deal.match_id).values_list("version", flat=True).first()
    )
    transaction.on_commit(partial(realtime.tell_seat, review.deal.match_id, review.seat, version))


def _tell_statistics(review: Review) -> None:
    """The statistics page charts the coach's verdict over time (games.stats keeps it per deal)."""
    hooks.review_scored(review.deal_id, review.seat, review.accuracy / 100)


def do_save_computed_advice(
    deal_row: Deal,
    *,
    step: int,
    seat: str,
    version: int,
    phase: str,
    options: list[Option],
    seconds: float,
) -> None:
    """Keep advice a review had to compute itself (the player had the coach off, or moved on
    before it was ready), so that the position is never searched again."""
    advice, _ = _get_or_create(
        Advice, deal=deal_row, step=step, seat=seat, defaults={"version": version}
    )
    if advice.status != Work.READY:
        advice.phase, advice.options, advice.seconds = (
            phase,
            [o.to_json() for o in options],
            seconds,
        )
        advice.status, advice.computed_at = Work.READY, timezone.now()
        advice.save(update_fields=["phase", "options", "seconds", "status", "computed_at"])


# --- Exercises --------------------------------------------------------------------------------


def do_attempt_exercise(user, *, deal_row: Deal, step: int, choice: str) -> ExerciseAttempt:
    """Answer an exercise again: the choice must be legal in the position as the seat saw it;
    it is judged against the coach's stored options for that position (the same as the review
    used)."""
    obs = selectors.exercise_observation(user, deal_row, step)
    if obs is None:
        raise NotFound("This is not one of your exercises.")
    if choice not in obs.legal_actions():
        raise GameError("That is not a legal choice in this position.")
    advice = Advice.objects.filter(
        deal=deal_row, step=step, seat=obs.seat, status=Work.READY
    ).first()
    options = [Option.from_json(o) for o in advice.options] if advice else []
    taken = next((o for o in options if o.action == choice), None)
    if not options or taken is None:
        # The coach did not value this option (it keeps the likeliest discards and pitches).
        mark, loss = "unvalued", 0.0
    else:
        judgement = judging.judge(options[0].figures, taken.figures)
        mark, loss = judgement.mark, judgement.loss
    return ExerciseAttempt.objects.create(
        user=user, deal=deal_row, step=step, seat=obs.seat, choice=choice, mark=mark, loss=loss
    )


# --- The switch -------------------------------------------------------------------------------


def do_set_coach(user, *, enabled: bool, at_table: int | None = None) -> None:
    """Switch the coach on or off for `user`: kept on the user, so every table and device agrees.
    Switched at a table the user plays at, the table's socket redraws the seat's panel, and
    switched on, the coach is asked at once for what that table lacks (the socket then brings
    the advice)."""
    user.coach_enabled = enabled
    user.save(update_fields=["coach_enabled"])
    seat = Seat.objects.filter(match_id=at_table, user=user).select_related("match").first()
    if seat is None or seat.match.status == Match.Status.FORMING:
        return  # not the user's table, or nothing dealt yet: no panel to redraw
    if enabled:
        do_prepare(at_table)
    # The panel is redrawn by the socket, not fetched by the page: every panel then reaches the
    # page through the one socket, in order. A fetched "thinking" panel could arrive after the
    # advice the socket had brought, and hide it until the table moved.
    transaction.on_commit(partial(realtime.tell_seat_switched, at_table, seat.position))
