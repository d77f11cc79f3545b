"""Phases, what a table waits on, and channel-layer events are types, not strings (issue 29):
no production module compares a phase or a waiting kind with a bare string, or writes an
event's type by hand; and every event a consumer can be sent has somewhere to go."""

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest

from games.core import events, hooks
from games.core.turns import WaitingFor
from games.engine.phases import Phase
from games.events.consumers import EventConsumer
from games.lobby.consumers import LobbyConsumer, PairingConsumer
from games.web.consumers import TableConsumer

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("games", "accounts", "setback_site")
# Where the words are defined, and the one place that reads the enum back from rows.
DEFINITIONS = {"games/engine/phases.py", "games/core/turns.py", "games/core/events.py"}
PHASE_WORDS = {p.value for p in Phase}
WAITING_WORDS = {k.value for k in WaitingFor}


def production_files():
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if "/migrations/" not in relative and relative not in DEFINITIONS:
                yield relative, ast.parse(path.read_text(), relative)


def _typed_words(node) -> set[str]:
    """The words a bare string compared with `node` would stand in for: a phase's for a
    `...phase`, a phase's or a waiting kind's for an attribute `.kind` (turn.kind, move.kind)."""
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    if name.endswith("phase"):
        return PHASE_WORDS
    if isinstance(node, ast.Attribute) and name == "kind":
        return PHASE_WORDS | WAITING_WORDS
    return set()


def test_no_phase_or_waiting_kind_is_compared_with_a_bare_string():
    found = []
    for relative, tree in production_files():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Compare):
                continue
            sides = [node.left, *node.comparators]
            typed = set().union(*(_typed_words(side) for side in sides))
            words = [s.value for s in sides if isinstance(s, ast.Constant) and s.value in typed]
            if words:
                found.append(f"{relative}:{node.lineno} compares with {words[0]!r}")
    assert not found, "\n".join(found)


def _import_everything():
    for package in PACKAGES:
        module = importlib.import_module(package)
        for info in pkgutil.walk_packages(module.__path__, prefix=f"{package}."):
            if ".migrations" not in info.name and not info.name.endswith("__main__"):
                importlib.import_module(info.name)


def test_no_event_type_is_written_by_hand_outside_its_class():
    _import_everything()
    types = set(events.known())
    assert {"table.changed", "coach.ready", "lobby.changed", "session.check"} <= types
    found = []
    for relative, tree in production_files():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                continue  # `class X(Event, type="...")`: the one place a type is written
            if isinstance(node, ast.Constant) and node.value in types:
                found.append(f"{relative}:{node.lineno} writes {node.value!r}")
    # A class's `type=` keyword is a keyword of the ClassDef, visited above only as a constant
    # below it: take those back out.
    defined = {
        f"{relative}:{keyword.value.lineno} writes {keyword.value.value!r}"
        for relative, tree in production_files()
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        for keyword in node.keywords
        if keyword.arg == "type" and isinstance(keyword.value, ast.Constant)
    }
    assert sorted(set(found) - defined) == []


def test_every_event_has_a_consumer_that_handles_it():
    _import_everything()
    consumers = (TableConsumer, LobbyConsumer, PairingConsumer, EventConsumer)
    unhandled = []
    for event_type, event_class in events.known().items():
        by_method = any(hasattr(c, event_class.handler_name()) for c in consumers)
        by_registry = hooks.table_socket_events.handler_for(event_type) is not None
        # Read by a relay: the lobby's (lobby/consumers.py); friends' and the bell's
        # (social/consumers.py).
        relayed = event_type in ("lobby.changed", "social.friend_changed", "social.bell_changed")
        answered = event_type == "worker.report"  # a reply to the test that asked (tasks.py)
        if not (by_method or by_registry or relayed or answered):
            unhandled.append(event_type)
    assert not unhandled


def test_a_misspelt_or_doubled_event_type_fails_at_once():
    with pytest.raises(TypeError, match="not of the form"):

        class Misspelt(events.Event, type="table-changed"):
            pass

    with pytest.raises(TypeError, match="two events"):

        class Twice(events.Event, type="table.changed"):
            pass
