"""Actions as the record spells them: one parse and one print of each token.

A token is what a seat does, as the record, the forms and the stored rows write it:

- a call: ``pass``, ``1``..``4``, ``smudge``;
- a pitch (a bid of 4 made by leading the card, option ``pitch_to_bid``): ``pitch:KS``;
- a suit named trump: ``S``, ``H``, ``D``, ``C``;
- a discard: ``discard:`` + the cards comma-joined (``discard:5C,7D``; ``discard:`` for none);
- a card played: ``KS``.

``Action.parse(token)`` says which of these a token is by its shape only; whether it is legal
is the ``Deal``'s question (an unknown word parses as a call, which the auction then refuses).
``str(action)`` gives the token back exactly as written, so a discard keeps the order its cards
were written in; ``discard_token`` writes a new one in display order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .cards import SUITS, is_card, sort_cards

PASS = "pass"
PITCH_PREFIX = "pitch:"
DISCARD_PREFIX = "discard:"

# What kind of action a token is.
CALL, PITCH, TRUMP, DISCARD, CARD = "call", "pitch", "trump", "discard", "card"


@dataclass(frozen=True)
class Action:
    kind: str  # CALL, PITCH, TRUMP, DISCARD or CARD
    word: str = (
        ""  # a call's word (``pass``, ``3``), a suit named trump, or the card pitched or played
    )
    cards: tuple[str, ...] = ()  # a discard's cards, in the order written

    @classmethod
    def parse(cls, token: str) -> Action:
        if token.startswith(PITCH_PREFIX):
            return cls(PITCH, token[len(PITCH_PREFIX) :])
        if token.startswith(DISCARD_PREFIX):
            body = token[len(DISCARD_PREFIX) :]
            return cls(DISCARD, cards=tuple(body.split(",")) if body else ())
        if token in SUITS:
            return cls(TRUMP, token)
        if is_card(token):
            return cls(CARD, token)
        return cls(CALL, token)

    @classmethod
    def call(cls, word: str) -> Action:
        return cls(CALL, word)

    @classmethod
    def pitch(cls, card: str) -> Action:
        return cls(PITCH, card)

    @classmethod
    def trump(cls, suit: str) -> Action:
        return cls(TRUMP, suit)

    @classmethod
    def discard(cls, cards: Iterable[str]) -> Action:
        """A discard of ``cards`` in the order given (see ``discard_token`` for display order)."""
        return cls(DISCARD, cards=tuple(cards))

    @classmethod
    def play(cls, card: str) -> Action:
        return cls(CARD, card)

    @property
    def card(self) -> str | None:
        """The card pitched or played (None for other actions)."""
        return self.word if self.kind in (PITCH, CARD) else None

    @property
    def is_pass(self) -> bool:
        return self.kind == CALL and self.word == PASS

    def __str__(self) -> str:
        if self.kind == PITCH:
            return PITCH_PREFIX + self.word
        if self.kind == DISCARD:
            return DISCARD_PREFIX + ",".join(self.cards)
        return self.word


def discard_token(cards: Iterable[str]) -> str:
    """``discard:`` + the cards comma-joined in display order (``discard:`` for none)."""
    return str(Action.discard(sort_cards(cards)))


def parse_discard_token(token: str) -> list[str] | None:
    """The cards of a discard token in the order written, or None if it is not one."""
    if not token.startswith(DISCARD_PREFIX):
        return None
    return list(Action.parse(token).cards)


def pitch_token(card: str) -> str:
    return str(Action.pitch(card))


def pitched_card(token: str) -> str | None:
    """The card of a pitch token, or None if it is not one."""
    return token[len(PITCH_PREFIX) :] if token.startswith(PITCH_PREFIX) else None


__all__ = [
    "CALL",
    "CARD",
    "DISCARD",
    "DISCARD_PREFIX",
    "PASS",
    "PITCH",
    "PITCH_PREFIX",
    "TRUMP",
    "Action",
    "discard_token",
    "parse_discard_token",
    "pitch_token",
    "pitched_card",
]
