"""The phases of a deal, in order: what ``Deal.phase`` and ``Observation.phase`` hold.

A ``StrEnum``: each phase is also its word ("auction", "play"...), which the deal rows store
and the records write, so a phase read back from the database or a record compares equal to
its member. Compare with the members, never with bare strings (a test looks for those).
"""

from enum import StrEnum


class Phase(StrEnum):
    AUCTION = "auction"
    TRUMP = "trump"
    DISCARD = "discard"
    PLAY = "play"
    OVER = "over"


AUCTION, TRUMP, DISCARD, PLAY, OVER = Phase
PHASES = tuple(Phase)

__all__ = ["AUCTION", "DISCARD", "OVER", "PHASES", "PLAY", "TRUMP", "Phase"]
