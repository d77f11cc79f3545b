"""The words every page uses for cards, calls, suits and points: one place for each spelling.

The engine keeps the symbols (card codes, suit letters and symbols, suit names in its own
messages, the point names of a result); this module turns them into what people read, for the
table, the replay, the coach and refusals alike. Pure Python over the engine (no Django), so the
coach's wording can use it too.
"""

from __future__ import annotations

from .actions import CARD, DISCARD, PASS, PITCH, TRUMP, Action
from .cards import SUIT_NAMES, SUIT_SYMBOLS, suit_of
from .rules import SMUDGE
from .scoring import POINT_NAMES

RANK_NAMES = {
    "A": "ace",
    "K": "king",
    "Q": "queen",
    "J": "jack",
    "T": "ten",
    "9": "nine",
    "8": "eight",
    "7": "seven",
    "6": "six",
    "5": "five",
    "4": "four",
    "3": "three",
    "2": "two",
}
FACE_NAMES = {rank: RANK_NAMES[rank] for rank in "AKQJ"}
CALL_NAMES = {PASS: "Pass", "smudge": "Smudge"}


def rank_label(rank: str) -> str:
    """A rank as a card shows it: "10", "K", "2"."""
    return "10" if rank == "T" else rank


def card_name(card: str) -> str:
    """ "ten of hearts", "ace of spades": a card spelled out (labels for screen readers)."""
    return f"{RANK_NAMES[card[0]]} of {SUIT_NAMES[suit_of(card)]}"


def card_words(card: str, trump: str | None = None, article: str = "the ") -> str:
    """ "the 2 of trump", "the 10 of hearts", "the ace of spades" (`article=""`: "ace of spades")."""
    rank = FACE_NAMES.get(card[0], rank_label(card[0]))
    suit = "trump" if trump and suit_of(card) == trump else SUIT_NAMES[suit_of(card)]
    return f"{article}{rank} of {suit}"


def short_card(card: str) -> str:
    """ "10♥", "2♠": for lists where the words would be too long."""
    return f"{rank_label(card[0])}{SUIT_SYMBOLS[suit_of(card)]}"


def bid_label(bid: int | None) -> str:
    """A contract's bid as every page writes it: "3", "Smudge" (a bid of five); "" for none."""
    if not bid:
        return ""
    return "Smudge" if bid == SMUDGE else str(bid)


def trick_taken(who: str) -> str:
    """ "You take the trick", "East takes the trick" (`who` as the viewer reads the seat)."""
    return f"{who} take the trick" if who == "You" else f"{who} takes the trick"


def call_label(token: str) -> str:
    """An auction call as the table shows it: "Pass", "3", "Smudge", "Pitch K♠"."""
    action = Action.parse(token)
    if action.kind == PITCH:
        return f"Pitch {short_card(action.word)}"
    return CALL_NAMES.get(token, token)


def move_label(token: str) -> str:
    """Any move in a list of moves: "Pass", "3", "Pitch K♠", "Trump ♥", "Discards 2", "10♥"."""
    action = Action.parse(token)
    if action.kind == CARD:
        return short_card(action.word)
    if action.kind == TRUMP:
        return f"Trump {SUIT_SYMBOLS[action.word]}"
    if action.kind == DISCARD:
        return f"Discards {len(action.cards)}"
    return call_label(token)


__all__ = [
    "CALL_NAMES",
    "FACE_NAMES",
    "POINT_NAMES",
    "RANK_NAMES",
    "SUIT_NAMES",
    "SUIT_SYMBOLS",
    "bid_label",
    "call_label",
    "card_name",
    "card_words",
    "move_label",
    "rank_label",
    "short_card",
    "trick_taken",
]
