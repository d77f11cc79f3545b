"""A day's deals and their par line, from the engine only (no rows).

The cards come from a seed derived from the date and the server's secret (an HMAC), so nobody
without the secret can compute tomorrow's deals; everything else (the dealer, the bots' seed)
comes from the same seed, so every process that makes a day's set makes the same one.
"""

import datetime
import hashlib
import hmac
import random
from dataclasses import dataclass

from games import engine

DEALS_A_DAY = 8
RULES = "house"  # a day's set names its rules; the house rules by default


@dataclass(frozen=True)
class DealtDeal:
    number: int
    dealer: str
    hands: dict[str, list[str]]
    stock: list[str]
    bot_seed: int


def day_seed(secret: str, day: datetime.date, number: int) -> int:
    """The seed of deal `number` of `day`: 64 bits of an HMAC keyed by the server's secret."""
    digest = hmac.new(
        secret.encode(), f"setback-daily/{day.isoformat()}/{number}".encode(), hashlib.sha256
    ).digest()
    return int.from_bytes(digest[:8], "big")


def deal_the_day(secret: str, day: datetime.date, rules_spec=RULES) -> list[DealtDeal]:
    """The day's deals, always the same for the same secret and date."""
    rules = engine.Rules.from_spec(rules_spec)
    dealt = []
    for number in range(1, DEALS_A_DAY + 1):
        rng = random.Random(day_seed(secret, day, number))
        dealer = rng.choice(rules.seats)
        state = engine.Deal.new(rules, dealer, rng)
        dealt.append(
            DealtDeal(
                number=number,
                dealer=dealer,
                hands={seat: list(cards) for seat, cards in state.dealt_hands.items()},
                stock=list(state.stock),
                # Kept small: the site's searches multiply it by about a million (turns.search_seed).
                bot_seed=rng.getrandbits(31),
            )
        )
    return dealt
