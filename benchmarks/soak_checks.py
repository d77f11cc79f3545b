"""What the soak checks (`manage.py soak`): what a table waits on, as its screen says; how long
each table waited on a bot, a stand-in or the next automatic deal; what the server logged.

A table stalls when its state (the screen's `data-version`) does not move for longer than the
limit while it waits on a bot, a stand-in (a person's turn at a shared table while they are
away) or the next automatic deal. A wait on a person who is there is no stall, however long.
The soak's people see a table only while one of them has it open, so a wait is measured from
what they saw: two sightings of the same version at t1 and t2 prove that the table did not move
for t2 - t1; a socket held open from then on proves it until the next version arrives (every
change is pushed to every open socket). A wait no one watched to its end counts only up to its
last sighting: never longer than it was.
"""

import re
import time
from collections import Counter
from dataclasses import dataclass

from .made_run import SERVER_FAULTS

# What a table can wait on. The soak counts a stall only for the first three.
BOT, STAND_IN, NEXT_DEAL, PERSON = "bot", "stand-in", "next deal", "person"
NOT_A_PERSON = (BOT, STAND_IN, NEXT_DEAL)

_TABLE_PHASE = re.compile(r'<div id="table" class="table[^"]*"[^>]*data-phase="(\w+)"')
_OTHER_SEAT = '<div class="seat seat-'
# A seat's class list goes on after seat-turn (its place on the table: at-x-…, at-y-…).
_SEAT_TURN = re.compile(r'<div class="seat seat-\w+(?: seat-high)? seat-turn[ "]')
_AFTER_THE_SEATS = '<div class="trick trick-live"'
_PLAYER = re.compile(r'class="player-link" href="/players/([^/"]+)/"')


def waits_on(html: str) -> str:
    """What the table on this screen waits on: BOT, STAND_IN, NEXT_DEAL, PERSON, or "" (a
    finished match or practice deal, a table still forming, or no table at all)."""
    phase = _TABLE_PHASE.search(html)
    if phase is None:
        return ""
    if phase.group(1) == "over":
        if 'class="match-over"' in html or "data-practice" in html:
            return ""  # finished: the match, or the one deal of a practice match
        if "Everyone passed" in html:
            return NEXT_DEAL  # a thrown-in hand is dealt again by itself
        return PERSON  # "Next deal", clicked by a person
    if 'class="me seat-turn"' in html:
        return PERSON  # the one looking: they are there
    seat = _turn_seat(html)
    if seat is None:
        return ""
    if 'class="bot-level"' in seat:
        return BOT  # a bot's seat, or a person's who left the table for good
    if "presence-off" in seat:
        return STAND_IN  # a person who is away: a bot plays their turn
    return PERSON


def turn_holder(html: str) -> str:
    """The name of the person whose turn it is, when it is another person's (else "")."""
    seat = _turn_seat(html) if 'class="me seat-turn"' not in html else None
    found = _PLAYER.search(seat) if seat else None
    return found.group(1) if found else ""


def _turn_seat(html: str) -> str | None:
    """The markup of the other seat whose turn it is, if any."""
    turn = _SEAT_TURN.search(html)
    if turn is None:
        return None
    end = html.find(_OTHER_SEAT, turn.end())
    if end < 0:
        end = html.find(_AFTER_THE_SEATS, turn.end())
    return html[turn.start() : end if end > 0 else len(html)]


@dataclass
class Wait:
    """A table waiting on something other than a person there, as the people saw it."""

    match_id: int
    version: int
    kind: str
    since: float  # first seen waiting
    seen_until: float  # known still waiting (same version) until then

    @property
    def seconds(self) -> float:
        return self.seen_until - self.since


@dataclass
class _Table:
    version: int = -1
    wait: Wait | None = None
    sockets: int = 0
    watched_since: float | None = None  # since when some socket has been open without a gap


