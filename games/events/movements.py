"""Who sits where in each round of a Setback night, and the night's standings.

Pure Python (the standard library only, no Django): the event's app stores the rounds and asks
this module for the next round's tables and for the standings. docs/events.md tells the rules
in words; this module is those rules.

A table has four seats, "N", "E", "S" and "W"; North and South are partners (side "NS")
against East and West (side "EW"). Table 1 is the head table: "up" is toward it, "down"
toward the foot (the highest number), and every move wraps around. A seat holds a
participant's key ("p12") or None, a seat a bot plays.

The movements:

- ``rotate``: fixed seats. North stays, South moves down one table, East up one, West up two.
- ``winners_move_up``: the winning side of each table moves up one, the losers stay; the head
  table's winners stay and its losers go to the foot. The two pairs that meet are split.
- ``swiss_tables``: fixed pairs, paired by standing, never meeting again when it can be helped.
- ``individual_tables``: a new partner each round, drawn to avoid partners already had.

``refill`` seats the late arrivals and lets bots take the seats of those who left, and
``standings`` ranks the players (or the pairs) on the rounds played.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

Seat = Literal["N", "E", "S", "W"]
Side = Literal["NS", "EW"]
Key = str | None  # a participant's key, or None for a bot
Pair = tuple[Key, Key]  # fixed partners in a Swiss event; (key, None) has a bot partner

SEATS: tuple[Seat, ...] = ("N", "E", "S", "W")
SIDE_SEATS: dict[Side, tuple[Seat, Seat]] = {"NS": ("N", "S"), "EW": ("E", "W")}
OTHER_SIDE: dict[Side, Side] = {"NS": "EW", "EW": "NS"}
BOT_PAIR: Pair = (None, None)  # the pair a Swiss bye plays against

# Swiss pairing searches at most this many partial pairings before it settles for the best
# found so far: a night has a few dozen pairs, and the search ends long before this unless
# rematches cannot be avoided in a big field.
SWISS_SEARCH_BUDGET = 50_000
# Individual draws: how many shuffles (each then improved by swapping players) are tried.
INDIVIDUAL_DRAWS = 40


# ------------------------------------------------------------------------------ tables
@dataclass(frozen=True)
class Table:
    """One table of a round: its number (1 = head) and who sits in each seat."""

    number: int
    seats: dict[str, Key] = field(hash=False)

    @classmethod
    def of(cls, number: int, players: Sequence[Key]) -> Table:
        """A table seated N, E, S, W in the order given; missing seats get bots."""
        padded = list(players) + [None] * (4 - len(players))
        return cls(number, dict(zip(SEATS, padded, strict=True)))

    @property
    def players(self) -> list[str]:
        """The people at the table, in seat order N E S W (bots left out)."""
        return [key for key in self.seats.values() if key is not None]

    @property
    def all_bots(self) -> bool:
        return not self.players

    def seat_of(self, key: str) -> Seat | None:
        for seat in SEATS:
            if self.seats[seat] == key:
                return seat
        return None

    def side_of(self, key: str) -> Side | None:
        seat = self.seat_of(key)
        if seat is None:
            return None
        return "NS" if seat in SIDE_SEATS["NS"] else "EW"

    def pair(self, side: Side) -> Pair:
        """The side's two seats' occupants, first seat (N or E) first."""
        first, second = SIDE_SEATS[side]
        return (self.seats[first], self.seats[second])

    def partner_of(self, key: str) -> Key:
        """The key's partner (None when the partner is a bot, or the key is not here)."""
        side = self.side_of(key)
        if side is None:
            return None
        first, second = self.pair(side)
        return second if first == key else first

    def opponents_of(self, key: str) -> Pair:
        side = self.side_of(key)
        return self.pair(OTHER_SIDE[side]) if side else BOT_PAIR


@dataclass(frozen=True)
class Result:
    """One table's round: the points each side scored over the round's deals."""

    table: Table
    points: dict[str, int] = field(hash=False)

    def winners(self) -> Side:
        """The side that scored more; a tie goes to North-South (docs/events.md)."""
        return "NS" if self.points["NS"] >= self.points["EW"] else "EW"

    def losers(self) -> Side:
        return OTHER_SIDE[self.winners()]


def _seated(tables: Iterable[Table]) -> list[str]:
    return [key for table in tables for key in table.players]


