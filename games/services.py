"""Every change to a game goes through a `do_*` function in this module.

Each one locks the match row, checks the version the request was made on, lets the engine
decide legality, writes rows, and only after the transaction commits tells the table and
enqueues the next bot turn. Views, consumers and tasks parse input and call one of these.
"""

import random
import secrets
from dataclasses import dataclass
from datetime import timedelta
from functools import partial

from django.db import IntegrityError, transaction
from django.utils import timezone

from . import engine, realtime, selectors
from .models import Action, BotLevel, Deal, Match, Seat
from .stats import services as stats_services


class GameError(Exception):
    """A refused request. The message is written for the person who made it."""

    status = 400


class NotFound(GameError):
    status = 404


class Forbidden(GameError):
    status = 403


class StaleMove(GameError):
    """The move was made on a position the table has since left."""

    status = 409


class NotYourTurn(GameError):
    status = 409


class IllegalMove(GameError):
    status = 400


class NotPlaying(GameError):
    """The match is over (or not started): nothing more can be played."""

    status = 409


@dataclass(frozen=True)
class Actor:
    """Who decided a move: a person, or a bot of some level (also standing in for a person)."""

    user: object = None
    bot_level: str = ""

    @classmethod
    def bot(cls, level: str) -> "Actor":
        return cls(bot_level=level)


@dataclass(frozen=True)
class Outcome:
    """What a `do_*` call did: `applied` is False for a repeat of a move already made."""

    match: Match
    applied: bool


# How long a table may sit still, beyond a bot's pace, before a visit wakes it up again.
STALL_SECONDS = 5

ACTION_KINDS = {
    "auction": Action.Kind.BID,
    "trump": Action.Kind.TRUMP,
    "discard": Action.Kind.DISCARD,
    "play": Action.Kind.PLAY,
}


def human_seat(rules: engine.Rules) -> str:
    """Where the one person sits at a table against bots (RULES.md: S at a partnership table)."""
    return "S" if "S" in rules.seats else rules.seats[0]


def do_start_match(host, rules_spec, bot_level: str = BotLevel.EASY) -> Match:
    """A new match for `host` against bots of `bot_level`, with its first deal dealt."""
    try:
        rules = engine.Rules.from_spec(rules_spec)
    except engine.RulesError as error:
        raise GameError(str(error)) from error
    if bot_level not in BotLevel.values:
        raise GameError(f"Unknown bot level {bot_level!r}.")
    seat_of_host = human_seat(rules)
    with transaction.atomic():
        match = Match.objects.create(
            rules=rules.to_spec(),
            host=host,
            first_dealer=secrets.choice(rules.seats),
            totals={side: 0 for side in rules.sides},
        )
        Seat.objects.bulk_create(
            Seat(match=match, position=position, user=host)
            if position == seat_of_host
            else Seat(match=match, position=position, bot_level=bot_level)
            for position in rules.seats
        )
        _deal(match, rules, number=1, dealer=match.first_dealer)
        _after_commit(match)
    return match


def do_rematch(match_id: int, host) -> Match:
    """The same rules again, against bots of the level the last match had."""
    old = Match.objects.filter(pk=match_id).first()
    if old is None:
        raise NotFound("There is no such match.")
    bot_seat = old.seats.exclude(bot_level="").first()
    match = do_start_match(host, old.rules, bot_seat.bot_level if bot_seat else BotLevel.EASY)
    Match.objects.filter(pk=match.pk).update(rematch_of=old)
    return match


def _deal(match: Match, rules: engine.Rules, number: int, dealer: str) -> Deal:
    state = engine.Deal.new(rules, dealer, random.Random(secrets.randbits(64)))
    return Deal.objects.create(
        match=match,
        number=number,
        dealer=dealer,
        hands={seat: list(cards) for seat, cards in state.dealt_hands.items()},
        stock=list(state.stock),
        phase=state.phase,
        to_act=state.to_act or "",
    )


def _lock_match(match_id: int) -> Match:
    match = Match.objects.select_for_update().filter(pk=match_id).first()
    if match is None:
        raise NotFound("There is no such match.")
    return match


