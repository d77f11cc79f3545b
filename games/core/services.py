"""Every change to a game goes through a `do_*` function in this module.

Each one locks the match row, checks the version the request was made on, lets the engine
decide legality, writes rows, and only after the transaction commits tells the table and
enqueues the next bot turn. Views, consumers and tasks parse input and call one of these.
"""

import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from django.db import IntegrityError, InterfaceError, OperationalError, transaction
from django.utils import timezone

from accounts.models import User
from games import engine
from games.core import events, hooks, prepared, selectors, turns
from games.core.errors import (  # noqa: F401  (re-exported: the views catch them as services.*)
    Forbidden,
    GameError,
    IllegalMove,
    NotFound,
    NotPlaying,
    NotYourTurn,
    StaleMove,
)
from games.core.prepared import PreparedQuery
from games.engine import claim, refusals
from games.models import Action, BotLevel, Deal, Match, Seat, known_bot_level

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Actor:
    """Who decided a move: a person, or a bot of some level (also standing in for a person)."""

    user: User | None = None
    bot_level: str = ""

    @classmethod
    def bot(cls, level: str) -> "Actor":
        return cls(bot_level=level)


@dataclass(frozen=True)
class Outcome:
    """What a `do_*` call did: `applied` is False for a repeat of a move already made."""

    match: Match
    applied: bool


# Where a deal's cards and a match's first dealer come from unless the caller brings its own
# (a test's seeded `random.Random`, to deal what it tests): the operating system's randomness,
# which nobody at the table can predict.
UNPREDICTABLE = random.SystemRandom()

# How long a table may sit still, beyond a bot's pace, before a visit wakes it up again.
STALL_SECONDS = 5

ACTION_KINDS: dict[str, Action.Kind] = {
    engine.AUCTION: Action.Kind.BID,
    engine.TRUMP: Action.Kind.TRUMP,
    engine.DISCARD: Action.Kind.DISCARD,
    engine.PLAY: Action.Kind.PLAY,
}


def human_seat(rules: engine.Rules) -> str:
    """Where the one person sits at a table against bots (docs/rules.md: S at a partnership table)."""
    return "S" if "S" in rules.seats else rules.seats[0]


def do_start_match(
    host, *, rules_spec, bot_level: str = BotLevel.EASY, rng: random.Random = UNPREDICTABLE
) -> Match:
    """A new match for `host` against bots of `bot_level`, with its first deal dealt (its first
    dealer and cards drawn from `rng`)."""
    try:
        rules = engine.Rules.from_spec(rules_spec)
    except engine.RulesError as error:
        raise GameError(str(error)) from error
    seats = seats_with(rules, human_seat(rules), host.pk, known_bot_level(bot_level))
    with transaction.atomic():
        return begin_match(rules, host, seats, rng=rng)


def new_match(rules: engine.Rules, host, seats, *, first_dealer: str, **fields) -> Match:
    """The one way a match row is made, in the caller's transaction: the match and its seats
    (position, user id or None, bot level: "" for a person or an empty seat), nothing dealt.
    `fields` are the match's other columns (its status, a table's settings, what a feature
    keeps: a practice's source, a daily deal's bot seed, an offline match's mark)."""
    fields.setdefault("totals", {side: 0 for side in rules.sides})
    match = Match.objects.create(
        rules=rules.to_spec(), host=host, first_dealer=first_dealer, **fields
    )
    Seat.objects.bulk_create(
        Seat(match=match, position=position, user_id=user_id, bot_level=bot_level)
        for position, user_id, bot_level in seats
    )
    return match


def seats_with(rules: engine.Rules, person_at: str, person_id: int, bot_level: str) -> list:
    """Seats for `new_match`: one person at `person_at`, bots of `bot_level` in the others."""
    return [
        (position, person_id, "") if position == person_at else (position, None, bot_level)
        for position in rules.seats
    ]


def begin_match(
    rules: engine.Rules, host, seats, *, rng: random.Random = UNPREDICTABLE, **fields
) -> Match:
    """A match that begins at once, in the caller's transaction: `new_match`, the first deal
    dealt (the first dealer, then the cards, drawn from `rng`), and the screens and the first
    bot told once it commits."""
    match = new_match(rules, host, seats, first_dealer=rng.choice(rules.seats), **fields)
    create_deal(match, rules, number=1, dealer=match.first_dealer, rng=rng)
    announce_after_commit(match)
    return match


