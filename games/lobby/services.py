"""The lobby's writes: taking a seat at a listed table, and quick pairing.

Pairing locks the `PairingQueue` row of the rules asked for, so requests for the same rules
are handled one at a time whatever process they arrive on; a table is made as soon as enough
people wait, or when the oldest waiting person's wait is over (bots of their level fill the
rest). Enough is two: a second person asking is seated at once with the first. Refusals raise the core's `GameError`s, whose messages are for the person.
"""

import json
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from games import engine
from games.core.dispatch import LONGEST_COUNTDOWN, enqueue, task_named
from games.core.errors import GameError, NotFound
from games.models import Match, known_bot_level
from games.tables import services as tables

from . import realtime, selectors
from .models import PairingQueue, PairingTicket


def do_take_seat(match_id: int, *, user, side: str = "") -> Match:
    """Sit at a table listed in the lobby: the first free seat (of `side`, if given)."""
    match = selectors.listed_table(match_id, user)
    if match is None:
        raise NotFound(f"No open table in the lobby has the number {match_id}.")
    seats = selectors.free_seats(match, side)
    if not seats:
        free_anywhere = selectors.free_seats(match, "")
        if not free_anywhere:
            raise tables.TableFull("This table is full.")
        raise GameError("That side of the table is full; choose another.")
    return tables.do_sit(match.pk, user=user, position=seats[0])


# --- Quick pairing -------------------------------------------------------------------------


def rules_key(rules: engine.Rules) -> str:
    return json.dumps(rules.to_spec(), sort_keys=True)


def _lock_queue(key: str) -> PairingQueue:
    PairingQueue.objects.get_or_create(rules_key=key)
    return PairingQueue.objects.select_for_update().get(rules_key=key)


def check_wait(seconds) -> int:
    try:
        seconds = int(seconds)
    except (TypeError, ValueError) as error:
        raise GameError("The wait must be a number of seconds.") from error
    low, high = settings.PAIRING_WAIT_MIN_SECONDS, settings.PAIRING_WAIT_MAX_SECONDS
    if not low <= seconds <= high:
        raise GameError(f"The wait must be between {low} and {high} seconds.")
    return seconds


# As soon as this many people wait for the same rules they are seated together, bots filling
# the other seats: a second person who asked 2 s after the first waited out the first's 30 s
# for two more people who mostly never came (issue 44).
PEOPLE_TO_START = 2


def do_find_players(user, *, rules_spec, bot_level: str, wait_seconds: int) -> PairingTicket:
    """Ask for players for these rules. Seated at once if enough people wait; else the ticket
    waits until others come or its wait is over."""
    try:
        rules = engine.Rules.from_spec(rules_spec)
    except engine.RulesError as error:
        raise GameError(str(error)) from error
    bot_level = known_bot_level(bot_level)
    wait = check_wait(wait_seconds)
    with transaction.atomic():
        queue = _lock_queue(rules_key(rules))
        # Any waiting ticket of this user (whatever its rules) is in the way: pairing twice.
        if PairingTicket.objects.filter(user=user, status=PairingTicket.Status.WAITING).exists():
            raise GameError("You are already looking for players; cancel that first.")
        now = timezone.now()
        try:
            with transaction.atomic():
                ticket = PairingTicket.objects.create(
                    user=user,
                    queue=queue,
                    rules=rules.to_spec(),
                    bot_level=bot_level,
                    wait_seconds=wait,
                    due_at=now + timedelta(seconds=wait),
                )
        except IntegrityError as error:  # the same person asked for other rules at that moment
            raise GameError("You are already looking for players; cancel that first.") from error
        waiting = _waiting(queue, len(rules.seats))
        if len(waiting) >= PEOPLE_TO_START:
            # The first to ask chose how long to wait for people, and people came: nobody sits
            # out the rest of that wait. Bots of the first one's level fill the other seats.
            _seat(waiting, rules, waiting[0].bot_level)
            ticket.refresh_from_db()
        else:
            transaction.on_commit(partial(_schedule, ticket.pk, wait), robust=True)
            _tell(waiting)  # the others see one more person waiting with them
    return ticket


def _waiting(queue: PairingQueue, limit: int) -> list[PairingTicket]:
    return list(
        queue.tickets.filter(status=PairingTicket.Status.WAITING)
        .select_related("user")
        .order_by("created_at", "id")[:limit]
    )


