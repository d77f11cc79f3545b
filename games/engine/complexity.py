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
        "the offline page) goes through it, with the per-deal work hoisted out of the loop and "
        "each trick's bookkeeping inline. The policy itself is not in it: it calls the policy's "
        "steps (_lead_card, _follow_card), which policy_card calls too; tests/engine/bots/"
        "test_search_parts.py requires play_out to play as policy_card at every turn. A call for "
        "the legal cards and one for the trick's end cost about 4% more per playout."
    ),
    "games/engine/bots/core.py::_follow_card": (
        "the policy's follow, once per simulated card that follows: the trick's winner so far is "
        "found inline (a call for it cost 2.5% of every playout, house rules, 31 interleaved "
        "rounds)."
    ),
}
