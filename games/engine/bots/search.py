"""The Monte Carlo search behind the medium and hard bots (and the coach).

For one decision of one seat, :func:`evaluate` samples worlds (the hidden cards dealt
consistently with the seat's observation, weighted by how plausible they make the auction),
and values **every legal option on the same worlds**:

- card play: the card is played, then the deal is played out with the policy of
  :mod:`games.engine.bots.core` (and solved exactly over the last tricks where that is cheap);
- auction: the call is made, the rest of the auction follows the bidding model, the pitcher
  names (or leads) trump and the deal is played out; when the seat ends up the pitcher, each of
  its candidate trump suits is played and the best suit on average is kept;
- naming trump, discarding: the same, from that point.

Each finished simulation is scored by the engine's kernel (:func:`games.engine.fast.outcome`),
so the bots never re-implement scoring. The options are ranked by the side's expected deal
margin, or, near the end of a match, by the chance of winning the match (see matchvalue.py).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ..actions import PASS, discard_token, parse_discard_token, pitch_token, pitched_card
from ..cards import CODES, INDEX, SUIT_NAMES, SUITS
from ..fast import PITCH, SUIT_MASK, Position, legal_mask, outcome, play_card, random_policy
from ..observation import Observation
from ..phases import AUCTION, DISCARD, PLAY, TRUMP
from . import auction_model, endgame, seats
from .auction_model import call_code
from .core import (
    GP,
    TENS,
    bits,
    heuristic_discard,
    play_out,
    start_position,
    suit_strength,
)
from .estimate import Acc, OptionEstimate
from .matchvalue import MatchValuer
from .worlds import Info, World

PLAYOUT_OVERHEAD = 8  # sampling a world and copying a position, in simulated card plays
STANDARD_DEAL = 24  # the cards played in a four-player deal: what a budget's playouts are


@dataclass(frozen=True)
class Config:
    """Search settings of a level. ``budget`` counts simulated deals (playouts)."""

    budget: int = 1200
    bid_budget: int = 2400
    min_worlds: int = 8
    max_worlds: int = 3000
    inference: float = 1.0  # sharpness of the auction inference (0: none)
    play_inference: float = (
        0.0  # weigh worlds by how the policy explains the others' plays (its eps; 0: off)
    )
    exact_tricks: int = 2  # solve the last tricks exactly when this many (or fewer) are left
    exact_max_nodes: int = 4000  # ... and the tree is small enough
    exact_worlds: int = 400  # worlds for an exact decision
    match_aware: bool = True
    suits_considered: int = 2  # candidate trump suits when valuing the seat's own contract
    random_playouts: bool = False  # finish worlds with random legal play instead of the policy


class Search:
    def __init__(
        self,
        obs: Observation,
        seed: int = 0,
        config: Config | None = None,
        budget: int | None = None,
        include: tuple[str, ...] = (),
        seat_models: dict[str, str] | None = None,
    ) -> None:
        self.obs = obs
        self.include = tuple(include)
        self.config = config or Config()
        self.info = Info(obs)
        self.rng = random.Random(seed * 2654435761 % (1 << 61) + 12345)
        self.kernel = self.info.kernel
        self.budget = budget
        self.valuer = MatchValuer.for_observation(obs) if self.config.match_aware else None
        # Who sits where, for the coach (bots/seats.py): seats played by rules of their own.
        self.seat_rules = seats.seat_rules(seat_models, obs.rules.seats)
        if self.seat_rules:
            # A seated playout (seats.play_out_seated, a plain loop) costs about twice the
            # inline policy's: fewer of them keep the coach's answer time where it was
            # (bench_coach --seated), at the price of a little more noise in its figures.
            share = seats.SEATED_BUDGET_SHARE
            self.config = replace(
                self.config,
                budget=int(self.config.budget * share),
                bid_budget=int(self.config.bid_budget * share),
            )
            if self.budget is not None:
                self.budget = max(1, int(self.budget * share))

    # ------------------------------------------------------------------ entry point
    def evaluate(self) -> list[OptionEstimate]:
        obs = self.obs
        legal = obs.legal_actions()
        if not legal:
            raise ValueError(f"{obs.seat} has no legal action (phase {obs.phase})")
        phase = obs.phase
        if phase == AUCTION:
            results = self._auction(legal)
        elif phase == TRUMP:
            results = self._trump(legal)
        elif phase == DISCARD:
            results = self._discard(legal)
        else:
            results = self._play(legal)
        order = {a: i for i, a in enumerate(legal)}
        results.sort(key=lambda e: (-e.value, -e.expected_margin, order.get(e.action, 0)))
        return results

    def finish(self, pos: Position) -> Position:
        """Play a world to the end of the deal (in place)."""
        if not self.config.random_playouts:
            if self.seat_rules:
                return seats.play_out_seated(pos, self.seat_rules)
            return play_out(pos)
        while not pos.is_over:
            play_card(pos, random_policy(pos, legal_mask(pos), self.rng))
        return pos

    @property
    def ranking(self) -> str:
        return "match" if self.valuer is not None and self.valuer.active else "margin"

    def _worlds(self, per_world_cost: int, budget: int) -> int:
        return max(self.config.min_worlds, budget // max(1, per_world_cost))

    def _deal_budget(self, budget: int) -> int:
        """Budgets count playouts of a four-player deal (24 cards); a bigger table's deal is
        longer, so it gets fewer (and a two-player table more)."""
        return int(
            budget * (STANDARD_DEAL + PLAYOUT_OVERHEAD) / (6 * self.info.n + PLAYOUT_OVERHEAD)
        )

    def _sample(self) -> World:
        world = self.info.sample(self.rng)
        if self.config.inference > 0:
            world.weight = self.info.auction_weight(world, self.config.inference)
        if self.config.play_inference > 0 and self.info.phase == PLAY:
            world.weight *= self.info.play_weight(world, self.config.play_inference)
        return world

    def _record(self, acc: Acc, weight: float, pos: Position, bid: int | None = None) -> None:
        if bid is not None:
            pos.bid = bid
        score, points = outcome(pos)
        pitcher_side = self.kernel.side_of[pos.pitcher]
        win = (
            self.valuer.value(score, points, pitcher_side, pos.bid)
            if self.valuer is not None and self.valuer.active
            else None
        )
        acc.add(weight, score, points, pitcher_side, self.info.my_side, win)

    def _record_thrown_in(self, acc: Acc, weight: float) -> None:
        n = self.kernel.n_sides
        win = (
            self.valuer.thrown_in_value()
            if self.valuer is not None and self.valuer.active
            else None
        )
        acc.add(weight, [0] * n, (-1, -1, -1, -1), -1, self.info.my_side, win)

    # ------------------------------------------------------------------ card play
    def _base_position(self) -> Position:
        info = self.info
        return Position.from_observation(self.obs, [info.hand] * info.n)

    def _play(self, legal: list[str]) -> list[OptionEstimate]:
        info = self.info
        budget = self.budget if self.budget is not None else self.config.budget
        cards = [INDEX[c] for c in legal]
        accs = {c: Acc() for c in cards}
        base = self._base_position()
        # The budget counts full-deal playouts; later in the deal a playout is shorter, so the
        # same budget buys more worlds (and a decision takes about the same time throughout).
        remaining = sum(info.hand_sizes)
        scaled = budget * (STANDARD_DEAL + PLAYOUT_OVERHEAD) / (remaining + PLAYOUT_OVERHEAD)
        worlds = min(self.config.max_worlds, self._worlds(len(cards), int(scaled)))
        left = info.hand.bit_count()
        exact = left <= self.config.exact_tricks and self.config.exact_tricks > 0
        if exact:
            worlds = min(worlds, max(self.config.min_worlds, self.config.exact_worlds))
        for _ in range(worlds):
            world = self._sample()
            if world.weight <= 0:
                continue
            start = base.copy()
            start.hands = list(world.hands)
            if exact:
                results = endgame.solve_options(
                    start, cards, info.my_side, self.config.exact_max_nodes
                )
                if results is not None:
                    for c, pos in results.items():
                        self._record(accs[c], world.weight, pos)
                    continue
            for c in cards:
                pos = start.copy()
                play_card(pos, c)
                self.finish(pos)
                self._record(accs[c], world.weight, pos)
        return [
            accs[c].estimate(CODES[c], self.ranking, self._card_reason(CODES[c])) for c in cards
        ]

    def _card_reason(self, card: str) -> Callable[[OptionEstimate], str]:
        obs = self.obs
        trump = obs.trump

        def reason(est: OptionEstimate) -> str:
            parts = []
            if trump is None:
                parts.append(f"leads {card}, making {SUIT_NAMES[card[1]]} trump")
            return _summary(est, parts)

        return reason

    # ------------------------------------------------------------------ after the auction
    def _trump(self, legal: list[str]) -> list[OptionEstimate]:
        info = self.info
        budget = self.budget if self.budget is not None else self.config.bid_budget
        suits = [SUITS.index(s) for s in legal]
        accs = {s: Acc() for s in suits}
        worlds = self._worlds(len(suits), self._deal_budget(budget))
        for _ in range(worlds):
            world = self._sample()
            for s in suits:
                pos = start_position(
                    self.kernel, info.dealer, world.hands, world.stock, info.me, info.bid, suit=s
                )
                self.finish(pos)
                self._record(accs[s], world.weight, pos)
        return [
            accs[s].estimate(
                SUITS[s],
                self.ranking,
                _saying([f"names {SUIT_NAMES[SUITS[s]]} trump"]),
            )
            for s in suits
        ]

    def _discard_candidates(self, legal: list[str]) -> list[str]:
        """The discards worth searching when there are many: the eight cheapest by a rule of
        thumb, those asked for (``include``), the simulations' own heuristic discard, and
        keeping every card."""
        if len(legal) <= 10:
            return legal
        info = self.info
        keep = [token for _, token in sorted((self._discard_cost(t), t) for t in legal)[:8]]
        keep += [t for t in self.include if t in legal and t not in keep]
        heur = heuristic_discard(self.kernel, info.hand, info.trump, info.stock_size)
        for token in (discard_token([CODES[c] for c in bits(heur)]), discard_token([])):
            if token in legal and token not in keep:
                keep.append(token)
        return keep

    def _discard_cost(self, token: str) -> int:
        """What throwing these cards gives up, by a rule of thumb: throwing low non-trumps is
        cheap; throwing point cards (and, six players, trumps) costs."""
        cards = [INDEX[c] for c in parse_discard_token(token) or []]
        if self.kernel.discard_kind == "two":
            trump = self.info.trump
            return sum((200 if c // 13 == trump else 0) + GP[c] * 6 + c % 13 for c in cards)
        return sum(GP[c] * 3 + c % 13 - 6 for c in cards)

    def _discard(self, legal: list[str]) -> list[OptionEstimate]:
        info = self.info
        budget = self.budget if self.budget is not None else self.config.bid_budget
        options = self._discard_candidates(legal)
        accs = {t: Acc() for t in options}
        masks = {t: sum(1 << INDEX[c] for c in (parse_discard_token(t) or [])) for t in options}
        done = {info.seat_index[s] for s in self.obs.discard_counts}
        worlds = self._worlds(len(options), self._deal_budget(budget))
        for _ in range(worlds):
            world = self._sample()
            for t in options:
                pos = start_position(
                    self.kernel,
                    info.dealer,
                    world.hands,
                    world.stock,
                    info.pitcher,
                    info.bid,
                    suit=info.trump,
                    discarded_before=done,
                    me=info.me,
                    my_discard=masks[t],
                )
                self.finish(pos)
                self._record(accs[t], world.weight, pos)
        return [accs[t].estimate(t, self.ranking, _saying([_discard_words(t)])) for t in options]

    # ------------------------------------------------------------------ the auction
    def _auction(self, legal: list[str]) -> list[OptionEstimate]:
        budget = self.budget if self.budget is not None else self.config.bid_budget
        state0 = auction_model.AuctionState(self.kernel, self.info.dealer)
        for seat, token in self.info.calls:
            state0.apply_token(seat, token)
        my_suits = self._my_suits()
        options = self._auction_options(legal, my_suits)
        codes = {t: call_code(t) for t in options}
        # One accumulator per (option, suit) for the worlds where the seat ends up pitching.
        accs = {(t, s): Acc() for t in options for s in my_suits}
        # Worlds are sampled until the playouts (shared between calls that end the same way)
        # use up the budget.
        target = self._deal_budget(budget)
        playouts = worlds = 0
        while worlds < self.config.min_worlds or (
            playouts < target and worlds < self.config.max_worlds
        ):
            worlds += 1
            playouts += self._auction_world(state0, options, codes, my_suits, accs)
        return self._auction_estimates(options, codes, my_suits, accs)

    def _my_suits(self) -> list[int]:
        """The seat's candidate trump suits: its strongest held suits."""
        hand = self.info.hand
        suits = [
            s
            for s in sorted(range(4), key=lambda s: -suit_strength(hand, s))
            if hand & SUIT_MASK[s]
        ]
        return suits[: self.config.suits_considered]

    def _auction_options(self, legal: list[str], my_suits: list[int]) -> list[str]:
        """The calls to value: every legal call but pitches other than the top card of a
        candidate suit (or one asked for)."""
        options = list(legal)
        if not any(pitched_card(t) is not None for t in options):
            return options
        hand = self.info.hand
        tops = {pitch_token(CODES[(hand & SUIT_MASK[s]).bit_length() - 1]) for s in my_suits}
        return [t for t in options if pitched_card(t) is None or t in tops or t in self.include]

    def _auction_world(
        self,
        state0: auction_model.AuctionState,
        options: list[str],
        codes: dict[str, int],
        my_suits: list[int],
        accs: dict[tuple[str, int], Acc],
    ) -> int:
        """Every option valued in one sampled world: the call made, the rest of the auction by
        the model, the deal played out. Returns the playouts it took (calls that end the auction
        the same way share one)."""
        info = self.info
        world = self._sample()
        w = world.weight
        cache: dict[tuple[int, int, int], Position] = {}
        for t in options:
            st = state0.copy()
            st.apply(info.me, codes[t])
            auction_model.run_model_auction(st, world.hands)
            pitcher, bid, pitch = st.high_seat, st.high, st.pitch
            if pitcher < 0:
                for s in my_suits:
                    self._record_thrown_in(accs[(t, s)], w)
            elif pitcher == info.me:
                # The seat pitches: each candidate suit is played (a pitch fixes its own).
                for s in my_suits:
                    if pitch < 0 or pitch // 13 == s:
                        pos = self._played_out(cache, world, pitcher, bid, pitch, s)
                        self._record(accs[(t, s)], w, pos, bid)
            else:
                pos = self._played_out(cache, world, pitcher, bid, pitch, -1)
                for s in my_suits:
                    self._record(accs[(t, s)], w, pos, bid)
        return len(cache)

    def _played_out(
        self,
        cache: dict[tuple[int, int, int], Position],
        world: World,
        pitcher: int,
        bid: int,
        pitch: int,
        suit: int,
    ) -> Position:
        """The world played out once the auction ended this way (from the cache if it was)."""
        key = (pitcher, suit, pitch)
        pos = cache.get(key)
        if pos is None:
            info = self.info
            pos = start_position(
                self.kernel,
                info.dealer,
                world.hands,
                world.stock,
                pitcher,
                bid,
                pitch=pitch,
                suit=suit,
            )
            self.finish(pos)
            cache[key] = pos
        return pos

    def _auction_estimates(
        self,
        options: list[str],
        codes: dict[str, int],
        my_suits: list[int],
        accs: dict[tuple[str, int], Acc],
    ) -> list[OptionEstimate]:
        """Each call's estimate with the trump suit it does best with, the chances of making
        the bids made to agree."""
        ranking = self.ranking
        kept = {t: self._best_plan(t, my_suits, accs, ranking) for t in options}
        monotone_make_chances(
            [(codes[t], acc, s) for t, (acc, s) in kept.items() if pitched_card(t) is None]
        )
        results = []
        for t in options:
            best_acc, best_s = kept[t]
            words = []
            if best_acc.mine > 0 and t != PASS:
                words.append(f"plans {SUIT_NAMES[SUITS[best_s]]} as trump")
            results.append(
                best_acc.estimate(
                    t,
                    ranking,
                    _saying(words),
                    detail={"suit": SUITS[best_s]},
                )
            )
        return results

    @staticmethod
    def _best_plan(
        t: str, my_suits: list[int], accs: dict[tuple[str, int], Acc], ranking: str
    ) -> tuple[Acc, int]:
        """The accumulator and suit of call ``t``'s best trump plan (a pitch's own suit)."""
        suits = my_suits
        pitched = pitched_card(t)
        if pitched is not None:
            suits = [INDEX[pitched] // 13]
        candidates = [(accs[(t, s)], s) for s in suits if accs[(t, s)].n]
        if not candidates:
            candidates = [(accs[(t, my_suits[0])], my_suits[0])]
        return max(candidates, key=lambda a: a[0].estimate(t, ranking).value)


def monotone_make_chances(bids: list[tuple[int, Acc, int]]) -> None:
    """Make the chances of making one decision's bids agree: in the same trump suit a higher
    bid is never more likely made than a lower one.

    Every bid is valued on the same worlds, and a world's play does not depend on the bid, so
    a higher bid can only be harder to make; but each chance is conditional on winning the
    auction, and a higher bid wins it in more worlds, so the sampled chances can disagree by
    noise. Pooling adjacent violators (weighted by the worlds behind each chance) gives the
    closest non-increasing chances: the maximum-likelihood estimate under that order. Changes
    ``made`` in place (``mine`` keeps the weight). ``bids`` holds (call code, accumulator,
    planned suit); pass (code 0) is ignored.
    """
    by_suit: dict[int, list[tuple[int, Acc]]] = {}
    for code, acc, suit in bids:
        if code and acc.mine > 0:
            by_suit.setdefault(suit, []).append((code, acc))
    for group in by_suit.values():
        group.sort(key=lambda item: item[0])
        blocks: list[list[Any]] = []  # [made, mine, accumulators]
        for _, acc in group:
            blocks.append([acc.made, acc.mine, [acc]])
            while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] < blocks[-1][0] / blocks[-1][1]:
                made, mine, members = blocks.pop()
                blocks[-1][0] += made
                blocks[-1][1] += mine
                blocks[-1][2] += members
        for made, mine, members in blocks:
            for acc in members:
                acc.made = made / mine * acc.mine


