"""Rating a finished match with openskill's Plackett-Luce model (no Django here).

Teams are the match's sides: two or three partnerships of seats, or one seat per team at a
cutthroat table. Ranks come from the final totals with the winner first (in `classic` the winner
can have fewer points than a loser, so the engine's winner is placed first whatever the totals).

A player is a key: a user, or a bot level. A bot level can hold several seats at one table,
even on opposing sides (a person partnered with an easy bot against two easy bots). Each seat
then plays with the level's rating, and the level moves once, by the average of its seats'
changes: a level that sits on one side takes the full update, and a level facing itself mostly
cancels out, which is right, since such a match says little about how strong that level is.
"""

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from openskill.models import PlackettLuce

MODEL = PlackettLuce()


@dataclass(frozen=True)
class Skill:
    mu: float
    sigma: float


def new_skill() -> Skill:
    return Skill(MODEL.mu, MODEL.sigma)


def ranks_of(sides: Sequence[str], totals: Mapping[str, int], winner: str | None) -> list[int]:
    """0 for the winner; the others by their totals, higher first, equal totals sharing a rank."""
    others = [side for side in sides if side != winner]
    ranks = []
    for side in sides:
        if side == winner:
            ranks.append(0)
        else:
            ahead = sum(1 for other in others if totals[other] > totals[side])
            ranks.append(1 + ahead if winner is not None else ahead)
    return ranks


Player = TypeVar("Player", bound=Hashable)  # a user id, or a (kind, id) pair


def rate_match(
    teams: Sequence[Sequence[Player]], ranks: Sequence[int], skills: Mapping[Player, Skill]
) -> dict[Player, Skill]:
    """Each player's skill after the match. `teams` lists the player of every seat, by side."""
    rated = MODEL.rate(
        [
            [MODEL.rating(skills[player].mu, skills[player].sigma) for player in team]
            for team in teams
        ],
        ranks=list(ranks),
    )
    changes: dict[Player, list[tuple[float, float]]] = {}
    for team, new_team in zip(teams, rated, strict=True):
        for player, new in zip(team, new_team, strict=True):
            old = skills[player]
            changes.setdefault(player, []).append((new.mu - old.mu, new.sigma - old.sigma))
    after: dict[Player, Skill] = {}
    for player, deltas in changes.items():
        old = skills[player]
        after[player] = Skill(
            old.mu + sum(d[0] for d in deltas) / len(deltas),
            old.sigma + sum(d[1] for d in deltas) / len(deltas),
        )
    return after
