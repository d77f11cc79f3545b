"""Cards: codes such as ``"KS"``, small integers, bitmasks and the game-point table.

A card's index is ``suit * 13 + rank`` with suits ``S H D C`` = 0..3 and ranks ``2``..``A`` =
0..12, so within one suit a higher index (and a higher bit) is a higher card. A set of cards is a
52-bit integer with bit ``index`` set; the fast kernel lives on those, the readable engine uses
the codes and these helpers.
"""

from __future__ import annotations

from collections.abc import Iterable

RANKS = "23456789TJQKA"  # weakest first: the rank number is the position here
SUITS = "SHDC"
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}

# Game points: every captured card counts, whatever its suit (docs/rules.md section 1).
GAME_POINT_BY_RANK = {"T": 10, "A": 4, "K": 3, "Q": 2, "J": 1}

CODES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)  # index -> code
INDEX: dict[str, int] = {code: i for i, code in enumerate(CODES)}  # code -> index
SUIT_MASKS: tuple[int, ...] = tuple(0x1FFF << (13 * s) for s in range(4))
FULL_DECK_MASK = (1 << 52) - 1

# The order a hand is shown in (and discard tokens are written in): spades, hearts, diamonds,
# clubs, each from the ace down.
DISPLAY_ORDER: tuple[str, ...] = tuple(r + s for s in SUITS for r in reversed(RANKS))
_DISPLAY_POS = {code: i for i, code in enumerate(DISPLAY_ORDER)}


def is_card(token: object) -> bool:
    return isinstance(token, str) and token in INDEX


def suit_of(code: str) -> str:
    return code[1]


def rank_of(code: str) -> int:
    """0 for a two ... 12 for an ace: bigger wins."""
    return RANKS.index(code[0])


def game_points(code: str) -> int:
    return GAME_POINT_BY_RANK.get(code[0], 0)


def display_key(code: str) -> int:
    return _DISPLAY_POS[code]


def sort_cards(codes: Iterable[str]) -> list[str]:
    """Cards in display order (spades, hearts, diamonds, clubs; high to low)."""
    return sorted(codes, key=_DISPLAY_POS.__getitem__)


def mask_of(codes: Iterable[str]) -> int:
    mask = 0
    for code in codes:
        mask |= 1 << INDEX[code]
    return mask


def codes_of(mask: int) -> list[str]:
    """The cards of a bitmask, in display order."""
    found = []
    while mask:
        low = mask & -mask
        found.append(CODES[low.bit_length() - 1])
        mask ^= low
    return sort_cards(found)


def suit_name(suit: str) -> str:
    return SUIT_NAMES[suit]


# A discard as one action token (docs/rules.md): `discard:5C,7D`, `discard:` for none.
DISCARD_PREFIX = "discard:"


def discard_token(cards: Iterable[str]) -> str:
    """``discard:`` + the cards comma-joined in display order (``discard:`` for none)."""
    return DISCARD_PREFIX + ",".join(sort_cards(cards))


def parse_discard_token(token: str) -> list[str] | None:
    """The cards of a discard token in the order written, or None if it is not one."""
    if not token.startswith(DISCARD_PREFIX):
        return None
    body = token[len(DISCARD_PREFIX):]
    return body.split(",") if body else []
