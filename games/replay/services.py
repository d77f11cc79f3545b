"""The replay app's only writes: sharing a match by a public link, storing an import, and
asking for (and storing) the face-up analysis of a step of a finished deal."""

import json
import secrets
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from games import engine
from games.core import budget, dispatch
from games.core import selectors as game_selectors
from games.core.errors import Forbidden, GameError, NotFound
from games.engine.records import MATCH_FORMAT, load_json
from games.engine.solver import StepAnalysis
from games.models import Match

from . import selectors
from .models import FaceUpAnalysis, ImportedDeal

# A match record of a long match is a few tens of kilobytes; anything far larger is not a record.
MAX_RECORD_BYTES = 512 * 1024


class RecordRefused(GameError):
    """An uploaded record the engine refused; the message is the engine's own."""


def _players_match_locked(match_id: int, user) -> Match:
    return game_selectors.players_match(match_id, user, lock=True)[0]


def do_share_match(match_id: int, *, user) -> str:
    """Give the match a public link (its finished deals only); the same link if it has one."""
    with transaction.atomic():
        match = _players_match_locked(match_id, user)
        if match.closes_at is not None and timezone.now() < match.closes_at:
            # A daily deal's cards are everyone's puzzle until the day is over.
            raise GameError("A daily deal can be shared once its day is over (midnight UTC).")
        if not match.share_token:
            match.share_token = secrets.token_urlsafe(16)
            match.save(update_fields=["share_token"])
        return match.share_token


def do_stop_sharing(match_id: int, *, user) -> None:
    """Withdraw the public link: it then leads nowhere."""
    with transaction.atomic():
        match = _players_match_locked(match_id, user)
        if match.share_token:
            match.share_token = None
            match.save(update_fields=["share_token"])


def read_record(data: bytes | str) -> tuple[dict, str]:
    """The record in `data` and its kind, if the engine accepts it; RecordRefused otherwise."""
    size = len(data.encode("utf-8", "replace")) if isinstance(data, str) else len(data)
    if size > MAX_RECORD_BYTES:
        raise RecordRefused(f"larger than {MAX_RECORD_BYTES // 1024} KB; a record is far smaller")
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise RecordRefused("not UTF-8 text") from None
    try:
        record = load_json(data)
        if isinstance(record, dict) and record.get("format") == MATCH_FORMAT:
            engine.match_from_record(record)
            kind = ImportedDeal.Kind.MATCH
        else:
            engine.deal_from_record(record)
            kind = ImportedDeal.Kind.DEAL
    except ValueError as error:  # the engine's errors are all ValueErrors (RecordError first)
        raise RecordRefused(str(error)) from error
    except RecursionError:
        raise RecordRefused("invalid JSON: nested too deeply") from None
    try:
        # The engine ignores `meta`, but the database stores it: strict JSON only.
        json.dumps(record, allow_nan=False)
    except ValueError:
        raise RecordRefused("invalid JSON: NaN and Infinity are not JSON numbers") from None
    return record, kind


def do_import_record(owner, *, data: bytes | str) -> ImportedDeal:
    """Store an uploaded deal or match record to watch as a replay; nothing if it is refused."""
    record, kind = read_record(data)
    return ImportedDeal.objects.create(owner=owner, record=record, kind=kind)


def do_delete_import(import_id: int, *, user) -> None:
    imported = ImportedDeal.objects.filter(pk=import_id).first()
    if imported is None:
        raise NotFound("There is no such imported record.")
    if imported.owner_id != user.pk:
        raise Forbidden("This record was imported by someone else.")
    imported.delete()


# --- Face-up analysis -----------------------------------------------------------------------

# A request finding a row still pending this long enqueues its task again (a lost message); a
# claim this old belongs to a worker that died.
FACEUP_RETRY_SECONDS = 30
FACEUP_CLAIM_SECONDS = 90
# Each person has at most this many steps being solved at once (the next steps solved ahead
# included): one person asking for a thousand steps waits for their own, and no one else does.
FACEUP_IN_FLIGHT_PER_PERSON = 3
# Asking for one step also asks for the next few play steps, so stepping on finds them solved.
FACEUP_AHEAD = 2

_IN_FLIGHT = (FaceUpAnalysis.Status.PENDING, FaceUpAnalysis.Status.COMPUTING)
_SOLVED = (FaceUpAnalysis.Status.READY, FaceUpAnalysis.Status.TOO_LARGE)


class AnalysisBusy(GameError):
    """The person already has as many steps being solved as they may: this one waits."""

    status = 429


def do_request_faceup(deal_row, *, step: int, user) -> FaceUpAnalysis:
    """Ask for the face-up analysis of one step of a finished deal (the caller checked the deal
    is over and the step is a play decision), and for the next play steps ahead of it. The same
    row if it was asked for before; a position solved before (in this deal or a practice copy
    of it) is answered at once; a new one is enqueued after commit. `AnalysisBusy` when the
    person already has their share being solved."""
    if not deal_row.is_over:
        raise NotFound("This deal is still being played.")
    row = _request_faceup(deal_row, step, user)
    if row is None:
        raise AnalysisBusy(
            "Your earlier requests are still being worked on (or the site has too much of this "
            "work waiting); this step starts as soon as there is room."
        )
    for later in selectors.play_steps_after(deal_row, step)[:FACEUP_AHEAD]:
        _request_faceup(deal_row, later, user)
    return row