def _schedule(ticket_id: int, wait: int) -> None:
    # A short wait is a timer; a longer one only its ticket's due time, which the sweeper acts on
    # (sweep_overdue): a broker may deliver a long countdown twice, or late after a restart.
    if wait <= LONGEST_COUNTDOWN:
        # The task is registered by LobbyConfig.ready(): it imports this module.
        enqueue(task_named("games.lobby.tasks.pairing_due"), ticket_id, countdown=wait)


def sweep_overdue() -> int:
    """Seat every waiting ticket whose wait is over (the sweeper calls this on each tick)."""
    due = PairingTicket.objects.filter(
        status=PairingTicket.Status.WAITING, due_at__lte=timezone.now()
    ).values_list("pk", flat=True)
    seated = 0
    for ticket_id in list(due):
        if do_pairing_due(ticket_id) is not None:
            seated += 1
    return seated


def _seat(tickets: list[PairingTicket], rules: engine.Rules, bot_level: str) -> Match:
    match = tables.do_create_paired_table(
        [t.user for t in tickets], rules_spec=rules.to_spec(), bot_level=bot_level
    )
    PairingTicket.objects.filter(pk__in=[t.pk for t in tickets]).update(
        status=PairingTicket.Status.SEATED, match=match
    )
    _tell(tickets)
    return match


def _tell(tickets: list[PairingTicket]) -> None:
    user_ids = [t.user_id for t in tickets]
    transaction.on_commit(partial(realtime.announce_pairing, user_ids), robust=True)


def do_start_now(user) -> Match:
    """Stop waiting: the person's request is seated at once with whoever waits for the same
    rules, bots filling the rest (two friends paired at a table of four need not sit out the
    timer they chose)."""
    ticket = selectors.latest_ticket(user)
    if ticket is None or ticket.status != PairingTicket.Status.WAITING:
        raise GameError("You are not looking for players.")
    match = do_pairing_due(ticket.pk, now=True)
    if match is None:
        raise GameError("You are not looking for players.")
    return match


def do_pairing_due(ticket_id: int, *, now: bool = False) -> Match | None:
    """A ticket's wait is over (or, `now`, its owner asked to start at once): whoever waits for
    the same rules sits down with its owner and bots of the owner's level fill the other seats.
    Harmless if the ticket was seated, cancelled, or is not due yet (a repeated or early timer)."""
    ticket = PairingTicket.objects.filter(pk=ticket_id).first()
    if ticket is None:
        return None
    rules = engine.Rules.from_spec(ticket.rules)
    with transaction.atomic():
        _lock_queue(ticket.queue.rules_key)
        ticket.refresh_from_db()
        if ticket.status != PairingTicket.Status.WAITING or (
            ticket.due_at > timezone.now() and not now
        ):
            return ticket.match
        waiting = _waiting(ticket.queue, len(rules.seats))
        if ticket.pk not in {t.pk for t in waiting}:
            waiting = [ticket, *waiting[: len(rules.seats) - 1]]
        return _seat(waiting, rules, ticket.bot_level)


def do_cancel_pairing(user) -> PairingTicket:
    """Stop looking for players. Too late once seated: the ticket names the match."""
    ticket = selectors.latest_ticket(user)
    if ticket is None or ticket.status == PairingTicket.Status.CANCELLED:
        raise GameError("You are not looking for players.")
    with transaction.atomic():
        _lock_queue(ticket.queue.rules_key)
        ticket.refresh_from_db()
        if ticket.status == PairingTicket.Status.SEATED:
            raise GameError("Too late to cancel: you already have a table.")
        if ticket.status == PairingTicket.Status.WAITING:
            ticket.status = PairingTicket.Status.CANCELLED
            ticket.save(update_fields=["status"])
            others = _waiting(ticket.queue, len(engine.Rules.from_spec(ticket.rules).seats))
            _tell([ticket, *others])
    return ticket


def resume_overdue(user) -> None:
    """A waiting ticket past its time (its timer was lost with a restarted process) is seated
    now; called when its owner opens the waiting page."""
    ticket = selectors.latest_ticket(user)
    if (
        ticket is not None
        and ticket.status == PairingTicket.Status.WAITING
        and ticket.due_at <= timezone.now()
    ):
        do_pairing_due(ticket.pk)
