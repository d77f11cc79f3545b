"""Which discards are legal: the one rule the ``Deal`` and a seat's ``Observation`` both ask.

docs/rules.md: with the ``draw`` kind a seat may throw any of its non-trumps, as many as the
stock can still replace (so every hand stays at six); with the ``two`` kind (six players) it
throws exactly two cards, any cards, trumps too. ``fast._random_discards`` draws from the same
sets on bitmasks; tests/engine/test_fast_copies.py checks it against these.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

from .actions import discard_token
from .cards import sort_cards, suit_of


def discardable(kind: str, hand: Iterable[str], trump: str | None, stock_left: int) -> list[str]:
    """The cards of ``hand`` that may be discarded (display order)."""
    hand = sort_cards(hand)
    if kind == "two":
        return hand
    if stock_left == 0:
        return []
    return [card for card in hand if suit_of(card) != trump]


def discard_tokens(kind: str, hand: Iterable[str], trump: str | None, stock_left: int) -> list[str]:
    """Every legal discard token, fewest cards first."""
    cards = discardable(kind, hand, trump, stock_left)
    if kind == "two":
        return [discard_token(pair) for pair in combinations(cards, 2)]
    limit = min(len(cards), stock_left)
    return [discard_token(subset) for k in range(limit + 1) for subset in combinations(cards, k)]
