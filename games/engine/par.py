"""Par: a deal played out by bots in every seat, each decision seeded as the site seeds a
table's bots (`step_seed`), so that a person who made the bots' choices at a table seeded the
same way would meet the same replies and reach the same result (the daily deals' par)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from . import bots
from .deal import Deal
from .rules import Rules


def step_seed(base: int, version: int) -> int:
    """The seed of a search at a table's moment: `base` (the match's number, or its own bot seed)
    and the table's version, which every action moves on by one."""
    return base * 1_000_003 + version


def par_line(
    rules_spec: Rules | str | dict[str, Any],
    dealer: str,
    hands: Mapping[str, Sequence[str]],
    stock: Sequence[str],
    bot_seed: int,
    level: str = "hard",
) -> Deal:
    """The deal played by bots of `level` in every seat, from its first call to its end."""
    rules = Rules.from_spec(rules_spec)
    state = Deal(rules, dealer, hands, stock)
    totals = dict.fromkeys(rules.sides, 0)
    while not state.is_over:
        assert state.to_act is not None  # a deal not over has a seat to act
        observation = state.observation(state.to_act, match_totals=totals)
        state.apply(bots.choose(observation, level, seed=step_seed(bot_seed, state.version)))
    return state
