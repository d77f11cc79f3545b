"""Coach marks in a replay: where the coach plugs in.

The replay does not judge moves. A coach app registers on `hooks.replay_marks` a function that
reads the advice it has already stored (computed once, by its own Celery task) for one seat's
decisions in one finished deal (games/coach/apps.py), and on `hooks.coach_choices` one that
reads its stored first choice at a step.

The replay asks only for the viewing player's own seat, only for a finished deal, once per page
view, and never for a guest (a shared link) or an imported record. A provider must not compute
advice when asked: if none is stored yet it returns nothing (and may enqueue its task).
"""

from dataclasses import dataclass

from games.core import hooks

SEVERITIES = ("inaccuracy", "mistake", "blunder")


@dataclass(frozen=True)
class Mark:
    """The coach's verdict on one decision: how bad it was and what was better.

    `sequence` is the decision's `Action.sequence` (0 for the deal's first action), so the
    replay shows the mark on the frame right after that action (step `sequence + 1`).
    `better` is the engine token the coach prefers (`KS`, `3`, `pass`, `pitch:KS`, `H`,
    `discard:5C,7D`); `note` is an optional short sentence in plain text.
    """

    sequence: int
    severity: str
    better: str
    note: str = ""

    def __post_init__(self):
        if self.severity not in SEVERITIES:
            raise ValueError(f"severity {self.severity!r}: expected one of {', '.join(SEVERITIES)}")


def stored_marks(deal_row, seat: str) -> dict[int, Mark]:
    """Every registered function's marks for `seat` in `deal_row`, by action sequence."""
    marks: dict[int, Mark] = {}
    for found in hooks.replay_marks(deal_row, seat):
        for mark in found:
            marks[mark.sequence] = mark
    return marks


def coach_choice(deal_row, step: int, seat: str) -> str | None:
    """The coach's stored first choice for `seat` at `step` of `deal_row`, or None."""
    return next((choice for choice in hooks.coach_choices(deal_row, step, seat) if choice), None)
