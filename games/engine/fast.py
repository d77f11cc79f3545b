"""The fast simulation kernel: bitmask deals for Monte Carlo search and the benchmark.

Everything here is ints. A card is its index ``suit * 13 + rank`` (suits S H D C, ranks 2..A,
exactly as cards.py), a set of cards is a 52-bit mask, a seat is its index in
``rules.seats`` and a side its index in ``rules.sides``. Within one suit a higher card is a
higher bit, so "the best trump" is just the top bit of ``cards & trump_mask``.

The readable :class:`~games.engine.deal.Deal` is the reference; ``tests/engine/test_fast.py``
checks this kernel agrees with it (legal sets, trick winners, points, scores) on many random
deals under every preset and option.

Starting a simulation from a mid-deal position (the entry point for Monte Carlo bots)::

    from games.engine import fast
    kernel = fast.kernel_for(rules)                   # cached per Rules
    pos = fast.Position(kernel, hands=[...masks per seat...], trump=fast.SUIT_INDEX["H"],
                        leader=2, pitcher=2, bid=3,
                        trick=[card, ...],            # the trick in progress, from its leader
                        tricks_played=1,
                        taken=[...mask per side...],  # cards captured so far
                        played=[...mask per side...]) # cards each side has played (Low to holder)
    # or: pos = fast.Position.from_observation(obs, hands)   # after dealing the unseen cards
    score, points = fast.playout(pos, rng)            # random legal play to the end
    score, points = fast.playout(pos, rng, policy=my_policy)   # or a cheap heuristic

``score`` is a list per side (the deal's score change), ``points`` is ``(high, low, jack,
game)`` as side indices (-1: nobody). ``playout`` never changes ``pos``. A policy is
``policy(pos, legal_mask, rng) -> card index``; with it the playout steps through
:func:`play_card`, so ``pos``-shaped state (``pos.hands``, ``pos.trick``, ``pos.trump``...) is
there to look at.

Speed: random legal play runs in code generated once per rules (``Kernel``), with every seat's
hand in a local variable and the trick unrolled, because in CPython a local is far cheaper than
a list item. The generated source is built from the readable templates ``_LEAD`` and
``_FOLLOW_*`` below and can be printed with ``print(kernel.source)``.
"""

from __future__ import annotations

import random
import textwrap
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from itertools import combinations
from typing import TYPE_CHECKING, Any

from .cards import GAME_POINT_BY_RANK, INDEX, RANKS, SUITS
from .phases import OVER, PLAY
from .rules import FOLLOW_ELSE_TRUMP, SMUDGE, Rules

if TYPE_CHECKING:
    from .deal import Deal
    from .observation import Observation

# A finished deal: the score change per side, and (high, low, jack, game) as side indices.
Score = tuple[list[int], tuple[int, int, int, int]]
Draw = Callable[[], float]  # rng.random
Bits = Callable[[int], int]  # rng.getrandbits

