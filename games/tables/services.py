"""Tables shared by people: forming, seating, presence, stand-in bots, leaving, rematch, chat.

The same rules as `games.core.services`: every change locks the match row, checks what it must,
writes, and tells the table only after the transaction commits. A refused request raises a
`GameError` whose message is for the person and changes nothing.
"""

import secrets
import unicodedata
from datetime import timedelta
from functools import partial

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone

from games import engine
from games.core import events, hooks, selectors, turns
from games.core.dispatch import LONGEST_COUNTDOWN
from games.core.errors import Forbidden, GameError, NotFound, StaleMove
from games.core.services import (
    announce_after_commit,
    begin_match,
    create_deal,
    human_seat,
    lock_for_rematch,
    lock_match,
    new_match,
    seats_with,
)
from games.models import (
    ChatMessage,
    Match,
    PersonalBlock,
    Seat,
    known_bot_level,
    seat_name,
)

# Letters and digits that cannot be mistaken for one another when read aloud or copied.
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
# A person's turn is played by a bot when they are away (their last socket closed
# turns.AWAY_GRACE_SECONDS ago), or idle for the table's turn timeout, whichever comes first:
# the rule is turns.stand_in_left.
MIN_TIMEOUT, MAX_TIMEOUT = 5, 600
# The level of the bot that stands in for an absent person, or replaces one who left.
STAND_IN_LEVEL = turns.STAND_IN_LEVEL
# A timer may fire a moment before its due time (a broker's clock, a timer's rounding).
TIMER_EARLY_SECONDS = 0.25
CHAT_RATE = (5, 10)  # at most 5 messages in 10 seconds, per user


class TableFull(GameError):
    status = 409


def new_invite_code() -> str:
    while True:
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        if not Match.objects.filter(invite_code=code).exists():
            return code


def normalise_code(code: str) -> str:
    return "".join(ch for ch in (code or "").upper() if ch.isalnum())


def _check_timeout(seconds) -> int:
    try:
        seconds = int(seconds)
    except (TypeError, ValueError) as error:
        raise GameError("The turn timeout must be a number of seconds.") from error
    if not MIN_TIMEOUT <= seconds <= MAX_TIMEOUT:
        raise GameError(
            f"The turn timeout must be between {MIN_TIMEOUT} and {MAX_TIMEOUT} seconds."
        )
    return seconds


def _announce(match: Match) -> None:
    """Tell the screens without waking anyone: for changes that are not moves (seats, chat)."""
    transaction.on_commit(partial(announce_seen, match.pk, match.version), robust=True)
    _announce_listing(match)


def _announce_listing(match: Match, started: bool = False) -> None:
    """A public table's seats or status changed: the lobby's screens are told after commit.
    Once it plays, only its start concerns the lobby (it leaves the list)."""
    if match.public and (match.status == Match.Status.FORMING or started):
        transaction.on_commit(partial(hooks.listing_changed.call_each, match.pk), robust=True)


def announce_seen(match_id: int, version: int) -> None:
    # `same_version`: the screens change although the version may not (chat, presence, settings).
    events.send(
        selectors.table_group(match_id), events.TableChanged(version=version, same_version=True)
    )


def _lock_forming(match_id: int) -> Match:
    match = lock_match(match_id)
    if match.status != Match.Status.FORMING:
        raise GameError("This table has already started; you can no longer sit down.")
    return match


def _require_host(match: Match, user) -> None:
    if match.host_id != user.pk:
        raise Forbidden("Only the host can do that.")


# --- Forming a table -------------------------------------------------------------------------


def do_create_table(
    host,
    *,
    rules_spec,
    allow_spectators: bool = False,
    turn_timeout_seconds: int = 30,
    public: bool = False,
) -> Match:
    """A table waiting for players: the host sits down, the other seats are empty. A public
    table is listed in the lobby while it forms; a private one is found by its invite only."""
    try:
        rules = engine.Rules.from_spec(rules_spec)
    except engine.RulesError as error:
        raise GameError(str(error)) from error
    timeout = _check_timeout(turn_timeout_seconds)
    with transaction.atomic():
        match = new_match(
            rules,
            host,
            seats_with(rules, human_seat(rules), host.pk, bot_level=""),
            first_dealer=secrets.choice(rules.seats),
            status=Match.Status.FORMING,
            invite_code=new_invite_code(),
            allow_spectators=bool(allow_spectators),
            turn_timeout_seconds=timeout,
            public=bool(public),
        )
        _announce_listing(match)
    return match