class TableWatch:
    """Every table the soak's people saw: each wait on a bot, a stand-in or an automatic next
    deal, the longest of each kind, and the ones longer than `limit` seconds (stalls)."""

    def __init__(self, limit: float = 15.0, clock=time.monotonic):
        self.limit = limit
        self.clock = clock
        self.tables: dict[int, _Table] = {}
        self.longest: dict[str, Wait] = {}
        self.counts: Counter = Counter()
        self.stalls: dict[tuple[int, int, str], Wait] = {}

    def opened(self, match_id: int) -> None:
        """A socket on the table is open: every change reaches it from now on."""
        table = self.tables.setdefault(match_id, _Table())
        if table.sockets == 0:
            table.watched_since = self.clock()
        table.sockets += 1

    def closed(self, match_id: int) -> None:
        table = self.tables[match_id]
        now = self.clock()
        self._extend(table, now)
        table.sockets -= 1
        if table.sockets == 0:
            table.watched_since = None

    def saw(self, match_id: int, version: int, kind: str, at: float | None = None) -> None:
        """A screen of the table at `version`, waiting on `kind` (waits_on)."""
        now = self.clock() if at is None else at
        table = self.tables.setdefault(match_id, _Table())
        if version < table.version:
            return  # an older screen, overtaken
        if version > table.version:
            if table.wait is not None:
                # Watched without a gap since it was last seen waiting: it moved just now.
                self._extend(table, now)
                self._done(table)
            table.version = version
        wait = table.wait
        if kind in NOT_A_PERSON:
            if wait is None or wait.kind != kind:
                if wait is not None:
                    self._done(table)
                table.wait = Wait(match_id, version, kind, now, now)
            else:
                wait.seen_until = max(wait.seen_until, now)
        elif wait is not None:
            wait.seen_until = max(wait.seen_until, now)  # the person came back
            self._done(table)

    def check(self, now: float | None = None) -> list[Wait]:
        """The waits going on now that are longer than the limit (also kept in `stalls`)."""
        now = self.clock() if now is None else now
        found = []
        for table in self.tables.values():
            self._extend(table, now)
            if table.wait is not None and table.wait.seconds > self.limit:
                self._note_stall(table.wait)
                found.append(table.wait)
        return found

    def finish(self, now: float | None = None) -> None:
        """The end of the run: every wait still going on counts as seen so far."""
        self.check(now)
        for table in self.tables.values():
            if table.wait is not None:
                self._done(table)

    def _extend(self, table: _Table, now: float) -> None:
        wait = table.wait
        if wait is None or table.watched_since is None:
            return
        if table.watched_since <= wait.seen_until:  # no gap since it was last seen waiting
            wait.seen_until = max(wait.seen_until, now)

    def _done(self, table: _Table) -> None:
        wait, table.wait = table.wait, None
        assert wait is not None  # called for a table that is waiting
        self.counts[wait.kind] += 1
        if wait.kind not in self.longest or wait.seconds > self.longest[wait.kind].seconds:
            self.longest[wait.kind] = wait
        if wait.seconds > self.limit:
            self._note_stall(wait)

    def _note_stall(self, wait: Wait) -> None:
        key = (wait.match_id, wait.version, wait.kind)
        self.stalls[key] = Wait(**vars(wait))


# --- The server's log ------------------------------------------------------------------------

_ACCESS_LINE = re.compile(r'^\S+:\d+ - - \[[^\]]+\] "')
_ANSWER_500 = re.compile(_ACCESS_LINE.pattern + r'[^"]*" 5\d\d ')
_MAKE_LINE = re.compile(
    r"^(make(\[\d+\])?: |\S*python\S* manage\.py |SECRET_KEY=|\S*daphne |Serving )"
)


_TRACEBACK_GOES_ON = ("Traceback", "During handling", "The above exception")


def log_faults(text: str) -> list[str]:
    """Each fault the server logged (a traceback, an answer of 500, a failed task, an ERROR
    line) with its traceback, if any: a traceback's lines, chained ones included, are one fault."""
    lines = text.splitlines()
    return ["\n".join(lines[start:end]).rstrip() for start, end in _fault_spans(lines)]


def _fault_spans(lines: list[str]) -> list[tuple[int, int]]:
    spans, number = [], 0
    while number < len(lines):
        if not SERVER_FAULTS.search(lines[number]):
            number += 1
            continue
        end = number + 1
        while end < len(lines):
            line, before = lines[end], lines[end - 1]
            indented = line[:1].isspace()
            ends_a_traceback = before[:1].isspace() and not _ACCESS_LINE.match(line)
            if (
                indented
                or not line.strip()
                or line.startswith(_TRACEBACK_GOES_ON)
                or ends_a_traceback
            ):
                end += 1  # (the exception's own line follows the traceback's indented ones)
                continue
            break
        if end > number + 1 and end < len(lines) and _ANSWER_500.match(lines[end]):
            end += 1  # the failed request's own answer of 500 ends its traceback: one fault
        spans.append((number, end))
        number = end
    return spans


def fault_signature(fault: str) -> str:
    """A fault in one line: its first line, and a traceback's exception (its last line that
    is not indented) when there is one."""
    lines = [line for line in fault.splitlines() if line.strip()]
    exception_lines = (
        line
        for line in reversed(lines[1:])
        if not line[0].isspace() and not _ACCESS_LINE.match(line)
    )
    last = next(exception_lines, "")
    if not last or last.startswith("Traceback"):
        return lines[0]
    return f"{lines[0]} ... {last}"


def log_notes(text: str) -> Counter:
    """The other lines the server logged (warnings, mostly; access lines, make's own and the
    faults' left out), counted with their numbers blanked: "woke 1 table" and "woke 2" alike."""
    lines = text.splitlines()
    in_faults = {n for start, end in _fault_spans(lines) for n in range(start, end)}
    notes: Counter = Counter()
    for number, line in enumerate(lines):
        if number in in_faults or not line.strip() or _ACCESS_LINE.match(line):
            continue
        if not _MAKE_LINE.match(line):
            notes[re.sub(r"\d+", "N", line.strip())[:160]] += 1
    return notes