def lock_for_rematch(match_id: int, user) -> tuple[Match, Match | None]:
    """Lock a match someone asks to play again, with the rematch already made, if any (a double
    click, a second tab, the other player): only a player of the match may ask, once it is over."""
    old, _ = selectors.players_match(match_id, user, lock=True)
    if old.status != Match.Status.FINISHED:
        raise GameError("The match is not over yet.")
    if old.single_deal:
        raise GameError("A daily deal is played once: there is no rematch.")
    if old.deals_limit is not None:
        raise GameError("A round of a Setback night has no rematch: the next round seats you.")
    return old, old.rematches.order_by("pk").first()


def do_rematch(match_id: int, *, host) -> Match:
    """The same rules and seats again, against bots of the levels the last match had. Asked
    again (a double click, a second tab) it gives the same one."""
    with transaction.atomic():
        old, existing = lock_for_rematch(match_id, host)
        if existing is not None:
            return existing
        seats = [(s.position, s.user_id, s.bot_level) for s in old.seats.all()]
        return begin_match(selectors.rules_of(old), old.host, seats, rematch_of=old)


def do_start_practice(user, *, match_id: int, number: int, step: int, bot_level: str) -> Match:
    """Play on from `step` of a finished deal of one's own: a practice match of one deal with
    the same cards and the same first `step` actions, the user in their own seat, bots of
    `bot_level` in the others. Its result is never counted in statistics or ratings."""
    bot_level = known_bot_level(bot_level)
    with transaction.atomic():
        source, my_seat = selectors.players_match(match_id, user)
        deal_row = source.deals.filter(number=number).first()
        if deal_row is None:
            raise NotFound("This match has no such deal.")
        if not deal_row.is_over:
            raise NotFound("This deal is still being played.")
        actions = list(deal_row.actions.order_by("sequence"))
        if not 0 <= step < len(actions):
            raise NotFound("There is nothing left to play from this step.")
        rules = selectors.rules_of(source)
        totals = dict.fromkeys(rules.sides, 0)
        for result in source.deals.filter(number__lt=number, finished_at__isnull=False).values_list(
            "result", flat=True
        ):
            for side, delta in (result or {}).get("score", {}).items():
                totals[side] += delta
        match = new_match(
            rules,
            user,
            seats_with(rules, my_seat.position, user.pk, bot_level),
            first_dealer=deal_row.dealer,
            totals=totals,
            practice_of=deal_row,
            practice_step=step,
        )
        practice = Deal.objects.create(
            match=match,
            number=1,
            dealer=deal_row.dealer,
            hands=deal_row.hands,
            stock=deal_row.stock,
        )
        Action.objects.bulk_create(
            Action(
                deal=practice,
                sequence=action.sequence,
                seat=action.seat,
                kind=action.kind,
                token=action.token,
                user=action.user if action.user_id == user.pk else None,
                bot_level=action.bot_level if action.user_id != user.pk else "",
            )
            for action in actions[:step]
        )
        state = selectors.deal_from_rows(deal_row, [a.token for a in actions[:step]], rules)
        save_state_columns(practice, state)
        announce_after_commit(match)
    return match


def begin_single_deal(
    rules: engine.Rules, user, hands: dict, stock: list, dealer: str, bot_seed: int
) -> Match:
    """A match of one deal with these cards, `user` in the person's seat and hard bots in the
    others, seeded by `bot_seed` (`Match.bot_seed`): a daily deal (games/daily), the same for
    everyone who plays it. In the caller's transaction; the first bot is told once it commits."""
    seats = seats_with(rules, human_seat(rules), user.pk, BotLevel.HARD)
    match = new_match(rules, user, seats, first_dealer=dealer, single_deal=True, bot_seed=bot_seed)
    deal_row = Deal.objects.create(match=match, number=1, dealer=dealer, hands=hands, stock=stock)
    save_state_columns(deal_row, selectors.deal_from_rows(deal_row, [], rules))
    announce_after_commit(match, deal_row)
    return match


