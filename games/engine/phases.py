"""The phases of a deal, in order: the words ``Deal.phase`` and ``Observation.phase`` hold.

Stored in the deal rows and compared across the site; compare with these names, never with the
bare strings.
"""

AUCTION, TRUMP, DISCARD, PLAY, OVER = "auction", "trump", "discard", "play", "over"
PHASES = (AUCTION, TRUMP, DISCARD, PLAY, OVER)

__all__ = ["AUCTION", "DISCARD", "OVER", "PHASES", "PLAY", "TRUMP"]
