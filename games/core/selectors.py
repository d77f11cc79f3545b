"""Every read of a game's rows: the engine state behind a deal (rebuilt, or from this process's
cache), the match's standing, and who may know and see a table.

`games.core.turns` says whose turn it is from these; `games.core.presenters` builds what templates show.
"""

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache

from games import engine
from games.core import hooks
from games.core.errors import NotFound
from games.core.prepared import PreparedQuery
from games.models import Action, Deal, Match, PersonalBlock, Seat


def table_group(match_id: int) -> str:
    return f"table-{match_id}"


@lru_cache(maxsize=256)
def _rules_from_json(spec_json: str) -> engine.Rules:
    return engine.Rules.from_spec(json.loads(spec_json))


def rules_of(match: Match) -> engine.Rules:
    return _rules_from_json(json.dumps(match.rules, sort_keys=True))


def current_deal(match: Match) -> Deal:
    return match.deals.order_by("-number").first()


_CURRENT_DEAL_WITH_MATCH = PreparedQuery(
    lambda match_id: (
        Deal.objects.select_related("match").filter(match_id=match_id).order_by("-number")[:1]
    )
)


def current_deal_with_match(match_id: int) -> Deal | None:
    """A match's current deal, its match read with it in the same query (None while nothing is
    dealt): a screen is rendered at every move, and each query costs about a millisecond of the
    web process's CPU (prepared: its SQL built once, games/core/prepared.py)."""
    return _CURRENT_DEAL_WITH_MATCH.first(match_id)


_MATCH = PreparedQuery(lambda match_id: Match.objects.filter(pk=match_id))


def match_or_none(match_id: int) -> Match | None:
    """The match of this number, if there is one (every post at a table reads it first)."""
    return _MATCH.first(match_id)


def match_and_current_deal(match_id: int) -> tuple[Match, Deal | None]:
    """A match and its current deal in one query (a second only while nothing is dealt). Raises
    Match.DoesNotExist like `Match.objects.get`."""
    deal_row = current_deal_with_match(match_id)
    if deal_row is None:
        return Match.objects.get(pk=match_id), None
    return deal_row.match, deal_row


def deal_from_rows(deal_row: Deal, tokens, rules: engine.Rules | None = None) -> engine.Deal:
    """The one rebuild of the engine's `Deal` from a deal row's dealt cards and the tokens of its
    actions, in order (`rules`: the match's, when the caller has them)."""
    state = engine.Deal(
        rules or rules_of(deal_row.match), deal_row.dealer, deal_row.hands, deal_row.stock
    )
    for token in tokens:
        state.apply(token)
    return state


def deal_state(deal_row: Deal, upto: int | None = None) -> engine.Deal:
    """The engine's state of a deal, rebuilt from its dealt cards and its action rows."""
    tokens = deal_row.actions.order_by("sequence").values_list("token", flat=True)
    if upto is not None:
        tokens = tokens[:upto]
    return deal_from_rows(deal_row, tokens)


def deal_states(match: Match, deal_rows: list[Deal]) -> list[engine.Deal]:
    """The engine states of deals of one match, rebuilt from one query for all their actions
    (a match record of many deals, a person's data download) instead of one query a deal."""
    rules = rules_of(match)
    tokens: dict[int, list[str]] = {row.pk: [] for row in deal_rows}
    rows = Action.objects.filter(deal__in=list(tokens)).order_by("deal_id", "sequence")
    for deal_id, token in rows.values_list("deal_id", "token"):
        tokens[deal_id].append(token)
    return [deal_from_rows(row, tokens[row.pk], rules) for row in deal_rows]


# The engine states of recent deals, by (deal id, when dealt, steps). Actions are only ever
# appended, so a deal's first n actions never change: an entry is never wrong, only evicted.
# (The time it was dealt guards against an id used again after a rollback or a flushed database.)
STATE_CACHE_SIZE = 1024
_states: OrderedDict = OrderedDict()
_states_lock = threading.Lock()


def state_is_cached(deal_row: Deal) -> bool:
    """Whether this process keeps the deal's state at its current step (for tests)."""
    with _states_lock:
        return _state_key(deal_row, deal_row.steps) in _states


# The latest step kept for each deal: a process that did not make the last moves (another
# Daphne, the worker) catches up from it with only the new action rows.
_latest: dict[tuple, int] = {}

# The tokens of a deal's actions from one step up to (not including) another. Its markers lie
# within the small `sequence` column's range: Django compiles a lookup past a column's range to
# no query at all on PostgreSQL (every catch-up failed there with the default markers).
_ACTIONS_BETWEEN = PreparedQuery(
    lambda deal_id, first, end: (
        Action.objects.filter(deal_id=deal_id, sequence__gte=first, sequence__lt=end)
        .order_by("sequence")
        .values_list("token")
    ),
    markers=(30_001, 30_002, 30_003),
)