def begin_offline_match(rules: engine.Rules, host, first_dealer: str, bots: dict) -> Match:
    """A match `host` played against bots (`bots`: seat -> level) in their browser
    (games/offline), to keep its deals in as they come home and are checked
    (`store_offline_deal`). Nobody plays it here: its status says so until a deal ends it. In
    the caller's transaction."""
    seat_of_host = human_seat(rules)
    seats = [
        (position, host.pk, "") if position == seat_of_host else (position, None, bots[position])
        for position in rules.seats
    ]
    return new_match(
        rules,
        host,
        seats,
        first_dealer=first_dealer,
        status=Match.Status.OFFLINE,
        played_offline=True,
    )


def store_offline_deal(match: Match, state: engine.Deal, person: str) -> Deal:
    """A finished deal played offline, already checked by the caller (replayed, and every bot
    move decided again), stored as if played here: its rows, its result, the statistics
    (as played offline) and the match's totals. `match` is locked by the caller's transaction;
    `person` is the seat of its host, whose moves are theirs (the others' are the bots')."""
    seats = {seat.position: seat for seat in match.seats.all()}
    deal_row = Deal.objects.create(
        match=match,
        number=match.deals.count() + 1,
        dealer=state.dealer,
        hands={seat: list(cards) for seat, cards in state.dealt_hands.items()},
        stock=list(state.stock),
    )
    phases = _phases_of(state)
    Action.objects.bulk_create(
        Action(
            deal=deal_row,
            sequence=sequence,
            seat=seat,
            kind=ACTION_KINDS[phases[sequence]],
            token=token,
            user_id=match.host_id if seat == person else None,
            bot_level="" if seat == person else seats[seat].bot_level,
        )
        for sequence, (seat, token) in enumerate(state.history)
    )
    save_state_columns(deal_row, state)
    _finish_deal(match, deal_row, state)
    match.version += 1
    match.save(update_fields=_MOVE_FIELDS)
    return deal_row


def _phases_of(state: engine.Deal) -> list[str]:
    """The phase each action of a finished deal was taken in, replayed from its dealt cards."""
    replay = state.as_dealt()
    phases = []
    for seat, token in state.history:
        phases.append(replay.phase)
        replay.apply(token, seat)
    return phases


def create_deal(
    match: Match,
    rules: engine.Rules,
    *,
    number: int,
    dealer: str,
    rng: random.Random = UNPREDICTABLE,
) -> Deal:
    """Shuffle with `rng` and deal hand `number` of `match` (inside the caller's transaction)."""
    state = engine.Deal.new(rules, dealer, rng)
    return Deal.objects.create(
        match=match,
        number=number,
        dealer=dealer,
        hands={seat: list(cards) for seat, cards in state.dealt_hands.items()},
        stock=list(state.stock),
        phase=state.phase,
        to_act=state.to_act or "",
    )


def lock_match(match_id: int) -> Match:
    """The match row, locked until the caller's transaction ends; NotFound if there is none."""
    match = Match.objects.select_for_update().filter(pk=match_id).first()
    if match is None:
        raise NotFound("There is no such match.")
    return match


_LOCKED_MATCH_WITH_DEAL = PreparedQuery(
    lambda match_id: (
        Deal.objects.select_related("match")
        .select_for_update(of=("match",))
        .filter(match_id=match_id)
        .order_by("-number")[:1]
    )
)


def lock_match_with_deal(match_id: int) -> tuple[Match, Deal | None]:
    """The match row, locked until the caller's transaction ends, and its current deal, read
    in the same query (only the match row is locked, as by `lock_match`; a second query while
    nothing is dealt); NotFound if there is no such match."""
    deal_row = _LOCKED_MATCH_WITH_DEAL.first(match_id)
    if deal_row is None:
        return lock_match(match_id), None
    return deal_row.match, deal_row


