"""The functions allowed to branch more than the rest, each with why: the one list (all of them
the engine's).

Every function of the site (``games``, ``accounts``, ``setback_site``) keeps radon's cyclomatic
complexity at ``LIMIT`` or below; radon, unlike ruff's C901,
also counts conditional expressions and ``and``/``or``. A larger function is split into a
handful of named steps. The exceptions are hot loops written inline on purpose, where a call
per step costs measurable speed, each beside a readable twin that a test keeps equal to it.
``tests/engine/test_complexity.py`` is the gate: it names any function over the limit that is
not listed here, and any listed one that is gone or no longer over the limit (so the list
never goes stale).
"""

from __future__ import annotations

LIMIT = 15

# "path::qualified name" (a method is Class.method) -> why it stays in one piece.
EXEMPT: dict[str, str] = {
    "games/engine/bots/core.py::play_out": (
        "the bots' inner loop: every simulated card of every search (medium, hard, the coach, "
        "the offline page) goes through it, with the per-deal work hoisted out of the loop. "
        "Its readable twin is policy_card, in named steps, and tests/engine/bots/"
        "test_search_parts.py requires both to play the same cards. Split into steps (the same "
        "hoisting, a call for the lead, the follow and its parts) a playout took 2% longer on "
        "CPython 3.11 (median of 41 interleaved rounds; 5% by the best round) and 2-3% longer "
        "under Pyodide, and bench-bots' hard card decisions 1.6% longer (house, 20 deals played "
        "both ways); calling policy_card at every turn takes 26% longer per playout."
    ),
    "games/engine/fast.py::_score_any_sides": (
        "the fast kernel: scores every simulated deal at a table of three or more sides (every "
        "playout of the search, every leaf of the solver) inline; tests/engine/test_fast.py "
        "compares it with the engine's scoring."
    ),
    "games/engine/fast.py::_random_auction": (
        "the fast kernel: the random auction of each random deal it plays whole (python -m "
        "games.engine bench, random_start) with the preset's options inline; its pitch-free "
        "twin _random_bids draws alike (a test checks it), and test_fast.py compares the deals "
        "with the engine's."
    ),
}
