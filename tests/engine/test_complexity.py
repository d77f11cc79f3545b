"""Small functions: radon's cyclomatic complexity of every function (methods, nested functions
and the methods of nested classes included) stays within games.engine.complexity.LIMIT, except
the functions games.engine.complexity.EXEMPT lists with their reasons; and that list names only
functions that exist and are still over the limit."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from radon.complexity import cc_visit
from radon.visitors import Class, Function

from games.engine.complexity import EXEMPT, LIMIT

ROOT = Path(__file__).resolve().parents[2]
# What the gate reads: every module of the site (the engine, the web and the features), from the
# repository's root; Django's generated migrations aside.
CHECKED = ("games", "accounts", "setback_site")


def checked_files() -> list[Path]:
    files: list[Path] = []
    for name in CHECKED:
        path = ROOT / name
        files += sorted(p for p in path.rglob("*.py") if "migrations" not in p.parts)
    return files


def _blocks(items, prefix: str) -> Iterator[tuple[str, int]]:
    """(qualified name, complexity) of every function in radon's blocks, nested ones too."""
    for block in items:
        if isinstance(block, Class):
            yield from _blocks(block.methods, f"{prefix}{block.name}.")
            yield from _blocks(block.inner_classes, f"{prefix}{block.name}.")
        elif isinstance(block, Function):
            name = f"{prefix}{block.name}"
            yield name, block.complexity
            yield from _blocks(block.closures, f"{name}.")


def complexities() -> dict[str, int]:
    """``"path::qualified name" -> complexity`` for every function the gate reads."""
    found = {}
    for path in checked_files():
        # cc_visit lists a class's methods both under it and on their own: read the classes'.
        top = [b for b in cc_visit(path.read_text()) if not getattr(b, "is_method", False)]
        for name, complexity in _blocks(top, ""):
            found[f"{path.relative_to(ROOT).as_posix()}::{name}"] = complexity
    return found


def test_the_gate_reads_every_function():
    found = complexities()
    assert len(found) > 300
    assert "games/engine/bots/search.py::Search.evaluate" in found
    assert "games/engine/bots/worlds.py::Info._sample_flow.augment" in found  # a nested function
    assert "games/offline/worker.py::table_view" in found
    assert "games/core/presenters.py::table_view" in found  # the site, not only the engine
    assert "accounts/services.py::do_delete_account" in found


def test_no_function_branches_more_than_the_limit_unless_listed():
    over = {
        name: complexity
        for name, complexity in complexities().items()
        if complexity > LIMIT and name not in EXEMPT
    }
    assert not over, (
        f"over radon's cyclomatic complexity {LIMIT}, split into named steps (or, for a hot "
        "loop where a split costs measured speed, list it with why in "
        "games/engine/complexity.py):\n"
        + "\n".join(f"  {name}: {c}" for name, c in sorted(over.items(), key=lambda i: -i[1]))
    )


def test_every_exemption_is_still_needed():
    found = complexities()
    stale = [
        f"  {name}: "
        + (f"{found[name]}, within the limit" if name in found else "no such function")
        for name in EXEMPT
        if found.get(name, 0) <= LIMIT
    ]
    assert not stale, "games/engine/complexity.py lists what needs no exemption:\n" + "\n".join(
        stale
    )


def test_every_exemption_says_why():
    for name, reason in EXEMPT.items():
        assert "::" in name and len(reason) > 40, name
