"""The lobby's reads: the public tables that are forming, and a person's pairing request."""

from dataclasses import dataclass

from django.db.models import Count, F, Q

from games import engine
from games.core import selectors as game_selectors
from games.models import Match, PersonalBlock, seat_name
from games.stats.players import shown_ratings

from .models import PairingTicket

LISTED_LIMIT = 100


@dataclass(frozen=True)
class SideView:
    label: str  # "North & South", or "Player 2" at a cutthroat table
    side: str
    free: int
    seats: int
    people: tuple  # usernames sitting on this side


@dataclass(frozen=True)
class OpenTable:
    match_id: int
    host_id: int
    host_name: str
    host_rating: int | None
    rules_text: str
    rules_label: str
    sides: tuple  # SideView
    free: int
    allow_spectators: bool


def _listed() -> "Q":
    return Q(public=True, status=Match.Status.FORMING)


def listed_table(match_id: int, user) -> Match | None:
    """A table the lobby lists for `user`: public, forming, and its host has not blocked them.
    A private table's number finds nothing here (its invite link is the only way in)."""
    match = Match.objects.filter(_listed(), pk=match_id).first()
    if match is None or not game_selectors.may_see_table(match, user):
        return None
    return match


def free_seats(match: Match, side: str = "") -> list[str]:
    rules = game_selectors.rules_of(match)
    empty = set(
        match.seats.filter(user__isnull=True, bot_level="").values_list("position", flat=True)
    )
    return [p for p in rules.seats if p in empty and (not side or rules.side_of(p) == side)]


def open_tables() -> list[OpenTable]:
    """Every public forming table with a free seat whose host has it open, newest first: the
    same for every viewer (`visible_tables` removes the tables of hosts who blocked one viewer).
    A host who closes the table's page takes it off the list; an abandoned table never lingers."""
    matches = list(
        Match.objects.filter(_listed())
        .annotate(
            free=Count("seats", filter=Q(seats__user__isnull=True, seats__bot_level="")),
            host_here=Count(
                "seats", filter=Q(seats__user_id=F("host_id"), seats__connections__gt=0)
            ),
        )
        .filter(free__gt=0, host_here__gt=0)
        .select_related("host")
        .prefetch_related("seats__user")
        .order_by("-created_at")[:LISTED_LIMIT]
    )
    ratings = shown_ratings({m.host_id for m in matches})
    return [_open_table(match, ratings.get(match.host_id)) for match in matches]


def _open_table(match: Match, host_rating: int | None) -> OpenTable:
    rules = game_selectors.rules_of(match)
    seats = {seat.position: seat for seat in match.seats.all()}
    sides = []
    for side in rules.sides:
        positions = [p for p in rules.seats if rules.side_of(p) == side]
        sides.append(
            SideView(
                label=" & ".join(seat_name(p) for p in positions),
                side=side,
                free=sum(1 for p in positions if seats[p].is_empty),
                seats=len(positions),
                people=tuple(seats[p].user.username for p in positions if seats[p].user_id),
            )
        )
    return OpenTable(
        match_id=match.pk,
        host_id=match.host_id,
        host_name=match.host.username,
        host_rating=host_rating,
        rules_text=rules.describe(),
        rules_label=match.rules_label,
        sides=tuple(sides),
        free=sum(s.free for s in sides),
        allow_spectators=match.allow_spectators,
    )


def hosts_blocking(user) -> frozenset[int]:
    """The hosts whose tables `user` does not see in the lobby (they blocked `user`)."""
    return frozenset(
        PersonalBlock.objects.filter(other=user, kind=PersonalBlock.Kind.BLOCK).values_list(
            "owner_id", flat=True
        )
    )


def visible_tables(tables: list[OpenTable], hidden_hosts: frozenset[int]) -> list[OpenTable]:
    return [t for t in tables if t.host_id not in hidden_hosts]


def latest_ticket(user) -> PairingTicket | None:
    return (
        PairingTicket.objects.filter(user=user)
        .select_related("queue", "match")
        .order_by("-created_at", "-id")
        .first()
    )


@dataclass(frozen=True)
class PairingView:
    status: str  # waiting / seated / cancelled / none
    rules_text: str = ""
    bot_level: str = ""
    due_at: object = None
    wait_seconds: int = 0
    others_waiting: int = 0
    seats: int = 0
    match_id: int | None = None


def pairing_view(user) -> PairingView:
    ticket = latest_ticket(user)
    if ticket is None:
        return PairingView("none")
    rules = engine.Rules.from_spec(ticket.rules)
    others = 0
    if ticket.status == PairingTicket.Status.WAITING:
        others = (
            ticket.queue.tickets.filter(status=PairingTicket.Status.WAITING)
            .exclude(pk=ticket.pk)
            .count()
        )
    return PairingView(
        status=ticket.status,
        rules_text=rules.describe(),
        bot_level=ticket.get_bot_level_display().lower(),
        due_at=ticket.due_at,
        wait_seconds=ticket.wait_seconds,
        others_waiting=others,
        seats=len(rules.seats),
        match_id=ticket.match_id,
    )
