"""Helpers for the bot tests: every rules combination, random positions, alternative deals."""

from __future__ import annotations

import random

from games.engine import Deal, Rules, deal_from_record, deal_to_record
from games.engine.bots.worlds import Info
from games.engine.cards import codes_of

PRESETS = ("house", "classic", "auction", "family")

# Every preset, every option on each preset, cutthroat from 2 to 7 players, and combinations.
SPECS: list = list(PRESETS)
for _preset in PRESETS:
    SPECS += [
        {"preset": _preset, "draw": True},
        {"preset": _preset, "pitch_to_bid": True},
        {"preset": _preset, "no_trump_first_trick": True},
        {"preset": _preset, "six_players": True},
        {"preset": _preset, "low_to": "holder" if _preset in ("house", "classic") else "taker"},
        {"preset": _preset, "target": 21 if _preset != "classic" else 7},
    ]
for _players in range(2, 8):
    SPECS.append({"preset": "auction", "players": _players})
SPECS += [
    {"preset": "house", "cutthroat": True, "players": 3},
    {"preset": "classic", "cutthroat": True, "players": 5, "draw": True},
    {"preset": "family", "players": 7, "draw": True},
    {"preset": "family", "players": 2, "pitch_to_bid": True},
    {"preset": "family", "players": 6, "no_trump_first_trick": True, "low_to": "taker"},
    {"preset": "auction", "cutthroat": False, "pitch_to_bid": True},
    {"preset": "classic", "draw": True, "low_to": "holder", "target": 11},
]


def spec_id(spec) -> str:
    if isinstance(spec, str):
        return spec
    return "-".join(f"{k}={v}" for k, v in spec.items())


def random_positions(spec, rng: random.Random, count: int, with_totals: bool = True):
    """``count`` observations at random moments of randomly played deals (the seat to act's)."""
    rules = Rules.from_spec(spec)
    found = []
    while len(found) < count:
        deal = Deal.new(rules, rng.choice(rules.seats), rng)
        stop = rng.randrange(0, 40)
        while not deal.is_over and deal.version < stop:
            deal.apply(rng.choice(deal.legal_actions()))
        if deal.is_over:
            continue
        totals = None
        if with_totals and rng.random() < 0.5:
            totals = {side: rng.randint(-5, rules.target + 2) for side in rules.sides}
        found.append((deal, deal.observation(deal.to_act, match_totals=totals)))
    return found


def other_deal_with_same_view(deal: Deal, seat: str, rng: random.Random) -> Deal:
    """A different deal (other hidden cards) that gives ``seat`` exactly the same observation.

    The hidden cards are dealt again consistently with what the seat has seen, and the record's
    auction and plays are replayed on it by the engine (which checks they are all legal).
    Not for rules with discards (the dealt hands there include cards thrown later).
    """
    rules = deal.rules
    obs = deal.observation(seat)
    info = Info(obs)
    world = info.sample(rng)
    record = deal_to_record(deal)
    record["hands"] = {
        s: codes_of(world.hands[i] | info.played_by[i]) for i, s in enumerate(rules.seats)
    }
    record["stock"] = codes_of(world.out)
    return deal_from_record(record)
