"""Every change to a Setback night goes through a `do_*` function here (docs/events.md).

Each locks the event's row, checks what it must, writes, and tells the event's screens only
after the transaction commits. The tables of a round are ordinary shared matches, made together
in the transaction that starts the round; their moves go through games.core.services like any
other table's. A round ends when its last table finishes (`after_match`) or when its time runs
out (`do_round_time_up`, from the sweeper); the one that holds the event's lock first makes the
next round, the other finds the round already over.
"""

import logging
import random
from datetime import datetime, timedelta
from functools import partial

from django.contrib.auth import get_user_model
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from games import engine
from games.core import services as core
from games.core.errors import Forbidden, GameError, NotFound
from games.models import Match, known_bot_level
from games.social import selectors as social
from games.social import services as social_services
from games.social.models import Club, Membership, Notification
from games.tables import services as tables

from . import movements, realtime, selectors
from .models import NAME_LENGTH, Entry, Event, EventTable

log = logging.getLogger(__name__)

# What an organiser may ask for.
ROUNDS = (1, 12)
DEALS_PER_ROUND = (1, 12)
MINUTES_PER_ROUND = (5, 120)
FURTHEST_START = timedelta(days=60)
# Setback nights are partners' Setback: the presets played in pairs (docs/events.md).
PRESETS = ("house", "classic")
# Scheduled events one person may have waiting at once: scheduling is free, and an event's page
# and the sweeper's look at it are not.
MOST_SCHEDULED = 5
# A person's turn at an event's table: a stand-in plays it after this long (the shared tables'
# default), or sooner once they are away.
TURN_TIMEOUT_SECONDS = 30


def _in_range(value, bounds: tuple[int, int], what: str) -> int:
    low, high = bounds
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = None
    if number is None or not low <= number <= high:
        raise GameError(f"{what} must be a whole number from {low} to {high}.")
    return number


def _lock_event(event_id: int) -> Event:
    event = Event.objects.select_for_update().filter(pk=event_id).first()
    if event is None:
        raise NotFound("There is no such event.")
    return event


def _announce(event: Event, moved: bool = False) -> None:
    """Tell the event's screens after the commit; `moved`: a round began, and everyone seated
    in it is sent to their table."""
    transaction.on_commit(
        partial(realtime.announce_event, event.pk, event.version, moved), robust=True
    )


# --- Scheduling ------------------------------------------------------------------------------


def do_schedule_event(
    organiser,
    *,
    name: str,
    preset: str,
    movement: str,
    rounds,
    deals_per_round,
    minutes_per_round,
    bot_level: str,
    starts_at: datetime,
    club_id: int | None = None,
    now: datetime | None = None,
) -> Event:
    """A Setback night: public, or for a club's members (scheduled by one of its admins)."""
    now = now or timezone.now()
    name = " ".join((name or "").split())
    if not name:
        raise GameError("Give the event a name.")
    if len(name) > NAME_LENGTH:
        raise GameError("The event's name is too long (60 characters at most).")
    if preset not in PRESETS:
        raise GameError("Setback nights are played in pairs: choose House or Classic rules.")
    if movement not in Event.Movement.values:
        raise GameError("Choose one of the movements.")
    rounds = _in_range(rounds, ROUNDS, "The number of rounds")
    deals = _in_range(deals_per_round, DEALS_PER_ROUND, "The deals per round")
    minutes = _in_range(minutes_per_round, MINUTES_PER_ROUND, "The minutes per round")
    bot_level = known_bot_level(bot_level)
    if starts_at < now - timedelta(minutes=1):
        raise GameError("The start must be in the future.")
    if starts_at > now + FURTHEST_START:
        raise GameError("An event can be scheduled at most 60 days ahead.")
    if club_id is not None:
        membership = social.membership(club_id, organiser)
        if membership is None or membership.role == Membership.Role.MEMBER:
            raise Forbidden("Only the club's owner and admins can schedule its events.")
    with transaction.atomic():
        waiting = Event.objects.filter(organiser=organiser, status=Event.Status.SCHEDULED).count()
        if waiting >= MOST_SCHEDULED:
            raise GameError(
                f"You have {waiting} events waiting to start: that is the most at once."
            )
        event = Event.objects.create(
            name=name,
            organiser=organiser,
            club_id=club_id,
            rules=preset,
            movement=movement,
            rounds=rounds,
            deals_per_round=deals,
            minutes_per_round=minutes,
            bot_level=bot_level,
            starts_at=starts_at,
        )
        if club_id is not None:
            _tell_the_club(event, club_id, organiser)
        return event


