"""Every write of a person's account: preferences, e-mail, sessions, password, leaving.

The coach's switch is the coach's (games.coach.services). A refused request raises
`AccountError`, whose message is for the person and which changes nothing.

Deleting an account reaches into the features a person leaves traces in (tables, the lobby,
imports, exercises, statistics): this module sits above them (the accounts contract in
pyproject.toml), the one place that knows all of a person's data, as `accounts.export` is for
reading it.
"""

import contextlib
import json
import re
from importlib import import_module

from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.conf import settings
from django.contrib.admin.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.core import signing
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import F, Q, TextField
from django.db.models.functions import Cast
from django.urls import reverse
from django.utils import timezone

from games.coach.models import ExerciseAttempt
from games.core import mail
from games.core.errors import GameError
from games.core.sockets import end_sockets
from games.daily import services as daily
from games.events import services as events
from games.lobby.models import PairingTicket
from games.models import ChatMessage, Match, PersonalBlock, Seat
from games.offline.models import OfflineMatch, OfflineUpload
from games.replay.models import ImportedDeal
from games.social import services as social
from games.stats.models import Rating
from games.tables import services as tables

from . import downloads
from .models import FORMER_PLAYER, LoginSession, User

EMAIL_MAX_LENGTH = 254  # RFC 5321's limit for a whole address
EMAIL_CONFIRM_SALT = "accounts.confirm-email"


class AccountError(Exception):
    """A refused request; the message is written for the person who made it."""

    status = 400

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


# --- Preferences -------------------------------------------------------------------------------


def do_set_history_public(user, *, public: bool) -> None:
    """Whether the player page shows this player's ratings, record and recent matches."""
    user.history_public = public
    user.save(update_fields=["history_public"])


def do_set_sound(user, *, muted: bool, volume: int) -> None:
    """The table's sounds: muted or not, and their volume from 0 to 100 (checked by the form)."""
    if not 0 <= volume <= 100:
        raise AccountError("The volume goes from 0 to 100.")
    user.sound_muted = muted
    user.sound_volume = volume
    user.save(update_fields=["sound_muted", "sound_volume"])


def do_set_text_table(user, *, on: bool) -> None:
    """The table as text, in reading order, rather than drawn on the felt."""
    user.text_table = on
    user.save(update_fields=["text_table"])


# --- E-mail ------------------------------------------------------------------------------------


def clean_email(address: str) -> str:
    """The address as stored (the domain in lower case), or AccountError saying what is wrong."""
    address = (address or "").strip()
    if len(address) > EMAIL_MAX_LENGTH:
        raise AccountError(f"An e-mail address has at most {EMAIL_MAX_LENGTH} characters.")
    try:
        validate_email(address)
    except ValidationError:
        raise AccountError(
            "That is not an e-mail address (it should look like name@example.com)."
        ) from None
    local, _, domain = address.rpartition("@")
    return f"{local}@{domain.lower()}"


def do_request_email(user, *, address: str, site_url: str) -> str:
    """Ask to use `address`: it waits in `email_pending` until the link mailed to it is
    followed. The confirmed address, if any, stays in use meanwhile. Returns the address."""
    address = clean_email(address)
    if address.lower() == user.email.lower():
        raise AccountError("That is already your address.")
    user.email_pending = address
    user.save(update_fields=["email_pending"])
    if mail.count_one_for(address, mail.account_key(user)):
        token = signing.dumps({"user": user.pk, "email": address}, salt=EMAIL_CONFIRM_SALT)
        link = site_url + reverse("confirm_email", args=[token])
        mail.send_after_commit(
            mail.build(
                "accounts/email/confirm",
                address,
                {"name": user.username, "link": link, "days": settings.EMAIL_CONFIRM_DAYS},
            )
        )
    return address


def do_remove_email(user) -> None:
    """Forget the confirmed address and any address waiting: no reset mail can reach the
    person any more."""
    user.email = ""
    user.email_pending = ""
    user.save(update_fields=["email", "email_pending"])


def read_email_token(token: str) -> tuple[User, str]:
    """The account and the address a confirmation link names, if the link still holds."""
    try:
        data = signing.loads(
            token, salt=EMAIL_CONFIRM_SALT, max_age=settings.EMAIL_CONFIRM_DAYS * 86400
        )
    except signing.SignatureExpired:
        raise AccountError(
            "This link has expired. Ask for a new one on your account page.", status=410
        ) from None
    except signing.BadSignature:
        raise AccountError(
            "This link is not a valid confirmation link. Copy the whole link from the mail, "
            "or ask for a new one on your account page.",
            status=404,
        ) from None
    user = User.objects.filter(pk=data.get("user"), left_at__isnull=True).first()
    address = data.get("email") or ""
    if user is None or user.email_pending.lower() != address.lower():
        raise AccountError(
            "This link has already been used, or a newer one replaced it. Your account page "
            "shows the address in use.",
            status=410,
        )
    return user, address