SUIT_INDEX = {suit: i for i, suit in enumerate(SUITS)}
SUIT_MASK = tuple(0x1FFF << (13 * s) for s in range(4))
# The suit mask of a one-card mask ``b``, looked up by ``b.bit_length()`` (1..52).
SUIT_MASK_BY_LENGTH = (0,) + tuple(SUIT_MASK[i // 13] for i in range(52))
JACKS = sum(1 << (13 * s + 9) for s in range(4))
_RANK_POINTS = {
    RANKS.index(rank): points for rank, points in GAME_POINT_BY_RANK.items()
}  # by rank number
# Game points of every 13-bit suit mask, so a hand's total is four table look-ups.
GAME_POINTS_13 = tuple(sum(v for r, v in _RANK_POINTS.items() if m >> r & 1) for m in range(8192))

PASS = 0
PITCH = 100  # a pitch of card c is the call PITCH + c (a bid of 4)


def card_mask(codes: Sequence[str]) -> int:
    mask = 0
    for code in codes:
        mask |= 1 << INDEX[code]
    return mask


def game_points(mask: int) -> int:
    gp = GAME_POINTS_13
    return gp[mask & 8191] + gp[(mask >> 13) & 8191] + gp[(mask >> 26) & 8191] + gp[mask >> 39]


# ---------------------------------------------------------------------------- compiled rules
class Kernel:
    """The rules boiled down to ints, plus the generated code for random play.

    Get one with :func:`kernel_for` (cached per ``Rules``).
    """

    __slots__ = (
        "rules",
        "n",
        "hand_size",
        "tricks",
        "sides",
        "n_sides",
        "side_of",
        "follow_else_trump",
        "no_trump_first_trick",
        "low_to_holder",
        "names_trump",
        "discard_kind",
        "pitch_to_bid",
        "four_ends",
        "steal",
        "must_bid",
        "bids",
        "has_smudge",
        "order_from",
        "options",
        "options_no_pass",
        "lean",
        "source",
        "play_tricks",
        "deal_masks",
        "deal_hands",
        "deal_and_play",
        "score",
    )

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.n = len(rules.seats)
        self.hand_size = rules.hand_size
        self.tricks = rules.tricks_per_deal
        self.sides = rules.sides
        self.n_sides = len(rules.sides)
        self.side_of = tuple(rules.sides.index(rules.side_of(seat)) for seat in rules.seats)
        self.follow_else_trump = rules.follow == FOLLOW_ELSE_TRUMP
        self.no_trump_first_trick = rules.no_trump_first_trick
        self.low_to_holder = rules.low_to == "holder"
        self.names_trump = rules.names_trump
        self.discard_kind = rules.discard_kind
        self.pitch_to_bid = rules.pitch_to_bid
        self.four_ends = rules.four_ends_auction
        self.steal = rules.dealer_steal
        self.must_bid = rules.dealer_must_bid
        self.has_smudge = rules.smudge
        # order_from[d]: the seats from dealer d's left, ending with d.
        self.order_from = tuple(
            tuple((d + 1 + i) % self.n for i in range(self.n)) for d in range(self.n)
        )
        self._call_options(rules)
        # Lean rules: the pitcher's lead sets trump and nothing happens between auction and play.
        self.lean = not (self.pitch_to_bid or self.names_trump or self.no_trump_first_trick)
        self.score: Callable[
            [Kernel, int, Sequence[int], Sequence[int] | None, int, int], Score
        ] = _score_two_sides if self.n_sides == 2 else _score_any_sides
        self._compile()

    def _call_options(self, rules: Rules) -> None:
        """The preset's bids as codes, and the calls open by the lowest bid allowed: with pass,
        and without (a forced dealer)."""
        self.bids = tuple(5 if c == "smudge" else int(c) for c in rules.calls if c != "pass")
        self.options = tuple((PASS,) + tuple(b for b in self.bids if b >= low) for low in range(7))
        self.options_no_pass = tuple(tuple(b for b in self.bids if b >= low) for low in range(7))

    def _compile(self) -> None:
        """The code generated for these rules (dealing, playing tricks), compiled once."""
        self.source = _generate(self)
        namespace: dict[str, Any] = {
            "SM": SUIT_MASK_BY_LENGTH,
            "SIDE": self.side_of,
            "DECK": tuple(1 << c for c in range(52)),
            "ORDER": self.order_from,
            "OPTIONS": self.options,
            "NO_PASS": self.options_no_pass,
            "SCORE": self.score,
            "KERNEL": self,
        }
        exec(compile(self.source, f"<fast kernel {self.rules.to_spec()}>", "exec"), namespace)
        self.play_tricks: Callable[[list[int], int, int, list[int], int, Draw], int] = namespace[
            "play_tricks"
        ]
        self.deal_masks: Callable[[Bits], tuple[tuple[int, ...], list[int]]] = namespace[
            "deal_masks"
        ]
        self.deal_hands: Callable[[Bits], tuple[int, ...]] = namespace["deal_hands"]
        self.deal_and_play: Callable[[Bits, Draw, int], Score | None] = namespace["deal_and_play"]

    def __repr__(self) -> str:
        return f"<Kernel {self.rules.to_spec()}>"


@lru_cache(maxsize=64)
def kernel_for(rules: Rules) -> Kernel:
    return Kernel(Rules.from_spec(rules))


# ---------------------------------------------------------------------------- the position
class Position:
    """A deal in its play phase, in bitmask form: what a simulation starts from.

    ``hands``: per seat, the cards held now. ``trump``: suit index, or -1 before the pitcher's
    opening lead sets it. ``leader``: the seat that leads (led) the current trick; ``trick``:
    its cards so far, in play order. ``tricks_played``: completed tricks. ``taken``: per side,
    the cards it has captured; ``played``: per side, the cards its seats have played (needed
    for Low to the holder). ``pitcher`` (seat) and ``bid`` (5 = smudge) score the deal.
    """

    __slots__ = (
        "kernel",
        "hands",
        "trump",
        "leader",
        "trick",
        "tricks_played",
        "taken",
        "played",
        "pitcher",
        "bid",
    )

    def __init__(
        self,
        kernel: Kernel,
        hands: Sequence[int],
        trump: int,
        leader: int,
        pitcher: int,
        bid: int,
        trick: Sequence[int] = (),
        tricks_played: int = 0,
        taken: Sequence[int] | None = None,
        played: Sequence[int] | None = None,
    ) -> None:
        self.kernel = kernel
        self.hands = list(hands)
        self.trump = trump
        self.leader = leader
        self.trick = list(trick)
        self.tricks_played = tricks_played
        self.taken = list(taken) if taken is not None else [0] * kernel.n_sides
        self.played = list(played) if played is not None else [0] * kernel.n_sides
        self.pitcher = pitcher
        self.bid = bid

    def copy(self) -> Position:
        other = Position.__new__(Position)
        other.kernel = self.kernel
        other.hands = list(self.hands)
        other.trump = self.trump
        other.leader = self.leader
        other.trick = list(self.trick)
        other.tricks_played = self.tricks_played
        other.taken = list(self.taken)
        other.played = list(self.played)
        other.pitcher = self.pitcher
        other.bid = self.bid
        return other

    @property
    def to_act(self) -> int:
        return (self.leader + len(self.trick)) % self.kernel.n

    @property
    def is_over(self) -> bool:
        return not self.trick and not any(self.hands)

    @property
    def trump_mask(self) -> int:
        return SUIT_MASK[self.trump] if self.trump >= 0 else 0

    @classmethod
    def from_deal(cls, deal: Deal) -> Position:
        """The position of a readable ``Deal`` in its play phase."""
        rules = deal.rules
        kernel = kernel_for(rules)
        if deal.phase not in (PLAY, OVER):
            raise ValueError(f"the deal is in its {deal.phase} phase, not play")
        assert deal.leader is not None and deal.pitcher is not None and deal.bid is not None
        seat_i = {s: i for i, s in enumerate(rules.seats)}
        side_i = {s: i for i, s in enumerate(rules.sides)}
        taken = [0] * kernel.n_sides
        played = [0] * kernel.n_sides
        for trick in deal.tricks:
            for seat, card in trick.cards:
                taken[side_i[rules.side_of(trick.winner)]] |= 1 << INDEX[card]
                played[side_i[rules.side_of(seat)]] |= 1 << INDEX[card]
        for seat, card in deal.current_trick:
            played[side_i[rules.side_of(seat)]] |= 1 << INDEX[card]
        return cls(
            kernel,
            hands=[card_mask(deal.hand(seat)) for seat in rules.seats],
            trump=SUIT_INDEX[deal.trump] if deal.trump else -1,
            leader=seat_i[deal.leader],
            pitcher=seat_i[deal.pitcher],
            bid=deal.bid,
            trick=[INDEX[card] for _, card in deal.current_trick],
            tricks_played=len(deal.tricks),
            taken=taken,
            played=played,
        )

    @classmethod
    def from_observation(
        cls, obs: Observation, hands: Mapping[str, Any] | Sequence[Any]
    ) -> Position:
        """The position an observation describes, once every seat's hand is filled in.

        ``hands`` gives each seat's current holding (a mask, or a list of card codes), by seat
        name or in seat order: the observer's own hand plus a guess (determinization) for the
        others, consistent with ``obs.hand_sizes`` and ``obs.voids``.
        """
        rules = obs.rules
        kernel = kernel_for(rules)
        if obs.phase != PLAY:
            raise ValueError(f"the observation is in its {obs.phase} phase, not play")
        if isinstance(hands, Mapping):
            hands = [hands[seat] for seat in rules.seats]
        masks = [h if isinstance(h, int) else card_mask(h) for h in hands]
        seat_i = {s: i for i, s in enumerate(rules.seats)}
        side_i = {s: i for i, s in enumerate(rules.sides)}
        taken = [0] * kernel.n_sides
        played = [0] * kernel.n_sides
        for trick in obs.tricks:
            for seat, card in trick.cards:
                taken[side_i[rules.side_of(trick.winner)]] |= 1 << INDEX[card]
                played[side_i[rules.side_of(seat)]] |= 1 << INDEX[card]
        for seat, card in obs.current_trick:
            played[side_i[rules.side_of(seat)]] |= 1 << INDEX[card]
        leader = obs.current_trick[0][0] if obs.current_trick else obs.to_act
        assert leader is not None and obs.pitcher is not None and obs.bid is not None  # in play
        return cls(
            kernel,
            hands=masks,
            trump=SUIT_INDEX[obs.trump] if obs.trump else -1,
            leader=seat_i[leader],
            pitcher=seat_i[obs.pitcher],
            bid=obs.bid,
            trick=[INDEX[card] for _, card in obs.current_trick],
            tricks_played=len(obs.tricks),
            taken=taken,
            played=played,
        )

    def __repr__(self) -> str:
        return (
            f"<Position to_act={self.to_act} trump={self.trump} trick={self.trick} "
            f"tricks_played={self.tricks_played}>"
        )


# ---------------------------------------------------------------------------- one step at a time
def legal_bits(kernel: Kernel, hand: int, led_mask: int, trump_mask: int, trick_number: int) -> int:
    """The cards of ``hand`` that may be played; ``led_mask`` is the led suit's mask (0 to lead)."""
    if not led_mask:
        return hand
    follow = hand & led_mask
    if kernel.no_trump_first_trick and trick_number == 0:
        # No trumping the first trick: follow if able, else any non-trump, else (all trumps) any.
        if follow:
            return follow
        non_trumps = hand & ~trump_mask
        return non_trumps if non_trumps else hand
    if kernel.follow_else_trump:
        if follow:
            return follow
        trumps = hand & trump_mask
        return trumps if trumps else hand
    if follow:
        return follow | (hand & trump_mask)  # follow or trump
    return hand


def legal_mask(pos: Position) -> int:
    """The cards the seat to act may play now."""
    led = SUIT_MASK[pos.trick[0] // 13] if pos.trick else 0
    return legal_bits(pos.kernel, pos.hands[pos.to_act], led, pos.trump_mask, pos.tricks_played)


def trick_winner(kernel: Kernel, trick: Sequence[int], leader: int, trump: int) -> int:
    """The seat that wins a complete trick (cards from ``leader`` on, in play order)."""
    led = trick[0] // 13
    best = -1
    best_key = -1
    for i, card in enumerate(trick):
        suit = card // 13
        key = 100 + card if suit == trump else card if suit == led else -1
        if key > best_key:
            best_key = key
            best = i
    return (leader + best) % kernel.n


def play_card(pos: Position, card: int) -> int | None:
    """Play ``card`` (an index) for the seat to act, changing ``pos``.

    Returns the winning seat when the card completes a trick, else None. Raises ValueError for
    a card that is not legal.
    """
    kernel = pos.kernel
    seat = pos.to_act
    bit = 1 << card
    if not bit & legal_mask(pos):
        raise ValueError(f"card {card} is not legal for seat {seat}")
    pos.hands[seat] ^= bit
    if not pos.trick and pos.trump < 0:
        pos.trump = card // 13  # the pitcher's opening lead sets trump
    pos.trick.append(card)
    pos.played[kernel.side_of[seat]] |= bit
    if len(pos.trick) < kernel.n:
        return None
    winner = trick_winner(kernel, pos.trick, pos.leader, pos.trump)
    for c in pos.trick:
        pos.taken[kernel.side_of[winner]] |= 1 << c
    pos.trick.clear()
    pos.leader = winner
    pos.tricks_played += 1
    return winner


def pick(legal: int, rr: Callable[[], float]) -> int:
    """A uniformly random card (its bit) of ``legal``, drawing ``rr()`` only if there is a choice.

    The generated playout makes exactly the same draws, so both give the same deal from the
    same seed (a test relies on it).
    """
    if legal & (legal - 1):
        j = rr() * legal.bit_count()
        while j >= 1.0:
            legal &= legal - 1
            j -= 1.0
    return legal & -legal


def random_policy(pos: Position, legal: int, rng: random.Random) -> int:
    """Random legal play as a policy (the same draws as the fast path)."""
    return pick(legal, rng.random).bit_length() - 1


def greedy_policy(pos: Position, legal: int, rng: random.Random) -> int:
    """A cheap heuristic, and an example of a pluggable policy.

    Lead a random legal card. Following: if a partner is winning the trick, play the lowest
    legal card; else take the trick with the cheapest card that does (a non-trump before a
    trump), or play the lowest card if none can.
    """
    if not pos.trick:
        return pick(legal, rng.random).bit_length() - 1
    kernel = pos.kernel
    trump = pos.trump
    led = pos.trick[0] // 13
    best_i = 0
    best_key = -1
    for i, card in enumerate(pos.trick):
        suit = card // 13
        key = 100 + card if suit == trump else card if suit == led else -1
        if key > best_key:
            best_key, best_i = key, i
    seat = pos.to_act
    winning_seat = (pos.leader + best_i) % kernel.n
    cards = [c for c in range(52) if legal >> c & 1]
    lowest = min(cards, key=lambda c: c % 13)
    if kernel.side_of[winning_seat] == kernel.side_of[seat]:
        return lowest
    winners = [
        c
        for c in cards
        if (100 + c if c // 13 == trump else c if c // 13 == led else -1) > best_key
    ]
    if winners:
        return min(winners, key=lambda c: (c // 13 == trump, c % 13))
    return lowest


def outcome(pos: Position) -> tuple[list[int], tuple[int, int, int, int]]:
    """``(score per side, (high, low, jack, game) side or -1)`` of a finished position."""
    held = pos.played  # at the end every card held was played
    return _score(
        pos.kernel, pos.trump_mask, pos.taken, held, pos.kernel.side_of[pos.pitcher], pos.bid
    )


def _score(
    kernel: Kernel,
    trump_mask: int,
    taken: Sequence[int],
    held: Sequence[int] | None,
    pitcher_side: int,
    bid: int,
) -> Score:
    """Score from the captured cards: ``held`` (per side, the cards its seats played) is only
    read for Low to the holder."""
    return kernel.score(kernel, trump_mask, taken, held, pitcher_side, bid)


def _score_any_sides(
    kernel: Kernel,
    trump_mask: int,
    taken: Sequence[int],
    held: Sequence[int] | None,
    pitcher_side: int,
    bid: int,
) -> Score:
    in_play = 0
    for m in taken:
        in_play |= m
    points = [0] * kernel.n_sides
    high, low, jack = _trump_point_sides(kernel, in_play & trump_mask, taken, held)
    for side in (high, low, jack):
        if side >= 0:
            points[side] += 1
    game = _game_side(taken)
    if game >= 0:
        points[game] += 1
    _settle_the_bid(points, taken, pitcher_side, bid)
    return points, (high, low, jack, game)


def _trump_point_sides(
    kernel: Kernel, trumps: int, taken: Sequence[int], held: Sequence[int] | None
) -> tuple[int, int, int]:
    """The sides that score High, Low and the jack (-1: nobody, no trump or no jack in play)."""
    high = low = jack = -1
    if not trumps:
        return high, low, jack
    high_bit = 1 << (trumps.bit_length() - 1)
    low_bit = trumps & -trumps  # the same card as High when only one trump is in play
    jack_bit = trumps & JACKS
    for s, m in enumerate(taken):
        if m & high_bit:
            high = s
        if m & low_bit:
            low = s
        if m & jack_bit:
            jack = s
    if kernel.low_to_holder:
        assert held is not None  # given whenever Low goes to the holder
        for s, m in enumerate(held):
            if m & low_bit:
                low = s
    return high, low, jack


def _game_side(taken: Sequence[int]) -> int:
    """The side with the most game points (-1 on a tie for the most: nobody gets Game)."""
    gp = GAME_POINTS_13
    best = game = -1
    for s, m in enumerate(taken):
        g = gp[m & 8191] + gp[(m >> 13) & 8191] + gp[(m >> 26) & 8191] + gp[m >> 39]
        if g > best:
            best, game = g, s
        elif g == best:
            game = -1  # a later larger total takes it again
    return game


def _settle_the_bid(points: list[int], taken: Sequence[int], pitcher_side: int, bid: int) -> None:
    """The pitcher's side keeps its points if it made the bid, else is set back by it."""
    took = points[pitcher_side]
    if bid == SMUDGE:
        # Made only with all six tricks (no other side took a card) and so all four points.
        made = took == 4 and all(not m for s, m in enumerate(taken) if s != pitcher_side)
        points[pitcher_side] = SMUDGE if made else -SMUDGE
    elif took < bid:
        points[pitcher_side] = -bid


def _score_two_sides(
    kernel: Kernel,
    trump_mask: int,
    taken: Sequence[int],
    held: Sequence[int] | None,
    pitcher_side: int,
    bid: int,
) -> Score:
    """``_score`` unrolled for two sides (the common table), which the benchmark feels."""
    t0, t1 = taken
    trumps = (t0 | t1) & trump_mask
    p0 = p1 = 0
    high = low = jack = -1
    if trumps:
        bit = 1 << (trumps.bit_length() - 1)
        if t0 & bit:
            high = 0
            p0 = 1
        else:
            high = 1
            p1 = 1
        bit = trumps & -trumps
        low_cards = t0
        if kernel.low_to_holder:
            assert held is not None  # given whenever Low goes to the holder
            low_cards = held[0]
        if low_cards & bit:
            low = 0
            p0 += 1
        else:
            low = 1
            p1 += 1
        bit = trumps & JACKS
        if bit:
            if t0 & bit:
                jack = 0
                p0 += 1
            else:
                jack = 1
                p1 += 1
    gp = GAME_POINTS_13
    g0 = gp[t0 & 8191] + gp[(t0 >> 13) & 8191] + gp[(t0 >> 26) & 8191] + gp[t0 >> 39]
    g1 = gp[t1 & 8191] + gp[(t1 >> 13) & 8191] + gp[(t1 >> 26) & 8191] + gp[t1 >> 39]
    if g0 > g1:
        game = 0
        p0 += 1
    elif g1 > g0:
        game = 1
        p1 += 1
    else:
        game = -1
    points = [p0, p1]
    took = points[pitcher_side]
    if bid == SMUDGE:
        made = took == 4 and not taken[1 - pitcher_side]
        points[pitcher_side] = SMUDGE if made else -SMUDGE
    elif took < bid:
        points[pitcher_side] = -bid
    return points, (high, low, jack, game)


# ---------------------------------------------------------------------------- playouts
_default_rng = random.Random()


def playout(
    pos: Position,
    rng: random.Random | None = None,
    policy: Callable[[Position, int, random.Random], int] | None = None,
) -> tuple[list[int], tuple[int, int, int, int]]:
    """Play ``pos`` out to the end of the deal; ``pos`` itself is not changed.

    Without a policy every seat plays a uniformly random legal card (fast path). Returns
    ``(score per side, (high, low, jack, game))`` as :func:`outcome`.
    """
    rng = rng or _default_rng
    if policy is not None:
        work = pos.copy()
        while not work.is_over:
            play_card(work, policy(work, legal_mask(work), rng))
        return outcome(work)
    kernel = pos.kernel
    rr = rng.random
    if pos.trick or (kernel.no_trump_first_trick and pos.tricks_played == 0):
        # Finish the trick in progress (and a no-trump first trick) one step at a time.
        work = pos.copy()
        while work.trick or (kernel.no_trump_first_trick and work.tricks_played == 0):
            if work.is_over:
                break
            play_card(work, pick(legal_mask(work), rr).bit_length() - 1)
        pos = work
    hands = pos.hands
    taken = list(pos.taken)
    left = hands[pos.leader].bit_count()
    trump_mask = SUIT_MASK[pos.trump] if pos.trump >= 0 else 0
    held = None
    if kernel.low_to_holder:
        held = list(pos.played)
        for seat, h in enumerate(hands):
            held[kernel.side_of[seat]] |= h
    if left:
        trump_mask = kernel.play_tricks(hands, pos.leader, trump_mask, taken, left, rr)
    return _score(kernel, trump_mask, taken, held, kernel.side_of[pos.pitcher], pos.bid)


# ---------------------------------------------------------------------------- random deals
def random_start(
    kernel: Kernel,
    rng: random.Random | None = None,
    dealer: int = 0,
    record: dict[str, Any] | None = None,
) -> Position | None:
    """Deal at random, bid and (where the rules have them) name trump and discard at random.

    Returns the position at the start of play, or None if the deal is thrown in. If
    ``record`` is a dict it receives ``hands``, ``stock`` (masks and card lists), ``calls``
    (codes: 0 pass, 1..5 bids, PITCH + card), ``trump`` and ``discards`` for replaying the deal.
    """
    rng = rng or _default_rng
    rr = rng.random
    dealt, stock = kernel.deal_masks(rng.getrandbits)
    hands = list(dealt)
    if kernel.discard_kind == "draw":
        rng.shuffle(stock)  # the swap-dealing leaves the rest in no random order
    pitcher, bid, pitch, calls = _random_auction(kernel, hands, dealer, rr)
    if record is not None:
        record.update(
            hands=list(dealt),
            stock=[c.bit_length() - 1 for c in stock],
            calls=calls,
            trump=-1,
            discards={},
        )
    if pitcher < 0:
        return None
    trump = -1
    trick: list[int] = []
    if pitch >= 0:
        trump = pitch // 13
        hands[pitcher] ^= 1 << pitch
        trick = [pitch]
    elif kernel.names_trump:
        trump = int(rr() * 4)
        if record is not None:
            record["trump"] = trump
        if kernel.discard_kind:
            _random_discards(kernel, hands, stock, dealer, trump, rr, record)
    played = [0] * kernel.n_sides
    if pitch >= 0:
        played[kernel.side_of[pitcher]] = 1 << pitch
    return Position(kernel, hands, trump, pitcher, pitcher, bid, trick=trick, played=played)


def _random_bids(kernel: Kernel, dealer: int, rr: Draw) -> tuple[int, int]:
    """A random legal auction without pitches: ``(pitcher or -1, bid)``.

    The same draws as :func:`_random_auction` (a test checks it), but no list of calls.
    """
    high = 0
    high_seat = -1
    options_by_low = kernel.options
    for seat in kernel.order_from[dealer]:
        if seat == dealer:
            low = high if (kernel.steal and high) else high + 1
            if kernel.must_bid and high_seat < 0:
                options = kernel.options_no_pass[low]
            else:
                options = options_by_low[low]
        else:
            options = options_by_low[high + 1]
        call = options[int(rr() * len(options))]
        if call:
            high = call
            high_seat = seat
            if call == 4 and kernel.four_ends:
                break
    return high_seat, high


def _random_auction(
    kernel: Kernel, hands: list[int], dealer: int, rr: Draw
) -> tuple[int, int, int, list[int]]:
    """A random legal auction: ``(pitcher or -1, bid, pitched card or -1, calls)``."""
    high = 0
    high_seat = -1
    pitch = -1
    calls: list[int] = []
    pending = False  # a pitch is waiting for the dealer's answer
    for seat in kernel.order_from[dealer]:
        if pending and seat != dealer:
            continue
        is_dealer = seat == dealer
        options, pitch_ok = _call_options(kernel, is_dealer, high, high_seat, pending)
        call = _random_call(options, hands[seat] if pitch_ok else 0, rr)
        calls.append(call)
        if call:
            high_seat = seat
            high, pitch = (4, call - PITCH) if call >= PITCH else (call, -1)
        if pending or is_dealer or (high == 4 and call and kernel.four_ends):
            break
        pending = call >= PITCH
    if high_seat < 0:
        return -1, 0, -1, calls
    return high_seat, high, pitch, calls


def _call_options(
    kernel: Kernel, is_dealer: bool, high: int, high_seat: int, pending: bool
) -> tuple[tuple[int, ...], bool]:
    """The calls (pass, bids) a seat may make, and whether it may pitch a card instead."""
    if pending:  # the dealer answers a pitch
        return ((PASS, SMUDGE) if kernel.has_smudge else (PASS,)), kernel.steal
    low = high if (is_dealer and kernel.steal and high) else high + 1
    if is_dealer and kernel.must_bid and high_seat < 0:
        return kernel.options_no_pass[low], kernel.pitch_to_bid and low <= 4
    return kernel.options[low], kernel.pitch_to_bid and low <= 4


def _random_call(options: tuple[int, ...], pitchable: int, rr: Draw) -> int:
    """One of ``options`` or a pitch of a card of ``pitchable``, all equally likely."""
    if not pitchable:
        return options[int(rr() * len(options))]
    j = int(rr() * (len(options) + pitchable.bit_count()))
    if j < len(options):
        return options[j]
    for _ in range(j - len(options)):
        pitchable &= pitchable - 1
    return PITCH + (pitchable & -pitchable).bit_length() - 1


def _random_discards(
    kernel: Kernel,
    hands: list[int],
    stock: list[int],
    dealer: int,
    trump: int,
    rr: Draw,
    record: dict[str, Any] | None,
) -> None:
    trump_mask = SUIT_MASK[trump]
    next_card = 0
    for seat in kernel.order_from[dealer]:
        hand = hands[seat]
        if kernel.discard_kind == "two":
            first = pick(hand, rr)
            second = pick(hand ^ first, rr)
            chosen = first | second
            hands[seat] = hand ^ chosen
        else:
            # Uniform over the legal discards: any set of non-trumps the stock can replace.
            non_trumps = hand & ~trump_mask
            count = non_trumps.bit_count()
            limit = min(count, len(stock) - next_card)
            if limit == count:
                chosen = 0  # every subset is legal: keep each card with probability 1/2
                m = non_trumps
                while m:
                    bit = m & -m
                    m ^= bit
                    if rr() < 0.5:
                        chosen |= bit
            else:
                cards = [1 << c for c in range(52) if non_trumps >> c & 1]
                subsets = [sum(s) for k in range(limit + 1) for s in combinations(cards, k)]
                chosen = subsets[int(rr() * len(subsets))]
            size = chosen.bit_count()
            drawn = stock[next_card : next_card + size]
            next_card += size
            hands[seat] = hand ^ chosen | sum(drawn)
        if record is not None:
            record["discards"][seat] = chosen


def random_deal(kernel: Kernel, rng: random.Random | None = None, dealer: int = 0) -> Score | None:
    """One complete random deal: ``(score, points)``, or None if it was thrown in.

    The same random draws as ``playout(random_start(kernel, rng, dealer), rng)``; for rules
    without pitching, naming trump or discards it skips building a ``Position`` (the benchmark).
    """
    rng = rng or _default_rng
    if kernel.lean:
        return kernel.deal_and_play(rng.getrandbits, rng.random, dealer)
    pos = random_start(kernel, rng, dealer)
    return None if pos is None else playout(pos, rng)


# ---------------------------------------------------------------------------- code generation
# One play, as a template; {h} is the seat's hand variable and {seat} its index. ``left`` is
# the number of cards every hand held when the trick began, so it is the hand's size for the
# lead and for a seat that may play anything; otherwise we count the legal cards.
def _skip_bits(depth: int) -> str:
    """Drop the lowest ``floor(j)`` cards of ``legal`` (j < depth + 1): the same as
    ``while j >= 1.0: legal &= legal - 1; j -= 1.0`` in :func:`pick`, unrolled."""
    code = ""
    for k in range(1, depth + 1):
        code += textwrap.indent(f"if j >= {k}.0:\n    legal &= legal - 1\n", "    " * (k - 1))
    return code


_CHOOSE_FROM_HAND = (
    # (in the loop every hand holds two cards or more, so there is always a choice)
    "j = rr() * left\n" + _skip_bits(5) + "{b} = legal & -legal\n"
)
_CHOOSE_COUNTED = (
    """\
if legal & (legal - 1):
    j = rr() * legal.bit_count()
"""
    + textwrap.indent(_skip_bits(5), "    ")
    + """\
    {b} = legal & -legal
else:
    {b} = legal
"""
)
# The lead: any card of the hand; the first lead of the deal sets trump.
_LEAD = (
    "legal = {h}\n"
    + _CHOOSE_FROM_HAND
    + """\
{h} ^= {b}
lm = SM[{b}.bit_length()]
if not tmask:
    tmask = lm
"""
)
# Follow or trump: holding the suit led, play it or a trump; void, anything.
_FOLLOW_OR_TRUMP = (
    """\
legal = {h} & lm
if legal:
    legal |= {h} & tmask
"""
    + textwrap.indent(_CHOOSE_COUNTED, "    ")
    + """\
else:
    legal = {h}
"""
    + textwrap.indent(_CHOOSE_FROM_HAND, "    ")
    + "{h} ^= {b}\n"
)
# Follow, else trump, else anything (family).
_FOLLOW_ELSE_TRUMP = (
    """\
legal = {h} & lm
if not legal:
    legal = {h} & tmask
if legal:
"""
    + textwrap.indent(_CHOOSE_COUNTED, "    ")
    + """\
else:
    legal = {h}
"""
    + textwrap.indent(_CHOOSE_FROM_HAND, "    ")
    + "{h} ^= {b}\n"
)
# The trick is complete: the top trump wins, else the top card of the suit led. Within a suit
# a higher card is a higher bit, so the winner is the top bit of one suit's part of the trick.
_TRICK_END = """\
tm = {cards}
w = tm & tmask
if not w:
    w = tm & lm
w = 1 << (w.bit_length() - 1)
"""


def _generate(kernel: Kernel) -> str:
    """The source of ``play_tricks``, ``deal_masks``, ``deal_hands`` and ``deal_and_play``."""
    n = kernel.n
    hand_vars = [f"h{i}" for i in range(n)]
    side_vars = [f"t{i}" for i in range(kernel.n_sides)]  # each side's captured cards
    tricks_loop = _tricks_loop(kernel)
    play = (
        "def play_tricks(hands, leader, tmask, taken, left, rr):\n"
        f"    {', '.join(hand_vars)}, = hands\n"
        f"    {', '.join(side_vars)}, = taken\n"
        + textwrap.indent(tricks_loop, "    ")
        + f"    taken[:] = {', '.join(side_vars)},\n"
        "    return tmask\n"
    )
    dealing = _dealing(kernel)
    deal_masks = [
        "def deal_masks(getrandbits):",
        *dealing,
        f"    return ({', '.join(hand_vars)},), deck[:{52 - n * kernel.hand_size}]",
    ]
    # The same draws without handing back the stock.
    deal_hands = ["def deal_hands(getrandbits):", *dealing, f"    return {', '.join(hand_vars)},"]
    # Lean rules (the pitcher's lead sets trump, nothing between auction and play): a whole
    # random deal in one function, the same draws as deal_hands + _random_bids + play_tricks.
    held = "None"
    if kernel.low_to_holder:
        groups = [
            " | ".join(f"h{seat}" for seat in range(n) if kernel.side_of[seat] == side)
            for side in range(kernel.n_sides)
        ]
        held = "[" + ", ".join(groups) + "]"
    steal = "high if high else high + 1" if kernel.steal else "high + 1"
    dealer_options = (
        "NO_PASS[low] if high_seat < 0 else OPTIONS[low]" if kernel.must_bid else "OPTIONS[low]"
    )
    four_ends = "\n            if call == 4:\n                break" if kernel.four_ends else ""
    deal_and_play = (
        "def deal_and_play(getrandbits, rr, dealer):\n"
        + "\n".join(dealing[0:])
        + "\n"
        + f"    held = {held}\n"
        + f"""\
    high = 0
    high_seat = -1
    for seat in ORDER[dealer]:
        if seat == dealer:
            low = {steal}
            options = {dealer_options}
        else:
            options = OPTIONS[high + 1]
        call = options[int(rr() * len(options))]
        if call:
            high = call
            high_seat = seat{four_ends}
    if high_seat < 0:
        return None
    leader = high_seat
    tmask = 0
    left = {kernel.tricks}
    {" = ".join(side_vars)} = 0
"""
        + textwrap.indent(tricks_loop, "    ")
        + f"    return SCORE(KERNEL, tmask, [{', '.join(side_vars)}], held, SIDE[high_seat], high)\n"
    )
    return (
        play
        + "\n\n"
        + "\n".join(deal_masks)
        + "\n\n\n"
        + "\n".join(deal_hands)
        + "\n\n\n"
        + deal_and_play
    )


def _tricks_loop(kernel: Kernel) -> str:
    """One trick per pass of ``while left > 1:``, a block per leader with the trick unrolled;
    then the last trick, where every card is forced."""
    n = kernel.n
    follow = _FOLLOW_ELSE_TRUMP if kernel.follow_else_trump else _FOLLOW_OR_TRUMP
    hand_vars = [f"h{i}" for i in range(n)]
    card_vars = [f"c{i}" for i in range(n)]  # the trick's cards by position (c0 is the lead)
    side_vars = [f"t{i}" for i in range(kernel.n_sides)]
    side_of = kernel.side_of

    def take(leader: int) -> str:
        # The winner takes the trick (into its side's pile) and leads the next one.
        seats = [(leader + k) % n for k in range(n)]
        code = _TRICK_END.format(cards=" | ".join(card_vars))
        for k in range(1, n):
            keyword = "if" if k == 1 else "elif"
            code += f"{keyword} w == {card_vars[k]}:\n    leader = {seats[k]}\n    {side_vars[side_of[seats[k]]]} |= tm\n"
        return code + f"else:\n    {side_vars[side_of[leader]]} |= tm\n"

    blocks = []
    last = []
    for leader in range(n):
        seats = [(leader + k) % n for k in range(n)]
        body = _LEAD.format(h=hand_vars[leader], b=card_vars[0])
        for k in range(1, n):
            body += follow.format(h=hand_vars[seats[k]], b=card_vars[k])
        keyword = "if" if leader == 0 else "elif"
        blocks.append(
            f"{keyword} leader == {leader}:\n" + textwrap.indent(body + take(leader), "    ")
        )
        # The last trick: each hand holds one card, which is the only legal one.
        body = "".join(f"{card_vars[k]} = {hand_vars[seats[k]]}\n" for k in range(n))
        body += f"lm = SM[{card_vars[0]}.bit_length()]\nif not tmask:\n    tmask = lm\n"
        last.append(
            f"{keyword} leader == {leader}:\n" + textwrap.indent(body + take(leader), "    ")
        )
    return (
        "while left > 1:\n"
        + textwrap.indent("".join(blocks), "    ")
        + "    left -= 1\n"
        + "if left:\n"
        + textwrap.indent("".join(last), "    ")
    )


def _dealing(kernel: Kernel) -> list[str]:
    """Deal ``h0``.. at random: each card drawn by its index among the cards left (a Lehmer
    code), five cards per 60 random bits (a bias below 2**-31), the last card swapped into the
    gap."""
    lines = ["    deck = list(DECK)"]
    remaining = 52
    drawn = 0
    for seat in range(kernel.n):
        for k in range(kernel.hand_size):
            if drawn % 5 == 0:
                lines.append("    r = getrandbits(60)")
            op = "=" if k == 0 else "|="
            lines.append(
                f"    i = r % {remaining}; r //= {remaining}; h{seat} {op} deck[i]; deck[i] = deck[{remaining - 1}]"
            )
            remaining -= 1
            drawn += 1
    return lines


__all__ = [
    "JACKS",
    "Kernel",
    "PASS",
    "PITCH",
    "Position",
    "SUIT_INDEX",
    "SUIT_MASK",
    "card_mask",
    "game_points",
    "greedy_policy",
    "kernel_for",
    "legal_bits",
    "legal_mask",
    "outcome",
    "pick",
    "play_card",
    "playout",
    "random_deal",
    "random_policy",
    "random_start",
    "trick_winner",
]
