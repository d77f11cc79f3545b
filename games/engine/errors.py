"""The engine's exceptions.

Every one is a ``ValueError`` so callers that only care about "bad input" can catch that, while
code that wants to tell them apart (the web layer answering 400 vs. 409, the command line
naming the offending record item) catches the precise class.
"""

from __future__ import annotations


class EngineError(ValueError):
    """Base class of every error the engine raises on purpose."""


class RulesError(EngineError):
    """A rules spec names an unknown preset or option, a bad value, or options that clash."""


class IllegalAction(EngineError):
    """An action that the rules do not allow in this state.

    ``str(error)`` reads ``"<token> by <seat>: <reason>"`` (e.g. ``QH by E: must follow
    diamonds or trump``); the parts are kept so a record reader can prefix its position.
    """

    def __init__(self, token: str, seat: str | None, reason: str) -> None:
        self.token = token
        self.seat = seat
        self.reason = reason
        who = f"{token} by {seat}" if seat else token
        super().__init__(f"{who}: {reason}")


class RecordError(EngineError):
    """A deal or match record that is malformed or breaks the rules.

    The message names the first offending item, e.g. ``hands.E: 5 cards, expected 6`` or
    ``plays[6] QH by E: must follow diamonds or trump``; the command line prints it after
    ``error: ``.
    """