def people_positions(rules: engine.Rules, count: int) -> list[str]:
    """Where `count` people paired by the lobby sit: the usual seat first, then clockwise.
    Neighbours are never partners, so two people at a partnership table play each other."""
    first = rules.seats.index(human_seat(rules))
    return list((rules.seats[first:] + rules.seats[:first])[:count])


def do_create_paired_table(users: list, *, rules_spec, bot_level: str) -> Match:
    """A shared table for people the lobby paired: they sit, bots of `bot_level` fill the other
    seats, and the first deal is dealt. Runs inside the caller's transaction."""
    rules = engine.Rules.from_spec(rules_spec)
    bot_level = known_bot_level(bot_level)
    if not 1 <= len(users) <= len(rules.seats):
        raise GameError("That many people do not fit at one table.")
    people = dict(zip(people_positions(rules, len(users)), users, strict=True))
    seats = [(p, people[p].pk, "") if p in people else (p, None, bot_level) for p in rules.seats]
    return begin_match(rules, users[0], seats, invite_code=new_invite_code())


def do_sit(match_id: int, *, user, position: str) -> Match:
    """Take a free seat at a forming table (or move to another free one)."""
    with transaction.atomic():
        match = _lock_forming(match_id)
        if selectors.blocked_by_host(match, user):
            raise Forbidden("The host of this table has blocked you from their tables.")
        for refusal in hooks.seat_refusal(match, user):
            if refusal:
                raise Forbidden(refusal)
        seat = match.seats.filter(position=position).first()
        if seat is None:
            raise GameError("There is no such seat at this table.")
        mine = match.seats.filter(user=user).first()
        if mine is not None and mine.pk == seat.pk:
            return match
        if not seat.is_empty:
            if not match.seats.filter(user__isnull=True, bot_level="").exists() and mine is None:
                raise TableFull("This table is full.")
            raise GameError(f"{seat_name(position)} is already taken; choose a free seat.")
        if mine is not None:
            mine.user = None
            mine.save(update_fields=["user"])
        seat.user = user
        seat.bot_level = ""
        seat.save(update_fields=["user", "bot_level"])
        match.version += 1
        match.save(update_fields=["version", "updated_at"])
        _announce(match)
    return match


def do_sit_by_invite(code: str, *, user) -> Match | None:
    """Someone who came by an invite link and just signed up or logged in: seat them in the
    first free seat of that forming table. None (and nothing changes) when the code names no
    table, the table has started or is full, or they already sit there."""
    match = selectors.table_by_code(code)
    if match is None or match.status != Match.Status.FORMING:
        return None
    if match.seats.filter(user=user).exists():
        return match
    free = match.seats.filter(user__isnull=True, bot_level="").order_by("pk").first()
    if free is None:
        return None
    try:
        return do_sit(match.pk, user=user, position=free.position)
    except GameError:
        return None  # taken a moment ago, or the table just started: they see it as it is


def do_set_seat_bot(match_id: int, *, host, position: str, level: str) -> Match:
    """The host puts a bot of `level` in an empty seat, changes its level, or ('') removes it."""
    if level:
        level = known_bot_level(level)
    with transaction.atomic():
        match = _lock_forming(match_id)
        _require_host(match, host)
        seat = match.seats.filter(position=position).first()
        if seat is None:
            raise GameError("There is no such seat at this table.")
        if seat.user_id:
            raise GameError(
                f"{seat.person.username} sits there; only an empty seat can take a bot."
            )
        seat.bot_level = level
        seat.save(update_fields=["bot_level"])
        match.version += 1
        match.save(update_fields=["version", "updated_at"])
        _announce(match)
    return match


def do_fill_with_bots(match_id: int, *, host, level: str) -> Match:
    """The host fills every empty seat with bots of `level`."""
    level = known_bot_level(level)
    with transaction.atomic():
        match = _lock_forming(match_id)
        _require_host(match, host)
        match.seats.filter(user__isnull=True, bot_level="").update(bot_level=level)
        match.version += 1
        match.save(update_fields=["version", "updated_at"])
        _announce(match)
    return match


