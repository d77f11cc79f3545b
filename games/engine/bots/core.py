"""Bitmask helpers shared by the bots: hand strength, a fast heuristic playout policy, and
small heuristics (naming trump, discarding) used inside simulations.

Everything here works on the fast kernel's representation (``games.engine.fast``): a card is
``suit * 13 + rank``, a set of cards a 52-bit mask, seats and sides are indices. Scoring is
never done here: a finished simulation is scored by :func:`games.engine.fast.outcome`.

The playout policy plays a determinized deal (every hand known) to the end. It is a rule of
thumb player, much stronger than random legal play, and is what the Monte Carlo search uses to
value a move in a sampled world:

- lead the top trump while it is the best one out and others still hold trumps (pulls trumps,
  takes High); when the others hold no trump, cash side-suit winners; otherwise lead a low
  card without game points;
- on a trick the partner is winning safely, throw points onto it (the lowest trump in play
  for Low, the jack of trump, tens);
- otherwise win as cheaply as possible when the win is safe from the seats still to play (or
  when the trick is worth it), else throw the cheapest card, keeping tens, the jack and Low.
"""

from __future__ import annotations

from collections.abc import Container, Iterator, Sequence

from ..cards import CODES, game_points
from ..fast import JACKS, SUIT_MASK, Kernel, Position, legal_bits

FULL = (1 << 52) - 1


def rank_bits(rank: int) -> int:
    return sum(1 << (13 * s + rank) for s in range(4))


