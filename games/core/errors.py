"""The refusals of the core: a `GameError` is a request refused, worded for the person who made it.

Services raise them; views, consumers and tasks catch them. They live apart from the services so
that features and the web layer can catch them without importing the code that raises them.
"""


class GameError(Exception):
    """A refused request. The message is written for the person who made it.

    It is kept short whatever it quotes: a refusal never echoes a huge request back.
    """

    status = 400
    MAX_LENGTH = 300

    def __init__(self, message: str = "") -> None:
        message = str(message)
        if len(message) > self.MAX_LENGTH:
            message = message[: self.MAX_LENGTH - 1] + "…"
        super().__init__(message)


class NotFound(GameError):
    status = 404


class Forbidden(GameError):
    status = 403


class StaleMove(GameError):
    """The move was made on a position the table has since left."""

    status = 409


class NotYourTurn(GameError):
    status = 409


class IllegalMove(GameError):
    status = 400


class NotPlaying(GameError):
    """The match is over (or not started): nothing more can be played."""

    status = 409