def _tell_the_club(event: Event, club_id: int, organiser) -> None:
    """Each member of the club hears of its new event on their bell (and by mail if they chose
    news of their clubs)."""
    url = reverse("events:event", args=[event.pk])
    club_name = Club.objects.filter(pk=club_id).values_list("name", flat=True).get()
    text = (
        f"{organiser.username} scheduled {event.name} for {club_name}: "
        f"{event.starts_at:%d %b, %H:%M} UTC"
    )
    members = Membership.objects.filter(club_id=club_id).exclude(user=organiser)
    for member in members.select_related("user"):
        social_services.notify(member.user, Notification.Kind.CLUB_EVENT, text, url)


def do_cancel_event(event_id: int, *, user) -> Event:
    """The organiser calls off an event that has not started."""
    with transaction.atomic():
        event = _lock_event(event_id)
        if event.organiser_id != user.pk:
            raise Forbidden("Only the organiser can cancel the event.")
        if event.status != Event.Status.SCHEDULED:
            raise GameError("Only an event that has not started can be cancelled.")
        event.status = Event.Status.CANCELLED
        event.version += 1
        event.save(update_fields=["status", "version"])
        _announce(event)
    return event


# --- Check-in and leaving --------------------------------------------------------------------


def do_check_in(event_id: int, *, user, partner_name: str = "", now=None) -> Entry:
    """Check in: before the start (from CHECK_IN_BEFORE), or later to join at the next round.
    Checking in again changes nothing (a double click); someone who left comes back at the next
    round."""
    now = now or timezone.now()
    with transaction.atomic():
        event = _lock_event(event_id)
        if event.club_id is not None and social.membership(event.club_id, user) is None:
            raise Forbidden("This event is for the club's members.")
        if event.status in (Event.Status.FINISHED, Event.Status.CANCELLED):
            raise GameError("This event is over.")
        if event.status == Event.Status.SCHEDULED and now < selectors.check_in_opens_at(event):
            raise GameError(
                f"Check-in opens at {timezone.localtime(selectors.check_in_opens_at(event)):%H:%M} UTC."
            )
        first_round = 1
        if event.status == Event.Status.PLAYING:
            if event.round_number >= event.rounds:
                raise GameError("The last round is under way: it is too late to join.")
            first_round = event.round_number + 1
        entry = Entry.objects.filter(event=event, user=user).first()
        if entry is not None and entry.left_at is None:
            return entry
        if entry is None:
            entry = Entry(event=event, user=user)
        entry.left_at = None
        entry.first_round = max(first_round, entry.first_round)
        entry.asked_partner = (partner_name or "").strip()[:150] if event.by_pairs else ""
        entry.pair_number = None if event.status == Event.Status.SCHEDULED else entry.pair_number
        entry.save()
        event.version += 1
        event.save(update_fields=["version"])
        _announce(event)
    return entry


def do_leave_event(event_id: int, *, user, now=None) -> None:
    """Leave: before the start the check-in is undone; during the event a stand-in bot plays
    the rest of their table's round, and they are in no later round."""
    now = now or timezone.now()
    with transaction.atomic():
        event = _lock_event(event_id)
        entry = Entry.objects.filter(event=event, user=user, left_at__isnull=True).first()
        if entry is None:
            raise GameError("You are not checked in to this event.")
        if event.status == Event.Status.SCHEDULED:
            entry.delete()
        elif event.status == Event.Status.PLAYING:
            entry.left_at = now
            entry.save(update_fields=["left_at"])
            table = selectors.table_of(event, user.pk, event.round_number)
            if table is not None and table.match_id is not None:
                match = Match.objects.filter(pk=table.match_id).values_list("status", flat=True)
                if match.first() == Match.Status.PLAYING:
                    tables.do_leave(table.match_id, user=user)
        else:
            raise GameError("This event is over.")
        event.version += 1
        event.save(update_fields=["version"])
        _announce(event)