def current_state(deal_row: Deal) -> engine.Deal:
    """The engine's state after the deal row's `steps` actions: from this process's cache,
    caught up from an earlier step it keeps, or rebuilt from the action rows (and then cached).
    The caller gets a copy it may change."""
    key = _state_key(deal_row, deal_row.steps)
    with _states_lock:
        state = _states.get(key)
        if state is not None:
            _states.move_to_end(key)
        else:
            earlier = _states.get(_state_key(deal_row, _latest.get(key[:2], -1)))
            state = earlier.copy() if earlier is not None else None
    if state is None or state.version > deal_row.steps:
        state = deal_state(deal_row, upto=deal_row.steps)
    elif state.version < deal_row.steps:
        tokens = [
            token for (token,) in _ACTIONS_BETWEEN(deal_row.pk, state.version, deal_row.steps)
        ]
        if len(tokens) != deal_row.steps - state.version:
            state = deal_state(deal_row, upto=deal_row.steps)  # not expected: rebuild
        else:
            for token in tokens:
                state.apply(token)
    else:
        return state.copy()
    remember_state(deal_row, state)
    return state.copy()


def _state_key(deal_row: Deal, steps: int) -> tuple:
    return (deal_row.pk, deal_row.started_at, steps)


def remember_state(deal_row: Deal, state: engine.Deal) -> None:
    """Keep a committed state (the service calls this once its move is committed)."""
    key = _state_key(deal_row, state.version)
    with _states_lock:
        _states[key] = state.copy()
        _states.move_to_end(key)
        if state.version >= _latest.get(key[:2], -1):
            _latest[key[:2]] = state.version
        while len(_states) > STATE_CACHE_SIZE:
            (deal, dealt, steps), _ = _states.popitem(last=False)
            if _latest.get((deal, dealt)) == steps:
                del _latest[(deal, dealt)]


def forget_states() -> None:
    with _states_lock:
        _states.clear()
        _latest.clear()


@dataclass(frozen=True)
class Standing:
    totals: dict
    over: bool
    winner: str | None


def match_standing(match: Match, before: int | None = None) -> Standing:
    """The running totals and the winner, by the engine's end rule, over the finished deals
    (those numbered below `before`, if given), each replayed by the engine."""
    standing = engine.MatchState(rules_of(match), match.first_dealer)
    deals = match.deals.filter(finished_at__isnull=False, result__isnull=False)
    if before is not None:
        deals = deals.filter(number__lt=before)
    for deal_row in deals.order_by("number"):
        standing.add(deal_state(deal_row).result())
    return Standing(dict(standing.totals), standing.over, standing.winner)


def standing_after(match: Match, deal_row: Deal, result) -> Standing:
    """The standing once the deal just finished is added to the match's stored totals: the
    engine's end rule needs only the totals before it and its result, so no earlier deal is
    replayed (`match_standing` replays them all; a test shows the two agree)."""
    standing = engine.MatchState.resume(
        rules_of(match), match.first_dealer, match.totals, dealer=deal_row.dealer
    )
    standing.add(result)
    return Standing(dict(standing.totals), standing.over, standing.winner)


NO_SUCH_MATCH = "There is no such match."


def players_match(match_id: int, user, lock: bool = False) -> tuple[Match, Seat]:
    """A match and the user's seat at it (the match row locked, with `lock`). Someone who did not
    play it is told what a number no match has gets, that there is no such match: a stranger
    cannot count the site's matches or learn which numbers are in use."""
    matches = Match.objects.select_for_update() if lock else Match.objects
    match = matches.filter(pk=match_id).first()
    seat = viewer_seat(match, user) if match is not None else None
    if seat is None:
        raise NotFound(NO_SUCH_MATCH)
    return match, seat


def players_deal(deal_id: int, user) -> tuple[Deal, Seat]:
    """A deal (with its match) and the user's seat at it; `NotFound` for anyone else, as above."""
    deal_row = Deal.objects.select_related("match").filter(pk=deal_id).first()
    seat = viewer_seat(deal_row.match, user) if deal_row is not None else None
    if seat is None:
        raise NotFound("There is no such deal.")
    return deal_row, seat


def viewer_seat(match: Match, user, seats: list | None = None) -> Seat | None:
    """The user's seat at the match (found in `seats`, the match's seats, when given)."""
    if not user.is_authenticated:
        return None
    if seats is not None:
        return next((seat for seat in seats if seat.user_id == user.pk), None)
    seat = _SEAT_OF_USER.first(match.pk, user.pk)  # every post at a table asks
    if seat is not None:
        seat.match = match  # as `match.seats` would
    return seat


