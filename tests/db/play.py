"""Drive whole matches through the real services, synchronously, for tests."""

import itertools
import random

from games import engine
from games.core import selectors, services, turns
from games.core.turns import WaitingFor
from games.models import Match
from games.web import tasks


def opened_by(seat: str, rules="house") -> random.Random:
    """Randomness for `services.do_start_match(..., rng=)` that has `seat` open the first
    auction: seeded so that its first draw, the first dealer, is the seat on `seat`'s right."""
    rules = engine.Rules.from_spec(rules)
    for seed in itertools.count():
        if rules.seats_from_left_of(random.Random(seed).choice(rules.seats))[0] == seat:
            return random.Random(seed)


def person_move(match: Match, seat: str) -> str:
    """A legal move for a person's seat: the first legal action its observation lists."""
    deal_row = selectors.current_deal(match)
    state = selectors.deal_state(deal_row)
    return state.observation(seat).legal_actions()[0]


def bidding_move(match: Match, seat: str) -> str:
    """A legal move for a person's seat who bids: the lowest bid when one may be made, else the
    first legal action. (People who always pass would see every deal thrown in, and a round of
    a Setback night counts only the deals played.)"""
    legal = selectors.deal_state(selectors.current_deal(match)).observation(seat).legal_actions()
    bids = [token for token in legal if token.isdigit()]
    return min(bids, key=int) if bids else legal[0]


def play_round(match: Match, **options) -> Match:
    """`play_until` with people who bid (`bidding_move`): an event's round, played out."""
    return play_until(match, person=bidding_move, **options)


def seat_user(seat, step) -> services.Actor:
    return services.Actor(user=seat.user)


def play_until(
    match: Match, stop=lambda match: False, person=person_move, actor=seat_user, max_steps=5000
) -> Match:
    """Play bots' turns with the bot task, people's with `person` as decided by `actor(seat, step)`
    (by default the seat's user), deal after deal."""
    for step in range(max_steps):
        match.refresh_from_db()
        if match.status != Match.Status.PLAYING or stop(match):
            return match
        turn = turns.waiting_on(match.pk)
        if turn.kind == WaitingFor.BOT:
            tasks.play_bot_turn(match.pk, turn.version, turn.seat, turn.bot_level)
        elif turn.kind == WaitingFor.NEXT_DEAL:
            services.do_next_deal(match.pk, version=turn.version)
        else:
            seat = match.seats.get(position=turn.seat)
            services.do_act(
                match.pk,
                seat=turn.seat,
                token=person(match, turn.seat),
                version=turn.version,
                actor=actor(seat, step),
            )
    raise AssertionError("the match did not end")
