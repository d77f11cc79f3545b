"""An outside opponent for measuring the coach's chances: a simple rule-based player written for
the calibration, sharing no code with the bots (so it cannot agree with them by construction).

Greedy, as a casual player plays:

- **bid** by counting high trumps in the longest-and-strongest suit: one for each of the ace,
  king, queen and jack, one more with the two or three (Low), capped at 4; pass below 2 (a dealer
  forced to bid bids the least it may);
- **name trump**: that suit; **discard**: the lowest cards outside trump;
- **play** the highest card that wins the trick now, or else the lowest card (trump last).

Pure Python on Observations (no Django, no bitmasks).
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from ..actions import PASS, pitch_token
from ..cards import SUITS, rank_of, suit_of
from ..observation import Observation
from ..phases import AUCTION, DISCARD, TRUMP

HIGH_RANKS = ("A", "K", "Q", "J")


def _count(hand: Collection[str], suit: str) -> int:
    cards = [c for c in hand if suit_of(c) == suit]
    count = sum(1 for c in cards if c[0] in HIGH_RANKS)
    if any(c[0] in "23" for c in cards):
        count += 1
    return count


def _suit(hand: Collection[str]) -> str:
    return max(SUITS, key=lambda s: (_count(hand, s), sum(1 for c in hand if suit_of(c) == s), s))


def choose(obs: Observation) -> str:
    legal = obs.legal_actions()
    if len(legal) == 1:
        return legal[0]
    if obs.phase == AUCTION:
        return _call(obs, legal)
    if obs.phase == TRUMP:
        return _suit(obs.hand)
    if obs.phase == DISCARD:
        return min(legal, key=_discard_cost(obs))
    return _card(obs, legal)


def _call(obs: Observation, legal: list[str]) -> str:
    suit = _suit(obs.hand)
    wanted = min(4, _count(obs.hand, suit))
    pitches = [t for t in legal if t.startswith("pitch:")]
    if pitches and wanted >= 2:
        top = max((c for c in obs.hand if suit_of(c) == suit), key=rank_of)
        if pitch_token(top) in legal:
            return pitch_token(top)
    bids = sorted(int(t) for t in legal if t.isdigit())
    fitting = [b for b in bids if 2 <= b <= wanted]
    if fitting:
        return str(fitting[-1])
    if PASS in legal:
        return PASS
    return str(bids[0]) if bids else legal[0]


def _discard_cost(obs: Observation) -> Callable[[str], tuple[int, int]]:
    def cost(token: str) -> tuple[int, int]:
        cards = [c for c in token.split(":", 1)[1].split(",") if c]
        return (sum(100 if suit_of(c) == obs.trump else rank_of(c) for c in cards), -len(cards))

    return cost


def _power(card: str, led: str, trump: str | None) -> int:
    if suit_of(card) == trump:
        return 100 + rank_of(card)
    if suit_of(card) == led:
        return rank_of(card)
    return -1


def _card(obs: Observation, legal: list[str]) -> str:
    trump = obs.trump
    if not obs.current_trick:
        if trump is None:  # the opening lead names trump
            suit = _suit(obs.hand)
            return max((c for c in legal if suit_of(c) == suit), key=rank_of, default=legal[0])
        return max(legal, key=lambda c: (suit_of(c) == trump, rank_of(c)))
    led = suit_of(obs.current_trick[0][1])
    best = max(_power(c, led, trump) for _, c in obs.current_trick)
    winners = [c for c in legal if _power(c, led, trump) > best]
    if winners:
        return max(winners, key=lambda c: _power(c, led, trump))
    return min(legal, key=lambda c: (suit_of(c) == trump, rank_of(c)))