def _request_faceup(deal_row, step: int, user) -> FaceUpAnalysis | None:
    row = FaceUpAnalysis.objects.filter(deal=deal_row, step=step).first()
    if row is not None:
        _enqueue_if_lost(row)
        return row
    key = selectors.position_key(deal_row, step)
    solved = FaceUpAnalysis.objects.filter(position_key=key, status__in=_SOLVED).first()
    fields = {"position_key": key, "requested_by": user}
    if solved is not None:
        fields.update(
            status=solved.status,
            seat=solved.seat,
            lines=solved.lines,
            exact_from_trick=solved.exact_from_trick,
            nodes=0,
            seconds=0.0,
        )
    # The admission and the row in one transaction: the person's row stays locked until the new
    # step counts in their budget.
    with transaction.atomic():
        if solved is None and not _admitted(user):
            return None
        try:
            with transaction.atomic():
                row = FaceUpAnalysis.objects.create(deal=deal_row, step=step, **fields)
        except IntegrityError:  # a concurrent request created it first
            return FaceUpAnalysis.objects.get(deal=deal_row, step=step)
    if row.status == FaceUpAnalysis.Status.PENDING:
        transaction.on_commit(lambda: _enqueue_faceup(row.pk), robust=True)
    return row


# About what one step's solve costs at most (MAX_NODES: about four seconds of one core).
FACEUP_STEP_SECONDS = 4.0


def _admitted(user) -> bool:
    """Room for one more step to solve: the person's own cap on steps, then their budget of
    expensive work with the offline checks, coach reviews and downloads, and the analysis lane's
    bound (games/core/budget.py). No room: the step waits (the panel asks again)."""
    if _in_flight(user) >= FACEUP_IN_FLIGHT_PER_PERSON:
        return False
    try:
        budget.admit(user, budget.ANALYSIS, FACEUP_STEP_SECONDS)  # in the caller's transaction
    except budget.Busy:
        return False
    return True


def faceup_in_flight(owner_id: int | None) -> list[budget.Work]:
    """The steps waiting or being solved (the budget's source, registered by the app)."""
    rows = FaceUpAnalysis.objects.filter(status__in=_IN_FLIGHT)
    if owner_id is not None:
        rows = rows.filter(requested_by_id=owner_id)
    return [
        budget.Work(budget.ANALYSIS, owner, FACEUP_STEP_SECONDS)
        for owner in rows.values_list("requested_by_id", flat=True)
    ]


def _in_flight(user) -> int:
    return FaceUpAnalysis.objects.filter(requested_by=user, status__in=_IN_FLIGHT).count()


def _enqueue_if_lost(row: FaceUpAnalysis) -> None:
    now = timezone.now()
    lost = Q(
        status=FaceUpAnalysis.Status.PENDING,
        requested_at__lt=now - timedelta(seconds=FACEUP_RETRY_SECONDS),
    ) | Q(
        status=FaceUpAnalysis.Status.COMPUTING,
        started_at__lt=now - timedelta(seconds=FACEUP_CLAIM_SECONDS),
    )
    if FaceUpAnalysis.objects.filter(Q(pk=row.pk) & lost).update(requested_at=now):
        transaction.on_commit(lambda: _enqueue_faceup(row.pk), robust=True)


def _enqueue_faceup(row_id: int) -> None:
    # The task is registered by ReplayConfig.ready(): it imports this module.
    dispatch.enqueue(dispatch.task_named("games.replay.tasks.analyse_faceup"), row_id)


def do_claim_faceup(row_id: int) -> FaceUpAnalysis | None:
    """Take a pending row (or one whose worker died) for computing; None if taken or done."""
    now = timezone.now()
    lost = Q(
        status=FaceUpAnalysis.Status.COMPUTING,
        started_at__lt=now - timedelta(seconds=FACEUP_CLAIM_SECONDS),
    )
    taken = FaceUpAnalysis.objects.filter(
        Q(pk=row_id) & (Q(status=FaceUpAnalysis.Status.PENDING) | lost)
    ).update(status=FaceUpAnalysis.Status.COMPUTING, started_at=now)
    return FaceUpAnalysis.objects.select_related("deal__match").get(pk=row_id) if taken else None


def do_store_faceup(row: FaceUpAnalysis, *, solved: StepAnalysis) -> None:
    """Keep a solved step (every legal card's exact value), or that it is too large to solve
    and from which trick on it is exact. Every other row waiting on the same position (a
    practice copy's) gets the same answer."""
    if solved.analysis is None:
        fields = {
            "seat": solved.seat,
            "exact_from_trick": solved.exact_from_trick,
            "status": FaceUpAnalysis.Status.TOO_LARGE,
        }
    else:
        fields = {
            "seat": solved.analysis.seat,
            "lines": [
                {
                    "card": line.card,
                    "points": line.points,
                    "takers": line.takers,
                    "score": line.score,
                    "made": line.made,
                    "best": line.best,
                }
                for line in solved.analysis.lines
            ],
            "nodes": solved.analysis.nodes,
            "status": FaceUpAnalysis.Status.READY,
        }
    # An update, not a save: a deal removed while its step was being solved leaves nothing to keep.
    FaceUpAnalysis.objects.filter(pk=row.pk).update(seconds=solved.seconds, **fields)
    if row.position_key:
        FaceUpAnalysis.objects.filter(
            position_key=row.position_key, status=FaceUpAnalysis.Status.PENDING
        ).update(seconds=0.0, **fields)