def do_act(match_id: int, *, seat: str, token: str, version: int, actor: Actor) -> Outcome:
    """Make the move `token` for `seat`, as seen at `version` of the table.

    A repeat of the move just made (a double click, a message re-sent after a reconnect) is
    recognised and changes nothing; any other move on an old version is refused as stale.
    """
    with transaction.atomic():
        match, deal_row = lock_match_with_deal(match_id)
        if match.status != Match.Status.PLAYING:
            raise NotPlaying("This match is not being played.")
        assert deal_row is not None  # a match being played has a deal
        if match.closes_at is not None and timezone.now() >= match.closes_at:
            raise NotPlaying(
                "This deal closed at the end of its day (UTC): it is scored as it stands."
            )
        if version != match.version:
            if _just_made(deal_row, seat, token, behind=match.version - version):
                return Outcome(match, applied=False)
            raise StaleMove(
                "The table moved on before your move arrived; it now shows the latest position."
            )
        state = selectors.current_state(deal_row)
        try:
            if token == CLAIM:
                Action.objects.bulk_create(_claimed_rows(match, deal_row, state, seat, actor))
            else:
                phase = apply_move(state, seat, token)
                prepared.insert(
                    Action(
                        deal=deal_row,
                        sequence=state.version - 1,
                        seat=seat,
                        kind=ACTION_KINDS[phase],
                        token=token,
                        user=actor.user,
                        bot_level=actor.bot_level,
                    )
                )
        except IntegrityError as error:
            # The unique (deal, sequence) constraint backs up the row lock: a second writer of
            # the same step fails here and its whole transaction rolls back.
            raise StaleMove("Another move was recorded first.") from error
        moves = state.version - deal_row.steps  # a claim is several: one version each
        save_state_columns(deal_row, state)
        if state.phase == engine.OVER:
            _finish_deal(match, deal_row, state)
        match.version += moves
        prepared.save_fields(match, _MOVE_FIELDS)
        transaction.on_commit(partial(selectors.remember_state, deal_row, state), robust=True)
        announce_after_commit(match, deal_row)
    return Outcome(match, applied=True)


# The move that claims the rest of the tricks (games/engine/claim.py): the cards it stands for
# are stored, each as its own row.
CLAIM = claim.CLAIM


def _just_made(deal_row: Deal, seat: str, token: str, behind: int) -> bool:
    """Whether `token` by `seat`, made `behind` versions ago, is the change the table last
    recorded (a double click, a message sent again after a reconnect): the last move, or the
    claim whose cards are the deal's last moves."""
    last = deal_row.actions.order_by("-sequence").first()
    if last is None or behind < 1:
        return False
    if token == CLAIM:
        claimed = list(deal_row.actions.filter(claimed=True).values_list("seat", flat=True))
        return last.claimed and len(claimed) == behind and claimed[0] == seat
    return behind == 1 and (last.seat, last.token) == (seat, token)


def _claimed_rows(
    match: Match, deal_row: Deal, state: engine.Deal, seat: str, actor: Actor
) -> list[Action]:
    """The rows of `seat`'s claim, applied to `state`: the claimer's cards are theirs (or their
    bot's), every other seat's card is recorded as that seat's. Refused, with the reason in the
    claimer's own words, unless every remaining trick is surely theirs."""
    if state.phase == engine.OVER:
        raise GameError("This deal is over; start the next one.")
    if state.to_act != seat:
        raise NotYourTurn("It is not your turn.")
    refusal = claim.claim_refusal(state.observation(seat))
    if refusal is not None:
        raise IllegalMove(refusal)
    seats = {s.position: s for s in match.seats.select_related("user")}
    rows = []
    for mover, card in claim.claim_moves(state, seat):
        phase = apply_move(state, mover, card)
        decider = actor if mover == seat else Actor(seats[mover].user, seats[mover].bot_level)
        rows.append(
            Action(
                deal=deal_row,
                sequence=state.version - 1,
                seat=mover,
                kind=ACTION_KINDS[phase],
                token=card,
                user=decider.user,
                bot_level=decider.bot_level,
                claimed=True,
            )
        )
    return rows


# What a move may change in the match row (a deal's end: the totals, and the match's end).
_MOVE_FIELDS = ("version", "totals", "status", "winner", "finished_at", "updated_at")


# Tries of a change whose database connection was cut (a restart of PostgreSQL).
CHANGE_TRIES = 4


