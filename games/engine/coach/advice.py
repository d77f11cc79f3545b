"""The coach's advice for one decision, from the seat's observation only (pure Python, no Django).

``advise`` runs the hard bot's search (``games.engine.bots.evaluate``) at the hard level's budget,
seeded by the position (``worth.position_seed``): the same position gets the same figures
wherever it is met (the table, the offline page, a review, an exercise, "Play from here"), and
every option is valued on the same sampled worlds. Options are ranked by their worth
(``games.engine.worth``: expected net points, or the chance of winning the match near its end). Each option keeps the search's figures and gets a plain-words label and
reason (``wording``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..bots import evaluate
from ..observation import Observation
from ..worth import position_seed
from . import reasons
from .chances import honest_estimate, table_of

LEVEL = "hard"


@dataclass(frozen=True)
class Option:
    """One option of a decision, best first in a list. ``figures`` is ``OptionEstimate.to_json()``
    (expected points for the seat's side and their standard error, chances of making or setting
    the bid, of High, Low, Jack and Game, ...) plus ``suit``, the trump a call plans."""

    action: str
    label: str
    reason: str
    figures: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "label": self.label,
            "reason": self.reason,
            "figures": self.figures,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Option:
        return cls(data["action"], data["label"], data["reason"], data["figures"])


def advise(
    obs: Observation,
    seed: int | None = None,
    budget: int | None = None,
    raw: bool = False,
    seat_models: dict[str, str] | None = None,
) -> list[Option]:
    """Every option the search values for the seat to act, best first (at least two legal
    actions; a forced move needs no advice). Its chances are made honest (``chances``) unless
    ``raw``: the search's own, which the calibration map is fitted on. Without ``seed`` the
    search is seeded by the position (what the site's coach does everywhere). ``seat_models``
    (seat -> casual, easy, medium or hard; ``bots.seats``) plays the others in the sampled worlds as
    what sits at the table, so the chances are against them."""
    if seed is None:
        seed = position_seed(obs)
    estimates = evaluate(obs, seed=seed, budget=budget, level=LEVEL, seat_models=seat_models)
    if not raw:
        table = table_of(seat_models, obs.seat, obs.rules)
        estimates = [honest_estimate(est, table=table) for est in estimates]
    lines = reasons.reasons(obs, estimates)
    options = []
    for est, line in zip(estimates, lines, strict=True):
        figures = est.to_json()
        figures.pop("reason")
        figures["engine_reason"] = est.reason
        figures["suit"] = est.detail.get("suit")
        options.append(Option(est.action, reasons.action_label(obs, est.action), line, figures))
    return options
