"""User names that cannot pass for someone else's.

Two names "look alike" when they have the same skeleton: each character (after Unicode's NFKC
normalisation; case is ignored too) replaced by one fixed member of its class of confusable
characters, as Unicode's confusables table (UTS #39) lists them; the table comes from the
confusable-homoglyphs library. So a Cyrillic "с" in "alice", or a capital "I" for an "l",
gives the skeleton of "alice". A name mixing scripts (Latin with Cyrillic or Greek, say) is
refused outright: nobody needs one, and it is how most lookalikes are made.
"""

import unicodedata
from functools import lru_cache

from confusable_homoglyphs import confusables


@lru_cache(maxsize=1)
def _classes() -> dict[str, str]:
    """Every confusable character -> the representative of its class. The table lists, for a
    character, the ones it can be taken for; joined up (union-find), those lists make classes,
    and the lowest code point of a class stands for all of it."""
    parent: dict[str, str] = {}

    def root(ch: str) -> str:
        while parent.setdefault(ch, ch) != ch:
            parent[ch] = parent[parent[ch]]
            ch = parent[ch]
        return ch

    for ch, glyphs in confusables.confusables_data.items():
        if len(ch) != 1:
            continue
        for glyph in glyphs:
            if len(glyph["c"]) == 1:
                a, b = root(ch), root(glyph["c"])
                if a != b:
                    parent[max(a, b, key=ord)] = min(a, b, key=ord)
    return {ch: root(ch) for ch in parent}


def _representative(ch: str) -> str:
    return _classes().get(ch, ch)


def _mapped(text: str) -> str:
    return "".join(_representative(ch) for ch in text)


def skeleton(name: str) -> str:
    # Mapped before case folding too, so a capital I is caught as an l, as Unicode's skeleton does.
    return _mapped(_mapped(unicodedata.normalize("NFKC", name)).casefold())


def lookalike_problem(name: str, existing_names) -> str | None:
    """Why `name` may not be taken (a sentence for the sign-up form), or None."""
    if confusables.is_mixed_script(name):
        return "Use letters of one alphabet only: this name mixes scripts (for example Latin and Cyrillic)."
    mine = skeleton(name)
    for other in existing_names:
        if skeleton(other) == mine:
            return "This name looks too much like an existing player's name; choose another."
    return None
