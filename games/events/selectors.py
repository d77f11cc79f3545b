"""What the events' pages read: the event, who plays where, and the standings, computed from
the stored deals of the round's matches every time (never kept: docs/events.md)."""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.db.models import Count, Q
from django.utils import timezone

from accounts.models import FORMER_PLAYER
from games.models import Deal, Match
from games.social import selectors as social

from . import movements
from .models import Entry, Event, EventTable

# Check-in opens this long before the start.
CHECK_IN_BEFORE = timedelta(minutes=30)


def check_in_opens_at(event: Event) -> datetime:
    return event.starts_at - CHECK_IN_BEFORE


def table_of(event: Event, user_id: int, round_number: int) -> EventTable | None:
    """The table `user_id` sits at in a round, if any."""
    for table in event.tables.filter(round=round_number):
        if user_id in table.seats.values():
            return table
    return None


def tables_playing(event: Event, round_number: int) -> list[int]:
    """The matches of a round still being played."""
    return list(
        Match.objects.filter(
            event_table__event=event,
            event_table__round=round_number,
            status=Match.Status.PLAYING,
        ).values_list("pk", flat=True)
    )


def _points_by_match(match_ids: list[int]) -> dict[int, dict[str, int]]:
    """Each match's points by side, summed from its finished deals' stored results."""
    points: dict[int, dict[str, int]] = defaultdict(lambda: {"NS": 0, "EW": 0})
    results = Deal.objects.filter(match_id__in=match_ids, finished_at__isnull=False).values_list(
        "match_id", "result"
    )
    for match_id, result in results:
        for side, delta in (result or {}).get("score", {}).items():
            points[match_id][side] = points[match_id].get(side, 0) + delta
    return points


def round_results(event: Event, rounds: int | None = None) -> list[list[movements.Result]]:
    """Every round's tables with the points each side has scored so far (a round in play counts
    the deals finished), rounds 1 to `rounds` (all rounds played or under way by default)."""
    last = event.round_number if rounds is None else rounds
    tables = list(event.tables.filter(round__lte=last))
    points = _points_by_match([t.match_id for t in tables if t.match_id is not None])
    by_round: list[list[movements.Result]] = [[] for _ in range(last)]
    for table in tables:
        seats = {
            position: None if uid is None else str(uid) for position, uid in table.seats.items()
        }
        scored = points[table.match_id] if table.match_id is not None else {"NS": 0, "EW": 0}
        by_round[table.round - 1].append(
            movements.Result(movements.Table(table.number, seats), dict(scored))
        )
    return by_round


def names_of(user_ids) -> dict[int, str]:
    users = get_user_model().objects.filter(pk__in=set(user_ids))
    return {user.pk: user.shown_name for user in users}


@dataclass
class SheetCell:
    """One round on one sheet: where they sat, with whom, and what it gave."""

    table: int
    partner: str
    opponents: str
    points_for: int
    points_against: int
    won: bool | None  # None while the round is being played
    match_id: int | None


@dataclass
class StandingRow:
    place: int
    names: str
    user_ids: list[int]
    won: float
    points_for: int
    points_against: int
    cells: list[SheetCell | None] = field(default_factory=list)

    @property
    def net(self) -> int:
        return self.points_for - self.points_against


def _label(keys, names: dict[int, str]) -> str:
    shown = [names.get(int(k), FORMER_PLAYER) if k else "a bot" for k in keys]
    return " & ".join(shown)


def standings(event: Event) -> list[StandingRow]:
    """The standings: ranked on the rounds finished; the round in play shows its points so far
    on the sheets. A bot is never ranked (docs/events.md)."""
    history = round_results(event)
    pairs = event_pairs(event) if event.by_pairs else None
    if pairs is not None:
        history = as_pairs(history, pairs)
    lines = movements.standings(
        history[: _rounds_finished(event)], units="pair" if pairs else "player", pairs=pairs
    )
    ranked = {line.key: line for line in lines}
    # Everyone checked in has a sheet, even before their first round is over.
    units = list(ranked) + [unit for unit in _units(event, pairs) if unit not in ranked]
    sheet = _Sheet(event, history)
    rows = [sheet.row(unit, ranked.get(unit), unranked_place=len(lines) + 1) for unit in units]
    rows.sort(key=lambda r: (r.place, r.names.lower()))
    return rows


def _rounds_finished(event: Event) -> int:
    if event.status == Event.Status.FINISHED:
        return event.round_number
    return max(0, event.round_number - 1)


