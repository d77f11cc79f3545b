"""The offline app's only writes: receiving a deal that comes home, checking it in the
background, and storing it once the check found nothing wrong.

Nothing the browser sends is trusted. At once (``read_upload``): the size, strict JSON, the
envelope's shape and bounds (known keys, short texts, no deeper than a deal, bots of one level
as the page seats them), the cards its seeds deal, every action's legality and the score it
claims (``games.engine.offline.check_deal``); a refusal stores nothing. The check's cost is
estimated from the deal (its bots' decisions at their level) and taken from the person's budget
(``games.core.budget``): beyond it the answer is "busy, try later" and nothing is queued. A deal whose
content was checked before (``content_key``) is settled from that check at once. Then, against what came home
before (``do_receive``): the deal's number and the match totals it started from. Last, in a
background task (``check_offline_deal``): every bot move decided again from its seed and its
level's budget; any difference refuses the deal with the reason. Only then are the core's rows
written (``games.core.services.store_offline_deal``), as if the deal had been played here.
"""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta

from django.core import signing
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from games import engine
from games.core import budget, dispatch
from games.core import services as game_services
from games.core.errors import GameError
from games.engine.offline import (
    OfflineRecordError,
    check_cost,
    check_deal,
    content_key,
    first_dealer,
)
from games.models import Match

from .models import OfflineMatch, OfflineUpload

# An envelope is a few kilobytes (a six-player deal with its record about 5 KB).
MAX_UPLOAD_BYTES = 16 * 1024
# A refused upload is kept (without its envelope) this long: the page shows the reason, and the
# deals after it in its match are refused with it; then it goes.
REFUSED_KEEP_DAYS = 7
# An upload still being checked this long after it was received or claimed was lost (its
# task's message, or its worker): the browser's next try of the same deal enqueues it again.
RETRY_SECONDS = 60


class UploadRefused(GameError):
    """A deal that cannot be stored, ever: the message says why (for the offline page)."""


class UploadTooLarge(UploadRefused):
    status = 413


class OtherAccount(GameError):
    """A deal the page's outbox holds for another account than the one signed in."""

    status = 403


# The outbox's token: the page keeps it with each deal it puts in its outbox (the account signed
# in when the deal was played), and the upload sends it back. A browser shared by two people
# once sent one person's offline deals home under whoever signed in next (issue 45).
OUTBOX_SALT = "games.offline.outbox"


def outbox_token(user) -> str:
    return signing.dumps({"u": user.pk, "n": user.username}, salt=OUTBOX_SALT, compress=True)


def check_outbox_token(user, token: str) -> None:
    """Nothing when the deal was played signed in as `user` (or by nobody known: no token);
    OtherAccount naming who played it otherwise."""
    if not token:
        return
    try:
        played_by = signing.loads(token, salt=OUTBOX_SALT)
    except signing.BadSignature:
        raise OtherAccount(
            "This deal's outbox entry was not made by this site; not sent."
        ) from None
    if played_by.get("u") != user.pk:
        raise OtherAccount(
            f"This deal was played signed in as {played_by.get('n', 'another account')}: sign in "
            "as them to bring it home. It stays in this browser's outbox."
        )


class UploadNotYet(GameError):
    """A deal that may come home later: an earlier one of its match must come first."""

    status = 409


