"""Every module of the site is in a layer of the import contract (issue 29: 25 modules were
in none, and imports between them went unchecked)."""

import pkgutil
import re
import tomllib
from pathlib import Path

import accounts
import games
import setback_site

ROOT = Path(__file__).resolve().parents[2]
# The root packages, and the core's and the web layer's packages: no code of their own, and every
# module is one of their descendants.
ROOTS = {"games", "accounts", "setback_site", "games.core", "games.web"}


def layer_modules() -> set[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    [site] = [
        c
        for c in config["tool"]["importlinter"]["contracts"]
        if c["type"] == "layers" and c["name"].startswith("Layers:")
    ]
    assert not site.get("ignore_imports"), "the site's layers have no exceptions"
    return {name for layer in site["layers"] for name in re.split(r"[:|]", layer) if name.strip()}


def site_modules():
    for package in (games, accounts, setback_site):
        yield package.__name__
        for info in pkgutil.walk_packages(package.__path__, prefix=f"{package.__name__}."):
            yield info.name


def test_every_module_of_the_site_is_in_a_layer():
    layers = {name.strip() for name in layer_modules()}
    outside = [
        module
        for module in site_modules()
        if module not in ROOTS
        and not any(module == name or module.startswith(name + ".") for name in layers)
    ]
    assert outside == []