def do_table_settings(
    match_id: int, *, host, allow_spectators: bool, turn_timeout_seconds
) -> Match:
    timeout = _check_timeout(turn_timeout_seconds)
    with transaction.atomic():
        match = lock_match(match_id)
        _require_host(match, host)
        if match.status == Match.Status.FINISHED:
            raise GameError("This match is over.")
        match.allow_spectators = bool(allow_spectators)
        match.turn_timeout_seconds = timeout
        match.save(update_fields=["allow_spectators", "turn_timeout_seconds", "updated_at"])
        _announce(match)
    return match


def do_start_table(match_id: int, *, host) -> Match:
    """The host starts a full table: the first deal is dealt and play begins."""
    with transaction.atomic():
        match = _lock_forming(match_id)
        _require_host(match, host)
        empty = [seat_name(s.position) for s in match.seats.all() if s.is_empty]
        if empty:
            raise GameError(
                f"Fill the empty seats first (with people or bots): {', '.join(empty)}."
            )
        rules = selectors.rules_of(match)
        create_deal(match, rules, number=1, dealer=match.first_dealer)
        match.status = Match.Status.PLAYING
        match.version += 1
        match.save()
        announce_after_commit(match)
        _announce_listing(match, started=True)  # a started table leaves the lobby
    return match


def do_remove_from_table(match_id: int, *, host, position: str) -> Match:
    """The host removes a person from a table that has not started; the seat becomes free."""
    with transaction.atomic():
        match = _lock_forming(match_id)
        _require_host(match, host)
        seat = match.seats.filter(position=position).select_related("user").first()
        if seat is None:
            raise GameError("There is no such seat at this table.")
        if seat.user_id is None:
            raise GameError(f"Nobody sits at {seat_name(position)}.")
        if seat.user_id == host.pk:
            raise GameError("You are the host: you cannot remove yourself.")
        seat.user = None
        seat.connections = 0
        seat.save(update_fields=["user", "connections"])
        match.version += 1
        match.save(update_fields=["version", "updated_at"])
        _announce(match)
    return match


# --- Leaving ---------------------------------------------------------------------------------


def do_leave(match_id: int, *, user, hand_over: bool = False) -> Match | None:
    """Leave a table. Before the start the seat is freed; during play a bot takes it for good
    and the match goes on.

    A host may leave a table that has not started only with `hand_over` (a person deleting
    their account): the next person seated becomes the host, or, with nobody else seated, the
    table is closed (it has no deal to keep) and None is returned."""
    with transaction.atomic():
        match = lock_match(match_id)
        seat = match.seats.filter(user=user).first()
        if seat is None:
            raise GameError("You are not sitting at this table.")
        if match.invite_code is None:
            # Left, a match against bots would play on by itself, bots against bots, for nobody.
            raise GameError("Only a table with people can be left; this match waits for you.")
        if match.status == Match.Status.FINISHED:
            raise GameError("This match is over.")
        if match.status == Match.Status.FORMING:
            if match.host_id == user.pk:
                if not hand_over:
                    raise GameError("The host cannot leave a table that has not started.")
                heir = match.seats.filter(user__isnull=False).exclude(user=user).first()
                if heir is None:
                    _announce_listing(match)
                    match.delete()
                    return None
                assert heir.user_id is not None  # found among the seated people
                match.host_id = heir.user_id
            seat.user = None
            seat.connections = 0
            seat.save(update_fields=["user", "connections"])
        else:
            seat.user = None
            seat.bot_level = STAND_IN_LEVEL
            seat.connections = 0
            seat.save(update_fields=["user", "bot_level", "connections"])
        match.version += 1
        match.save(update_fields=["version", "updated_at", "host"])
        # A move-like change: if the leaver was to act, the bot now in the seat is woken.
        announce_after_commit(match)
        _announce_listing(match)
    return match


# --- Presence and stand-in bots ---------------------------------------------------------------


