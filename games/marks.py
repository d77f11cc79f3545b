"""Coach marks in a replay: where the coach plugs in.

The replay does not judge moves. A coach app registers a provider, a function that reads the
advice it has already stored (computed once, by its own Celery task) for one seat's decisions
in one finished deal::

    # games/coach/apps.py
    class CoachConfig(AppConfig):
        def ready(self):
            from games.marks import Mark, register_marks_provider
            from .selectors import stored_marks   # (deal: games.Deal, seat: str) -> list[Mark]
            register_marks_provider(stored_marks)

The replay asks only for the viewing player's own seat, only for a finished deal, once per page
view, and never for a guest (a shared link) or an imported record. A provider must not compute
advice when asked: if none is stored yet it returns nothing (and may enqueue its task).
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass

SEVERITIES = ("inaccuracy", "mistake", "blunder")


@dataclass(frozen=True)
class Mark:
    """The coach's verdict on one decision: how bad it was and what was better.

    `sequence` is the decision's `games.Action.sequence` (0 for the deal's first action), so the
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


MarksProvider = Callable[[object, str], Iterable[Mark]]

_providers: list[MarksProvider] = []


def register_marks_provider(provider: MarksProvider) -> None:
    """Add `provider(deal_row, seat) -> marks`; registering the same function twice is harmless."""
    if provider not in _providers:
        _providers.append(provider)


def unregister_marks_provider(provider: MarksProvider) -> None:
    if provider in _providers:
        _providers.remove(provider)


def stored_marks(deal_row, seat: str) -> dict[int, Mark]:
    """Every registered provider's marks for `seat` in `deal_row`, by action sequence."""
    marks: dict[int, Mark] = {}
    for provider in _providers:
        for mark in provider(deal_row, seat):
            marks[mark.sequence] = mark
    return marks


# --- The coach's first choice at one step (for the face-up panel's "why they differ") ---------

ChoiceProvider = Callable[[object, int, str], "str | None"]

_choice_providers: list[ChoiceProvider] = []


def register_choice_provider(provider: ChoiceProvider) -> None:
    """Add `provider(deal_row, step, seat) -> engine token or None`: the coach's first choice it
    has stored for that decision (never computed when asked)."""
    if provider not in _choice_providers:
        _choice_providers.append(provider)


def coach_choice(deal_row, step: int, seat: str) -> str | None:
    """The coach's stored first choice for `seat` at `step` of `deal_row`, or None."""
    for provider in _choice_providers:
        choice = provider(deal_row, step, seat)
        if choice:
            return choice
    return None
