"""Whose turn it is at a table: what it waits on, and the observation a bot decides from.

A bot's turn reads the deal's engine state through `selectors.current_state` (the one
per-process cache), so taking a turn never replays the deal when this process has it.
"""

import math
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from django.conf import settings

from games import engine
from games.core import selectors
from games.core.prepared import PreparedQuery
from games.engine.observation import Observation
from games.engine.par import step_seed
from games.models import BotLevel, Deal, Match, Seat

# The level of the bot that stands in for an absent person, or replaces one who left.
STAND_IN_LEVEL = str(BotLevel.MEDIUM)
# A person's seat counts as away only once its last socket has been closed this long, measured
# from the close (`Seat.last_seen_at`), not from the turn's start: a reload or a dropped
# connection that comes back within it is not leaving, and the turn keeps its clock (issue 44).
AWAY_GRACE_SECONDS = 10


class WaitingFor(StrEnum):
    """What a playing table waits on."""

    BOT = "bot"  # a bot's move
    PERSON = "person"  # a person's move (at a shared table, a stand-in's after a while)
    NEXT_DEAL = "next_deal"  # a finished deal's "Next deal"


@dataclass(frozen=True)
class Waiting:
    """What the table waits on, and what it takes to wake it."""

    kind: WaitingFor
    version: int
    seat: str = ""
    bot_level: str = ""
    automatic: bool = False
    pace_seconds: float = 0.0
    # A person's turn at a shared table: who, whether connected, and when a bot stands in.
    user_id: int | None = None
    connected: bool = True
    timeout_seconds: int = 0
    # When the person's last socket at the table closed (None: connected, or never seen).
    away_since: datetime | None = None
    # Whether someone at the table has the coach on (the coach then prepares its advice).
    coached: bool = False


def _playing_deal(match_id: int) -> Deal | None:
    """The current deal of a match being played, with its match, in one query."""
    deal_row = selectors.current_deal_with_match(match_id)
    if deal_row is None or deal_row.match.status != Match.Status.PLAYING:
        return None
    return deal_row


def waiting_on(match_id: int) -> Waiting | None:
    """What the table waits on now, read from the database."""
    deal_row = _playing_deal(match_id)
    if deal_row is None:
        return None
    return waiting_at(deal_row.match, deal_row)


_SEATS_FOR_WAITING = PreparedQuery(
    lambda match_id: Seat.objects.filter(match_id=match_id).values_list(
        "position",
        "user_id",
        "bot_level",
        "connections",
        "user__coach_enabled",
        "last_seen_at",
        "user__left_at",
    )
)


def waiting_at(match: Match, deal_row: Deal) -> Waiting:
    """What a playing match waits on at its current deal, from the rows the caller holds: a
    service that has just changed the table passes its own (locked, fresh) rows, so waking the
    next turn does not read the match and the deal again after the commit."""
    # Every seat in one query, with whether its person has the coach on: what the table waits
    # on, and whether the coach has work, read together.
    rows = {row[0]: row[1:] for row in _SEATS_FOR_WAITING(match.pk)}
    seats = {position: row[:4] for position, row in rows.items()}
    coached = match.coach_may_advise and any(coach for _, _, _, coach in seats.values())
    if deal_row.phase == engine.OVER:
        thrown_in = bool(deal_row.result and deal_row.result.get("thrown_in"))
        everyone_bot = all(user_id is None for user_id, _, _, _ in seats.values())
        return Waiting(
            WaitingFor.NEXT_DEAL,
            match.version,
            automatic=thrown_in or everyone_bot,
            pace_seconds=settings.BOT_PACE_SECONDS * 3,
            coached=coached,
        )
    user_id: int | None  # None for a bot's seat (the stubs type values_list's column as set)
    user_id, bot_level, connections, _, last_seen_at, left_at = rows[deal_row.to_act]
    if match.invite_code and (left_at is not None or match.stand_ins_from is not None):
        # A former player (their account deleted mid-match) never comes back, and a Setback
        # night's round out of time waits for nobody: the seat plays as a bot's turn, at a bot's
        # pace, not after a stalled person's grace.
        user_id, bot_level = None, STAND_IN_LEVEL
    if user_id is None:
        return Waiting(
            WaitingFor.BOT,
            match.version,
            seat=deal_row.to_act,
            bot_level=str(bot_level),
            pace_seconds=settings.BOT_PACE_SECONDS,
            coached=coached,
        )
    return Waiting(
        WaitingFor.PERSON,
        match.version,
        seat=deal_row.to_act,
        user_id=user_id,
        connected=connections > 0,
        timeout_seconds=match.turn_timeout_seconds if match.invite_code else 0,
        away_since=last_seen_at if connections == 0 else None,
        coached=coached,
    )


