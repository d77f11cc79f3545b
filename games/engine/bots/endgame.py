"""Exact play of the last tricks of a determinized deal (every hand known).

Two sides: alpha-beta minimax on the observer's side's deal margin. Three or more: each seat
maximizes its own side's margin over the others' mean (max-n). Leaves are scored by the kernel
(:func:`games.engine.fast.outcome`). Used by the search when few tricks are left; it gives up
(returns None) beyond ``max_nodes``.
"""

from __future__ import annotations

from ..fast import SUIT_MASK, Position, legal_bits, outcome
from .core import step


class _TooBig(Exception):
    pass


def _legal(pos: Position) -> int:
    kernel = pos.kernel
    seat = (pos.leader + len(pos.trick)) % kernel.n
    hand = pos.hands[seat]
    if not pos.trick:
        return hand
    return legal_bits(
        kernel, hand, SUIT_MASK[pos.trick[0] // 13], SUIT_MASK[pos.trump], pos.tricks_played
    )


def _ab(
    pos: Position, my_side: int, alpha: float, beta: float, counter: list[int], limit: int
) -> tuple[float, Position]:
    """(margin of my_side, final position) under alpha-beta, two sides."""
    if not pos.trick and not any(pos.hands):
        score, _ = outcome(pos)
        return score[my_side] - score[1 - my_side], pos
    counter[0] += 1
    if counter[0] > limit:
        raise _TooBig
    kernel = pos.kernel
    seat = (pos.leader + len(pos.trick)) % kernel.n
    maximize = kernel.side_of[seat] == my_side
    legal = _legal(pos)
    best_final: Position | None = None
    best = -1e9 if maximize else 1e9
    while legal:
        b = legal & -legal
        legal ^= b
        child = pos.copy()
        step(child, b.bit_length() - 1)
        value, final = _ab(child, my_side, alpha, beta, counter, limit)
        if maximize:
            if value > best:
                best, best_final = value, final
            if best > alpha:
                alpha = best
        else:
            if value < best:
                best, best_final = value, final
            if best < beta:
                beta = best
        if alpha >= beta:
            break
    assert best_final is not None  # the seat to act always has a card to play
    return best, best_final


def _maxn(pos: Position, counter: list[int], limit: int) -> tuple[list[int], Position]:
    """(score per side, final position) where each seat maximizes its side's margin."""
    if not pos.trick and not any(pos.hands):
        score, _ = outcome(pos)
        return score, pos
    counter[0] += 1
    if counter[0] > limit:
        raise _TooBig
    kernel = pos.kernel
    side = kernel.side_of[(pos.leader + len(pos.trick)) % kernel.n]
    legal = _legal(pos)
    best: tuple[list[int], Position] | None = None
    best_key = None
    while legal:
        b = legal & -legal
        legal ^= b
        child = pos.copy()
        step(child, b.bit_length() - 1)
        score, final = _maxn(child, counter, limit)
        mine = score[side]
        key = mine - (sum(score) - mine) / (len(score) - 1)
        if best_key is None or key > best_key:
            best_key, best = key, (score, final)
    assert best is not None  # the seat to act always has a card to play
    return best


def solve_options(
    start: Position, cards: list[int], my_side: int, max_nodes: int = 4000
) -> dict[int, Position] | None:
    """For each of the seat's ``cards``: the final position of exact play after it, or None
    if the tree is bigger than ``max_nodes``."""
    counter = [0]
    results = {}
    two = start.kernel.n_sides == 2
    try:
        for c in cards:
            pos = start.copy()
            step(pos, c)
            if two:
                _, final = _ab(pos, my_side, -1e9, 1e9, counter, max_nodes)
            else:
                _, final = _maxn(pos, counter, max_nodes)
            results[c] = final
    except _TooBig:
        return None
    return results