def do_presence(match_id: int, *, user, delta: int) -> bool:
    """A websocket of `user` at this table opened (+1) or closed (-1). Returns whether the user
    sits here. No lock on the match and no new version: presence is not a move."""
    now = timezone.now()
    with transaction.atomic():
        updated = Seat.objects.filter(match_id=match_id, user=user).update(
            connections=Greatest(F("connections") + delta, 0), last_seen_at=now
        )
        if not updated:
            return False
        match = Match.objects.filter(pk=match_id).only("version", "status", "public").first()
        assert match is not None  # its seat was just updated
        _announce(match)
        if delta < 0:
            transaction.on_commit(partial(_after_disconnect, match_id, user.pk), robust=True)
    return True


def _after_disconnect(match_id: int, user_id: int) -> None:
    turn = turns.waiting_on(match_id)
    if turn is None or turn.kind != turns.WaitingFor.PERSON or turn.user_id != user_id:
        return
    if not turn.connected:
        wake_stand_in(turn, match_id, still_for=_still_for(match_id), idle=False)


def _still_for(match_id: int) -> float:
    """How long the table has waited on this turn (it began at the match's `updated_at`)."""
    since = Match.objects.filter(pk=match_id).values_list("updated_at", flat=True).first()
    return (timezone.now() - since).total_seconds() if since else 0.0


def _enqueue_stand_in(match_id: int, version: int, reason: str, countdown: float) -> None:
    if countdown > LONGEST_COUNTDOWN:
        # A broker holds a delayed task unacknowledged: past its visibility timeout it is handed
        # out twice, and it dies with its worker. The due time is stored instead (the turn began
        # at the match's `updated_at`) and the sweeper enqueues the turn when it is due.
        return
    hooks.stand_in_wanted(match_id, version, reason, max(0.0, countdown))  # games/web/tasks.py


def _away_left(turn: turns.Waiting, still_for: float) -> float | None:
    gone = turns.away_for(turn.connected, turn.away_since, timezone.now())
    return turns.away_left(still_for, gone)


def wake_stand_in(
    turn: turns.Waiting, match_id: int, still_for: float = 0.0, idle: bool = True
) -> None:
    """Called when a person's turn starts at a shared table (`still_for` 0), when their last
    socket closes (`idle` False: that timer is already on its way), or by the sweeper once the
    table has been still that long: a bot plays the turn if they do not."""
    if turn.kind != turns.WaitingFor.PERSON or not turn.timeout_seconds:
        return
    if idle:
        _enqueue_stand_in(match_id, turn.version, "idle", turn.timeout_seconds - still_for)
    away = _away_left(turn, still_for)
    if away is not None:
        _enqueue_stand_in(match_id, turn.version, "away", away)


def stand_in_overdue(turn: turns.Waiting, still_for: float, grace: float) -> bool:
    """Whether a person's turn that has been still for `still_for` seconds should have been
    played by a stand-in: its timer was due more than `grace` seconds ago, or (a timer too long
    for a countdown) it is due now."""
    idle_due = turn.timeout_seconds + (grace if turn.timeout_seconds <= LONGEST_COUNTDOWN else 0)
    away = _away_left(turn, still_for)
    return still_for >= idle_due or (away is not None and away + grace <= 0)


def wake_overdue_stand_in(
    turn: turns.Waiting, match_id: int, still_for: float, grace: float
) -> bool:
    """The sweeper's look at a person's still turn (`services.resume_stalled_turn`): wake the
    stand-in if it is overdue, and say whether it was."""
    if not stand_in_overdue(turn, still_for, grace=grace):
        return False
    wake_stand_in(turn, match_id, still_for=still_for)
    return True