def _deal_into_tables(players: Sequence[Key], first_number: int = 1) -> list[Table]:
    """Four at a time into tables numbered from first_number; bots fill the last one."""
    return [
        Table.of(first_number + start // 4, players[start : start + 4])
        for start in range(0, len(players), 4)
    ]


def _check_unique(keys: Iterable[str]) -> None:
    keys = list(keys)
    if len(keys) != len(set(keys)):
        raise ValueError("a participant can only have one seat")


def first_tables(keys: list[str], seed: int) -> list[Table]:
    """The first round's tables: the keys shuffled with random.Random(seed), four a table.

    The keys are sorted before the shuffle, so the same people and seed give the same tables
    whatever order the caller lists them in.
    """
    _check_unique(keys)
    shuffled = sorted(keys)
    random.Random(seed).shuffle(shuffled)
    return _deal_into_tables(shuffled)


def partnerships(tables: Iterable[Table]) -> set[frozenset[str]]:
    """Every two people who were partners at these tables (a bot partner is no one)."""
    found = set()
    for table in tables:
        for side in SIDE_SEATS:
            first, second = table.pair(side)
            if first is not None and second is not None:
                found.add(frozenset((first, second)))
    return found


def oppositions(tables: Iterable[Table]) -> set[frozenset[str]]:
    """Every two people who sat on opposite sides of these tables."""
    found = set()
    for table in tables:
        for one in table.pair("NS"):
            for other in table.pair("EW"):
                if one is not None and other is not None:
                    found.add(frozenset((one, other)))
    return found


# ---------------------------------------------------------------- movement 1: rotation
def rotate(tables: list[Table]) -> list[Table]:
    """The fixed-seat progressive movement: North stays, South moves down one table, East up
    one, West up two, all wrapping around. Seats move, bots (None) with them.

    Over as many rounds as there are tables, nobody has the same partner twice: the South
    beside a North, and the West beside an East, is a different one each round.
    """
    ordered = sorted(tables, key=lambda table: table.number)
    count = len(ordered)

    def came_from(index: int, steps: int) -> Table:
        return ordered[(index + steps) % count]

    return [
        Table(
            table.number,
            {
                "N": table.seats["N"],
                "E": came_from(index, +1).seats["E"],  # East moves up: it came from below
                "S": came_from(index, -1).seats["S"],  # South moves down: it came from above
                "W": came_from(index, +2).seats["W"],
            },
        )
        for index, table in enumerate(ordered)
    ]


# ------------------------------------------------------- movement 2: winners move up
def _split(number: int, staying: Pair, arriving: Pair) -> Table:
    """Seat two pairs so that each is split: the staying pair takes N and E, the arriving
    pair S and W; in each pair, whoever sat in their side's first seat (N or E) goes first."""
    return Table(
        number,
        {"N": staying[0], "E": staying[1], "S": arriving[0], "W": arriving[1]},
    )


def winners_move_up(results: list[Result]) -> list[Table]:
    """The next round's tables when the winners move up and the pairs split.

    At every table but the head, the losers stay and the winners move up one table; at the
    head table the winners stay and the losers go down to the foot table. Each table then
    seats the pair that stayed with the pair that arrived, split (see _split): everyone gets
    a new partner from the other pair.
    """
    ordered = sorted(results, key=lambda result: result.table.number)
    head = ordered[0]
    new_tables = []
    for index, result in enumerate(ordered):
        table = result.table
        staying = table.pair(result.winners() if index == 0 else result.losers())
        if index + 1 < len(ordered):
            below = ordered[index + 1]
            arriving = below.table.pair(below.winners())
        else:
            arriving = head.table.pair(head.losers())
        new_tables.append(_split(table.number, staying, arriving))
    return new_tables


# ------------------------------------------------------------------ movement 3: Swiss
def _rematches(matches: Iterable[tuple[Pair, Pair]], met: set[frozenset[Pair]]) -> int:
    return sum(frozenset(match) in met for match in matches)


def _pair_off(
    pairs: list[Pair], met: set[frozenset[Pair]], allowed: int, budget: list[int]
) -> list[tuple[Pair, Pair]] | None:
    """Matches for all the pairs (listed by standing) with at most `allowed` rematches: the
    top pair meets the highest it can, and so on down, backtracking when the rest cannot be
    matched. None when there is no such pairing, or when the budget ran out."""
    if not pairs:
        return []
    top, rest = pairs[0], pairs[1:]
    for index, opponent in enumerate(rest):
        budget[0] -= 1
        if budget[0] < 0:
            return None
        cost = frozenset((top, opponent)) in met
        if cost > allowed:
            continue
        others = rest[:index] + rest[index + 1 :]
        matched = _pair_off(others, met, allowed - cost, budget)
        if matched is not None:
            return [(top, opponent), *matched]
    return None


def _greedy_pairing(pairs: list[Pair], met: set[frozenset[Pair]]) -> list[tuple[Pair, Pair]]:
    """Top down, each pair meets the highest one it has not met (or, failing that, the next)."""
    left = list(pairs)
    matches = []
    while left:
        top = left.pop(0)
        fresh = [other for other in left if frozenset((top, other)) not in met]
        opponent = (fresh or left)[0]
        left.remove(opponent)
        matches.append((top, opponent))
    return matches


def _swiss_matches(pairs: list[Pair], met: set[frozenset[Pair]]) -> list[tuple[Pair, Pair]]:
    """The fewest rematches possible (tried as 0, 1, 2, ...), top-down within that; the greedy
    pairing if the search budget runs out first."""
    budget = [SWISS_SEARCH_BUDGET]
    for allowed in range(len(pairs) // 2 + 1):
        matched = _pair_off(pairs, met, allowed, budget)
        if matched is not None:
            return matched
        if budget[0] < 0:
            break
    return _greedy_pairing(pairs, met)


def swiss_tables(
    pairs_by_standing: list[Pair], met: set[frozenset[Pair]], had_bye: set[Pair]
) -> list[Table]:
    """The next Swiss round: pairs listed best first are matched top-down, avoiding pairs
    that already met (``met`` holds each match played as a frozenset of its two pairs).

    With an odd number of pairs, the lowest pair that has not had a bye (or, when all have,
    the lowest) plays against bots, the BOT_PAIR, at the foot table. At each table the
    higher-standing pair sits North-South, its first player North.
    """
    pairs = list(pairs_by_standing)
    if len(set(pairs)) != len(pairs):
        raise ValueError("a pair can only play once a round")
    _check_unique(key for pair in pairs for key in pair if key is not None)
    bye = None
    if len(pairs) % 2:
        without = [pair for pair in pairs if pair not in had_bye]
        bye = (without or pairs)[-1]
        pairs.remove(bye)
    matches = _swiss_matches(pairs, met)
    if bye is not None:
        matches.append((bye, BOT_PAIR))
    return [
        Table(number, {"N": higher[0], "E": lower[0], "S": higher[1], "W": lower[1]})
        for number, (higher, lower) in enumerate(matches, start=1)
    ]


# ------------------------------------------------------------- movement 4: individual
def _repeats(
    tables: list[Table], partnered: set[frozenset[str]], opposed: set[frozenset[str]]
) -> tuple[int, int]:
    """(partnerships already had, oppositions already had) in these tables: lower is better,
    partners first."""
    return (
        len(partnerships(tables) & partnered),
        len(oppositions(tables) & opposed),
    )


def _improve_by_swaps(
    order: list[Key], partnered: set[frozenset[str]], opposed: set[frozenset[str]]
) -> tuple[tuple[int, int], list[Key]]:
    """Swap two people while it lowers the repeats, until no swap does (bots stay put)."""
    best = _repeats(_deal_into_tables(order), partnered, opposed)
    people = [index for index, key in enumerate(order) if key is not None]
    improved = True
    while improved and best != (0, 0):
        improved = False
        for one, other in itertools.combinations(people, 2):
            order[one], order[other] = order[other], order[one]
            cost = _repeats(_deal_into_tables(order), partnered, opposed)
            if cost < best:
                best, improved = cost, True
            else:
                order[one], order[other] = order[other], order[one]
    return best, order


def individual_tables(
    keys: list[str],
    partnered: set[frozenset[str]],
    opposed: set[frozenset[str]],
    seed: int,
) -> list[Table]:
    """A round where everyone gets new partners: four a table, bots filling the last table.

    Draws shuffle the people with random.Random(seed) and then swap two at a time while that
    lowers the repeats; the draw with the fewest partnerships already had (``partnered``),
    then the fewest opponents already met (``opposed``), is kept. The same keys, history and
    seed give the same tables.
    """
    _check_unique(keys)
    rng = random.Random(seed)
    people = sorted(keys)
    seats = len(people) + (-len(people)) % 4
    best: tuple[tuple[int, int], list[Key]] | None = None
    for _ in range(INDIVIDUAL_DRAWS):
        rng.shuffle(people)
        order: list[Key] = [*people, *[None] * (seats - len(people))]
        drawn = _improve_by_swaps(order, partnered, opposed)
        if best is None or drawn[0] < best[0]:
            best = drawn
        if best[0] == (0, 0):
            break
    return _deal_into_tables(best[1]) if best else []


# ---------------------------------------------------------------- comings and goings
def refill(tables: list[Table], present: set[str], arrivals: list[str]) -> list[Table]:
    """The tables once those who left are replaced by bots and the late arrivals are seated.

    Anyone not in `present` leaves their seat to a bot. Arrivals take bot seats in table order
    (head first, then N, E, S, W), then new tables at the foot, bots filling the last. A table
    left with only bots stays in the list, as the movements need its seats; it is not played.
    Arrivals who already have a seat keep it.
    """
    seated = set(_seated(tables))
    waiting = [key for key in dict.fromkeys(arrivals) if key not in seated]
    refilled = []
    for table in sorted(tables, key=lambda table: table.number):
        seats: dict[str, Key] = {}
        for seat in SEATS:
            key = table.seats[seat]
            if key is None or key not in present:
                key = waiting.pop(0) if waiting else None
            seats[seat] = key
        refilled.append(Table(table.number, seats))
    next_number = max((table.number for table in tables), default=0) + 1
    return refilled + _deal_into_tables(waiting, first_number=next_number)


# ------------------------------------------------------------------------- standings
@dataclass(frozen=True)
class RoundLine:
    """One unit's round: where it sat, with and against whom, and how it went.

    For a player, `partner` is the partner (None: a bot); for a pair it is None.
    """

    table: int
    partner: Key
    opponents: Pair
    points_for: int
    points_against: int
    won: bool


@dataclass(frozen=True)
class Line:
    """One unit's (a player's, or in a Swiss event a pair's) line in the standings."""

    key: str | Pair
    place: int  # 1 is first; units equal on every criterion share a place: 1, 2, 2, 4
    won: int  # rounds won (a table always has a winner: a tie goes to North-South)
    points_for: int
    points_against: int
    rounds: tuple[RoundLine | None, ...] = field(hash=False)  # None: a round not played

    @property
    def net(self) -> int:
        return self.points_for - self.points_against

    def ranking(self) -> tuple[int, int, int]:
        """What places are decided on, best first: rounds won, net points, points for."""
        return (self.won, self.net, self.points_for)


def _units_at(
    result: Result, units: str, pair_of: dict[frozenset[Key], Pair]
) -> Iterator[tuple[str | Pair, Side, Key]]:
    """(unit, side, partner) for each unit that played at this table; bots are not units."""
    table = result.table
    for side in SIDE_SEATS:
        pair = table.pair(side)
        if units == "pair":
            if pair != BOT_PAIR:
                yield pair_of.get(frozenset(pair), pair), side, None
            continue
        for key in pair:
            if key is not None:
                yield key, side, table.partner_of(key)


def _sort_name(key: str | Pair) -> tuple[str, ...]:
    keys = key if isinstance(key, tuple) else (key,)
    return tuple(k or "" for k in keys)


def _placed(lines: list[Line]) -> list[Line]:
    """The lines best first, with places: equal rankings share the better place."""
    ordered = sorted(lines, key=lambda line: (_negated(line.ranking()), _sort_name(line.key)))
    placed: list[Line] = []
    for index, line in enumerate(ordered):
        tied = placed and placed[-1].ranking() == line.ranking()
        place = placed[-1].place if tied else index + 1
        placed.append(
            Line(line.key, place, line.won, line.points_for, line.points_against, line.rounds)
        )
    return placed


def _negated(values: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(-value for value in values)


def _round_line(result: Result, side: Side, partner: Key) -> RoundLine:
    return RoundLine(
        table=result.table.number,
        partner=partner,
        opponents=result.table.pair(OTHER_SIDE[side]),
        points_for=result.points[side],
        points_against=result.points[OTHER_SIDE[side]],
        won=result.winners() == side,
    )


def _totalled(unit: str | Pair, done: Sequence[RoundLine | None]) -> Line:
    """The unit's line, its place still to be decided (by _placed)."""
    played = [line for line in done if line is not None]
    return Line(
        key=unit,
        place=0,
        won=sum(line.won for line in played),
        points_for=sum(line.points_for for line in played),
        points_against=sum(line.points_against for line in played),
        rounds=tuple(done),
    )


def standings(
    rounds: list[list[Result]],
    units: Literal["player", "pair"] = "player",
    pairs: Iterable[Pair] | None = None,
) -> list[Line]:
    """The standings after these rounds, best first.

    Units are players, or with units="pair" the pairs of a Swiss event (``pairs``: every pair
    entered, so a pair that has not played yet is listed too). Bots are never ranked; a player
    whose partner is a bot scores the side's points like anyone. Ranking: rounds won, then net
    points (for minus against), then points for; units equal on all three share a place.
    """
    if units not in ("player", "pair"):
        raise ValueError(f"units are 'player' or 'pair', not {units!r}")
    pair_of = {frozenset(pair): pair for pair in pairs or ()}
    not_yet: list[RoundLine | None] = [None] * len(rounds)
    played: dict[str | Pair, list[RoundLine | None]] = {}
    if units == "pair":
        played = {pair: list(not_yet) for pair in pair_of.values()}
    for number, results in enumerate(rounds):
        for result in results:
            for unit, side, partner in _units_at(result, units, pair_of):
                played.setdefault(unit, list(not_yet))[number] = _round_line(result, side, partner)
    return _placed([_totalled(unit, done) for unit, done in played.items()])