def through_restarts(change: Callable[[], Outcome]) -> Outcome:
    """`change()` (a `do_act` or `do_next_deal` call), tried again if the database connection
    is cut under it.

    A cut during the commit leaves it unknown whether the change was saved, and a saved move
    must never be answered with an error. Trying again finds out: both services recognise a
    repeat of the change just made. A change saved that way was never announced (the commit's
    hooks run only once the commit answers), so it is announced now. Before each try, the
    database pool waits for the server to come back (its `timeout`).
    """
    for attempt in range(CHANGE_TRIES):
        try:
            outcome = change()
            break
        except (OperationalError, InterfaceError) as error:
            if attempt == CHANGE_TRIES - 1:
                raise
            log.warning("a change was cut off (%r); trying again", error)
            time.sleep(0.2 * 2**attempt)
    if attempt and not outcome.applied:
        announce_change(outcome.match.pk, outcome.match.version)
    return outcome


def apply_move(state: engine.Deal, seat: str, token: str) -> str:
    """Apply `token` for `seat` to the engine's `state`; return the phase it was made in.

    A refusal leaves `state` as it was and is worded from the seat's own observation only: the
    engine's reason may say where a hidden card lies ("E holds it"), so it never reaches a person.
    """
    if state.phase == engine.OVER:
        raise GameError("This deal is over; start the next one.")
    if state.to_act != seat:
        raise NotYourTurn("It is not your turn.")
    phase = state.phase
    try:
        state.apply(token)
    except engine.IllegalAction as error:
        raise IllegalMove(refusals.refusal(state.observation(seat), token)) from error
    return phase


def save_state_columns(deal_row: Deal, state: engine.Deal) -> None:
    """Keep the deal row's summary of its engine state (phase, whose turn, contract, steps),
    which lists and whose-turn checks read without replaying the deal."""
    deal_row.phase = state.phase
    deal_row.to_act = state.to_act or ""
    deal_row.pitcher = state.pitcher or ""
    deal_row.bid = state.bid
    deal_row.trump = state.trump or ""
    deal_row.steps = state.version
    prepared.save_fields(deal_row, _STATE_COLUMNS)


_STATE_COLUMNS = ("phase", "to_act", "pitcher", "bid", "trump", "steps")


def _finish_deal(match: Match, deal_row: Deal, state: engine.Deal) -> None:
    result = state.result()
    deal_row.result = result.to_json()
    deal_row.finished_at = timezone.now()
    deal_row.save(update_fields=["result", "finished_at"])
    if match.one_deal:
        # Over after its deal, with no winner.
        match.totals = {
            side: match.totals.get(side, 0) + delta for side, delta in result.score.items()
        }
        over, winner = True, ""
    else:
        standing = selectors.standing_after(match, deal_row, result)
        match.totals = dict(standing.totals)
        over, winner = standing.over, standing.winner or ""
        if match.deals_limit is not None:
            over = _round_over(match)
            winner = side_ahead(match.totals) if over else ""
    # What a deal's end counts for (statistics, a daily result) each feature decides.
    hooks.after_deal(deal_row, deal_row.result)
    if over:
        match.status = Match.Status.FINISHED
        match.winner = winner
        match.finished_at = timezone.now()
        hooks.after_match(match)


def _round_over(match: Match) -> bool:
    """Whether a round of so many deals (a Setback night's) is over after the deal just
    finished: its points never end it, its last deal does. A deal everyone passed is dealt again
    and does not count; once the round's time is up, the deal in play is its last."""
    if match.stand_ins_from is not None:
        return True
    played = match.deals.filter(finished_at__isnull=False).exclude(result__thrown_in=True)
    return played.count() >= (match.deals_limit or 0)


def side_ahead(totals: dict[str, int]) -> str:
    """The side with the most points, or "" when the highest are tied."""
    best = max(totals.values())
    leaders = [side for side, points in totals.items() if points == best]
    return leaders[0] if len(leaders) == 1 else ""


def do_last_deal(match_id: int, *, now) -> Match | None:
    """A round's time ran out (games/events): the deal in play is the match's last (whatever it
    scores, a deal everyone passed included), and from `now` stand-ins play every person's turn
    in it at once. A match waiting for its next deal ends now, scored as it stands. Asked again,
    it changes nothing. None if the match is over."""
    with transaction.atomic():
        match, deal_row = lock_match_with_deal(match_id)
        if match.status != Match.Status.PLAYING or deal_row is None:
            return None
        if match.stand_ins_from is not None:
            return match
        match.stand_ins_from = now
        if deal_row.is_over:
            match.status = Match.Status.FINISHED
            match.winner = side_ahead(match.totals)
            match.finished_at = now
            hooks.after_match(match)
        match.version += 1
        match.save(update_fields=[*_MOVE_FIELDS, "stand_ins_from"])
        announce_after_commit(match, deal_row)
    return match