# --- When a stand-in plays a person's turn: the one rule (docs/people.md) ----------------------


def away_for(connected: bool, away_since: datetime | None, now: datetime) -> float | None:
    """How long a person has had no socket at the table: None while one is open, forever if
    they never opened one."""
    if connected:
        return None
    if away_since is None:
        return math.inf
    return (now - away_since).total_seconds()


def away_left(still_for: float, gone_for: float | None) -> float | None:
    """Seconds until a person who has no socket counts as away and a stand-in plays their turn
    (<= 0: now); None while they are connected. AWAY_GRACE_SECONDS after the last socket
    closed, and never before the turn is a bot's pace old (someone gone for good is played for
    at the bots' pace). Someone never seen at the table is counted gone from the turn's start:
    their page may still be opening."""
    if gone_for is None:
        return None
    if gone_for == math.inf:
        return AWAY_GRACE_SECONDS - still_for
    return max(AWAY_GRACE_SECONDS - gone_for, settings.BOT_PACE_SECONDS - still_for)


def stand_in_left(
    timeout_seconds: int, still_for: float, connected: bool, gone_for: float | None
) -> float | None:
    """Seconds left before a stand-in plays a person's turn at a shared table: the table's turn
    timeout from the turn's start (a reconnect keeps what was left, it does not start again),
    or sooner once they are away (`away_left`). None where no stand-in plays (a table without
    a timeout: a match against bots)."""
    if not timeout_seconds:
        return None
    idle = timeout_seconds - still_for
    away = away_left(still_for, None if connected else gone_for)
    return idle if away is None else min(idle, away)


def search_seed(match_id: int, version: int, bot_seed: int | None = None) -> int:
    """The seed of a search at a table's moment: the hard bot's and the coach's, so they agree.
    A match with its own `bot_seed` (a daily deal) is seeded from it, not from its number: the
    same moves on the same cards then meet the same replies at every table."""
    return step_seed(match_id if bot_seed is None else bot_seed, version)


@dataclass(frozen=True)
class BotTurn:
    seat: str
    level: str
    observation: Observation
    seed: int


def bot_turn(
    match_id: int, version: int, stand_in_level: str = "", seat: str = "", level: str = ""
) -> BotTurn | None:
    """The observation a bot decides from, or None if the table has moved on or it is not a bot's turn.

    With `stand_in_level`, also a person's turn: the bot that plays it for them while they are away.
    With `seat` and `level` (a bot's turn as `waiting_at` saw it at `version`), the seat is not
    read again: a table's seats change only while it forms, and its version names the moment.
    """
    # No lock: the deal row and its state (named by its steps) belong together, and if a move
    # lands after the version was read, the bot's move made on `version` is refused by
    # `do_act`'s version check under the lock. One locking transaction per bot move, not two.
    deal_row = _playing_deal(match_id)
    if deal_row is None or deal_row.match.version != version or deal_row.phase == engine.OVER:
        return None
    match = deal_row.match
    if not (seat and level):
        seat_row = match.seats.get(position=deal_row.to_act)
        if not seat_row.is_bot and not (stand_in_level and seat_row.user_id):
            return None
        # A plain string: the level crosses into a search process that has no Django.
        seat, level = seat_row.position, str(seat_row.bot_level or stand_in_level)
    elif seat != deal_row.to_act:
        return None
    state = selectors.current_state(deal_row)
    return BotTurn(
        seat=seat,
        level=level,
        observation=state.observation(seat, match_totals=dict(match.totals)),
        seed=search_seed(match.pk, version, match.bot_seed),
    )