class _Sheet:
    """What every line of the standings is read against: the rounds, which tables still play,
    each table's match, and the people's names."""

    def __init__(self, event: Event, history: list[list[movements.Result]]) -> None:
        self.history = history
        self.playing = set(
            Match.objects.filter(event_table__event=event, status=Match.Status.PLAYING).values_list(
                "pk", flat=True
            )
        )
        self.tables = {(t.round, t.number): t.match_id for t in event.tables.all()}
        seated = {int(k) for rnd in history for r in rnd for k in r.table.seats.values() if k}
        self.names = names_of(seated | set(event.entries.values_list("user_id", flat=True)))

    def row(self, unit, line: movements.Line | None, unranked_place: int) -> StandingRow:
        keys = list(unit) if isinstance(unit, tuple) else [unit]
        return StandingRow(
            place=line.place if line else unranked_place,
            names=_label(keys, self.names),
            user_ids=[int(k) for k in keys if k],
            won=line.won if line else 0,
            points_for=line.points_for if line else 0,
            points_against=line.points_against if line else 0,
            cells=[
                self.cell(results, keys[0], number)
                for number, results in enumerate(self.history, start=1)
            ],
        )

    def cell(self, results: list[movements.Result], key, number: int) -> SheetCell | None:
        for result in results:
            table = result.table
            side = table.side_of(key)
            if side is None:
                continue
            other = movements.OTHER_SIDE[side]
            match_id = self.tables.get((number, table.number))
            return SheetCell(
                table=table.number,
                partner=_label([table.partner_of(key)], self.names),
                opponents=_label(table.pair(other), self.names),
                points_for=result.points[side],
                points_against=result.points[other],
                won=None if match_id in self.playing else result.winners() == side,
                match_id=match_id,
            )
        return None


def as_pairs(history: list[list[movements.Result]], pairs) -> list[list[movements.Result]]:
    """Swiss: the rounds with each side's seats named by its registered pair, so a pair stays
    one unit when one of its players has left and a bot plays in their seat."""
    pair_of = {key: pair for pair in pairs for key in pair if key is not None}
    renamed = []
    for results in history:
        tables = []
        for result in results:
            seats = dict(result.table.seats)
            for first, second in (("N", "S"), ("E", "W")):
                known = [pair_of[k] for k in (seats[first], seats[second]) if k in pair_of]
                if known:
                    seats[first], seats[second] = known[0]
            tables.append(
                movements.Result(movements.Table(result.table.number, seats), result.points)
            )
        renamed.append(tables)
    return renamed


def event_pairs(event: Event) -> list[tuple[str | None, str | None]]:
    members: dict[int, list[str]] = {}
    for entry in event.entries.exclude(pair_number=None).order_by(
        "pair_number", "checked_in_at", "pk"
    ):
        members.setdefault(entry.pair_number or 0, []).append(str(entry.user_id))
    return [(keys[0], keys[1] if len(keys) > 1 else None) for keys in members.values()]


def _units(event: Event, pairs) -> list:
    if pairs is not None:
        return list(pairs)
    return [str(user_id) for user_id in event.entries.values_list("user_id", flat=True)]


# --- The event's page ------------------------------------------------------------------------


def visible_event(event_id: int, user) -> Event | None:
    """The event, if the viewer may know it: a public event for anyone, a club's for its
    members."""
    event = Event.objects.select_related("club", "organiser").filter(pk=event_id).first()
    if event is None:
        return None
    if event.club_id is not None and social.membership(event.club_id, user) is None:
        return None
    return event


@dataclass
class LiveView:
    """What every viewer of the event sees alike (rendered once per change per process)."""

    event: Event
    checked_in: int
    standings: list[StandingRow]
    tables: list[dict]
    rules_label: str


def live_view(event: Event) -> LiveView:
    return LiveView(
        event=event,
        checked_in=event.entries.filter(left_at__isnull=True).count(),
        standings=standings(event) if event.status != Event.Status.SCHEDULED else [],
        tables=round_tables(event),
        rules_label=Match(rules=event.rules).rules_label,
    )


@dataclass
class MyPlace:
    """One viewer's part: checked in or not, and their table in the round in play."""

    event: Event
    entry: Entry | None
    table: EventTable | None
    table_playing: bool
    check_in_opens_at: datetime
    signed_in: bool
    check_in_open: bool