def do_next_deal(match_id: int, *, version: int) -> Outcome:
    """Deal the next hand once the last one is over (a click on "Next deal", or a timer)."""
    with transaction.atomic():
        match = lock_match(match_id)
        if match.status != Match.Status.PLAYING:
            raise NotPlaying("This match is not being played.")
        deal_row = selectors.current_deal(match)
        assert deal_row is not None  # a match being played has a deal
        if version != match.version or not deal_row.is_over:
            if version == match.version - 1 and not deal_row.actions.exists():
                return Outcome(match, applied=False)  # the click that dealt this hand, again
            raise StaleMove("The next deal has already started.")
        rules = selectors.rules_of(match)
        next_dealer = rules.seats[(rules.seats.index(deal_row.dealer) + 1) % len(rules.seats)]
        deal_row = create_deal(match, rules, number=deal_row.number + 1, dealer=next_dealer)
        match.version += 1
        match.save(update_fields=["version", "updated_at"])
        announce_after_commit(match, deal_row)
    return Outcome(match, applied=True)


def resume_stalled_turn(match_id: int) -> bool:
    """Wake a table whose turn was lost (a worker died, a broker message or a notice was lost).

    Called by the sweeper (games/web/sweeper.py) every few seconds, and when a player's table
    socket connects (the page opens it at once, and again after a drop). A bot's turn or an automatic next deal counts as stalled once the
    table has been still for a while beyond its pace; a person's turn at a shared table once its
    stand-in is due. A duplicate task is harmless: the version check refuses it.
    """
    turn = turns.waiting_on(match_id)
    if turn is None or (turn.kind == turns.WaitingFor.NEXT_DEAL and not turn.automatic):
        return False
    if turn.kind == turns.WaitingFor.PERSON and not turn.timeout_seconds:
        return False
    still_since = Match.objects.filter(pk=match_id).values_list("updated_at", flat=True).first()
    assert still_since is not None  # the match whose turn is waited on
    still_for = (timezone.now() - still_since).total_seconds()
    if turn.kind == turns.WaitingFor.PERSON:
        # A shared table's stand-in (games/tables/services.py) says whether the turn is overdue.
        return any(hooks.person_turn_stalled(turn, match_id, still_for, STALL_SECONDS))
    if still_for < turn.pace_seconds + STALL_SECONDS:
        return False
    hooks.turn_waiting(match_id, turn)
    return True


def announce_after_commit(match: Match, deal_row: Deal | None = None) -> None:
    """Once the caller's transaction commits, tell the table and the hooks (`announce_change`).

    A move passes the deal it was made in: what the table then waits on is worked out here,
    from the rows the move holds under its lock, instead of read again after the commit."""
    turn = None
    if deal_row is not None and match.status == Match.Status.PLAYING:
        turn = turns.waiting_at(match, deal_row)
    # Robust: the change is saved; nothing that fails after the commit may reach the person.
    transaction.on_commit(partial(announce_change, match.pk, match.version, turn), robust=True)


def announce_change(match_id: int, version: int, turn: turns.Waiting | None = None) -> None:
    """Tell every screen at the table that it changed, then run the `hooks.after_change`
    functions (games/apps.py wakes the bot whose turn it is; the coach prepares its advice or review).
    `turn`: what the table waits on at `version`, when the change knew it (else it is read).

    Each step is on its own: a channel layer that is down must not keep the bot asleep. A step
    that fails is logged and left to the sweeper (the bot's turn) or to the screens' reconnect
    (which renders the latest position).
    """
    for step in (_tell_screens, *hooks.after_change.functions):
        try:
            step(match_id, version, turn)
        except Exception:
            log.warning(
                "after the commit of match %s v%s: %s failed; the sweeper will retry",
                match_id,
                version,
                step.__name__,
                exc_info=True,
            )


def _tell_screens(match_id: int, version: int, turn=None) -> None:
    events.send(selectors.table_group(match_id), events.TableChanged(version=version))
