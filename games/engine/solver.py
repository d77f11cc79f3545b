"""All cards face up: the exact value of every legal card when every hand is known.

``analyse(deal)`` takes a readable :class:`~games.engine.deal.Deal` in its play phase and, for
each card the seat to act may play, plays the rest of the deal perfectly for every seat and
reports what each side then takes: points (High, Low, Jack, Game), the deal's score and whether
the bid is made. "Perfectly" means, with two sides, that each side maximizes its own deal score
minus the other's (a zero-sum game, solved by alpha-beta); with three or more sides every seat
maximizes its own side's score minus the others' mean (max-n, as in ``bots.endgame``).

The search runs on the fast kernel's bitmasks (``fast.py``) and scores every finished line with
the kernel's own scoring, so it can never disagree with the engine about a point. To stay
exact and cheap it

- remembers positions at trick boundaries (a transposition table keyed by the hands, the
  leader, and the part of the captured cards that can still matter: the game-point difference,
  who holds the High, Low and Jack cards, and for a smudge whether the defence took a card);
- tries one card of each run of equivalent cards (same suit, no live card between them, the
  same game points, none of them High, Low or Jack);
- gives up with :class:`TooLarge` past ``max_nodes`` visited nodes, so a caller can say from
  which trick on the figures are exact rather than show a guess as exact.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .cards import CODES
from .deal import Deal
from .fast import GAME_POINTS_13, JACKS, SUIT_MASK, Position, Score, legal_bits
from .phases import PLAY
from .rules import SMUDGE
from .scoring import POINT_NAMES

DEFAULT_MAX_NODES = 400_000
_GP = tuple(GAME_POINTS_13[1 << (c % 13)] for c in range(52))
_INF = 10**6

# A trick-start position as the search tables know it (_Solver.key).
Key = tuple[tuple[int, ...], int, int, tuple[int, ...], tuple[int, ...], bool]
# What undoing a card needs: its seat, whether it set trump, and the trick it finished if any
# (leader, cards, the side that took it, its game points, its cards as a mask).
Undo = tuple[int, bool, tuple[int, list[int], int, int, int] | None]


class TooLarge(Exception):
    """The position needs more than the allowed number of nodes."""


@dataclass(frozen=True)
class Line:
    """What one choice leads to under perfect play: per side, the points taken and the score."""

    card: str
    points: dict[str, int]  # side -> number of points taken (High, Low, Jack, Game)
    takers: dict[str, str | None]  # point name -> side, or None for nobody
    score: dict[str, int]  # side -> the deal's score change
    made: bool  # the pitcher's side makes its bid
    best: bool = False  # as good as any other choice for the side to act


@dataclass(frozen=True)
class Analysis:
    """Every legal choice of the seat to act, valued face up."""

    seat: str
    lines: list[Line]  # in the order of the seat's legal cards
    nodes: int  # positions searched (the cost)

    def line(self, card: str) -> Line | None:
        return next((line for line in self.lines if line.card == card), None)


def analyse(deal: Deal, max_nodes: int = DEFAULT_MAX_NODES) -> Analysis:
    """Value every legal card of the seat to act in ``deal`` (play phase). Raises
    :class:`TooLarge` if the search would visit more than ``max_nodes`` positions and
    ``ValueError`` if the deal is not in its play phase."""
    if deal.phase != PLAY:
        raise ValueError(f"the deal is in its {deal.phase} phase, not play")
    pos = Position.from_deal(deal)
    rules = deal.rules
    solver = _Solver(pos, max_nodes)
    seat_i = pos.to_act
    side = solver.side_of[seat_i]
    lines = []
    for card in _bits(solver.legal()):
        score, took = solver.value_of(card)
        lines.append((card, score, took))
    keys = [solver.preference(side, score) for _, score, _ in lines]
    best_key = max(keys)
    pitcher_side = solver.side_of[pos.pitcher]
    result = []
    for (card, score, took), key in zip(lines, keys, strict=True):
        takers = {
            name: (rules.sides[s] if s >= 0 else None)
            for name, s in zip(POINT_NAMES, took, strict=True)
        }
        points = dict.fromkeys(rules.sides, 0)
        for s in took:
            if s >= 0:
                points[rules.sides[s]] += 1
        result.append(
            Line(
                card=CODES[card],
                points=points,
                takers=takers,
                score={rules.sides[s]: v for s, v in enumerate(score)},
                made=score[pitcher_side] > 0,
                best=key == best_key,
            )
        )
    order = {code: i for i, code in enumerate(deal.hand(rules.seats[seat_i]))}
    result.sort(key=lambda line: order.get(line.card, 99))
    return Analysis(seat=rules.seats[seat_i], lines=result, nodes=solver.nodes)


def solve(pos: Position, max_nodes: int = DEFAULT_MAX_NODES) -> Score:
    """``(score per side, (high, low, jack, game))`` of ``pos`` under perfect play (the
    kernel's :func:`~games.engine.fast.outcome` of the line played). ``pos`` is not changed."""
    solver = _Solver(pos, max_nodes)
    return solver.root_value()


def _bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class _Solver:
    """The search state, changed and restored in place as cards are tried."""

    def __init__(self, pos: Position, max_nodes: int) -> None:
        kernel = pos.kernel
        self.kernel = kernel
        self.n = kernel.n
        self.side_of = kernel.side_of
        self.n_sides = kernel.n_sides
        self.hands = list(pos.hands)
        self.trick = list(pos.trick)
        self.leader = pos.leader
        self.trump = pos.trump
        self.tricks_played = pos.tricks_played
        self.taken = list(pos.taken)
        self.pitcher_side = kernel.side_of[pos.pitcher]
        self.bid = pos.bid
        self.smudge = pos.bid == SMUDGE
        self.max_nodes = max_nodes
        self.nodes = 0
        # Two-sided search: a trick-start position's bounds (lower, upper) and, when exact, its
        # outcome; max-n: its outcome.
        self.bounds: dict[Key, tuple[int, int, Score | None]] = {}
        self.solved: dict[Key, Score] = {}
        self.history = [0] * 52
        # Every card in play, now and at the end: held, on the table or captured.
        in_play = 0
        for h in self.hands:
            in_play |= h
        for c in self.trick:
            in_play |= 1 << c
        for t in self.taken:
            in_play |= t
        self.in_play = in_play
        held = None
        if kernel.low_to_holder:
            held = list(pos.played)
            for seat, h in enumerate(self.hands):
                held[self.side_of[seat]] |= h
        self.held = held
        self.gp = [sum(_GP[c] for c in _bits(t)) for t in self.taken]
        self._set_trump(self.trump)

    def _set_trump(self, trump: int) -> None:
        self.trump = trump
        self.trump_mask = SUIT_MASK[trump] if trump >= 0 else 0
        special = 0
        trumps = self.in_play & self.trump_mask
        if trumps:
            special = (1 << (trumps.bit_length() - 1)) | (trumps & -trumps) | (trumps & JACKS)
        self.special = special

    # -- the rules, on the search state
    def legal(self) -> int:
        seat = (self.leader + len(self.trick)) % self.n
        hand = self.hands[seat]
        if not self.trick:
            return hand
        return legal_bits(
            self.kernel, hand, SUIT_MASK[self.trick[0] // 13], self.trump_mask, self.tricks_played
        )

    def _representatives(self, legal: int) -> int:
        """One card of each run of equivalent legal cards (the lowest of the run)."""
        if self.trump < 0:
            return legal  # the opening lead sets trump: any card may be High, Low or Jack
        live = self.in_play_now()
        special = self.special
        keep = 0
        previous = -1
        for c in _bits(legal):
            if (
                previous >= 0
                and previous // 13 == c // 13
                and not (live >> (previous + 1)) & ((1 << (c - previous - 1)) - 1)
                and _GP[c] == _GP[previous]
                and not (special >> c) & 1
                and not (special >> previous) & 1
            ):
                previous = c  # the same as the run's first card, already kept
                continue
            keep |= 1 << c
            previous = c
        return keep

    def in_play_now(self) -> int:
        live = 0
        for h in self.hands:
            live |= h
        for c in self.trick:
            live |= 1 << c
        return live

    def play(self, card: int) -> Undo:
        """Play ``card`` for the seat to act; returns what :meth:`undo` needs."""
        seat = (self.leader + len(self.trick)) % self.n
        self.hands[seat] ^= 1 << card
        set_trump = not self.trick and self.trump < 0
        if set_trump:
            self._set_trump(card // 13)
        self.trick.append(card)
        if len(self.trick) < self.n:
            return (seat, set_trump, None)
        trick = self.trick
        mask = 0
        gp = 0
        for c in trick:
            mask |= 1 << c
            gp += _GP[c]
        # The top trump wins, else the top card of the suit led (a higher card is a higher bit).
        w = mask & self.trump_mask or mask & SUIT_MASK[trick[0] // 13]
        winner = (self.leader + trick.index(w.bit_length() - 1)) % self.n
        side = self.side_of[winner]
        undo = (seat, set_trump, (self.leader, trick, side, gp, mask))
        self.taken[side] |= mask
        self.gp[side] += gp
        self.leader = winner
        self.trick = []
        self.tricks_played += 1
        return undo

    def undo(self, card: int, info: Undo) -> None:
        seat, set_trump, finished = info
        if finished is not None:
            leader, trick, side, gp, mask = finished
            self.taken[side] ^= mask
            self.gp[side] -= gp
            self.leader = leader
            self.trick = trick
            self.tricks_played -= 1
        self.trick.pop()
        if set_trump:
            self._set_trump(-1)
        self.hands[seat] ^= 1 << card

    def outcome(self) -> Score:
        return self.kernel.score(
            self.kernel, self.trump_mask, self.taken, self.held, self.pitcher_side, self.bid
        )

    def key(self) -> Key:
        # The captured cards matter only through what they can still change.
        taken = self.taken
        defence_took = (
            any(taken[s] for s in range(self.n_sides) if s != self.pitcher_side)
            if self.smudge
            else False
        )
        return (
            tuple(self.hands),
            self.leader,
            self.trump,
            tuple(self.gp[s] - self.gp[0] for s in range(1, self.n_sides)),
            tuple(t & self.special for t in taken),
            defence_took,
        )

    def preference(self, side: int, score: Sequence[int]) -> float:
        """How much ``side`` likes a final score: its own minus the others' mean."""
        if self.n_sides == 2:
            return score[side] - score[1 - side]
        mine = score[side]
        return mine - (sum(score) - mine) / (self.n_sides - 1)

    # -- the searches
    def value_of(self, card: int) -> Score:
        info = self.play(card)
        value = self.root_value()
        # Not in a `finally`: TooLarge leaves the cards below this one played, and undoing this
        # one on top of them broke the search's state (an IndexError in place of TooLarge).
        # A solver that gave up is not used again.
        self.undo(card, info)
        return value

    def root_value(self) -> Score:
        if self.n_sides == 2:
            _, line = self._alphabeta(-_INF, _INF)
            assert line is not None  # the full window always holds the value
            return line
        return self._maxn()

    def _last_trick(self) -> Score:
        """Every hand holds one card: the last trick plays itself."""
        cards = []
        seat = self.leader
        for _ in range(self.n):
            cards.append(self.hands[seat].bit_length() - 1)
            seat = (seat + 1) % self.n
        infos = []
        for card in cards:
            infos.append(self.play(card))
        out = self.outcome()
        for card, info in zip(reversed(cards), reversed(infos), strict=True):
            self.undo(card, info)
        return out

    def _count(self) -> None:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise TooLarge(self.nodes)

    def _ordered(self, legal: int) -> list[int]:
        """One card of each equivalent run, those that cut the search off most often first."""
        cards = list(_bits(self._representatives(legal)))
        if len(cards) > 1:
            # Cards that cut the search off before come first (the history heuristic).
            history = self.history
            cards.sort(key=lambda c: (history[c], c % 13), reverse=True)
        return cards

    def _alphabeta(self, alpha: int, beta: int) -> tuple[int, Score | None]:
        """Fail-soft alpha-beta on side 0's margin: ``(value, outcome)``. The outcome is that of
        the line played when the value lies strictly inside the window (else only a bound)."""
        key = None
        if not self.trick:
            key, known = self._at_trick_start(alpha, beta)
            if known is not None:
                return known
        self._count()
        seat = (self.leader + len(self.trick)) % self.n
        maximize = self.side_of[seat] == 0
        alpha0, beta0 = alpha, beta
        best = -_INF if maximize else _INF
        best_out = None
        for card in self._ordered(self.legal()):
            info = self.play(card)
            value, out = self._alphabeta(alpha, beta)
            self.undo(card, info)
            if maximize:
                if value > best:
                    best, best_out = value, out
                    if best > alpha:
                        alpha = best
            else:
                if value < best:
                    best, best_out = value, out
                    if best < beta:
                        beta = best
            if alpha >= beta:
                self.history[card] += 1 << (2 * self.hands[seat].bit_count())
                break
        if key is not None:
            self._remember(key, best, best_out, alpha0, beta0)
        return best, best_out

    def _at_trick_start(
        self, alpha: int, beta: int
    ) -> tuple[Key | None, tuple[int, Score | None] | None]:
        """At a trick boundary: ``(key, answer)``, the position's key in the table and its
        answer if it needs no search (the deal is over, the last trick plays itself, or the
        table holds an exact value or a bound outside the window); else the answer is None."""
        hands = self.hands
        if not any(hands):
            out = self.outcome()
            return None, (out[0][0] - out[0][1], out)
        if not hands[self.leader] & (hands[self.leader] - 1):
            out = self._last_trick()
            return None, (out[0][0] - out[0][1], out)
        key = self.key()
        entry = self.bounds.get(key)
        if entry is not None:
            lower, upper, exact = entry
            if exact is not None:
                return key, (lower, exact)
            if lower >= beta:
                return key, (lower, None)
            if upper <= alpha:
                return key, (upper, None)
        return key, None

    def _remember(
        self, key: Key, best: int, best_out: Score | None, alpha0: int, beta0: int
    ) -> None:
        """Keep what the search of a trick-start position found: a bound, or its exact value."""
        lower, upper, stored = self.bounds.get(key, (-_INF, _INF, None))
        stored = None
        if best <= alpha0:
            upper = min(upper, best)
        elif best >= beta0:
            lower = max(lower, best)
        else:
            lower = upper = best
            stored = best_out
        # An outcome only with an exact value found here: bounds met from two searches
        # carry no line.
        self.bounds[key] = (lower, upper, stored)

    def _maxn(self) -> Score:
        """Max-n: every seat picks the line best for its side; ties keep the first card."""
        trick = self.trick
        key = None
        if not trick:
            if not any(self.hands):
                return self.outcome()
            if not self.hands[self.leader] & (self.hands[self.leader] - 1):
                return self._last_trick()
            key = self.key()
            known = self.solved.get(key)
            if known is not None:
                return known
        self._count()
        seat = (self.leader + len(trick)) % self.n
        side = self.side_of[seat]
        best: Score | None = None
        best_key = None
        for card in self._ordered(self.legal()):
            info = self.play(card)
            out = self._maxn()
            self.undo(card, info)
            value = self.preference(side, out[0])
            if best_key is None or value > best_key:
                best_key, best = value, out
        assert best is not None  # the seat to act always has a card to play
        if key is not None:
            self.solved[key] = best
        return best


@dataclass(frozen=True)
class StepAnalysis:
    """A step of a finished deal valued face up, or, when it is too large, from which trick on
    the deal's figures are exact."""

    seat: str  # the seat to act
    analysis: Analysis | None
    seconds: float  # CPU seconds the search took
    exact_from_trick: int | None = None  # too large: the first later trick solved exactly
    deal_exact_from_trick: int | None = None  # the same for the whole deal (kept by the caller)


def deal_at(final: Deal, step: int) -> Deal:
    """The deal ``final`` as it stood after its first ``step`` actions."""
    state = final.as_dealt()
    for seat, token in final.history[:step]:
        state.apply(token, seat)
    return state


def analyse_step(
    final: Deal,
    step: int,
    max_nodes: int = DEFAULT_MAX_NODES,
    deal_exact_from_trick: int | None = None,
) -> StepAnalysis:
    """Value step ``step`` of the finished deal ``final`` (its seat to act must be playing a
    card). When it is too large, say from which later trick on the figures are exact: that
    trick depends only on the deal, so a caller who already knows it for this deal
    (``deal_exact_from_trick``, from an earlier step's answer) spares the search for it."""
    started = time.process_time()
    position = deal_at(final, step)
    try:
        analysis = analyse(position, max_nodes=max_nodes)
        return StepAnalysis(analysis.seat, analysis, time.process_time() - started)
    except TooLarge:
        pass
    seat = position.to_act
    assert seat is not None  # the search ran out of nodes, so a seat was playing
    starts = _trick_starts(final)
    if deal_exact_from_trick is None:
        deal_exact_from_trick = _first_exact_trick(final, starts, max_nodes)
    later = [(sequence, trick) for sequence, trick in starts if sequence > step]
    exact_from = None
    if deal_exact_from_trick is not None and later:
        exact_from = max(deal_exact_from_trick, later[0][1])
    return StepAnalysis(
        seat, None, time.process_time() - started, exact_from, deal_exact_from_trick
    )


def _trick_starts(final: Deal) -> list[tuple[int, int]]:
    """(step, trick number from 1) of each trick's opening lead in ``final``."""
    starts = []
    state = deal_at(final, 0)
    for sequence, (seat, token) in enumerate(final.history):
        if state.phase == PLAY and not state.current_trick:
            starts.append((sequence, len(state.tricks) + 1))
        state.apply(token, seat)
    return starts


def _first_exact_trick(
    final: Deal, starts: Sequence[tuple[int, int]], max_nodes: int
) -> int | None:
    """The first trick from whose opening lead on every trick solves within ``max_nodes``.
    Tried from the last trick backwards, so only one position fails (at the cost of the node
    limit) however many tricks are too large."""
    exact_from = None
    for sequence, trick in reversed(starts):
        try:
            analyse(deal_at(final, sequence), max_nodes=max_nodes)
        except TooLarge:
            break
        exact_from = trick
    return exact_from


__all__ = [
    "Analysis",
    "DEFAULT_MAX_NODES",
    "Line",
    "StepAnalysis",
    "TooLarge",
    "analyse",
    "analyse_step",
    "deal_at",
    "solve",
]