def my_place(event: Event, user) -> MyPlace:
    entry = event.entries.filter(user=user).first() if user.is_authenticated else None
    table = None
    playing = False
    if entry is not None and entry.left_at is None and event.status == Event.Status.PLAYING:
        table = table_of(event, user.pk, event.round_number)
        if table is not None and table.match_id is not None:
            playing = Match.objects.filter(pk=table.match_id, status=Match.Status.PLAYING).exists()
    opens_at = check_in_opens_at(event)
    return MyPlace(
        event,
        entry,
        table,
        playing,
        opens_at,
        signed_in=user.is_authenticated,
        check_in_open=timezone.now() >= opens_at,
    )


def round_tables(event: Event) -> list[dict]:
    """The round in play: each table, who sits there, and whether it still plays."""
    if event.round_number == 0:
        return []
    tables = list(event.tables.filter(round=event.round_number).select_related("match"))
    names = names_of(uid for t in tables for uid in t.seats.values() if uid)
    # One count for the whole round, not one query a table (50 at a night of 200 people, at
    # every deal's end: issue 49's load test).
    deals_done = dict(
        Deal.objects.filter(
            match_id__in=[t.match_id for t in tables if t.match_id is not None],
            finished_at__isnull=False,
        )
        .exclude(result__thrown_in=True)
        .values("match_id")
        .annotate(done=Count("pk"))
        .values_list("match_id", "done")
    )
    return [
        {
            "number": t.number,
            "match_id": t.match_id,
            "seats": [
                (pos, names.get(uid, FORMER_PLAYER) if uid else "bot")
                for pos, uid in t.seats.items()
            ],
            "playing": t.match is not None and t.match.status == Match.Status.PLAYING,
            "deals_done": deals_done.get(t.match_id, 0) if t.match_id is not None else 0,
        }
        for t in tables
    ]


def upcoming_events(user, now) -> list[Event]:
    """Events to show on the list: public ones, and the viewer's clubs', not yet over."""
    clubs = []
    if user.is_authenticated:
        clubs = list(user.club_memberships.values_list("club_id", flat=True))
    return list(
        Event.objects.filter(Q(club__isnull=True) | Q(club_id__in=clubs))
        .filter(status__in=[Event.Status.SCHEDULED, Event.Status.PLAYING])
        .select_related("club")
        .order_by("starts_at")[:50]
    )


def recent_events(user) -> list[Event]:
    clubs = []
    if user.is_authenticated:
        clubs = list(user.club_memberships.values_list("club_id", flat=True))
    return list(
        Event.objects.filter(Q(club__isnull=True) | Q(club_id__in=clubs))
        .filter(status=Event.Status.FINISHED)
        .select_related("club")
        .order_by("-finished_at")[:20]
    )


def may_replay(event: Event, user) -> bool:
    """Every deal of a finished event, face up: for its participants, or anyone if public."""
    if event.status != Event.Status.FINISHED:
        return False
    if event.public:
        return True
    return user.is_authenticated and event.entries.filter(user=user).exists()


@dataclass
class PlayerEvent:
    event: Event
    place: int | None
    of: int


def player_events(player) -> list[PlayerEvent]:
    """A player's finished events, newest first, with their place."""
    events = Event.objects.filter(entries__user=player, status=Event.Status.FINISHED).order_by(
        "-finished_at"
    )[:20]
    found = []
    for event in events:
        rows = standings(event)
        place = next((row.place for row in rows if player.pk in row.user_ids), None)
        found.append(PlayerEvent(event, place, len(rows)))
    return found


def person_data(user) -> list[dict]:
    """The events a person entered, for "Download my data": each with their place and their
    sheet, round by round (only what the event's page shows anyone who may see it)."""
    found = []
    for entry in Entry.objects.filter(user=user).select_related("event").order_by("checked_in_at"):
        event = entry.event
        rows = standings(event) if event.status != Event.Status.SCHEDULED else []
        mine = next((row for row in rows if user.pk in row.user_ids), None)
        found.append(
            {
                "event": event.name,
                "starts_at": event.starts_at.isoformat(),
                "status": event.status,
                "movement": event.movement,
                "checked_in_at": entry.checked_in_at.isoformat(),
                "left_at": entry.left_at.isoformat() if entry.left_at else None,
                "place": mine.place if mine and event.status == Event.Status.FINISHED else None,
                "of": len(rows),
                "rounds": [
                    None
                    if cell is None
                    else {
                        "table": cell.table,
                        "partner": cell.partner,
                        "opponents": cell.opponents,
                        "points_for": cell.points_for,
                        "points_against": cell.points_against,
                        "won": cell.won,
                        "match": cell.match_id,
                    }
                    for cell in (mine.cells if mine else [])
                ],
            }
        )
    return found
