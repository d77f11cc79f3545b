"""What a seat knows, in bitmask form, and sampling the hidden cards consistently with it.

:class:`Info` is built from an :class:`~games.engine.observation.Observation` only (the bot's
single source of information). :meth:`Info.sample` deals the unseen cards into the other
hands, the stock and the others' discards, respecting:

- each hand's size, the cards every seat has played, the seat's own hand and discards;
- cards known to be in a hand (a pitch the dealer took over goes back to its owner's hand);
- the voids the play has proven (a seat never gets a card of a suit it has shown out of);
- under ``draw``, the others' discards are non-trumps.

:meth:`Info.auction_weight` is the inference from the auction: how plausible a sampled world
makes every call made so far (and the pitcher's choice of trump), under the bidding model of
:mod:`games.engine.bots.auction_model`. The search weighs each world by it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass

from ..actions import pitched_card
from ..cards import INDEX, SUITS
from ..fast import SUIT_MASK, Position, kernel_for, legal_bits
from ..observation import Observation
from ..phases import PLAY
from . import auction_model
from .core import FULL, bits, policy_card, step

STOCK = -1  # bucket ids for the cards out of the hands
DISCARDS = -2


@dataclass
class World:
    hands: list[int]  # per seat, the current holding (the observer's own is its real hand)
    stock: list[int]  # the undrawn stock in order (card indices); only meaningful for draw
    out: int  # every hidden card not in a hand (stock and the others' discards)
    weight: float = 1.0


class Info:
    """The observer's knowledge as masks. Build with :meth:`from_observation`."""

    def __init__(self, obs: Observation) -> None:
        rules = obs.rules
        self.obs = obs
        self.rules = rules
        self.kernel = kernel = kernel_for(rules)
        self.n = kernel.n
        self._read_seats(obs)
        self._read_cards(obs)
        self._read_counts(obs)

    def _read_seats(self, obs: Observation) -> None:
        """Seats and sides as indices; the contract (trump, pitcher, bid) as far as it is known."""
        self.seat_index = {s: i for i, s in enumerate(obs.rules.seats)}
        self.me = self.seat_index[obs.seat]
        self.side_of = self.kernel.side_of
        self.my_side = self.kernel.side_of[self.me]
        self.dealer = self.seat_index[obs.dealer]
        self.phase = obs.phase
        self.trump = SUITS.index(obs.trump) if obs.trump else -1
        self.pitcher = self.seat_index[obs.pitcher] if obs.pitcher else -1
        self.bid = obs.bid or 0
        self.calls = [(self.seat_index[s], t) for s, t in obs.calls]

    def _read_cards(self, obs: Observation) -> None:
        """The seat's own cards, every card played and by whom, the cards known to be in a hand
        (a pitch the dealer took over goes back to its owner's hand), the voids proven by play;
        and so the cards the seat has not seen."""
        n = self.n
        self.hand = sum(1 << INDEX[c] for c in obs.hand)
        self.my_discards = sum(1 << INDEX[c] for c in obs.discards)
        played_by = [0] * n
        for trick in obs.tricks:
            for seat, card in trick.cards:
                played_by[self.seat_index[seat]] |= 1 << INDEX[card]
        for seat, card in obs.current_trick:
            played_by[self.seat_index[seat]] |= 1 << INDEX[card]
        self.played_by = played_by
        self.played = 0
        for m in played_by:
            self.played |= m
        self.known = self._known_pitches(obs)
        self.known_all = 0
        for m in self.known:
            self.known_all |= m
        forbid = [0] * n
        for seat, suits in obs.voids.items():
            i = self.seat_index[seat]
            for s in suits:
                forbid[i] |= SUIT_MASK[SUITS.index(s)]
        self.forbid = forbid
        self.unseen = FULL & ~(self.hand | self.played | self.my_discards | self.known_all)

    def _known_pitches(self, obs: Observation) -> list[int]:
        """Per seat, the cards others pitched that are back in their hands, not yet played."""
        known = [0] * self.n
        for seat, token in obs.calls:
            card = pitched_card(token)
            if card is not None:
                i = self.seat_index[seat]
                bit = 1 << INDEX[card]
                if i != self.me and not bit & self.played:
                    known[i] |= bit
        return known

    def _read_counts(self, obs: Observation) -> None:
        """How many hidden cards each hand, the stock and the others' discards hold."""
        rules = obs.rules
        self.hand_sizes = [obs.hand_sizes[s] for s in rules.seats]
        self.stock_size = obs.stock_size
        self.others_discarded = sum(c for s, c in obs.discard_counts.items() if s != obs.seat)
        self.need = [
            0 if i == self.me else self.hand_sizes[i] - self.known[i].bit_count()
            for i in range(self.n)
        ]
        # The discards of the others cannot be trumps under draw.
        # The order of the undrawn stock matters only while discards (draw) are to come.
        self.stock_order = rules.discard_kind == "draw" and obs.phase != PLAY
        self.discard_forbid = (
            SUIT_MASK[self.trump] if (rules.discard_kind == "draw" and self.trump >= 0) else 0
        )
        total = self.unseen.bit_count()
        out_size = total - sum(self.need)
        if out_size != self.stock_size + self.others_discarded:
            # Should not happen; keep the counts consistent whatever the observation says.
            self.others_discarded = max(0, out_size - self.stock_size)
            self.stock_size = out_size - self.others_discarded

    @property
    def tricks_left(self) -> int:
        return self.rules.tricks_per_deal - len(self.obs.tricks)

    # ------------------------------------------------------------------ sampling
    def sample(self, rng: random.Random) -> World:
        """One determinization: every hidden card placed consistently with what was seen."""
        n = self.n
        unseen = self.unseen
        cards = list(bits(unseen))
        constrained = any(self.forbid[i] & unseen for i in range(n) if i != self.me) or (
            self.discard_forbid and self.others_discarded
        )
        if not constrained:
            dealt = sum(self.need)
            _partial_shuffle(
                cards, dealt + self.stock_size if self.stock_order else dealt, rng.getrandbits
            )
            hands = list(self.known)
            hands[self.me] = self.hand
            k = 0
            for i in range(n):
                need = self.need[i]
                if need:
                    m = 0
                    for c in cards[k : k + need]:
                        m |= 1 << c
                    hands[i] |= m
                    k += need
            rest = cards[k:]
            out = 0
            for c in rest:
                out |= 1 << c
            return World(hands, rest[: self.stock_size], out)
        for _ in range(60):
            world = self._sample_constrained(cards, rng)
            if world is not None:
                return world
        return self._sample_flow(rng)

    def _sample_constrained(self, cards: list[int], rng: random.Random) -> World | None:
        """Each hidden card dealt at random to a place that may hold it, in proportion to the
        room left there, the most constrained suits first; None when a card finds no room (the
        caller tries again)."""
        room = list(self.need)
        hands = list(self.known)
        hands[self.me] = self.hand
        stock_room = self.stock_size
        disc_room = self.others_discarded
        rest_stock: list[int] = []
        rest_disc: list[int] = []
        by_suit: list[list[int]] = [[], [], [], []]
        for c in cards:
            by_suit[c // 13].append(c)
        # This runs for every hidden card of every sampled world: kept inline, no call per card.
        for _, s, seats, disc_ok in self._suit_places(room, stock_room, disc_room):
            for c in by_suit[s]:
                total = stock_room + (disc_room if disc_ok else 0)
                for i in seats:
                    total += room[i]
                if not total:
                    return None
                x = rng.random() * total
                who = STOCK
                for i in seats:
                    x -= room[i]
                    if x < 0:
                        who = i
                        break
                else:
                    x -= stock_room
                    if x >= 0 and disc_ok:
                        who = DISCARDS
                if who == STOCK:
                    stock_room -= 1
                    rest_stock.append(c)
                elif who == DISCARDS:
                    disc_room -= 1
                    rest_disc.append(c)
                else:
                    room[who] -= 1
                    hands[who] |= 1 << c
        if self.stock_order:
            rng.shuffle(rest_stock)
        return World(hands, rest_stock, _mask(rest_stock + rest_disc))

    def _suit_places(
        self, room: list[int], stock_room: int, disc_room: int
    ) -> list[tuple[int, int, list[int], bool]]:
        """Per suit ``(places, suit, seats, discards may hold it)``, fewest places first: the
        seats with room that have not shown out of the suit, the stock, the others' discards."""
        places: list[tuple[int, int, list[int], bool]] = []
        for s in range(4):
            sm = SUIT_MASK[s]
            seats = [i for i in range(self.n) if room[i] and not self.forbid[i] & sm]
            disc_ok = bool(disc_room) and not sm & self.discard_forbid
            places.append(
                (len(seats) + (1 if stock_room else 0) + (1 if disc_ok else 0), s, seats, disc_ok)
            )
        places.sort()
        return places

    def _sample_flow(self, rng: random.Random) -> World:  # noqa: C901 - older than the limit; split when next changed
        """A deterministic-then-shuffled fill that always succeeds (suit-level matching)."""
        n = self.n
        buckets = [i for i in range(n) if self.need[i]] + [STOCK, DISCARDS]
        cap = {i: self.need[i] for i in range(n) if self.need[i]}
        cap[STOCK] = self.stock_size
        cap[DISCARDS] = self.others_discarded

        def ok(b: int, c: int) -> bool:
            bit = 1 << c
            if b == STOCK:
                return True
            if b == DISCARDS:
                return not bit & self.discard_forbid
            return not self.forbid[b] & bit

        cards = list(bits(self.unseen))
        rng.shuffle(cards)
        assign: dict[int, int] = {}
        owned: dict[int, list[int]] = {b: [] for b in buckets}

        def augment(c: int, seen: set[int]) -> bool:
            for b in buckets:
                if b in seen or not ok(b, c):
                    continue
                seen.add(b)
                if len(owned[b]) < cap[b]:
                    owned[b].append(c)
                    assign[c] = b
                    return True
                for other in list(owned[b]):
                    if augment_from(other, b, seen):
                        owned[b].remove(other)
                        owned[b].append(c)
                        assign[c] = b
                        return True
            return False

        def augment_from(card: int, b_from: int, seen: set[int]) -> bool:
            for b in buckets:
                if b == b_from or b in seen or not ok(b, card):
                    continue
                seen.add(b)
                if len(owned[b]) < cap[b]:
                    owned[b].append(card)
                    assign[card] = b
                    return True
                for other in list(owned[b]):
                    if augment_from(other, b, seen):
                        owned[b].remove(other)
                        owned[b].append(card)
                        assign[card] = b
                        return True
            return False

        for c in cards:
            augment(c, set())
        hands = list(self.known)
        hands[self.me] = self.hand
        for b in buckets:
            if b >= 0:
                for c in owned[b]:
                    hands[b] |= 1 << c
        stock = owned[STOCK]
        rng.shuffle(stock)
        out = 0
        for c in owned[STOCK] + owned[DISCARDS]:
            out |= 1 << c
        return World(hands, stock, out)

    # ------------------------------------------------------------------ inference
    def dealt_hand(self, world: World, seat: int) -> int:
        """A seat's hand as it bid: what it holds now plus what it has played."""
        return world.hands[seat] | self.played_by[seat]

    def auction_weight(self, world: World, sharpness: float = 1.0) -> float:
        """How plausible the auction so far is in ``world`` (1.0 = no evidence against it)."""
        if not self.calls or sharpness <= 0:
            return 1.0
        log_w = 0.0
        state = auction_model.AuctionState(self.kernel, self.dealer)
        for seat, token in self.calls:
            if seat != self.me:
                hand = self.dealt_hand(world, seat)
                trump = self.trump if (seat == self.pitcher and self.trump >= 0) else -1
                log_w += auction_model.call_log_likelihood(state, seat, hand, token, trump)
            state.apply_token(seat, token)
        return math.exp(sharpness * log_w)

    def play_weight(self, world: World, eps: float) -> float:
        """How plausible the cards the others have played are in ``world``: each play is
        likelier when the playout policy would have made it too (probability ``1 - eps`` on the
        policy's card, the rest spread over the legal cards). 1.0 when nothing was played."""
        obs = self.obs
        plays = [(self.seat_index[s], INDEX[c]) for t in obs.tricks for s, c in t.cards]
        plays += [(self.seat_index[s], INDEX[c]) for s, c in obs.current_trick]
        if not plays or self.pitcher < 0:
            return 1.0
        kernel = self.kernel
        hands = [world.hands[i] | self.played_by[i] for i in range(self.n)]
        rem = 0
        for h in hands:
            rem |= h
        trump = self.trump if kernel.names_trump else -1
        pos = Position(kernel, hands, trump, self.pitcher, self.pitcher, self.bid)
        gone = 0
        weight = 1.0
        for seat, card in plays:
            if seat != self.me:
                trick = pos.trick
                if trick:
                    legal = legal_bits(
                        kernel,
                        pos.hands[seat],
                        SUIT_MASK[trick[0] // 13],
                        SUIT_MASK[pos.trump],
                        pos.tricks_played,
                    )
                else:
                    legal = pos.hands[seat]
                k = legal.bit_count()
                if k > 1:
                    choice = policy_card(pos, legal, rem, gone)
                    weight *= (1.0 - eps + eps / k) if choice == card else eps / k
            bit = 1 << card
            rem &= ~bit
            gone |= bit
            step(pos, card)
        return weight


def _mask(cards: list[int]) -> int:
    out = 0
    for c in cards:
        out |= 1 << c
    return out


def _partial_shuffle(cards: list[int], k: int, getrandbits: Callable[[int], int]) -> None:
    """Put a uniformly random choice of ``k`` of ``cards``, in random order, at the front
    (Fisher-Yates, five draws per 60 random bits as the kernel deals)."""
    m = len(cards)
    r = 0
    for i in range(min(k, m - 1)):
        if i % 5 == 0:
            r = getrandbits(60)
        span = m - i
        j = i + r % span
        r //= span
        cards[i], cards[j] = cards[j], cards[i]
