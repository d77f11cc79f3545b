"""Claiming the rest: when a seat on lead can prove every remaining trick is theirs whatever the
others hold, the rest of the deal is played out at once.

The proof reads only the claimer's own observation, so it is the same whoever asks and never
depends on a hidden card. The claimer leads their cards in a fixed order: trumps from the highest
down, then each other suit from its highest down. Every lead must be certain to win its trick in
every world consistent with what the claimer can see: no card still out (not in the claimer's
hand, not yet played) that another seat might hold may beat it, where a seat proven void in a
suit (it did not follow) holds none of that suit. A card of the suit led beats it if higher; any
trump beats a lead of another suit, since a seat that might be void in the suit led might trump
it. The partner counts as "another seat": a claim stands on the claimer's own cards.

Who takes every trick decides the whole score (High, Low, Jack and Game all follow the cards
taken, or who was dealt them), so the others' cards in the playout do not change the result:
each plays its lowest legal card (`claim_moves`), and the moves are stored as any others are.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .cards import DISPLAY_ORDER, RANKS, SUITS, rank_of, suit_of
from .deal import Deal
from .observation import Observation
from .phases import PLAY
from .wording import card_words

# The move that claims (a table's form sends it like any other move).
CLAIM = "claim"
NOT_IN_PLAY = "You can claim only while the cards are being played."
NOT_YOUR_LEAD = "You can claim only when it is your lead."
NO_TRUMP_YET = "Lead your first card first: it names trump."


def claim_order(hand: Iterable[str], trump: str) -> list[str]:
    """The order the claimer leads in: trumps from the highest down, then each other suit
    (in the display order of suits) from its highest down."""
    suits = [trump, *[suit for suit in SUITS if suit != trump]]
    return sorted(hand, key=lambda card: (suits.index(suit_of(card)), -rank_of(card)))


def claim_refusal(observation: Observation) -> str | None:
    """Why the seat may not claim the rest now (a sentence for the person, worded from what they
    can see), or None: every remaining trick is surely theirs."""
    if observation.phase != PLAY:
        return NOT_IN_PLAY
    if not observation.is_my_turn or observation.current_trick:
        return NOT_YOUR_LEAD
    trump = observation.trump
    if trump is None:
        return NO_TRUMP_YET
    out = set(observation.unseen)
    others = [
        seat
        for seat in observation.rules.seats
        if seat != observation.seat and observation.hand_sizes.get(seat, 0) > 0
    ]
    for card in claim_order(observation.hand, trump):
        beater = _possible_beater(card, trump, out, others, observation.voids)
        if beater is not None:
            return (
                f"Not every trick is surely yours: {card_words(card, trump)} could lose "
                f"to {beater}, still out."
            )
    return None


def _possible_beater(
    card: str, trump: str, out: set[str], others: list[str], voids: Mapping[str, frozenset[str]]
) -> str | None:
    """Words for a card still out that some other seat might hold and play over `card`, or None."""
    suit = suit_of(card)
    for seat in others:
        void = voids.get(seat, frozenset())
        if suit not in void:
            higher = [c for c in out if suit_of(c) == suit and rank_of(c) > rank_of(card)]
            if higher:
                return card_words(max(higher, key=rank_of), trump)
        if suit != trump and trump not in void and any(suit_of(c) == trump for c in out):
            return "a trump"
    return None


def claim_moves(deal: Deal, seat: str) -> list[tuple[str, str]]:
    """The moves a claim stands for, (seat, card) in order to the deal's end: the claimer's
    cards in `claim_order`, every other seat's lowest legal card. `deal` is left as it was.
    Only for a claim `claim_refusal` allowed (each lead then wins its trick)."""
    state = deal.copy()
    trump = state.trump
    assert trump is not None  # a claim is allowed only once trump is named
    leads = claim_order(state.hand(seat), trump)
    moves: list[tuple[str, str]] = []
    while not state.is_over:
        mover = state.to_act
        assert mover is not None  # a deal being played has someone to act
        card = leads.pop(0) if mover == seat else min(state.legal_actions(), key=_lowest)
        state.apply(card, mover)
        moves.append((mover, card))
    return moves


def _lowest(card: str) -> tuple[int, int]:
    return (RANKS.index(card[0]), DISPLAY_ORDER.index(card))


def claimed_at(dealt: Deal, history: Iterable[tuple[str, str]]) -> tuple[int, str] | None:
    """Where a deal's moves end in a claim: (the step, the claimer) of the first moment a seat
    on lead could claim and every move from there on is the claim's; None if they do not. Read
    from the moves alone (a record keeps no mark of a claim): someone who played the claim's
    cards by hand, in its order, reads as having claimed, which changes nothing of the deal."""
    replay = dealt.copy()
    moves = list(history)
    for step, (seat, token) in enumerate(moves):
        if (
            replay.phase == PLAY
            and replay.trump is not None
            and not replay.current_trick
            and claim_refusal(replay.observation(seat)) is None
            and claim_moves(replay, seat) == moves[step:]
        ):
            return step, seat
        replay.apply(token, seat)
    return None
