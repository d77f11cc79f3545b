"""Golden figures: what the engine answered when they were recorded, kept in a JSON file beside
the tests, so that a change meant to keep behaviour (a function split into steps, say) is
checked against the code as it was, not against what the new code says of itself.

A test computes its figures and calls :func:`check`. With ``SETBACK_RECORD_GOLDEN=1`` in the
environment the figures are written instead (and the test passes): do that only for a change
that is meant to change what the engine does, and say so in its commit.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "fixtures"
RECORDING = os.environ.get("SETBACK_RECORD_GOLDEN") == "1"


def digest(value: Any) -> str:
    """A short fingerprint of a JSON-able value (floats by their exact repr)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _path(name: str) -> Path:
    return FIXTURES / f"{name}.json"


def _load(name: str) -> dict[str, Any]:
    path = _path(name)
    return json.loads(path.read_text()) if path.exists() else {}


def check(name: str, key: str, value: Any) -> None:
    """``value`` must equal what ``name``'s fixture holds under ``key`` (JSON round trip)."""
    value = json.loads(json.dumps(value))
    if RECORDING:
        stored = _load(name)
        stored[key] = value
        FIXTURES.mkdir(exist_ok=True)
        _path(name).write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n")
        return
    stored = _load(name)
    assert key in stored, (
        f"{key} is not in {_path(name).name}: record it with SETBACK_RECORD_GOLDEN=1 (see golden.py)"
    )
    expected = stored[key]
    if isinstance(expected, list) and isinstance(value, list):
        for i, (was, now) in enumerate(zip(expected, value, strict=False)):
            assert now == was, f"{key}[{i}] changed:\n  was: {was}\n  now: {now}"
    assert value == expected, f"{key} changed"