def do_confirm_email(token: str, *, signed_in=None) -> User:
    """Make the address a link names the account's address. Works once: it must still be the
    address waiting. A person signed in to another account is refused (the link is not theirs).
    """
    with transaction.atomic():
        user, address = read_email_token(token)
        user = User.objects.select_for_update().get(pk=user.pk)
        if signed_in is not None and signed_in.is_authenticated and signed_in.pk != user.pk:
            raise AccountError(
                "This link confirms the address of another account. Log out, then open it again.",
                status=403,
            )
        if user.email_pending.lower() != address.lower():
            raise AccountError("This link has already been used.", status=410)
        previous = user.email
        user.email = address
        user.email_pending = ""
        user.save(update_fields=["email", "email_pending"])
        if previous and previous.lower() != address.lower() and mail.count_one_for(previous):
            # The old mailbox hears of it: if someone else made the change, its owner knows.
            mail.send_after_commit(
                mail.build(
                    "accounts/email/changed", previous, {"name": user.username, "new": address}
                )
            )
    return user


# --- Sessions ----------------------------------------------------------------------------------


def _session_store(session_key: str | None = None):
    return import_module(settings.SESSION_ENGINE).SessionStore(session_key=session_key)


def do_note_login(user, *, session_key: str, user_agent: str, address: str | None) -> None:
    """A browser signed in: listed on the account page until it logs out or expires."""
    LoginSession.objects.update_or_create(
        session_key=session_key,
        defaults={"user": user, "user_agent": (user_agent or "")[:300], "address": address},
    )


def do_note_logout(session_key: str | None) -> None:
    if session_key:
        LoginSession.objects.filter(session_key=session_key).delete()


def do_note_new_session_key(old_key: str | None, *, new_key: str | None) -> None:
    """Django gave the signed-in browser a new session key (after a password change)."""
    if old_key and new_key and old_key != new_key:
        LoginSession.objects.filter(session_key=old_key).update(session_key=new_key)


def _end_sessions(user, keep: str | None = None) -> None:
    """Delete the user's listed sessions but `keep` from the session store, and their rows."""
    for row in user.login_sessions.exclude(session_key=keep or ""):
        _session_store(row.session_key).delete()
        row.delete()


def do_after_password_change(user, *, current_session_key: str | None = None) -> None:
    """A new password (changed, or reset by a link): every other session of the user is over.

    Django already refuses them (each holds a hash of the old password); this also deletes
    them, and tells the user's open sockets to check their own session and close (see
    games.core.sockets), as a password change has done since sockets were added."""
    _end_sessions(user, keep=current_session_key)
    end_sockets(user.pk)


def do_lift_login_lockout(user) -> None:
    """A password set through a reset link proves the person holds the account: the wrong
    guesses counted against their name (a lockout, or one coming) are forgotten."""
    AccessAttempt.objects.filter(username__iexact=user.username).delete()


def do_sign_out_everywhere(user) -> None:
    """End every session of the user, this one too, and every open socket.

    The epoch is part of each session's check (User._get_session_auth_hash), so sessions no
    list knows of (started before sessions were listed) end as well."""
    with transaction.atomic():
        User.objects.filter(pk=user.pk).update(session_epoch=F("session_epoch") + 1)
        user.refresh_from_db(fields=["session_epoch"])
        _end_sessions(user)
        end_sockets(user.pk)


# --- Leaving -----------------------------------------------------------------------------------


def former_username(user) -> str:
    """The placeholder's user name: unique, and one nobody can sign up with (it has spaces)."""
    return f"former player {user.pk}"


