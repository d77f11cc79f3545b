"""Who sits at the table, in the coach's playouts: each seat played as what it is.

The search values a move by playing sampled worlds to the end (``Search.finish``). The bots'
own searches play every seat with the playout policy of ``core`` (a strong rule-of-thumb
player), which is what the medium and hard bots play like. Against weaker players that
overstates the opponents: the coach's chances of making a bid came out too low (self-play ECE
0.013, but 0.10 against easy opponents; docs/coach.md, "Chances that know who sits"). So the
coach tells the search who sits where (``seat_models``: seat -> model), and a seat modelled
``easy`` or ``casual`` is played in the playouts by those rules (``easy_card``, the bitmask
twin of ``bots/easy.py``'s card play; ``casual_card``, win high or play low); ``medium`` and
``hard`` seats keep the playout policy.

A person is modelled by the style of their own recorded play (``bots/styles.py``), and as
``PERSON_MODEL`` until they have played enough. Without ``seat_models`` nothing changes: the
bots' own searches never pass it, so their play (and the golden files) stay as they were. Pure
Python, no Django.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping

from ..fast import SUIT_MASK, Position, legal_bits
from .core import GP, best_suit, policy_card, step

MODELS = ("casual", "easy", "medium", "hard")
BOT_LEVELS = ("easy", "medium", "hard")

# A person whose style is not known yet (``styles.MIN_MOVES``), in the playouts: people at our
# tables are new to the game more often than not, and the easy bot's rules sit between a casual
# player's and the strong playout policy (docs/coach.md, "Chances that know who sits").
PERSON_MODEL = "easy"

# The share of the budget a search with seated playouts spends (see Search.__init__): they cost
# about twice as much each (bench_coach --seated: CPU p95 0.41 s -> 0.92 s at the full budget).
SEATED_BUDGET_SHARE = 0.5

JACK_RANK = 9
TEN_RANK = 8


def model_of_seat(kind: str, level: str = "") -> str:
    """The model of a seat: a bot by its level, a person by the style learned from their play
    (``styles.Tally.style``), or ``PERSON_MODEL`` when there is none."""
    if kind == "bot":
        return level if level in BOT_LEVELS else PERSON_MODEL
    return level if level in MODELS else PERSON_MODEL


CardRule = Callable[[Position, int], int]


def seat_rules(
    seat_models: Mapping[str, str] | None, seats: Iterable[str]
) -> tuple[CardRule | None, ...] | None:
    """Per seat index (in ``seats``' order), the rule its cards follow in a playout (None: the
    playout policy); None when every seat plays by the playout policy."""
    if not seat_models:
        return None
    rules = tuple(RULES.get(seat_models.get(seat, "")) for seat in seats)
    return rules if any(rules) else None


def _power(card: int, led: int, trump: int) -> int:
    suit = card // 13
    if suit == trump:
        return 100 + card % 13
    if suit == led:
        return card % 13
    return -1


def _bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def easy_card(pos: Position, legal: int) -> int:
    """The easy bot's card (``bots/easy.py``) in a playout: lead the ace or king of trump, else
    a low card without points; on a trick the partner takes, give it points; else win as
    cheaply as possible (the jack of trump last), or throw the cheapest card."""
    seat = (pos.leader + len(pos.trick)) % pos.kernel.n
    cards = list(_bits(legal))
    if pos.trump < 0:  # the opening lead names trump: the best suit's top card
        suit = best_suit(pos.hands[seat])[0]
        in_suit = [c for c in cards if c // 13 == suit]
        return max(in_suit) if in_suit else cards[-1]
    if not pos.trick:
        return _easy_lead(cards, pos.trump)
    return _easy_follow(pos, seat, cards)


def _easy_lead(cards: list[int], trump: int) -> int:
    trumps = [c for c in cards if c // 13 == trump]
    if trumps and max(trumps) % 13 >= 11:
        return max(trumps)
    plain = [c for c in cards if c // 13 != trump and GP[c] == 0]
    return min(plain or cards, key=lambda c: (GP[c], c % 13, c))


def _easy_follow(pos: Position, seat: int, cards: list[int]) -> int:
    kernel, trump = pos.kernel, pos.trump
    led = pos.trick[0] // 13
    powers = [_power(c, led, trump) for c in pos.trick]
    best = max(range(len(powers)), key=lambda i: powers[i])
    winner = (pos.leader + best) % kernel.n
    last = len(pos.trick) == kernel.n - 1
    if (
        winner != seat
        and kernel.side_of[winner] == kernel.side_of[seat]
        and (last or powers[best] >= 112)
    ):
        return max(cards, key=lambda c: (_gift(c, trump), -c))
    winners = [c for c in cards if _power(c, led, trump) > powers[best]]
    if winners:
        safe = [c for c in winners if not (c // 13 == trump and c % 13 == JACK_RANK)] or winners
        return min(safe, key=lambda c: (_power(c, led, trump), GP[c], c))
    return min(cards, key=lambda c: (GP[c] * 2 + (5 if c // 13 == trump else 0), c % 13, c))


def _gift(card: int, trump: int) -> int:
    rank = card % 13
    if rank == TEN_RANK:
        return 10
    if card // 13 == trump and (rank <= 1 or rank == JACK_RANK):
        return 9
    return -rank - (20 if card // 13 == trump else 0)


def casual_card(pos: Position, legal: int) -> int:
    """A casual player's card: lead the highest card, trumps first; on a trick, win it with the
    highest card that wins, else play the lowest card (trump last)."""
    cards = list(_bits(legal))
    trump = pos.trump
    if trump < 0:  # the opening lead names trump: as the easy rules name it
        return easy_card(pos, legal)
    if not pos.trick:
        return max(cards, key=lambda c: (c // 13 == trump, c % 13, c))
    led = pos.trick[0] // 13
    best = max(_power(c, led, trump) for c in pos.trick)
    winners = [c for c in cards if _power(c, led, trump) > best]
    if winners:
        return max(winners, key=lambda c: (_power(c, led, trump), c))
    return min(cards, key=lambda c: (c // 13 == trump, c % 13, c))


RULES: dict[str, CardRule] = {"easy": easy_card, "casual": casual_card}


def play_out_seated(pos: Position, rules: tuple[CardRule | None, ...]) -> Position:
    """Play ``pos`` to the end (in place): each seat by its rule in ``rules`` (``seat_rules``),
    a seat without one by the playout policy (``core.policy_card``, what ``core.play_out``
    plays inline)."""
    kernel = pos.kernel
    rem = 0
    for hand in pos.hands:
        rem |= hand
    gone = 0
    for played in pos.played:
        gone |= played
    while rem or pos.trick:
        seat = (pos.leader + len(pos.trick)) % kernel.n
        hand = pos.hands[seat]
        if pos.trick and pos.trump >= 0:
            legal = legal_bits(
                kernel, hand, SUIT_MASK[pos.trick[0] // 13], SUIT_MASK[pos.trump], pos.tricks_played
            )
        else:
            legal = hand
        rule = rules[seat]
        card = rule(pos, legal) if rule is not None else policy_card(pos, legal, rem, gone)
        rem &= ~(1 << card)
        gone |= 1 << card
        step(pos, card)
    return pos
