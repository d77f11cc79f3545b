"""Everything the site keeps about a person, as one zip file they can download ("Download my data").

- `profile.json`: the account, its settings, signed-in sessions, mutes and blocks;
- `matches/match-<id>.json`: every match the person sat at, as the site's match record
  (`setback-match/1`, docs/rules.md section 4), built by the replay's own export
  (`games.replay.selectors.match_record`): the same file as the match page's record.json, which
  the importer reads back. It holds the finished deals, every card of them;
- `deals-in-play/match-<id>-deal-<n>.json`: a deal still being played, only as the person's
  seat sees it (the engine's observation: their own hand, the auction, the cards played),
  never the other hands or the stock, exactly as the table shows it;
- `statistics.json`: the overall rating, one line per rated match and per deal played;
- `chat.json`, `exercises.json`, `imports/import-<id>.json`: what they wrote, practised and uploaded;
- `offline-uploads.json`: the deals sent home from the offline page, their state and reason.
- `social.json`: friends and requests, notifications and the kinds mailed, clubs and club requests.
- `events.json`: the Setback nights entered, with the place and the sheet round by round.

A read: it changes nothing. The person is the one signed in; there is no way to name another.
"""

import io
import json
import zipfile
from datetime import datetime

from django.utils import timezone

from games.coach.models import ExerciseAttempt
from games.core import selectors as game_selectors
from games.events import selectors as event_selectors
from games.models import ChatMessage, Match, PersonalBlock
from games.offline.models import OfflineUpload
from games.replay.models import ImportedDeal
from games.replay.selectors import match_record, seat_names
from games.social import selectors as social
from games.stats.models import DealSummary, MatchRecord, Rating

from .models import LoginSession

SEAT_VIEW_FORMAT = "setback-seat-view/1"

README = """Your data from Setback, as of {now}.

profile.json        your account: name, e-mail, settings, signed-in sessions, mutes and blocks
matches/            every match you sat at, as a match record (format setback-match/1) with its
                    finished deals: the file a match page's "record.json" gives, which the
                    site's importer (History > Import) and `python -m games.engine match FILE` read
deals-in-play/      a deal still being played, as your seat sees it: your hand, the auction and
                    the cards played so far (the other hands are not yours to see until it ends)
statistics.json     your overall rating, rated matches and one line per deal you played
chat.json           what you wrote at tables
exercises.json      your answers to the coach's exercises
imports/            the records you imported, as you uploaded them
offline-uploads.json the deals you sent home from the offline page and what their check found
social.json         your friends and friend requests, notifications (and which are mailed),
                    the clubs you belong to with your role, invitations and requests to join
events.json         the Setback nights you entered: your place and your sheet, round by round
"""


