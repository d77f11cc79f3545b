"""How a person plays, learned from the cards they have played: the model the coach's playouts
play them by (``bots/seats.py``).

Each of a person's card plays where they had a choice is set beside the card each style would
have played there, in the same position:

- ``casual``: ``seats.casual_card`` (win the trick with the highest card that wins, else play
  the lowest; lead the highest), as people new to the game play;
- ``easy``: ``seats.easy_card``, the easy bot's rules (guard the jack, feed the partner points,
  win cheaply).

A person who plays nearly always as one of these rules would (``FITS``) is modelled by it; one
who plays otherwise thinks about their cards, and is modelled as the medium and hard bots are,
by the playout policy (``hard``). Until they have made ``MIN_MOVES`` such plays,
``seats.PERSON_MODEL``. The other seats' cards are known here: the deals are over, and the
styles are only compared, never shown.

Pure Python, no Django.
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass, field

from ..cards import INDEX
from ..deal import Deal
from ..fast import Position, legal_mask
from ..phases import PLAY
from .seats import PERSON_MODEL, CardRule, casual_card, easy_card

STYLES = ("casual", "easy", "hard")
# The share of a person's plays a rule must have made to be their model. A rule-bound player
# plays nearly all of them (the outside greedy player: 0.94-1.0 casual; the easy bot: 1.0
# easy); a thinking one about half (the medium and hard bots: 0.4-0.6 either rule).
FITS = 0.8
# Fewer plays than this say little: three or four deals of a four-handed game (a seat has a
# choice of card about three or four times a deal).
MIN_MOVES = 12
# The deals a style is learned from: a person's latest, so it follows them as they improve.
RECENT_DEALS = 12


RULES: dict[str, CardRule] = {"casual": casual_card, "easy": easy_card}


@dataclass
class Tally:
    """A person's card plays with a choice, and how many of them each style would have made."""

    moves: int = 0
    agreed: dict[str, int] = field(default_factory=lambda: dict.fromkeys(RULES, 0))

    def add_deal(self, deal: Deal, seat: str, steps: Container[int] | None = None) -> None:
        """Count ``seat``'s card plays in the finished ``deal`` (only the moves numbered in
        ``steps``, when given: a stand-in's are not the person's)."""
        replay = deal.as_dealt()
        for step, (who, token) in enumerate(deal.history):
            if (
                who == seat
                and replay.phase == PLAY
                and token in INDEX
                and (steps is None or step in steps)
            ):
                self._count(replay, INDEX[token])
            replay.apply(token, who)

    def _count(self, replay: Deal, played: int) -> None:
        pos = Position.from_deal(replay)
        legal = legal_mask(pos)
        if legal & (legal - 1) == 0:
            return  # one card could be played: it says nothing of a style
        self.moves += 1
        for style, rule in RULES.items():
            self.agreed[style] += rule(pos, legal) == played

    def style(self) -> str:
        """The rule that made at least ``FITS`` of these plays (the closer one if both did),
        else ``hard``; ``PERSON_MODEL`` with too few plays to tell."""
        if self.moves < MIN_MOVES:
            return PERSON_MODEL
        fitting = [s for s in RULES if self.agreed[s] >= FITS * self.moves]
        return max(fitting, key=lambda s: self.agreed[s]) if fitting else "hard"