def envelope_digest(envelope: dict) -> str:
    return hashlib.sha256(
        json.dumps(envelope, sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()


def _no_constants(name: str):
    raise ValueError(f"{name} is not a JSON number")


def read_upload(body: bytes) -> dict:
    """The envelope in a request's body, if it is one the engine accepts; UploadRefused
    (naming the first problem) otherwise."""
    if len(body) > MAX_UPLOAD_BYTES:
        raise UploadTooLarge(
            f"The upload is larger than {MAX_UPLOAD_BYTES // 1024} KB; a deal is far smaller."
        )
    try:
        envelope = json.loads(body.decode("utf-8"), parse_constant=_no_constants)
    except UnicodeDecodeError:
        raise UploadRefused("The upload is not UTF-8 text.") from None
    except RecursionError:
        raise UploadRefused("The upload is not JSON: nested too deeply.") from None
    except ValueError as error:
        raise UploadRefused(f"The upload is not JSON: {error}") from None
    try:
        check_deal(envelope)
    except OfflineRecordError as error:
        raise UploadRefused(f"This deal cannot be stored: {error}") from None
    return envelope


def do_receive(owner, *, envelope: dict) -> OfflineUpload:
    """Take a checked envelope in for the background check, or find it again: the same deal
    sent twice (the same id, the same content) is the same upload; another deal under an id
    already used is refused. Raises UploadNotYet when an earlier deal of the match must come
    home first, UploadRefused when it never can."""
    digest = envelope_digest(envelope)
    checked = check_deal(envelope)
    key = content_key(checked)
    with transaction.atomic():
        existing = OfflineUpload.objects.filter(owner=owner, client_id=envelope["id"]).first()
        if existing is not None:
            return _repeat(existing, digest)
        forget_old_refusals(owner)
        _check_place(owner, envelope)
        known = known_outcome(key)
        cost = 0.0 if known is not None else check_cost(checked)
        if known is None:
            budget.admit(owner, budget.CHECKS, cost)  # OverBudget / LaneFull: nothing stored
        try:
            with transaction.atomic():
                upload = OfflineUpload.objects.create(
                    owner=owner,
                    client_id=envelope["id"],
                    match_key=envelope["match"],
                    number=envelope["number"],
                    envelope=envelope,
                    digest=digest,
                    content_key=key,
                    cost=cost,
                )
        except IntegrityError:  # the same id sent twice at once: the other request stored it
            return _repeat(OfflineUpload.objects.get(owner=owner, client_id=envelope["id"]), digest)
        if known is not None:
            # Checked before (this person's or anyone's same deal): the same outcome, no search.
            return do_settle(upload.pk, mismatches=[known] if known else [], seconds=0.0)
        transaction.on_commit(lambda: _enqueue_check(upload.pk), robust=True)
    return upload


def known_outcome(key: str) -> str | None:
    """What the check of a deal with this content found before (see ``bot_mismatch``), or None
    if it was never checked."""
    return (
        OfflineUpload.objects.filter(content_key=key, bot_mismatch__isnull=False)
        .values_list("bot_mismatch", flat=True)
        .first()
    )


def forget_old_refusals(owner) -> int:
    """Delete the person's refused uploads older than ``REFUSED_KEEP_DAYS``."""
    before = timezone.now() - timedelta(days=REFUSED_KEEP_DAYS)
    deleted, _ = OfflineUpload.objects.filter(
        owner=owner, status=OfflineUpload.Status.REFUSED, checked_at__lt=before
    ).delete()
    return deleted


def in_flight(owner_id: int | None) -> list[budget.Work]:
    """The checks waiting or running (the budget's source, registered by the app)."""
    rows = OfflineUpload.objects.filter(status=OfflineUpload.Status.CHECKING)
    if owner_id is not None:
        rows = rows.filter(owner_id=owner_id)
    return [
        budget.Work(budget.CHECKS, owner, cost)
        for owner, cost in rows.values_list("owner_id", "cost")
    ]


def _repeat(upload: OfflineUpload, digest: str) -> OfflineUpload:
    if upload.digest != digest:
        raise UploadRefused("This deal's id was already used for another deal; nothing was stored.")
    if upload.status == OfflineUpload.Status.CHECKING and _lost(upload):
        transaction.on_commit(lambda: _enqueue_check(upload.pk), robust=True)
    return upload


def _lost(upload: OfflineUpload) -> bool:
    """An upload whose check never started, or whose worker died, long enough ago."""
    before = timezone.now() - timedelta(seconds=RETRY_SECONDS)
    stuck = Q(started_at__isnull=True, received_at__lt=before) | Q(started_at__lt=before)
    return OfflineUpload.objects.filter(Q(pk=upload.pk) & stuck).exists()


def _check_place(owner, envelope: dict) -> None:
    """The deal comes next in its match: every earlier deal is home, and it starts from the
    totals they add up to."""
    key, number = envelope["match"], envelope["number"]
    earlier = OfflineUpload.objects.filter(owner=owner, match_key=key, number__lt=number)
    refused = earlier.filter(status=OfflineUpload.Status.REFUSED).order_by("number").first()
    if refused is not None:
        raise UploadRefused(
            f"Deal {refused.number} of this match was refused, so the deals after it cannot "
            "be checked; nothing was stored."
        )
    waiting = earlier.filter(status=OfflineUpload.Status.CHECKING).order_by("number").first()
    if waiting is not None:
        raise UploadNotYet(f"Deal {waiting.number} of this match is still being checked.")
    link = OfflineMatch.objects.select_related("match").filter(owner=owner, key=key).first()
    home = link.match.deals.count() if link else 0
    if number <= home:
        raise UploadRefused(f"Deal {number} of this match came home already.")
    if number > home + 1:
        raise UploadNotYet(f"Deal {home + 1} of this match has not come home yet.")
    _check_continues(link.match if link else None, envelope)


def _check_continues(match: Match | None, envelope: dict) -> None:
    """The deal belongs to the match stored so far: the same rules, bots and score."""
    checked = check_deal(envelope)
    rules = checked.rules
    if match is None:
        expected = dict.fromkeys(rules.sides, 0)
    else:
        if match.status != Match.Status.OFFLINE:
            raise UploadRefused("This match is over; a deal after its end cannot be stored.")
        if engine.Rules.from_spec(match.rules) != rules:
            raise UploadRefused("This deal's rules are not its match's.")
        bots = {s.position: s.bot_level for s in match.seats.all() if s.is_bot}
        if bots != checked.bots:
            raise UploadRefused("This deal's bots are not its match's.")
        expected = dict(match.totals)
    if envelope["totals_before"] != expected:
        raise UploadRefused(
            "The match's score before this deal is not what its deals that came home add up to "
            f"({', '.join(f'{side} {points}' for side, points in expected.items())})."
        )


def _enqueue_check(upload_id: int) -> None:
    # The task is registered by OfflineConfig.ready(): it imports this module.
    dispatch.enqueue(dispatch.task_named("games.offline.tasks.check_offline_deal"), upload_id)


def do_claim(upload_id: int) -> OfflineUpload | None:
    """Take an upload for its check: None if another worker has it or it is settled."""
    now = timezone.now()
    lost = now - timedelta(seconds=RETRY_SECONDS)
    taken = (
        OfflineUpload.objects.filter(pk=upload_id, status=OfflineUpload.Status.CHECKING)
        .filter(started_at__isnull=True)
        .update(started_at=now)
    ) or (
        OfflineUpload.objects.filter(
            pk=upload_id, status=OfflineUpload.Status.CHECKING, started_at__lt=lost
        ).update(started_at=now)
    )
    return OfflineUpload.objects.get(pk=upload_id) if taken else None


def do_settle(upload_id: int, *, mismatches: list[str], seconds: float) -> OfflineUpload:
    """Store the deal if its bots' moves were all found again, else refuse it with the first
    difference. Its place in the match is checked again, under the match's lock."""
    with transaction.atomic():
        upload = OfflineUpload.objects.select_for_update().get(pk=upload_id)
        if upload.status != OfflineUpload.Status.CHECKING:
            return upload
        upload.check_seconds = seconds
        upload.checked_at = timezone.now()
        upload.bot_mismatch = mismatches[0] if mismatches else ""
        if mismatches:
            upload.status = OfflineUpload.Status.REFUSED
            upload.reason = (
                f"A bot's move is not what that bot plays from its seed: {mismatches[0]}. "
                "Nothing was stored."
            )
        else:
            try:
                with transaction.atomic():
                    upload.deal = _store(upload)
                upload.status = OfflineUpload.Status.ACCEPTED
            except GameError as error:
                upload.status = OfflineUpload.Status.REFUSED
                upload.reason = str(error)
        # Settled: the deal is the core's rows now, or refused; the envelope is not kept.
        upload.envelope = {}
        upload.save(
            update_fields=[
                "status",
                "reason",
                "deal",
                "check_seconds",
                "checked_at",
                "bot_mismatch",
                "envelope",
            ]
        )
    return upload


def _store(upload: OfflineUpload):
    envelope = upload.envelope
    checked = check_deal(envelope)
    link = OfflineMatch.objects.filter(owner=upload.owner, key=upload.match_key).first()
    if link is None:
        if envelope["number"] != 1:
            raise UploadRefused(
                f"Deal 1 of this match has not come home; deal {upload.number} cannot be stored."
            )
        match = game_services.begin_offline_match(
            checked.rules,
            upload.owner,
            first_dealer(checked.rules, envelope["match_seed"]),
            checked.bots,
        )
        link = OfflineMatch.objects.create(owner=upload.owner, key=upload.match_key, match=match)
    match = game_services.lock_match(link.match_id)
    if match.deals.count() + 1 != upload.number:
        raise UploadRefused(f"Deal {upload.number} does not come next in its match.")
    _check_continues(match, envelope)
    return game_services.store_offline_deal(match, checked.deal, checked.seat)