_SEAT_OF_USER = PreparedQuery(
    lambda match_id, user_id: Seat.objects.filter(match_id=match_id, user_id=user_id)[:1]
)


_SEATS_WITH_USERS = PreparedQuery(
    lambda match_id: Seat.objects.select_related("user").filter(match_id=match_id)
)


def seats_of(match: Match) -> list[Seat]:
    """Every seat of the match with its user: read once per render and shared by its parts."""
    seats = _SEATS_WITH_USERS(match.pk)
    for seat in seats:
        seat.match = match  # as `match.seats` would: reading it again costs no query
    return seats


# --- Shared tables: who may know and see them -------------------------------------------------


def table_by_code(code: str) -> Match | None:
    """The table an invite code names (codes are read case-insensitively, spaces ignored)."""
    code = "".join(ch for ch in (code or "").upper() if ch.isalnum())
    return Match.objects.filter(invite_code=code).first() if code else None


def came_through_invite(match: Match, user, invited=frozenset()) -> bool:
    """Whether `user` reached the shared table `match` through its invite (link or code), or
    sits at it. `invited`: the ids of the tables this browser session was invited to.

    The one place that says who may know a shared table exists: its number alone finds nothing,
    and its code is shown only to these people. A public table is listed in the lobby, so
    everyone logged in knows it."""
    if not user.is_authenticated or match.invite_code is None:
        return False
    if match.public or match.pk in invited or match.seats.filter(user=user).exists():
        return True
    return any(hooks.table_known_to(match, user))


def hidden_from(match: Match, user, invited=frozenset()) -> bool:
    """A shared table that `user` must be told does not exist (404): they did not come
    through its invite and do not sit at it."""
    return match.invite_code is not None and not came_through_invite(match, user, invited)


def viewer_role(
    match: Match, user, invited=frozenset(), seats: list | None = None
) -> tuple[str | None, bool]:
    """(the user's seat position or None, whether they may look at all)."""
    seat = viewer_seat(match, user, seats)
    if seat is not None:
        return seat.position, True
    return None, may_see_table(match, user, invited)


def may_see_table(match: Match, user, invited=frozenset()) -> bool:
    """Whether `user`, who has no seat here, may look at the table: the one place that decides.

    Only those who know the table (its invite, or its listing in the lobby) and whom its host
    has not blocked: a forming table to choose a seat, a started one to watch when the host
    allows spectators.
    """
    if not came_through_invite(match, user, invited) or blocked_by_host(match, user):
        return False
    return match.status == Match.Status.FORMING or match.allow_spectators


def blocked_by_host(match: Match, user) -> bool:
    return (
        user.is_authenticated
        and PersonalBlock.objects.filter(
            owner_id=match.host_id, other_id=user.pk, kind=PersonalBlock.Kind.BLOCK
        ).exists()
    )


def personal_blocks(user) -> dict[str, set[int]]:
    """The user ids `user` muted and blocked: {"mute": {...}, "block": {...}}."""
    found: dict[str, set[int]] = {kind: set() for kind in PersonalBlock.Kind.values}
    if user.is_authenticated:
        for kind, other_id in PersonalBlock.objects.filter(owner=user).values_list(
            "kind", "other_id"
        ):
            found[kind].add(other_id)
    return found


def rematch_of(match: Match) -> Match | None:
    """The rematch started from this finished match, if any."""
    return match.rematches.order_by("pk").first() if match.status == Match.Status.FINISHED else None


# --- Stand-in moves: made by a bot at a person's seat (issue 44) ------------------------------


def moves_at_seats(deal_row: Deal, positions) -> list[tuple[int, str, str, str, int | None]]:
    """The actions of a deal at `positions`, in order: (sequence, seat, kind, token, user id).
    A move at a person's seat with no user was a stand-in bot's."""
    return list(
        Action.objects.filter(deal_id=deal_row.pk, seat__in=list(positions))
        .order_by("sequence")
        .values_list("sequence", "seat", "kind", "token", "user_id")
    )


def stand_in_sequences(deal_row: Deal) -> frozenset[int]:
    """The deal's moves a stand-in bot made at a person's seat (no user, at a seat a person
    holds): the replay and the deal's record mark them."""
    people = Seat.objects.filter(match_id=deal_row.match_id, user__isnull=False).values_list(
        "position", flat=True
    )
    return frozenset(
        Action.objects.filter(
            deal_id=deal_row.pk, user__isnull=True, seat__in=list(people)
        ).values_list("sequence", flat=True)
    )