# --- Rounds ----------------------------------------------------------------------------------


def do_start_event(event_id: int, *, now=None) -> Event | None:
    """Start an event whose time has come: every checked-in person is seated for round 1, all
    tables made in this one transaction. With nobody checked in it is cancelled. None if it was
    not due (not yet, or already started)."""
    now = now or timezone.now()
    with transaction.atomic():
        event = _lock_event(event_id)
        if event.status != Event.Status.SCHEDULED or now < event.starts_at:
            return None
        entries = list(event.entries.filter(left_at__isnull=True))
        event.version += 1
        if not entries:
            event.status = Event.Status.CANCELLED
            event.save(update_fields=["status", "version"])
            _announce(event)
            return event
        if event.by_pairs:
            _make_pairs(event, entries)
        layout = _first_layout(event, entries)
        _make_round(event, 1, layout, now)
        event.status = Event.Status.PLAYING
        event.save(update_fields=["status", "round_number", "round_ends_at", "version"])
        _announce(event, moved=True)
    return event


def _key(user_id: int | None) -> str | None:
    return None if user_id is None else str(user_id)


def _make_pairs(event: Event, entries: list[Entry]) -> None:
    """Swiss: pairs for the entries that have none. Two who asked for each other (or one who
    asked for someone who asked for nobody) play together; the others pair in check-in order,
    and one left over plays with a bot partner."""
    taken = event.entries.exclude(pair_number=None).values_list("pair_number", flat=True)
    next_number = max((number or 0 for number in taken), default=0) + 1
    waiting = [entry for entry in entries if entry.pair_number is None]
    pairs = _asked_pairs(waiting)
    paired = {entry.pk for pair in pairs for entry in pair}
    alone = [entry for entry in waiting if entry.pk not in paired]
    pairs += [alone[i : i + 2] for i in range(0, len(alone), 2)]
    for number, pair in enumerate(pairs, start=next_number):
        for entry in pair:
            entry.pair_number = number
            entry.save(update_fields=["pair_number"])


def _asked_pairs(waiting: list[Entry]) -> list[list[Entry]]:
    """The pairs people asked for: a person and the partner they named, if that partner named
    them or nobody."""
    users = get_user_model().objects.filter(pk__in=[e.user_id for e in waiting])
    names = {user.pk: user.username.lower() for user in users}
    by_name = {names[entry.user_id]: entry for entry in waiting}
    pairs: list[list[Entry]] = []
    paired: set[int] = set()
    for entry in waiting:
        partner = by_name.get(entry.asked_partner.lower())
        if partner is None or {entry.pk, partner.pk} & paired or partner.pk == entry.pk:
            continue
        if partner.asked_partner.lower() in ("", names[entry.user_id]):
            pairs.append([entry, partner])
            paired |= {entry.pk, partner.pk}
    return pairs


def _first_layout(event: Event, entries: list[Entry]) -> list[movements.Table]:
    keys = [str(entry.user_id) for entry in entries]
    if event.by_pairs:
        # Nobody has a standing yet: the first round's order is drawn.
        pairs = selectors.event_pairs(event)
        random.Random(event.pk).shuffle(pairs)
        return movements.swiss_tables(pairs, met=set(), had_bye=set())
    if event.movement == Event.Movement.INDIVIDUAL:
        return movements.individual_tables(keys, set(), set(), seed=event.pk)
    return movements.first_tables(keys, seed=event.pk)