TENS = rank_bits(8)
ACES = rank_bits(12)
KINGS = rank_bits(11)
QUEENS = rank_bits(10)
POINT_CARDS = TENS | ACES | KINGS | QUEENS | JACKS
GP = [game_points(code) for code in CODES]  # game points per card index
SUIT_OF_BIT_LENGTH = (-1,) + tuple(i // 13 for i in range(52))


def above(card: int) -> int:
    """The mask of every card index above ``card`` (higher in its suit, or in a later suit)."""
    return FULL ^ ((2 << card) - 1)


ABOVE = tuple(above(c) for c in range(52))


def bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


# ---------------------------------------------------------------------- hand strength
def _trump_strength_13(m: int) -> float:
    """Rough expected points for a holder of suit mask ``m`` (13 bits) as trump, before Game."""
    if not m:
        return 0.0
    ranks = [r for r in range(13) if m >> r & 1]
    top, low, count = ranks[-1], ranks[0], len(ranks)
    value = {12: 1.0, 11: 0.7, 10: 0.45, 9: 0.3}.get(top, 0.1)  # High
    value += {0: 0.9, 1: 0.6, 2: 0.4, 3: 0.25}.get(low, 0.05)  # Low
    if m >> 9 & 1:  # the jack
        value += 0.75 if count >= 3 or top > 9 else 0.4
    value += 0.12 * (count - 1)
    return value


TRUMP_STRENGTH_13 = tuple(_trump_strength_13(m) for m in range(8192))


def suit_strength(hand: int, suit: int) -> float:
    """Expected points (a rough count, not a search) of naming ``suit`` trump with ``hand``."""
    m = (hand >> (13 * suit)) & 8191
    if not m:
        return 0.0
    return TRUMP_STRENGTH_13[m] + 0.25 * (hand & TENS).bit_count() + 0.1 * (hand & ACES).bit_count()


def best_suit(hand: int) -> tuple[int, float]:
    """The suit with the best :func:`suit_strength`, and that strength."""
    extra = 0.25 * (hand & TENS).bit_count() + 0.1 * (hand & ACES).bit_count()
    best, best_value = 0, -1.0
    for s in range(4):
        m = (hand >> (13 * s)) & 8191
        v = TRUMP_STRENGTH_13[m] + extra if m else 0.0
        if v > best_value:
            best, best_value = s, v
    return best, best_value


def suits_by_strength(hand: int) -> list[int]:
    return sorted(range(4), key=lambda s: -suit_strength(hand, s))


# ---------------------------------------------------------------------- simulation heuristics
def heuristic_discard(kernel: Kernel, hand: int, trump: int, room: int) -> int:
    """The cards a seat throws in a simulation: ``draw`` throws non-trumps below a ten (up to
    ``room``, what the stock can refill); ``six_players`` throws the two cheapest cards."""
    tm = SUIT_MASK[trump]
    if kernel.discard_kind == "two":
        order = sorted(
            bits(hand), key=lambda c: (200 if c // 13 == trump else 0) + GP[c] * 6 + c % 13
        )
        return (1 << order[0]) | (1 << order[1])
    throw = hand & ~tm & ~(TENS | ACES | KINGS)
    if throw.bit_count() > room:
        keep = 0
        for c in sorted(bits(throw), key=lambda c: c % 13)[:room]:
            keep |= 1 << c
        throw = keep
    return throw


def opening_lead(hand: int) -> int:
    """The pitcher's opening lead that sets trump: the top card of the strongest suit."""
    suit, _ = best_suit(hand)
    m = hand & SUIT_MASK[suit]
    if not m:
        m = hand
    return m.bit_length() - 1


# ---------------------------------------------------------------------- the playout policy
# One policy, in named steps: `policy_card` reads a position for them, and `play_out`, the
# search's inner loop, calls the same steps with the per-deal work hoisted out of its loop (the
# calls cost about 2% of a playout against a loop with every step written inline).


def _tables(trump: int) -> tuple[list[int], list[float]]:
    """Per trump suit: each card's cost to throw away (before the Low bonus) and its value as a
    gift to the side's own trick (before the Low bonus)."""
    duck = [0] * 52
    gift = [0.0] * 52
    for c in range(52):
        cost = GP[c] * 4 + c % 13
        if c // 13 == trump:
            cost += 40
            if c % 13 == 9:
                cost += 60
            if c % 13 == 9:
                gift[c] = 30 + GP[c]
            elif c % 13 == 8:
                gift[c] = 11
            else:
                gift[c] = -20 - c % 13
        else:
            gift[c] = GP[c] * 2 - (c % 13) * 0.1
        duck[c] = cost
    return duck, gift


TABLES = tuple(_tables(t) for t in range(4))


def policy_card(pos: Position, legal: int, rem: int, gone: int) -> int:
    """The policy's card (an index) for the seat to act in a determinized ``pos``.

    ``rem`` is every card still in a hand, ``gone`` every card already played this deal
    (including the trick in progress).
    """
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    kernel = pos.kernel
    seat = (pos.leader + len(pos.trick)) % kernel.n
    trump = pos.trump
    if trump < 0:
        return (
            opening_lead(pos.hands[seat]) if (legal == pos.hands[seat]) else legal.bit_length() - 1
        )
    tm = SUIT_MASK[trump]
    duck, gift = TABLES[trump]
    in_play_trumps = (rem | gone) & tm
    low_bit = in_play_trumps & -in_play_trumps
    if not pos.trick:
        opp = _opponents_holding(pos, seat)
        return _lead_card(pos.hands[seat], legal, rem, opp, trump, low_bit, duck)
    jack_bit = (1 << (13 * trump + 9)) & in_play_trumps
    return _follow_card(
        pos.trick, pos.leader, kernel, pos.hands, seat, legal, trump, low_bit, jack_bit, duck, gift
    )


def _opponents_holding(pos: Position, seat: int) -> int:
    """Every card held by the seats of the other sides."""
    side_of = pos.kernel.side_of
    opp = 0
    for s in range(pos.kernel.n):
        if side_of[s] != side_of[seat]:
            opp |= pos.hands[s]
    return opp


def _lead_card(
    hand: int, legal: int, rem: int, opp: int, trump: int, low_bit: int, duck: list[int]
) -> int:
    """Pull trumps with the best one out, else cash a side-suit winner nobody against us can
    trump, else lead the cheapest card (a plain one if possible). ``opp``: every card the other
    sides hold."""
    tm = SUIT_MASK[trump]
    mine_t = hand & tm
    others = rem ^ hand
    others_t = others & tm
    if mine_t:
        top = 1 << (mine_t.bit_length() - 1)
        if others_t and top > others_t and (opp & tm):
            return top.bit_length() - 1
    plain = legal & ~tm
    if plain and not (opp & tm):
        winner = _side_suit_winner(plain, others, trump)
        if winner >= 0:
            return winner
    return _cheapest(plain if plain else legal, duck, low_bit)


def _side_suit_winner(plain: int, others: int, trump: int) -> int:
    """The top card of the first side suit where it beats every card the others hold (-1 if
    there is none)."""
    for s in range(4):
        if s == trump:
            continue
        m = plain & SUIT_MASK[s]
        if m:
            t = 1 << (m.bit_length() - 1)
            if t > (others & SUIT_MASK[s]):
                return t.bit_length() - 1
    return -1


def _cheapest(cards: int, duck: list[int], low_bit: int) -> int:
    """The card of ``cards`` cheapest to give away (``duck``, and Low dearest of all)."""
    best, best_cost = -1, 1 << 30
    while cards:
        b = cards & -cards
        c = b.bit_length() - 1
        cost = duck[c] + (60 if b == low_bit else 0)
        if cost < best_cost:
            best, best_cost = c, cost
        cards ^= b
    return best


def _follow_card(
    trick: list[int],
    leader: int,
    kernel: Kernel,
    hands: list[int],
    seat: int,
    legal: int,
    trump: int,
    low_bit: int,
    jack_bit: int,
    duck: list[int],
    gift: list[float],
) -> int:
    """Throw points onto the side's trick when it is safe; else win as cheaply as is safe from
    the seats still to play, or contest a trick worth it; else throw the cheapest card."""
    n = kernel.n
    side_of = kernel.side_of
    tm = SUIT_MASK[trump]
    led = trick[0] // 13
    lm = SUIT_MASK[led]
    me = side_of[seat]
    win_i = 0
    win_c = trick[0]
    win_t = win_c // 13 == trump
    for i in range(1, len(trick)):
        c = trick[i]
        if c // 13 == trump:
            if not win_t or c > win_c:
                win_c, win_i, win_t = c, i, True
        elif not win_t and c // 13 == led and c > win_c:
            win_c, win_i = c, i
    win_side = side_of[(leader + win_i) % n]
    later_opp = 0
    for k in range(len(trick) + 1, n):
        s = (leader + k) % n
        if side_of[s] != me:
            later_opp |= hands[s]
    beat = (tm & ABOVE[win_c]) if win_t else (tm | (lm & ABOVE[win_c]))
    if win_side == me and not (later_opp & beat):
        return _richest_gift(legal, tm, low_bit, gift)
    winners = legal & beat
    if winners:
        best = _cheapest_safe_winner(winners, tm, lm, later_opp, low_bit, jack_bit)
        if best >= 0:
            return best
        if win_side != me:
            best = _contest(trick, winners, tm, low_bit, jack_bit)
            if best >= 0:
                return best
    return _cheapest(legal, duck, low_bit)


def _richest_gift(legal: int, tm: int, low_bit: int, gift: list[float]) -> int:
    """The side's trick is safe: the most valuable card to throw onto it (Low, whichever trump
    it is, as much as the jack)."""
    best = -1
    best_value: float = -(1 << 30)
    m = legal
    while m:
        b = m & -m
        c = b.bit_length() - 1
        v = (30 + GP[c]) if (b == low_bit and b & tm) else gift[c]
        if v > best_value:
            best, best_value = c, v
        m ^= b
    return best


def _cheapest_safe_winner(
    winners: int, tm: int, lm: int, later_opp: int, low_bit: int, jack_bit: int
) -> int:
    """The cheapest winner that the seats still to play cannot beat (-1 if none is safe)."""
    best, best_cost = -1, 1 << 30
    m = winners
    while m:
        b = m & -m
        c = b.bit_length() - 1
        if b & tm:
            if not (later_opp & tm & ABOVE[c]):
                cost = (c % 13) + 20
                if b == low_bit or b & jack_bit:
                    cost -= 30  # winning with Low or the jack takes the point too
                if cost < best_cost:
                    best, best_cost = c, cost
        elif not (later_opp & (tm | (lm & ABOVE[c]))):
            cost = c % 13
            if cost < best_cost:
                best, best_cost = c, cost
        m ^= b
    return best


def _contest(trick: list[int], winners: int, tm: int, low_bit: int, jack_bit: int) -> int:
    """An opponent's trick worth contesting (ten game points, or Low or the jack in it): the
    cheapest winner that is not itself a prize, a plain one first (-1 if not worth it or none)."""
    value = 0
    trick_mask = 0
    for c in trick:
        value += GP[c]
        trick_mask |= 1 << c
    if value >= 10 or trick_mask & (low_bit | jack_bit):
        m = winners & ~(low_bit | jack_bit | TENS)
        if m:
            plain_w = m & ~tm
            if plain_w:
                m = plain_w
            return (m & -m).bit_length() - 1
    return -1


def _trick_winner(trick: list[int], leader: int, trump: int, n: int) -> int:
    """The seat that takes a full trick."""
    led = trick[0] // 13
    best, best_key = 0, -1
    for i, c in enumerate(trick):
        s = c // 13
        key = 100 + c if s == trump else c if s == led else -1
        if key > best_key:
            best_key, best = key, i
    return (leader + best) % n


def step(pos: Position, card: int) -> None:
    """Play ``card`` (known legal) for the seat to act: the kernel's ``play_card`` without the
    legality check."""
    kernel = pos.kernel
    n = kernel.n
    trick = pos.trick
    seat = (pos.leader + len(trick)) % n
    bit = 1 << card
    pos.hands[seat] ^= bit
    if not trick and pos.trump < 0:
        pos.trump = card // 13
    trick.append(card)
    pos.played[kernel.side_of[seat]] |= bit
    if len(trick) < n:
        return
    winner = _trick_winner(trick, pos.leader, pos.trump, n)
    won = 0
    for c in trick:
        won |= 1 << c
    pos.taken[kernel.side_of[winner]] |= won
    pos.trick = []
    pos.leader = winner
    pos.tricks_played += 1


def play_out(pos: Position) -> Position:
    """Play ``pos`` to the end of the deal in place with the policy; returns ``pos``.

    The same play as calling :func:`policy_card` at every turn (a test checks it), with the
    per-deal work hoisted out of the loop.
    """
    kernel = pos.kernel
    n = kernel.n
    side_of = kernel.side_of
    hands = pos.hands
    taken = pos.taken
    played = pos.played
    trick = pos.trick
    leader = pos.leader
    trump = pos.trump
    tricks_played = pos.tricks_played
    rem = 0
    for h in hands:
        rem |= h
    gone = 0
    for p in played:
        gone |= p
    tm = SUIT_MASK[trump] if trump >= 0 else 0
    duck, gift = TABLES[trump] if trump >= 0 else TABLES[0]
    # Seats of the other sides, for each seat.
    opp_of = [[s for s in range(n) if side_of[s] != side_of[seat]] for seat in range(n)]
    simple_follow = not kernel.follow_else_trump and not kernel.no_trump_first_trick
    while rem or trick:
        k = len(trick)
        seat = (leader + k) % n
        hand = hands[seat]
        if not k:
            legal = hand
        elif simple_follow:
            legal = hand & SUIT_MASK[trick[0] // 13]
            legal = (legal | (hand & tm)) if legal else hand
        else:
            legal = legal_bits(kernel, hand, SUIT_MASK[trick[0] // 13], tm, tricks_played)
        if not legal & (legal - 1):
            card = legal.bit_length() - 1
        elif trump < 0:
            card = opening_lead(hand) if legal == hand else legal.bit_length() - 1
        else:
            ipt = (rem | gone) & tm
            low_bit = ipt & -ipt
            if k:
                jack_bit = (1 << (13 * trump + 9)) & ipt
                card = _follow_card(
                    trick, leader, kernel, hands, seat, legal, trump, low_bit, jack_bit, duck, gift
                )
            else:
                opp = 0
                for s in opp_of[seat]:
                    opp |= hands[s]
                card = _lead_card(hand, legal, rem, opp, trump, low_bit, duck)
        bit = 1 << card
        hands[seat] = hand ^ bit
        rem ^= bit
        gone |= bit
        if not k and trump < 0:
            trump = card // 13
            tm = SUIT_MASK[trump]
            duck, gift = TABLES[trump]
        trick.append(card)
        played[side_of[seat]] |= bit
        if k + 1 == n:
            leader = _trick_winner(trick, leader, trump, n)
            won = 0
            for c in trick:
                won |= 1 << c
            taken[side_of[leader]] |= won
            trick.clear()
            tricks_played += 1
    pos.leader = leader
    pos.trump = trump
    pos.tricks_played = tricks_played
    return pos


def play_out_reference(pos: Position) -> Position:
    """:func:`play_out` written plainly: :func:`policy_card` at every turn (for the tests)."""
    kernel = pos.kernel
    rem = 0
    for h in pos.hands:
        rem |= h
    gone = 0
    for p in pos.played:
        gone |= p
    while rem or pos.trick:
        seat = (pos.leader + len(pos.trick)) % kernel.n
        hand = pos.hands[seat]
        if pos.trick:
            legal = legal_bits(
                kernel, hand, SUIT_MASK[pos.trick[0] // 13], SUIT_MASK[pos.trump], pos.tricks_played
            )
        else:
            legal = hand
        card = policy_card(pos, legal, rem, gone)
        rem &= ~(1 << card)
        gone |= 1 << card
        step(pos, card)
    return pos


def start_position(
    kernel: Kernel,
    dealer: int,
    hands: Sequence[int],
    stock: Sequence[int],
    pitcher: int,
    bid: int,
    pitch: int = -1,
    suit: int = -1,
    discarded_before: Container[int] | None = None,
    me: int = -1,
    my_discard: int | None = None,
) -> Position:
    """The position at the start of play once the auction is over: the winning pitch led, or
    trump named (``suit``, else the pitcher's strongest) and the discards made by the heuristic
    for every seat that has not discarded yet (``me`` discards ``my_discard``), or the pitcher's
    opening lead of the top card of ``suit`` (when given)."""
    hands = list(hands)
    played = [0] * kernel.n_sides
    trick: list[int] = []
    trump = -1
    if pitch >= 0:
        trump = pitch // 13
        hands[pitcher] ^= 1 << pitch
        trick = [pitch]
        played[kernel.side_of[pitcher]] = 1 << pitch
    elif kernel.names_trump:
        trump = suit if suit >= 0 else best_suit(hands[pitcher])[0]
        if kernel.discard_kind:
            k = 0
            for seat in kernel.order_from[dealer]:
                if discarded_before is not None and seat in discarded_before:
                    continue
                if seat == me and my_discard is not None:
                    throw = my_discard
                else:
                    throw = heuristic_discard(kernel, hands[seat], trump, len(stock) - k)
                hands[seat] ^= throw
                if kernel.discard_kind == "draw":
                    for _ in range(throw.bit_count()):
                        hands[seat] |= 1 << stock[k]
                        k += 1
    elif suit >= 0 and hands[pitcher] & SUIT_MASK[suit]:
        card = (hands[pitcher] & SUIT_MASK[suit]).bit_length() - 1
        trump = suit
        hands[pitcher] ^= 1 << card
        trick = [card]
        played[kernel.side_of[pitcher]] = 1 << card
    return Position(kernel, hands, trump, pitcher, pitcher, bid, trick=trick, played=played)