def _discard_words(token: str) -> str:
    cards = parse_discard_token(token) or []
    if not cards:
        return "keeps every card"
    return "throws " + " ".join(cards)


def _saying(parts: list[str]) -> Callable[[OptionEstimate], str]:
    """An option's reason: ``parts``, then what its figures say (``_summary``)."""
    return lambda est: _summary(est, parts)


def _summary(est: OptionEstimate, parts: list[str]) -> str:
    bits_ = list(parts)
    if est.p_make is not None and est.p_contract > 0.5:
        bits_.append(f"makes the bid {est.p_make:.0%} of the time")
    elif est.p_set is not None and est.p_contract < 0.5 and est.p_thrown_in < 0.5:
        bits_.append(f"sets the bidder {est.p_set:.0%} of the time")
    likely = [
        name
        for name, p in (
            ("High", est.p_high),
            ("Low", est.p_low),
            ("Jack", est.p_jack),
            ("Game", est.p_game),
        )
        if p >= 0.6
    ]
    if likely:
        bits_.append("likely takes " + ", ".join(likely))
    text = f"expects {est.expected_points:+.2f} points"
    if est.p_win_match is not None:
        text += f", wins the match {est.p_win_match:.0%}"
    return text + ("; " + "; ".join(bits_) if bits_ else "")


def _unused() -> tuple[int, int]:  # keep linters quiet about helpers kept for later use
    return TENS, PITCH
