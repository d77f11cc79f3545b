"""A budget per person for expensive work: offline checks, coach reviews, face-up analysis, data
downloads. Not a rate (a rate let one account put 12 uploads in the queue in 0.3 s and everyone
else's analysis waited 70 s behind them, issue 45) but a bound on what is in flight:

- per person, at most `PER_PERSON_ITEMS` items waiting or running, and at most
  `PER_PERSON_SECONDS` of estimated CPU between them (a dear check counts as more: a seven-player
  deal with draw and hard bots is about 8 s, a four-player easy one a few ms);
- per lane, at most `LANE_ITEMS` items from everyone together, so a queue stays short however
  many accounts join in.

Beyond either, the request is answered "busy, try later" (`OverBudget`, 429, when the person
has their share in flight; `LaneFull`, 503, when the lane is full) and nothing is queued.

What is in flight is read from the rows of the work itself (an upload still being checked, a
download still being built...): each feature registers a function on `hooks.work_in_flight` in
its `AppConfig.ready()`, so a finished, failed or lost item stops counting with its row, and
nothing here can leak. The caller
admits inside its transaction, and the person's row is locked meanwhile, so two requests of one
person cannot both take the last place.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model

from games.core import hooks
from games.core.errors import GameError

ANALYSIS = "analysis"  # the coach queue: advice, reviews, face-up solves
CHECKS = "checks"  # the checks queue: offline checks, data downloads

PER_PERSON_ITEMS = 4
PER_PERSON_SECONDS = 20.0
LANE_ITEMS = {ANALYSIS: 200, CHECKS: 60}
# A person's answer says when to try again (about what one dear item takes).
RETRY_AFTER_SECONDS = 10


class Busy(GameError):
    """Expensive work refused for now; the message says to try later."""

    status = 503
    retry_after = RETRY_AFTER_SECONDS


class OverBudget(Busy):
    """The person has their share of expensive work in flight."""

    status = 429


class LaneFull(Busy):
    """The lane's queue is full, whoever asks."""

    status = 503


@dataclass(frozen=True)
class Work:
    """One item of expensive work waiting or running."""

    lane: str
    owner_id: int | None
    cost: float  # estimated CPU seconds


def in_flight(owner_id: int | None = None) -> list[Work]:
    """The person's items in flight (an id), or everyone's (None), from every feature's
    function on `hooks.work_in_flight`."""
    return [work for found in hooks.work_in_flight(owner_id) for work in found]


def admit(owner, lane: str, cost: float) -> None:
    """Take one more item of `cost` CPU seconds in `lane` for `owner`, or raise `OverBudget` /
    `LaneFull` (nothing queued). Call inside the transaction that creates the item's row."""
    # Locks the person's row to the end of the caller's transaction: one admission at a time.
    get_user_model().objects.select_for_update().filter(pk=owner.pk).first()
    mine = in_flight(owner.pk)
    spent = sum(work.cost for work in mine)
    # One item dearer than the whole budget still runs when it is the person's only one.
    if len(mine) >= PER_PERSON_ITEMS or (mine and spent + cost > PER_PERSON_SECONDS):
        raise OverBudget(
            "Busy: your earlier requests are still being worked on "
            f"({len(mine)} waiting, about {spent:.0f} s of work). Try again when they are done."
        )
    queued = sum(1 for work in in_flight(None) if work.lane == lane)
    if queued >= LANE_ITEMS[lane]:
        raise LaneFull("Busy: the site has too much of this work waiting. Try again later.")


def retry_headers(error: Busy) -> dict[str, str]:
    return {"Retry-After": str(error.retry_after)}