def stand_in_due(match_id: int, version: int, reason: str) -> bool:
    """Whether a stand-in bot should now play the person's turn at `version`."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None or match.status != Match.Status.PLAYING or match.version != version:
        return False
    turn = turns.waiting_on(match_id)
    if (
        turn is None
        or turn.kind != turns.WaitingFor.PERSON
        or turn.version != version
        or not turn.timeout_seconds
    ):
        return False
    # Idle: the timer was started with the turn and the table has not moved since (the version
    # check above). Away: the person's last socket closed a grace ago (a reload that came back,
    # or closed again since, is not away yet: its own timer comes later).
    if reason == "idle":
        return True
    away = _away_left(turn, _still_for(match_id))
    return away is not None and away <= TIMER_EARLY_SECONDS


# --- Rematch ---------------------------------------------------------------------------------


def do_table_rematch(match_id: int, *, user) -> Match:
    """The same rules and the same seats again: people keep their seats, bots keep their levels.
    Asked twice (two people click), it gives the one rematch."""
    with transaction.atomic():
        old, existing = lock_for_rematch(match_id, user)
        if existing is not None:
            return existing
        seats = [(s.position, s.user_id, s.bot_level) for s in old.seats.all()]
        match = begin_match(
            selectors.rules_of(old),
            old.host,
            seats,
            invite_code=new_invite_code(),
            allow_spectators=old.allow_spectators,
            turn_timeout_seconds=old.turn_timeout_seconds,
            rematch_of=old,
        )
        _announce(old)  # the old table's screens now offer the way to the rematch
    return match


# --- Manners ---------------------------------------------------------------------------------


def do_set_personal_block(owner, *, other_name: str, kind: str, on: bool) -> bool:
    """Mute another person's chat for oneself, or block them from one's own tables (`on`), or
    undo it. Returns whether it is now on. Blocking keeps them from sitting at the owner's
    forming tables and hides those tables from them in the lobby; it does not unseat anyone."""
    if kind not in PersonalBlock.Kind.values:
        raise GameError(f"Unknown choice {kind!r}.")
    other = get_user_model().objects.filter(username=other_name).first()
    if other is None:
        raise NotFound("There is no such player.")
    if other.pk == owner.pk:
        raise GameError("You cannot mute or block yourself.")
    with transaction.atomic():
        if on:
            PersonalBlock.objects.get_or_create(owner=owner, other=other, kind=kind)
        else:
            PersonalBlock.objects.filter(owner=owner, other=other, kind=kind).delete()
    return on


# --- Chat ------------------------------------------------------------------------------------


# Characters that change how the text around them shows (right-to-left overrides, isolates,
# marks): a line could otherwise dress itself up as someone else's or reverse a name.
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


def clean_chat_text(text: str) -> str:
    """A chat line as one line of visible text: tabs and line breaks become spaces, other
    control characters (NUL, which PostgreSQL cannot store, escape, bell...) and bidi controls
    are dropped."""
    kept = []
    for ch in text or "":
        if ch in "\t\n\r\x0b\x0c\x85\u2028\u2029":
            kept.append(" ")
        elif unicodedata.category(ch) == "Cc" or ch in BIDI_CONTROLS:
            continue
        else:
            kept.append(ch)
    return "".join(kept).strip()


def do_chat(match_id: int, *, user, text: str) -> ChatMessage:
    text = clean_chat_text(text)
    count, seconds = CHAT_RATE
    with transaction.atomic():
        match = Match.objects.filter(pk=match_id).first()
        if match is None:
            raise NotFound("There is no such match.")
        # Chat is shown only at a shared table that is forming or being played; nowhere else
        # may a line be stored that nobody would see (or see later, out of place).
        if match.invite_code is None or match.status == Match.Status.FINISHED:
            raise GameError("Chat is open only at a shared table, before and during the match.")
        if not match.seats.filter(user=user).exists():
            raise Forbidden("Only the players at this table can chat.")
        if not text:
            raise GameError("Write something first.")
        if len(text) > ChatMessage.MAX_LENGTH:
            raise GameError(f"A message can be at most {ChatMessage.MAX_LENGTH} characters.")
        recent = ChatMessage.objects.filter(
            user=user, created_at__gte=timezone.now() - timedelta(seconds=seconds)
        ).count()
        if recent >= count:
            raise GameError(f"Slow down: at most {count} messages in {seconds} seconds.")
        message = ChatMessage.objects.create(match=match, user=user, text=text)
        _announce(match)
    return message


__all__ = [
    "StaleMove",
    "TableFull",
    "do_create_table",
    "do_sit",
    "do_sit_by_invite",
    "do_set_seat_bot",
    "do_fill_with_bots",
    "do_table_settings",
    "do_start_table",
    "do_leave",
    "do_presence",
    "stand_in_due",
    "do_table_rematch",
    "do_chat",
    "normalise_code",
    "do_create_paired_table",
    "do_remove_from_table",
    "do_set_personal_block",
]
