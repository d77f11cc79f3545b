"""Refused moves, in the site's words.

The engine explains a refusal for a record reader ("discard: by P1: must discard exactly 2
cards, not 0"); a player at the table reads a sentence addressed to them instead. The wording
is built from the refused move and the rule it broke only, never from other hands, so it can
never say who holds a card.
"""

import re

from . import engine, services
from .selectors import RANK_NAMES, SUIT_NAMES

NOT_ALLOWED = "That move is not allowed here."


def _card_name(code: str) -> str:
    if len(code) == 2 and code[0] in RANK_NAMES and code[1] in SUIT_NAMES:
        return f"the {RANK_NAMES[code[0]]} of {SUIT_NAMES[code[1]]}"
    return "that card"


def _engine_reason(reason: str, token: str = "") -> str:
    """One engine reason (see games/engine: auction, play, deal) as a sentence for the player."""
    if match := re.fullmatch(r"not a call in these rules \((.*)\)", reason):
        return f"There is no {token} in these rules: the calls are {match[1]}."
    if re.fullmatch(r"must follow (\w+) \(trump\)", reason):
        return "Trumps were led: you must play a trump."
    if match := re.fullmatch(r"must follow (\w+) or trump", reason):
        return f"You must follow {match[1]} or play a trump."
    if match := re.fullmatch(r"must follow (\w+)", reason):
        return f"You must follow {match[1]}."
    if match := re.fullmatch(r"must trump: no (\w+), and a trump in hand", reason):
        return f"You have no {match[1]}, so you must play a trump."
    if reason.startswith("may not trump the first trick"):
        return "No trumps on the first trick while you hold another suit."
    if match := re.fullmatch(r"must bid higher than (\d+)", reason):
        return f"Bid higher than {match[1]}, or pass."
    if match := re.fullmatch(r"must bid at least (\d+)", reason):
        return f"Bid at least {match[1]}."
    if reason == "the dealer must bid when everyone else passed":
        return "Everyone else passed, so the dealer must bid."
    if match := re.fullmatch(r"must discard exactly (\d+) cards, not (\d+)", reason):
        chosen = int(match[2])
        return (f"Choose exactly {'two' if match[1] == '2' else match[1]} cards to discard "
                f"(you chose {chosen}).")
    if match := re.fullmatch(r"(\w\w) is a trump: only non-trumps may be discarded", reason):
        return f"Only non-trumps may be discarded, and {_card_name(match[1])} is a trump."
    if match := re.fullmatch(r"(\d+) cards, but the stock can replace only (\d+)", reason):
        return f"The stock can replace only {match[2]} cards: discard at most {match[2]}."
    if reason.startswith("not your turn"):
        return "It is not your turn."
    if reason in ("the deal is over", "the deal was thrown in"):
        return "This deal is over."
    if reason.startswith("pitching is not allowed"):
        return "These rules do not allow pitching a card to bid."
    if reason.startswith("after a pitch the dealer may only"):
        return "After a pitch the dealer may only take it over or pass."
    # A card that is not in the hand (played, discarded, or someone else's): the same words
    # whoever holds it.
    return NOT_ALLOWED


def for_player(error: services.GameError) -> str:
    """What a player is told when their request is refused."""
    cause = error.__cause__
    if isinstance(cause, engine.IllegalAction):
        return _engine_reason(cause.reason, str(cause.token))
    if isinstance(error, services.NotYourTurn):
        return "It is not your turn."
    return str(error)