def _next_layout(event: Event, number: int) -> list[movements.Table]:
    """The tables of round `number`, by the event's movement, from the stored rounds before it."""
    history = selectors.round_results(event)
    entries = list(event.entries.filter(left_at__isnull=True, first_round__lte=number))
    present = {str(entry.user_id) for entry in entries}
    if event.movement == Event.Movement.SWISS:
        return _swiss_layout(event, history, entries, present)
    if event.movement == Event.Movement.INDIVIDUAL:
        played = [result.table for results in history for result in results]
        partnered, opposed = movements.partnerships(played), movements.oppositions(played)
        keys = [str(entry.user_id) for entry in entries]
        return movements.individual_tables(keys, partnered, opposed, seed=event.pk * 100 + number)
    if event.movement == Event.Movement.ROTATION:
        moved = movements.rotate([result.table for result in history[-1]])
    else:
        moved = movements.winners_move_up(history[-1])
    seated = {key for result in history[-1] for key in result.table.seats.values() if key}
    arrivals = [key for key in sorted(present) if key not in seated]
    return movements.refill(moved, present, arrivals)


def _swiss_layout(event: Event, history, entries: list[Entry], present: set[str]):
    """Swiss: the pairs (new ones for late arrivals), ranked on the rounds so far, paired."""
    _make_pairs(event, [e for e in entries if e.pair_number is None])
    # A pair stays one unit when one of its players has left (a bot takes their seat).
    pairs = [
        pair
        for pair in selectors.event_pairs(event)
        if any(key in present for key in pair if key is not None)
    ]
    history = selectors.as_pairs(history, pairs)
    standing = movements.standings(history, units="pair", pairs=pairs)
    order = {line.key: line.place for line in standing}
    pairs.sort(key=lambda pair: order.get(pair, len(order) + 1))
    met, had_bye = _meetings(history)
    return movements.refill(movements.swiss_tables(pairs, met=met, had_bye=had_bye), present, [])


def _meetings(history: list[list[movements.Result]]):
    """Swiss: which pairs have met, and which have played the bots (a bye)."""
    met: set[frozenset] = set()
    had_bye: set = set()
    for results in history:
        for result in results:
            ns, ew = result.table.pair("NS"), result.table.pair("EW")
            met.add(frozenset((ns, ew)))
            for pair, other in ((ns, ew), (ew, ns)):
                if other == movements.BOT_PAIR:
                    had_bye.add(pair)
    return met, had_bye


def _make_round(event: Event, number: int, layout: list[movements.Table], now) -> None:
    """The round's tables and their matches, in the caller's transaction; the event row (locked
    by the caller) is told the round and its end, and saved by the caller."""
    rules = engine.Rules.from_spec(event.rules)
    for table in layout:
        seats = {position: int(key) if key else None for position, key in table.seats.items()}
        match = None
        people = [user_id for user_id in seats.values() if user_id is not None]
        if people:
            match = core.begin_match(
                rules,
                get_user_model()(pk=people[0]),
                [
                    (position, user_id, "" if user_id else event.bot_level)
                    for position, user_id in seats.items()
                ],
                invite_code=tables.new_invite_code(),
                turn_timeout_seconds=TURN_TIMEOUT_SECONDS,
                allow_spectators=event.public,
                deals_limit=event.deals_per_round,
            )
        EventTable.objects.create(
            event=event, round=number, number=table.number, seats=seats, match=match
        )
    event.round_number = number
    event.round_ends_at = now + timedelta(minutes=event.minutes_per_round)


def end_round_if_done(event_id: int, round_number: int, *, now=None) -> bool:
    """Once every table of the round is over, make the next round (or end the event). Called
    after each table's match ends, and by the sweeper; whoever comes second finds it done."""
    now = now or timezone.now()
    with transaction.atomic():
        event = _lock_event(event_id)
        if event.status != Event.Status.PLAYING or event.round_number != round_number:
            return False
        if selectors.tables_playing(event, round_number):
            return False
        _advance(event, now)
    return True


