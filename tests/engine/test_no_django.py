"""The engine is pure Python: importing every module of it loads no Django."""

import pkgutil
import subprocess
import sys
from pathlib import Path

import games.engine

ROOT = Path(__file__).resolve().parents[2]


def test_every_engine_module_imports_without_django():
    modules = ["games.engine"] + [
        m.name for m in pkgutil.walk_packages(games.engine.__path__, prefix="games.engine.")
    ]
    assert "games.engine.fast" in modules and "games.engine.deal" in modules
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.'))\n"
        "assert not bad, bad\n"
        "print('ok')\n"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