def _when(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _json(data) -> bytes:
    return json.dumps(data, indent=1, ensure_ascii=False, default=str).encode()


def profile(user) -> dict:
    blocks = PersonalBlock.objects.filter(owner=user).select_related("other")
    return {
        "username": user.username,
        "email": user.email,
        "email_waiting_for_confirmation": user.email_pending,
        "date_joined": _when(user.date_joined),
        "last_login": _when(user.last_login),
        "settings": {
            "coach_enabled": user.coach_enabled,
            "history_public": user.history_public,
            "sound_muted": user.sound_muted,
            "sound_volume": user.sound_volume,
            "text_table": user.text_table,
            "last_choices": user.last_choices,
        },
        "sessions": [
            {"signed_in": _when(s.created_at), "browser": s.user_agent, "address": s.address}
            for s in LoginSession.objects.filter(user=user)
        ],
        "muted_or_blocked": [
            {"player": b.other.shown_name, "kind": b.kind, "since": _when(b.created_at)}
            for b in blocks
        ],
    }


def statistics(user) -> dict:
    rating = Rating.objects.filter(user=user).first()
    return {
        "rating": None
        if rating is None
        else {
            "shown": rating.shown,
            "mu": rating.mu,
            "sigma": rating.sigma,
            "matches": rating.matches,
        },
        "rated_matches": list(
            MatchRecord.objects.filter(user=user)
            .order_by("finished_at")
            .values(
                "match_id",
                "side",
                "preset",
                "cutthroat",
                "opponents",
                "opponent_levels",
                "won",
                "mu_before",
                "mu",
                "sigma",
                "finished_at",
            )
        ),  # fmt: skip
        "deals": list(
            DealSummary.objects.filter(user=user)
            .order_by("finished_at", "deal_id")
            .values(
                "match_id",
                "deal_id",
                "seat",
                "side",
                "preset",
                "cutthroat",
                "opponents",
                "opponent_levels",
                "thrown_in",
                "pitcher",
                "bid",
                "made",
                "set_pitcher",
                "took_high",
                "took_low",
                "took_jack",
                "took_game",
                "jack_in_play",
                "score_change",
                "coach_accuracy",
                "finished_at",
            )
        ),  # fmt: skip
    }


def social_data(user) -> dict:
    incoming, outgoing = social.pending_requests(user.pk)
    return {
        "friends": [
            {"player": row.name, "online": row.online} for row in social.friend_rows(user.pk)
        ],
        "friend_requests_to_you": [p.username for p in incoming],
        "friend_requests_you_sent": [p.username for p in outgoing],
        "notifications": [
            {
                "kind": n.kind,
                "text": n.text,
                "at": _when(n.created_at),
                "read": _when(n.read_at),
            }
            for n in social.notifications(user.pk, limit=None)
        ],
        "mailed_kinds": sorted(social.mail_choices(user.pk)),
        "clubs": [
            {"club": m.club.name, "role": m.role, "since": _when(m.joined_at)}
            for m in social.my_clubs(user)
        ],
        "club_requests": [
            {"club": r.club.name, "kind": r.kind, "at": _when(r.created_at)}
            for r in social.requests_of(user)
        ],
    }


def seat_view(match: Match, seat: str) -> dict | None:
    """The deal in play at `match`, as `seat` sees it now; None when no deal is in play."""
    deal_row = game_selectors.current_deal(match)
    if deal_row is None or deal_row.is_over:
        return None
    state = game_selectors.current_state(deal_row)
    return {
        "format": SEAT_VIEW_FORMAT,
        "meta": {
            "site": "setback",
            "match": match.pk,
            "deal": deal_row.number,
            "seat": seat,
            "players": seat_names(match),
        },
        "view": state.observation(seat, match_totals=dict(match.totals)).to_json(),
    }


def _matches_of(user):
    return Match.objects.filter(seats__user=user).order_by("created_at", "pk").distinct()


def write_zip(user, out) -> None:
    """Write the person's data as a zip file to the binary stream `out`."""
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("README.txt", README.format(now=timezone.now().isoformat()))
        archive.writestr("profile.json", _json(profile(user)))
        archive.writestr("statistics.json", _json(statistics(user)))
        archive.writestr("social.json", _json(social_data(user)))
        archive.writestr("events.json", _json(event_selectors.person_data(user)))
        for match in _matches_of(user).iterator():
            seat = match.seats.get(user=user).position
            if match.deals.filter(phase="over").exists():
                archive.writestr(f"matches/match-{match.pk}.json", _json(match_record(match)))
            if match.status == Match.Status.PLAYING:
                view = seat_view(match, seat)
                if view is not None:
                    name = f"deals-in-play/match-{match.pk}-deal-{view['meta']['deal']}.json"
                    archive.writestr(name, _json(view))
        archive.writestr(
            "chat.json",
            _json(
                [
                    {"match": line.match_id, "at": _when(line.created_at), "text": line.text}
                    for line in ChatMessage.objects.filter(user=user).order_by("created_at")
                ]
            ),
        )
        archive.writestr(
            "exercises.json",
            _json(
                list(
                    ExerciseAttempt.objects.filter(user=user)
                    .order_by("created_at")
                    .values("deal_id", "step", "seat", "choice", "mark", "loss", "created_at")
                )
            ),
        )
        for imported in ImportedDeal.objects.filter(owner=user):
            archive.writestr(f"imports/import-{imported.pk}.json", _json(imported.record))
        archive.writestr("offline-uploads.json", _json(offline_uploads(user)))


def offline_uploads(user) -> list[dict]:
    """The deals the person sent home from the offline page, as the site keeps them (the deals
    accepted are also in matches/, as the match's deals)."""
    return [
        {
            "id": upload.client_id,
            "match": upload.match_key,
            "number": upload.number,
            "status": upload.status,
            "reason": upload.reason,
            "received_at": _when(upload.received_at),
            "checked_at": _when(upload.checked_at),
            "site_match": upload.deal.match_id if upload.deal else None,
            "envelope": upload.envelope or None,
        }
        for upload in OfflineUpload.objects.filter(owner=user)
        .select_related("deal")
        .order_by("received_at", "pk")
    ]


def data_zip(user) -> bytes:
    buffer = io.BytesIO()
    write_zip(user, buffer)
    return buffer.getvalue()


def filename(user) -> str:
    return f"setback-data-{user.username}-{timezone.now():%Y%m%d}.zip"
