"""The easy bot: plain rules of thumb from seed 000's tips, no search.

- Bid on the ace (or king) of a long suit, counting likely High, Low, Jack and Game.
- Throw the two of trump (and tens) onto a trick the partner is winning.
- Guard the jack of trump: play it only when the side is sure to take the trick.
- Never throw a ten to the opponents when another card will do.
"""

from __future__ import annotations

import random
from collections.abc import Collection

from ..actions import PASS, pitch_token, pitched_card
from ..cards import RANKS, SUITS, game_points, rank_of, suit_of
from ..observation import Observation
from ..phases import AUCTION, DISCARD, TRUMP


def suit_strength(hand: Collection[str], suit: str) -> float:
    """Expected points from naming `suit` trump with this hand: a rough count, not a search."""
    trumps = sorted((rank_of(c) for c in hand if suit_of(c) == suit), reverse=True)
    if not trumps:
        return 0.0
    value = 0.0
    top = trumps[0]
    value += {12: 1.0, 11: 0.7, 10: 0.45, 9: 0.3}.get(top, 0.1)  # High
    low = trumps[-1]
    value += {0: 0.9, 1: 0.6, 2: 0.4, 3: 0.25}.get(low, 0.05)  # Low (to the taker, often us)
    if 9 in trumps:  # the jack
        value += 0.75 if len(trumps) >= 3 or top > 9 else 0.4
    value += 0.12 * (len(trumps) - 1)  # length pulls trumps and takes tricks
    tens = sum(1 for c in hand if c[0] == "T")
    value += 0.25 * tens + 0.1 * sum(1 for c in hand if c[0] == "A")  # Game
    return value


def best_suit(hand: Collection[str]) -> tuple[str, float]:
    return max(((s, suit_strength(hand, s)) for s in SUITS), key=lambda pair: pair[1])


def choose(obs: Observation, rng: random.Random) -> str:
    legal = obs.legal_actions()
    if len(legal) == 1:
        return legal[0]
    if obs.phase == AUCTION:
        return _call(obs, legal)
    if obs.phase == TRUMP:
        return best_suit(obs.hand)[0]
    if obs.phase == DISCARD:
        return _discard(obs, legal)
    return _play(obs, legal, rng)


def _call(obs: Observation, legal: list[str]) -> str:
    suit, strength = best_suit(obs.hand)
    pitch = _strong_pitch(obs, legal, suit, strength)
    if pitch is not None:
        return pitch
    bids = [b for b in range(1, min(_wanted_bid(obs, strength), 4) + 1) if str(b) in legal]
    # A four needs all four points: only with the ace and the jack.
    if 4 in bids and not ({f"A{suit}", f"J{suit}"} <= set(obs.hand)):
        bids.remove(4)
    if bids:
        # The dealer takes the contract as cheaply as the rules allow (equalling, where the
        # dealer may steal); the others bid what the hand is worth.
        return str(bids[0] if obs.seat == obs.dealer else bids[-1])
    if PASS in legal:
        return PASS
    numeric = sorted(int(t) for t in legal if t.isdigit())
    return str(numeric[0]) if numeric else legal[0]  # a dealer forced to bid bids the least


def _wanted_bid(obs: Observation, strength: float) -> int:
    """What the hand is worth, raised to 2 when the other side is close to winning (bid to
    keep the contract from them)."""
    wanted = int(strength + 0.15)  # 2.0 needs a solid hand
    if obs.match_totals is not None:
        mine = obs.match_totals.get(obs.side, 0)
        theirs = max((v for s, v in obs.match_totals.items() if s != obs.side), default=0)
        if theirs >= obs.rules.target - 3 and theirs > mine and strength >= 1.6:
            wanted = max(wanted, 2)
    return wanted


def _strong_pitch(obs: Observation, legal: list[str], suit: str, strength: float) -> str | None:
    """With a very strong suit, where pitching bids 4: pitch its top card."""
    pitches = [t for t in legal if pitched_card(t) is not None]
    if pitches and strength >= 3.4:
        high = max((c for c in obs.hand if suit_of(c) == suit), key=rank_of)
        if pitch_token(high) in pitches:
            return pitch_token(high)
    return None


def _discard(obs: Observation, legal: list[str]) -> str:
    if obs.rules.discard_kind == "two":
        # Keep trumps and point cards; give up the two weakest others.
        def cost(token: str) -> int:
            cards = token.split(":", 1)[1].split(",")
            return sum(
                (50 if suit_of(c) == obs.trump else 0) + game_points(c) * 3 + rank_of(c)
                for c in cards
            )

        return min(legal, key=cost)
    # Draw: throw every non-trump below a ten, as many as the stock can replace.
    keep_ranks = set("TJQKA")
    wanted = [c for c in obs.hand if suit_of(c) != obs.trump and c[0] not in keep_ranks]
    best = max(
        legal,
        key=lambda t: (set(t.split(":", 1)[1].split(",")) - {""} <= set(wanted), len(t)),
    )
    return best


def _power(card: str, led: str, trump: str | None) -> int:
    if suit_of(card) == trump:
        return 100 + rank_of(card)
    if suit_of(card) == led:
        return rank_of(card)
    return -1


def _play(obs: Observation, legal: list[str], rng: random.Random) -> str:
    trump = obs.trump
    if trump is None:  # the pitcher's opening lead names trump: lead the best suit's top card
        suit, _ = best_suit(obs.hand)
        return max((c for c in legal if suit_of(c) == suit), key=rank_of, default=legal[0])
    if not obs.current_trick:
        return _lead(legal, trump)
    return _follow(obs, legal, trump)


def _lead(legal: list[str], trump: str) -> str:
    """Lead the ace or king of trump to pull trumps; otherwise a low card without points."""
    top = max((c for c in legal if suit_of(c) == trump), key=rank_of, default=None)
    if top and rank_of(top) >= RANKS.index("K"):
        return top
    plain = [c for c in legal if suit_of(c) != trump and game_points(c) == 0]
    return min(plain or legal, key=lambda c: (game_points(c), rank_of(c)))


def _follow(obs: Observation, legal: list[str], trump: str) -> str:
    trick = obs.current_trick
    led = suit_of(trick[0][1])
    powers = [_power(c, led, trump) for _, c in trick]
    best = max(range(len(trick)), key=lambda i: powers[i])
    winner_seat = trick[best][0]
    partners = obs.rules.partner_seats(obs.seat)
    last_to_play = len(trick) == len(obs.rules.seats) - 1
    if winner_seat in partners and (last_to_play or powers[best] >= 112):
        # Partner takes it: give it the points, never overtake it with a high trump.
        return max(legal, key=lambda c: _gift_value(c, trump))
    winners = [c for c in legal if _power(c, led, trump) > powers[best]]
    if winners:
        # Win as cheaply as possible; the jack of trump only when nothing else wins.
        safe = [c for c in winners if not (suit_of(c) == trump and c[0] == "J")] or winners
        return min(safe, key=lambda c: (_power(c, led, trump), game_points(c)))
    # Cannot win: throw the cheapest card, never a ten or the jack of trump if avoidable.
    return min(
        legal, key=lambda c: (game_points(c) * 2 + (5 if suit_of(c) == trump else 0), rank_of(c))
    )


def _gift_value(card: str, trump: str) -> int:
    """How much a card is worth thrown onto the partner's trick: a ten for Game, the two or
    three of trump for Low, the jack of trump; else the cheapest card."""
    if card[0] == "T":
        return 10
    if suit_of(card) == trump and (rank_of(card) <= 1 or card[0] == "J"):
        return 9
    return -rank_of(card) - (20 if suit_of(card) == trump else 0)
