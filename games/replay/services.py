"""The replay app's only writes: sharing a match by a public link, and storing an import."""

import json
import secrets

from django.db import transaction

from games import engine
from games.engine.records import MATCH_FORMAT, load_json
from games.models import Match
from games.services import Forbidden, GameError, NotFound

from .models import ImportedDeal

# A match record of a long match is a few tens of kilobytes; anything far larger is not a record.
MAX_RECORD_BYTES = 512 * 1024


class RecordRefused(GameError):
    """An uploaded record the engine refused; the message is the engine's own."""


def _players_match_locked(match_id: int, user) -> Match:
    match = Match.objects.select_for_update().filter(pk=match_id).first()
    if match is None:
        raise NotFound("There is no such match.")
    if not match.seats.filter(user=user).exists():
        raise Forbidden("Only the players of this match can share it.")
    return match


def do_share_match(match_id: int, user) -> str:
    """Give the match a public link (its finished deals only); the same link if it has one."""
    with transaction.atomic():
        match = _players_match_locked(match_id, user)
        if not match.share_token:
            match.share_token = secrets.token_urlsafe(16)
            match.save(update_fields=["share_token"])
        return match.share_token


def do_stop_sharing(match_id: int, user) -> None:
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


def do_import_record(owner, data: bytes | str) -> ImportedDeal:
    """Store an uploaded deal or match record to watch as a replay; nothing if it is refused."""
    record, kind = read_record(data)
    return ImportedDeal.objects.create(owner=owner, record=record, kind=kind)


def do_delete_import(import_id: int, user) -> None:
    imported = ImportedDeal.objects.filter(pk=import_id).first()
    if imported is None:
        raise NotFound("There is no such imported record.")
    if imported.owner_id != user.pk:
        raise Forbidden("This record was imported by someone else.")
    imported.delete()