def do_delete_account(user, *, password: str) -> None:
    """Delete the person's account, if `password` is theirs; AccountError changes nothing.

    Removed at once: the login (no name, no password, inactive), the e-mail addresses, every
    session and socket, chat lines, mutes and blocks either way, friendships, notifications,
    club memberships and requests (a club they owned passes to an admin or member, or goes with
    them when nobody else is in it), waiting pairing requests, check-ins to events (an event
    under way is left as by "Leave the event"; one they organised that has not started is
    cancelled),
    imported records, exercise attempts, offline uploads, data downloads (their files too), the
    overall rating, and the person's rows in the login
    lockout's logs. Their name is also taken out of what other people wrote or uploaded (chat
    lines, imported records' player lists).

    Kept, for the people they played with: the seats, moves and results of every deal, under
    the placeholder the row becomes, which every page names "a former player". Their deal and
    match results stay as rows without a name: removing them would change the ratings of
    everyone they played (the leaderboard is computed from them); the leaderboard and player
    pages leave the placeholder out. A match still being played goes on: at a shared table a
    stand-in bot plays the seat (the person is away for good); a table not yet started frees
    the seat, or passes to the next person if they were its host.
    """
    if not password or not user.check_password(password):
        raise AccountError("That is not your password: nothing was deleted.", status=403)
    name = user.username
    with transaction.atomic():
        user = User.objects.select_for_update().get(pk=user.pk)
        if user.has_left:
            raise AccountError("This account has already been deleted.", status=410)
        _leave_forming_tables(user)
        events.do_leave_every_event(user)
        daily.note_leaver(user)  # the name does not play today's deals again (docs/daily.md)
        Seat.objects.filter(user=user).update(connections=0)
        ChatMessage.objects.filter(user=user).delete()
        PersonalBlock.objects.filter(Q(owner=user) | Q(other=user)).delete()
        PairingTicket.objects.filter(user=user).delete()
        ImportedDeal.objects.filter(owner=user).delete()
        # The offline page's uploads and match links (the deals stay, as any deal does).
        OfflineUpload.objects.filter(owner=user).delete()
        OfflineMatch.objects.filter(owner=user).delete()
        downloads.do_forget_downloads(user)
        ExerciseAttempt.objects.filter(user=user).delete()
        Rating.objects.filter(user=user).delete()
        social.do_leave_everything(user, name=name)
        _forget_login_records(user, name)
        _end_sessions(user)
        _take_name_out_of_others_text(name)
        user.username = former_username(user)
        user.first_name = user.last_name = user.email = user.email_pending = ""
        user.set_unusable_password()
        user.is_active = user.is_staff = user.is_superuser = False
        user.coach_enabled = user.history_public = False
        user.sound_muted, user.sound_volume = False, User._meta.get_field("sound_volume").default
        user.text_table = False
        user.last_choices = {}
        user.last_login = None
        user.session_epoch += 1
        user.left_at = timezone.now()
        user.save()
        user.groups.clear()
        user.user_permissions.clear()
        end_sockets(user.pk)


def _leave_forming_tables(user) -> None:
    for seat in Seat.objects.filter(user=user, match__status=Match.Status.FORMING):
        # A table that ended in between has nothing to leave.
        with contextlib.suppress(GameError):
            tables.do_leave(seat.match_id, user=user, hand_over=True)


def _forget_login_records(user, name: str) -> None:
    """django-axes keeps the user name typed at every login, right or wrong."""
    for model in (AccessAttempt, AccessFailureLog, AccessLog):
        model.objects.filter(username__iexact=name).delete()
    AccessAttempt.objects.filter(
        Q(get_data__icontains=name) | Q(post_data__icontains=name)
    ).delete()
    # The admin's history of changes to this account names it in its text.
    LogEntry.objects.filter(
        content_type=ContentType.objects.get_for_model(User), object_id=str(user.pk)
    ).delete()


def _name_pattern(name: str) -> re.Pattern:
    # The whole name only ("al" must not change "also"), in any case.
    return re.compile(rf"(?<![\w.@+-]){re.escape(name)}(?![\w.@+-])", re.IGNORECASE)


def _take_name_out_of_others_text(name: str) -> None:
    pattern = _name_pattern(name)
    for line in ChatMessage.objects.filter(text__icontains=name):
        cleaned = pattern.sub(FORMER_PLAYER, line.text)
        if cleaned != line.text:
            line.text = cleaned[: ChatMessage.MAX_LENGTH]
            line.save(update_fields=["text"])
    # Stored JSON may escape a name that is not ASCII (\u0418...): look for both spellings.
    escaped = json.dumps(name)[1:-1]
    records = ImportedDeal.objects.annotate(text=Cast("record", TextField()))
    for imported in records.filter(Q(text__icontains=name) | Q(text__icontains=escaped)):
        meta = imported.record.get("meta") if isinstance(imported.record, dict) else None
        players = meta.get("players") if isinstance(meta, dict) else None
        if not isinstance(meta, dict) or not isinstance(players, dict):
            continue
        renamed = {
            seat: pattern.sub(FORMER_PLAYER, value) if isinstance(value, str) else value
            for seat, value in players.items()
        }
        if renamed != players:
            meta["players"] = renamed
            imported.save(update_fields=["record"])