def _advance(event: Event, now) -> None:
    over = Match.objects.filter(event_table__event=event, event_table__round=event.round_number)
    transaction.on_commit(
        partial(realtime.announce_tables_over, list(over.values_list("pk", "version"))),
        robust=True,
    )
    event.version += 1
    if event.round_number >= event.rounds:
        event.status = Event.Status.FINISHED
        event.finished_at = now
        event.round_ends_at = None
        event.save(update_fields=["status", "finished_at", "round_ends_at", "version"])
        _announce(event)
        return
    number = event.round_number + 1
    _make_round(event, number, _next_layout(event, number), now)
    event.save(update_fields=["round_number", "round_ends_at", "version"])
    _announce(event, moved=True)


def do_round_time_up(event_id: int, *, now=None) -> bool:
    """The round's time ran out: at each table still playing, the deal in play is the last and
    stand-ins finish it at once (`core.do_last_deal`). The round then ends with its last table."""
    now = now or timezone.now()
    with transaction.atomic():
        event = _lock_event(event_id)
        if event.status != Event.Status.PLAYING or event.round_ends_at is None:
            return False
        if now < event.round_ends_at:
            return False
        for match_id in selectors.tables_playing(event, event.round_number):
            core.do_last_deal(match_id, now=now)
        if not selectors.tables_playing(event, event.round_number):
            _advance(event, now)
    return True


# --- What the core tells the events ----------------------------------------------------------


def after_deal(deal_row, result) -> None:
    """A deal ended (`hooks.after_deal`, in its transaction): an event's standings changed."""
    if deal_row.match.deals_limit is None:
        return  # no query at any other table
    event_id = (
        EventTable.objects.filter(match_id=deal_row.match_id)
        .values_list("event_id", flat=True)
        .first()
    )
    if event_id is not None:
        announce = partial(realtime.announce_event, event_id, None, match_id=deal_row.match_id)
        transaction.on_commit(announce, robust=True)


def after_match(match: Match) -> None:
    """A match ended (`hooks.after_match`, in its transaction): if it was a round's last table,
    the next round is made once this commits."""
    if match.deals_limit is None:
        return
    table = EventTable.objects.filter(match=match).values_list("event_id", "round").first()
    if table is not None:
        transaction.on_commit(partial(_end_round_quietly, *table), robust=True)


def _end_round_quietly(event_id: int, round_number: int) -> None:
    try:
        end_round_if_done(event_id, round_number)
    except Exception:
        # The sweeper ends the round on its next tick.
        log.warning("event %s: ending round %s failed", event_id, round_number, exc_info=True)


def sweep_events(now=None) -> None:
    """The sweeper's tick (`hooks.sweeping`): start the events whose time has come, cut the
    rounds whose time ran out, and end any round whose last table's end was not heard (a
    process that died between the table's end and the next round)."""
    now = now or timezone.now()
    due = Event.objects.filter(status=Event.Status.SCHEDULED, starts_at__lte=now)
    for event_id in due.values_list("pk", flat=True)[:50]:
        do_start_event(event_id, now=now)
    playing = Event.objects.filter(status=Event.Status.PLAYING).values_list(
        "pk", "round_number", "round_ends_at"
    )
    for event_id, round_number, ends_at in playing[:200]:
        if ends_at is not None and ends_at <= now:
            do_round_time_up(event_id, now=now)
        else:
            end_round_if_done(event_id, round_number, now=now)


def do_leave_every_event(user) -> None:
    """A person deleting their account: their check-ins to events not yet started are undone,
    they leave the events under way (a stand-in finishes their round), and the events they
    organised that have not started are cancelled. Finished events keep their rows, under the
    placeholder the account becomes."""
    for event_id in Entry.objects.filter(
        user=user,
        left_at__isnull=True,
        event__status__in=[Event.Status.SCHEDULED, Event.Status.PLAYING],
    ).values_list("event_id", flat=True):
        do_leave_event(event_id, user=user)
    for event_id in Event.objects.filter(organiser=user, status=Event.Status.SCHEDULED).values_list(
        "pk", flat=True
    ):
        do_cancel_event(event_id, user=user)
