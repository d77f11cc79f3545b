"""Trick play: which cards may be played, who wins a trick, and what a play proves.

Pure functions over card codes, shared by the ``Deal`` and the ``Observation`` (the fast kernel
has its own bitmask versions and a test keeps them in step).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .cards import SUITS, rank_of, sort_cards, suit_name, suit_of
from .rules import FOLLOW_ELSE_TRUMP, Rules


def _first_trick_restricted(rules: Rules, trick_number: int) -> bool:
    return rules.no_trump_first_trick and trick_number == 0


def playable(
    rules: Rules,
    hand: Iterable[str],
    trick: Sequence[tuple[str, str]],
    trump: str | None,
    trick_number: int,
) -> list[str]:
    """The cards of ``hand`` that may be played to ``trick`` (display order).

    ``trick`` is the current trick as ``(seat, card)`` pairs; ``trump`` is None only before the
    pitcher's opening lead sets it; ``trick_number`` counts completed tricks (0 = first trick).
    """
    return [
        card
        for card in sort_cards(hand)
        if play_problem(rules, hand, card, trick, trump, trick_number) is None
    ]


def play_problem(
    rules: Rules,
    hand: Iterable[str],
    card: str,
    trick: Sequence[tuple[str, str]],
    trump: str | None,
    trick_number: int,
) -> str | None:
    """Why ``card`` may not be played from ``hand`` (None if it may). The card is in the hand."""
    if not trick:
        return None  # a lead may be any card (the pitcher's first lead sets trump)
    led = suit_of(trick[0][1])
    suit = suit_of(card)
    if suit == led:
        return None
    hand = list(hand)
    holds_led = any(suit_of(c) == led for c in hand)
    if _first_trick_restricted(rules, trick_number):
        return _first_trick_problem(hand, suit, led, trump, holds_led)
    if rules.follow == FOLLOW_ELSE_TRUMP:
        return _follow_else_trump_problem(hand, suit, led, trump, holds_led)
    # Follow or trump (house, classic, auction).
    if holds_led and suit != trump:
        if led == trump:
            return f"must follow {suit_name(led)} (trump)"
        return f"must follow {suit_name(led)} or trump"
    return None


def _first_trick_problem(
    hand: list[str], suit: str, led: str, trump: str | None, holds_led: bool
) -> str | None:
    """No trumping the first trick: follow if able; a trump only from a hand of trumps
    (decided: a void player holding a non-trump must play a non-trump)."""
    if holds_led:
        return f"must follow {suit_name(led)}"
    if suit == trump and any(suit_of(c) != trump for c in hand):
        return "may not trump the first trick while holding a non-trump"
    return None


def _follow_else_trump_problem(
    hand: list[str], suit: str, led: str, trump: str | None, holds_led: bool
) -> str | None:
    """Follow suit, else trump (family): a player out of the suit led must trump if able."""
    if holds_led:
        return f"must follow {suit_name(led)}"
    if suit != trump and any(suit_of(c) == trump for c in hand):
        return f"must trump: no {suit_name(led)}, and a trump in hand"
    return None


def trick_winner(trick: Sequence[tuple[str, str]], trump: str | None) -> str:
    """The seat whose card wins: the highest trump, else the highest card of the suit led."""
    led = suit_of(trick[0][1])

    def strength(play: tuple[str, str]) -> tuple[int, int]:
        card = play[1]
        suit = suit_of(card)
        tier = 2 if suit == trump else 1 if suit == led else 0
        return (tier, rank_of(card) if tier else -1)

    return max(trick, key=strength)[0]


def proven_voids(
    rules: Rules,
    tricks: Iterable[Sequence[tuple[str, str]]],
    trump: str | None,
) -> dict[str, set[str]]:
    """The suits each seat has been shown by its plays not to hold any more.

    What a card proves depends on the follow rule in force for that trick:
    - follow or trump: a non-trump of another suit proves a void in the suit led; a trump proves
      nothing (you may always trump);
    - follow, else trump (family): any other suit proves a void in the suit led, and a non-trump
      of another suit proves a void in trump too;
    - the first trick without trumping: any other suit proves a void in the suit led, and a trump
      there proves the hand held nothing but trumps.
    Cards never come back into a hand during play, so a void once proven stays proven.
    """
    voids: dict[str, set[str]] = {}
    for number, trick in enumerate(tricks):
        if not trick:
            continue
        led = suit_of(trick[0][1])
        for seat, card in trick[1:]:
            suit = suit_of(card)
            if suit == led:
                continue
            proven: set[str] = set()
            if _first_trick_restricted(rules, number):
                proven.add(led)
                if suit == trump:
                    proven.update(s for s in SUITS if s != trump)
            elif rules.follow == FOLLOW_ELSE_TRUMP:
                proven.add(led)
                if trump is not None and suit != trump:
                    proven.add(trump)
            elif suit != trump:
                proven.add(led)
            if proven:
                voids.setdefault(seat, set()).update(proven)
    return voids
