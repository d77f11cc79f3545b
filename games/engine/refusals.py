"""Why a move was refused, in the site's words, built from the seat's observation only.

The engine keeps detailed reasons for records and the command line ("TS by S: not in S's hand
(E holds it; S is to play)"); those may name where a hidden card lies, so they never reach a
person. Every refusal shown to a seat is worded here from what that seat may know: its own hand
and discards, the public history, the size of the stock. A refused token is never echoed back
as typed: a card is named ("the 10 of spades"), anything else is called what it is not.
"""

from .actions import PASS, parse_discard_token, pitched_card
from .auction import Auction
from .cards import SUITS, is_card, suit_of
from .observation import Observation
from .phases import AUCTION, DISCARD, OVER, TRUMP
from .play import play_problem
from .rules import BID_VALUES
from .wording import card_words, short_card


def card_name(card: str) -> str:
    """ "the 10 of spades", "the ace of hearts"."""
    return card_words(card)


def _sentence(problem: str) -> str:
    """An engine rule problem that names only public facts and the seat's own hand, as a
    sentence to the seat ("must follow hearts or trump" -> "You must follow hearts or trump.")."""
    if problem.startswith(("must ", "may ")):
        problem = "You " + problem
    return problem[0].upper() + problem[1:] + "."


def refusal(obs: Observation, token: str) -> str:
    """Why `token` is not a legal move for the seat of `obs` now.

    Only `obs` is read, so two deals a seat cannot tell apart get the same answer for every token.
    """
    if obs.phase == OVER:
        return "This deal is over; start the next one."
    if not obs.is_my_turn:
        return "It is not your turn."
    if obs.phase == AUCTION:
        return _call_refusal(obs, token)
    if obs.phase == TRUMP:
        return "Name trump: spades, hearts, diamonds or clubs."
    if obs.phase == DISCARD:
        return _discard_refusal(obs, token)
    return _play_refusal(obs, token)


def _call_refusal(obs: Observation, token: str) -> str:
    rules = obs.rules
    choices = "bid, pitch a card or pass" if rules.pitch_to_bid else "bid or pass"
    card = pitched_card(token)
    if card is not None:
        if not rules.pitch_to_bid:
            return "These rules do not allow pitching a card as a bid."
        if not is_card(card):
            return "That is not a card."
        if card not in obs.hand:
            return f"You don't hold {card_name(card)}."
    elif token in BID_VALUES and token not in rules.calls:
        return f"There is no {'smudge' if token == 'smudge' else 'bid of ' + token} in these rules."
    elif token not in rules.calls:
        return f"The auction is on: {choices}."
    problem = Auction.replay(rules, obs.dealer, obs.calls).problem(obs.seat, token, obs.hand)
    return _sentence(problem) if problem else "That call is not allowed now."


def _discard_refusal(obs: Observation, token: str) -> str:
    cards = parse_discard_token(token)
    two = obs.rules.discard_kind == "two"
    if cards is None:
        return "Choose two cards to discard." if two else "Choose the cards to discard."
    seen: set[str] = set()
    for card in cards:
        if not is_card(card):
            return "That is not a card."
        if card in seen:
            return f"You chose {card_name(card)} twice."
        seen.add(card)
        if card not in obs.hand:
            return f"You don't hold {card_name(card)}."
        if not two and suit_of(card) == obs.trump:
            return f"{card_name(card).capitalize()} is a trump: only non-trumps may be discarded."
    if two and len(cards) != 2:
        return f"Choose exactly two cards to discard (you chose {len(cards)})."
    if not two and len(cards) > obs.stock_size:
        return f"The stock can replace only {_count(obs.stock_size, 'card')}."
    return "That discard is not allowed now."


def _play_refusal(obs: Observation, token: str) -> str:
    if not is_card(token):
        if token == PASS or token in obs.rules.calls or pitched_card(token) is not None:
            return "The auction is over: play a card."
        if token in SUITS:
            return "Trump is already named: play a card."
        return "That is not a card."
    if token in obs.played:
        return f"{card_name(token).capitalize()} has already been played."
    if token in obs.discards:
        return f"You discarded {card_name(token)}."
    if token not in obs.hand:
        return f"You don't hold {card_name(token)}."
    problem = play_problem(
        obs.rules, obs.hand, token, obs.current_trick, obs.trump, obs.trick_number
    )
    return _sentence(problem) if problem else "That card may not be played now."


def unplayable_card(obs: Observation, card: str) -> str:
    """Why a card of the seat's own hand may not be played now, as the card says it on hover,
    focus and click (issue 44): the refusal a click would get, with the cards of the suit led
    that the seat holds ("You must follow hearts or trump: you hold the 7♥.")."""
    reason = refusal(obs, card)
    if obs.phase != OVER and obs.is_my_turn and obs.current_trick:
        led = suit_of(obs.current_trick[0][1])
        held = [short_card(c) for c in obs.hand if suit_of(c) == led]
        if held and suit_of(card) != led:
            return f"{reason.rstrip('.')}: you hold the {_listed(held)}."
    return reason


def _listed(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
