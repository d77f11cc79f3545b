"""The browser runs the same engine: fixed-seed matches give the same moves under Pyodide as here.

The offline page's bots decide in the browser (Pyodide, CPython 3.14 in WebAssembly), and the
server decides every bot move of a deal that comes home again (CPython 3.11): an upload is
accepted only if both agree. This test plays fixed-seed matches through the page's own worker
API (games/offline/worker.py) natively and under Pyodide in Node, from the engine's wheel and the
trimmed standard library the page is served, and requires the same actions and the same coach's
rankings and figures. A bot change that makes the two disagree (say, an order that depends on the
interpreter) fails here before it refuses real players' deals.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from games.offline import wheel

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
PROGRAM = HERE / "offline_determinism_program.py"
RUNNER = HERE / "pyodide_runner.mjs"
NODE = shutil.which("node")
# CI installs Node (.ci/run), so there a missing one is a broken machine, not a skip.
UNDER_CI = bool(os.environ.get("SETBACK_CI"))


def runtime_folder() -> Path:
    pins = json.loads((ROOT / "games" / "offline" / "runtime.json").read_text())
    return ROOT / "static" / "vendor" / "pyodide" / pins["version"]


def first_difference(native: list, pyodide: list) -> str:
    for ours, theirs in zip(native, pyodide, strict=True):
        for key in ("actions", "coach", "totals"):
            if ours[key] != theirs[key]:
                where = f"{ours['rules']} at {ours['level']}, seed {ours['seed']}"
                return f"{where}: {key} differ\n  native:  {ours[key]}\n  pyodide: {theirs[key]}"
    return "the outputs differ"


@pytest.mark.skipif(
    NODE is None and not UNDER_CI, reason="needs Node (Debian's nodejs) to run Pyodide here"
)
def test_fixed_seed_matches_play_the_same_natively_and_under_pyodide(tmp_path):
    assert NODE, "CI runs this test: install Debian's nodejs (.ci/run does)"
    folder = runtime_folder()
    assert (folder / "MANIFEST.json").exists(), (
        f"the Pyodide runtime is not in {folder.relative_to(ROOT)}: run scripts/fetch_pyodide.py "
        "(make test does)"
    )
    built = wheel.build()
    wheel_file = tmp_path / built.filename
    wheel_file.write_bytes(built.data)

    # Both at once: the native run is the shorter, and the two share nothing.
    with subprocess.Popen(
        [sys.executable, str(PROGRAM)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    ) as native:  # killed on the way out if the Pyodide run fails first
        try:
            under_pyodide = subprocess.run(
                [NODE, str(RUNNER), str(folder), str(wheel_file), str(PROGRAM), "--snapshot"],
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=900,
            )
            native_output, _ = native.communicate(timeout=600)
        finally:
            native.kill()
    assert native.returncode == 0
    assert under_pyodide.returncode == 0, under_pyodide.stderr[-3000:]

    ours = json.loads(native_output)
    theirs = json.loads(under_pyodide.stdout)
    assert sum(len(deal) for game in ours for deal in game["actions"]) > 100
    assert ours == theirs, first_difference(ours, theirs)
