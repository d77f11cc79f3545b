"""Helpers for the engine tests: build deals from written hands, play them, random games."""

from __future__ import annotations

import itertools
import random
import zlib

from games.engine import Deal, Rules

# Rules specs covering every preset and every option (and some combinations).
ALL_SPECS = [
    "house",
    "classic",
    "auction",
    "family",
    {"preset": "house", "low_to": "holder"},
    {"preset": "house", "target": 21},
    {"preset": "house", "cutthroat": True, "players": 3},
    {"preset": "house", "draw": True},
    {"preset": "house", "pitch_to_bid": True},
    {"preset": "house", "no_trump_first_trick": True},
    {"preset": "house", "six_players": True},
    {"preset": "classic", "pitch_to_bid": True},
    {"preset": "classic", "six_players": True},
    {"preset": "classic", "draw": True, "low_to": "holder"},
    {"preset": "classic", "cutthroat": True, "players": 5},
    {"preset": "auction", "players": 3},
    {"preset": "auction", "players": 7, "draw": True},
    {"preset": "auction", "cutthroat": False},
    {"preset": "auction", "pitch_to_bid": True, "players": 2},
    {"preset": "family", "players": 2},
    {"preset": "family", "players": 6, "no_trump_first_trick": True},
    {"preset": "family", "low_to": "taker", "target": 11},
    {"preset": "family", "pitch_to_bid": True, "players": 5},
    {"preset": "auction", "six_players": True},
]


PRESETS = ("house", "classic", "auction", "family")
# The fast copies of the rules (the search's kernel, its auctions) are compared with the engine
# over at least this many random states of each preset, its options taken in turn.
STATES_PER_PRESET = 10_000


def specs_of(preset: str, specs=ALL_SPECS) -> list:
    """The specs of ``specs`` built on ``preset``."""
    return [s for s in specs if (s if isinstance(s, str) else s["preset"]) == preset]


def over_the_preset(preset: str, check, *, salt: int = 0, specs=ALL_SPECS) -> None:
    """Call ``check(rules, rng)`` (which returns how many states it compared) over the preset's
    specs in turn, until STATES_PER_PRESET states have been compared."""
    rules_in_turn = itertools.cycle([Rules.from_spec(s) for s in specs_of(preset, specs)])
    rng = random.Random(zlib.crc32(preset.encode()) ^ salt)
    states = 0
    while states < STATES_PER_PRESET:
        states += check(next(rules_in_turn), rng)


def hands_of(**hands: str) -> dict[str, list[str]]:
    """``hands_of(N="AS KS ...", E=...)`` -> {"N": ["AS", "KS", ...], ...}."""
    return {seat: text.split() for seat, text in hands.items()}


def deal_from(rules, dealer: str, hands: dict[str, str], stock: list[str] | None = None) -> Deal:
    return Deal(Rules.from_spec(rules), dealer, {s: h.split() for s, h in hands.items()}, stock)


def play(deal: Deal, actions: str) -> Deal:
    """Apply whitespace-separated tokens in order; returns the deal for chaining."""
    for token in actions.split():
        deal.apply(token)
    return deal


def random_game(
    rules, rng: random.Random, dealer: str | None = None, upto: int | None = None
) -> Deal:
    """A deal played with uniformly random legal actions (stopping after ``upto`` actions)."""
    rules = Rules.from_spec(rules)
    dealer = dealer or rng.choice(rules.seats)
    deal = Deal.new(rules, dealer, rng)
    while not deal.is_over and (upto is None or deal.version < upto):
        deal.apply(rng.choice(deal.legal_actions()))
    return deal
