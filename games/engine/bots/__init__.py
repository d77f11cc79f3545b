"""Computer players. One interface for every level:

    choose(observation, level, seed=0, budget=None) -> action token
    evaluate(observation, seed=0, budget=None) -> list[OptionEstimate]   (the hard search, for the coach)

A bot sees only its seat's Observation (own hand, the auction, cards played, proven voids), so it
cannot peek at hidden cards. The same seed gives the same choice: budgets count simulated deals,
never wall time.

Levels: ``random`` (a uniformly random legal action: the arena's baseline), ``easy`` (rules of
thumb, no search), ``medium`` and ``hard`` (Monte Carlo search with inference; see search.py and
docs/bots.md). ``choose(obs, "hard", seed, budget)`` is exactly ``evaluate(obs, seed, budget)[0].action``.
"""

from __future__ import annotations

import dataclasses
import random
from functools import lru_cache

from ..observation import Observation
from . import easy
from .estimate import OptionEstimate
from .search import Config, Search

# The one list of the levels the site offers: its BotLevel choices and the width of every
# bot_level column are built from it (games/models.py). "random" is the arena's baseline only.
SITE_LEVELS = ("easy", "medium", "hard")
LEVELS = ("random", *SITE_LEVELS)

# Budgets count simulated deals (playouts) per decision: ``budget`` for a card, ``bid_budget``
# for a call, naming trump or discarding. Chosen so that one decision takes at most about
# 0.3 s (hard card), 0.75 s (hard bid) and 0.1 s (medium) at the 95th percentile on one core
# (``python -m games.engine bench-bots``).
CONFIGS: dict[str, Config] = {
    "medium": Config(budget=300, bid_budget=400, exact_tricks=0, inference=1.0),
    # No auction inference at hard: in the arena hard beat hard+inference=1 (the same search
    # weighting worlds by the auction) by 0.24 points per deal (see docs/bots.md, Figures).
    "hard": Config(budget=1400, bid_budget=3200, exact_tricks=2, inference=0.0),
}


@lru_cache(maxsize=64)
def level_config(level: str) -> Config:
    """The search settings of a search level: ``medium``, ``hard``, or a variant for the arena
    written ``hard+inference=0+exact_tricks=0`` (a level and settings that differ from it)."""
    base, *changes = level.split("+")
    if base not in CONFIGS:
        raise ValueError(f"unknown bot level {level!r}; expected one of {', '.join(LEVELS)}")
    config = CONFIGS[base]
    fields = {f.name: f.type for f in dataclasses.fields(Config)}
    updates = {}
    for change in changes:
        name, _, value = change.partition("=")
        if name not in fields:
            raise ValueError(
                f"unknown search setting {name!r} in {level!r} (settings: {', '.join(fields)})"
            )
        kind = type(getattr(config, name))
        if kind is bool:
            updates[name] = value.lower() in ("1", "true", "yes", "on")
        else:
            updates[name] = kind(float(value)) if kind in (int, float) else kind(value)
    return dataclasses.replace(config, **updates) if updates else config


def _check(observation: Observation, level: str) -> None:
    if level not in LEVELS and not ("+" in level and level.split("+")[0] in CONFIGS):
        raise ValueError(f"unknown bot level {level!r}; expected one of {', '.join(LEVELS)}")
    if "+" in level:
        level_config(level)
    if not observation.is_my_turn:
        raise ValueError(f"it is not {observation.seat}'s turn")


def choose(
    observation: Observation, level: str = "easy", seed: int = 0, budget: int | None = None
) -> str:
    """The bot's action for the seat whose observation this is (it must be its turn)."""
    _check(observation, level)
    if level == "random":
        return random.Random(seed).choice(observation.legal_actions())
    if level == "easy":
        return easy.choose(observation, random.Random(seed))
    legal = observation.legal_actions()
    if len(legal) == 1:
        return legal[0]
    return evaluate(observation, seed=seed, budget=budget, level=level)[0].action


def evaluate(
    observation: Observation,
    seed: int = 0,
    budget: int | None = None,
    level: str = "hard",
    include: tuple[str, ...] | list[str] = (),
    seat_models: dict[str, str] | None = None,
) -> list[OptionEstimate]:
    """Every legal option of the seat's decision, valued by the search, best first.

    The first option is the bot's choice (``choose(obs, level, seed, budget)``). Each option
    carries the expected points of the seat's side, their standard error, the chances of
    making (or setting) the bid and of taking High, Low, Jack and Game, all from the same
    sampled worlds. ``budget`` overrides the level's number of simulated deals.

    Where there are many legal options the search values the sensible ones only (pitches: the
    top card of the two strongest suits; discards: the ten likeliest sets). ``include`` adds
    legal actions to value anyway (say, the one a person chose, for the coach); the figures
    then come from a slightly different sample, so only ``evaluate`` without ``include`` is
    guaranteed to rank ``choose``'s action first.

    ``seat_models`` (seat -> "easy", "medium" or "hard"; the coach's) plays each seat in the
    sampled worlds as what sits there (``bots/seats.py``); without it every seat plays the
    playout policy, as the bots' own searches do.
    """
    if level.split("+")[0] not in CONFIGS:
        raise ValueError(f"evaluate needs a search level ({', '.join(CONFIGS)}), not {level!r}")
    if not observation.is_my_turn:
        raise ValueError(f"it is not {observation.seat}'s turn")
    legal = set(observation.legal_actions())
    for action in include:
        if action not in legal:
            raise ValueError(f"{action!r} is not a legal action for {observation.seat} now")
    return Search(
        observation,
        seed=seed,
        config=level_config(level),
        budget=budget,
        include=tuple(include),
        seat_models=seat_models,
    ).evaluate()


__all__ = [
    "CONFIGS",
    "LEVELS",
    "SITE_LEVELS",
    "OptionEstimate",
    "choose",
    "evaluate",
    "level_config",
]