def do_act(match_id: int, seat: str, token: str, version: int, actor: Actor) -> Outcome:
    """Make the move `token` for `seat`, as seen at `version` of the table.

    A repeat of the move just made (a double click, a message re-sent after a reconnect) is
    recognised and changes nothing; any other move on an old version is refused as stale.
    """
    with transaction.atomic():
        match = _lock_match(match_id)
        if match.status != Match.Status.PLAYING:
            raise NotPlaying("This match is not being played.")
        deal_row = selectors.current_deal(match)
        if version != match.version:
            last = deal_row.actions.order_by("-sequence").first()
            if (
                version == match.version - 1
                and last is not None
                and (last.seat, last.token) == (seat, token)
            ):
                return Outcome(match, applied=False)
            raise StaleMove("The table moved on before your move arrived; it now shows the latest position.")
        state = selectors.current_state(deal_row)
        if state.phase == "over":
            raise GameError("This deal is over; start the next one.")
        if state.to_act != seat:
            raise NotYourTurn(f"It is {state.to_act}'s turn, not {seat}'s.")
        phase = state.phase
        try:
            state.apply(token)
        except engine.IllegalAction as error:
            raise IllegalMove(str(error)) from error
        try:
            Action.objects.create(
                deal=deal_row,
                sequence=state.version - 1,
                seat=seat,
                kind=ACTION_KINDS[phase],
                token=token,
                user=actor.user,
                bot_level=actor.bot_level,
            )
        except IntegrityError as error:
            # The unique (deal, sequence) constraint backs up the row lock: a second writer of
            # the same step fails here and its whole transaction rolls back.
            raise StaleMove("Another move was recorded first.") from error
        _cache_state(deal_row, state)
        if state.phase == "over":
            _finish_deal(match, deal_row, state)
        match.version += 1
        match.save()
        transaction.on_commit(partial(selectors.remember_state, deal_row, state), robust=True)
        _after_commit(match)
    return Outcome(match, applied=True)


def _cache_state(deal_row: Deal, state: engine.Deal) -> None:
    deal_row.phase = state.phase
    deal_row.to_act = state.to_act or ""
    deal_row.pitcher = state.pitcher or ""
    deal_row.bid = state.bid
    deal_row.trump = state.trump or ""
    deal_row.steps = state.version
    deal_row.save(update_fields=["phase", "to_act", "pitcher", "bid", "trump", "steps"])


def _finish_deal(match: Match, deal_row: Deal, state: engine.Deal) -> None:
    result = state.result()
    deal_row.result = result.to_json()
    deal_row.finished_at = timezone.now()
    deal_row.save(update_fields=["result", "finished_at"])
    stats_services.record_deal(deal_row, deal_row.result)
    standing = selectors.standing_after(match, deal_row, result)
    match.totals = dict(standing.totals)
    if standing.over:
        match.status = Match.Status.FINISHED
        match.winner = standing.winner or ""
        match.finished_at = timezone.now()
        stats_services.record_match(match)


def do_next_deal(match_id: int, version: int) -> Outcome:
    """Deal the next hand once the last one is over (a click on "Next deal", or a timer)."""
    with transaction.atomic():
        match = _lock_match(match_id)
        if match.status != Match.Status.PLAYING:
            raise NotPlaying("This match is not being played.")
        deal_row = selectors.current_deal(match)
        if version != match.version or not deal_row.is_over:
            if version == match.version - 1 and not deal_row.actions.exists():
                return Outcome(match, applied=False)  # the click that dealt this hand, again
            raise StaleMove("The next deal has already started.")
        rules = selectors.rules_of(match)
        next_dealer = rules.seats[(rules.seats.index(deal_row.dealer) + 1) % len(rules.seats)]
        _deal(match, rules, number=deal_row.number + 1, dealer=next_dealer)
        match.version += 1
        match.save()
        _after_commit(match)
    return Outcome(match, applied=True)


def resume_stalled_turn(match_id: int) -> bool:
    """Wake a table whose bot turn was lost (its process restarted, its broker message gone).

    Called when someone opens or reconnects to the table. A turn counts as stalled once the
    table has been still for a while; a duplicate task is harmless (the version check refuses it).
    """
    turn = selectors.waiting_on(match_id)
    if turn is None or (turn.kind == "next_deal" and not turn.automatic):
        return False
    if turn.kind == "person" and not turn.timeout_seconds:
        return False
    # A person's turn at a shared table is stalled once its stand-in timer should have fired.
    wait = turn.timeout_seconds if turn.kind == "person" else turn.pace_seconds
    still_since = Match.objects.filter(pk=match_id).values_list("updated_at", flat=True).first()
    if timezone.now() - still_since < timedelta(seconds=wait + STALL_SECONDS):
        return False
    _wake(match_id, turn)
    return True


def _after_commit(match: Match) -> None:
    transaction.on_commit(partial(announce_change, match.pk, match.version))


def announce_change(match_id: int, version: int) -> None:
    """Tell every screen at the table that it changed, wake the bot whose turn it is, and let the
    coach prepare its advice or review."""
    realtime.group_send(selectors.table_group(match_id), {"type": "table.changed", "version": version})
    turn = selectors.waiting_on(match_id)
    if turn is not None and turn.version == version:
        _wake(match_id, turn)
    from .coach.services import after_change

    after_change(match_id, version)  # the coach: advice at a person's turn, a review after a deal


def _wake(match_id: int, turn: selectors.Waiting) -> None:
    from .dispatch import enqueue
    from .tasks import play_bot_turn, start_next_deal

    if turn.kind == "person":
        from .tables import wake_stand_in

        wake_stand_in(turn, match_id)  # a shared table: a bot plays the turn if they do not
    elif turn.kind == "bot":
        enqueue(play_bot_turn, match_id, turn.version, countdown=turn.pace_seconds)
    elif turn.kind == "next_deal" and turn.automatic:
        enqueue(start_next_deal, match_id, turn.version, countdown=turn.pace_seconds)
