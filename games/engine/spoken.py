"""The table in words, for people who listen to it (a screen reader reads the page's live
region): each move as a sentence ("West plays the king of hearts."), each trick's taker, the
deal's end, and what the viewer's turn asks of them ("Your turn: you must follow spades.").

Built from what the viewer may know only: the public history (the calls, the cards played, who
discarded how many) and their own hand's legal moves. The live table and the offline page speak
the same sentences (games/core/presenters.py, games/offline/worker.py).
"""

from __future__ import annotations

from collections.abc import Mapping

from .actions import CARD, DISCARD, PITCH, TRUMP, Action
from .cards import SUIT_NAMES, suit_of
from .claim import claimed_at
from .deal import Deal
from .observation import Observation
from .phases import AUCTION, OVER, PLAY
from .phases import DISCARD as DISCARD_PHASE
from .phases import TRUMP as TRUMP_PHASE
from .play import trick_winner
from .rules import SMUDGE
from .wording import card_words

# How many of the latest moves a screen carries: a page that missed a few versions (a bot's
# quick moves, a dropped socket) still speaks every move it has not spoken yet.
RECENT = 16


def _subject(who: str) -> tuple[str, str]:
    """The name and the verb ending: ("You", "") or ("West", "s")."""
    return (who, "") if who == "You" else (who, "s")


def move_sentence(token: str, who: str, trump: str | None) -> str:
    """One move in words, its mover named as the viewer reads the seat."""
    action = Action.parse(token)
    name, s = _subject(who)
    if action.kind == CARD:
        return f"{name} play{s} {card_words(action.word, trump, article='the ')}."
    if action.kind == PITCH:
        return f"{name} pitch{'es' if s else ''} {card_words(action.word, None)}."
    if action.kind == TRUMP:
        return f"{name} name{s} {SUIT_NAMES[action.word]} trump."
    if action.kind == DISCARD:
        count = len(action.cards)
        return f"{name} discard{s} {count} card{'' if count == 1 else 's'}."
    if token == "pass":
        return f"{name} pass{'es' if s else ''}."
    if token == "smudge" or token == str(SMUDGE):
        return f"{name} bid{s} smudge."
    return f"{name} bid{s} {token}."


def trick_sentence(
    cards: tuple[tuple[str, str], ...], trump: str | None, names: Mapping[str, str]
) -> str:
    """Who took a trick, as the viewer reads it, and the jack of trump if it was in it."""
    winner = names[trick_winner(cards, trump)]
    name, s = _subject(winner)
    jack = trump is not None and any(card == "J" + trump for _, card in cards)
    return f"{name} take{s} the trick{', with the jack of trump' if jack else ''}."


def recent_moves(
    deal: Deal, names: Mapping[str, str], recent: int = RECENT
) -> list[tuple[int, str]]:
    """The latest moves in words, each with the step it made (1 for the deal's first move):
    a trick's taker is said with the card that ended it, and the deal's end with its last."""
    start = max(0, len(deal.history) - recent)
    replay = deal.as_dealt()
    claim = claimed_at(replay, deal.history) if deal.phase == OVER else None
    said: list[tuple[int, str]] = []
    for step, (seat, token) in enumerate(deal.history, start=1):
        tricks_before = len(replay.tricks)
        replay.apply(token, seat)
        if step <= start:
            continue
        words = [move_sentence(token, names[seat], replay.trump)]
        if claim is not None and step == claim[0] + 1:
            name, s = _subject(names[claim[1]])
            words.insert(0, f"{name} claim{s} the rest.")
        if len(replay.tricks) > tricks_before:
            words.append(trick_sentence(replay.tricks[-1].cards, replay.trump, names))
        if replay.phase == OVER:
            words.append("The deal is over.")
        said.append((step, " ".join(words)))
    return said


def turn_cue(observation: Observation) -> str:
    """What the viewer's turn asks of them, or "" when it is not their turn."""
    if not observation.is_my_turn:
        return ""
    phase = observation.phase
    if phase == AUCTION:
        return "Your turn: bid or pass."
    if phase == TRUMP_PHASE:
        return "Your turn: you won the bid, name trump."
    if phase == DISCARD_PHASE:
        return "Your turn: choose the cards to discard."
    if phase != PLAY:
        return ""
    if not observation.current_trick:
        return "Your lead."
    led = suit_of(observation.current_trick[0][1])
    suit = "trump" if led == observation.trump else SUIT_NAMES[led]
    legal = observation.legal_actions()
    if all(suit_of(card) == led for card in legal):
        return f"Your turn: you must follow {suit}."
    if all(suit_of(card) in (led, observation.trump) for card in legal):
        return f"Your turn: follow {suit} or trump."
    led_words = "trump was led" if led == observation.trump else f"{suit} were led"
    return f"Your turn: {led_words}; you may play any card."
