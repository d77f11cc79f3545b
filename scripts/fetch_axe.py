#!/usr/bin/env python3
"""Fetch axe-core, the accessibility checker the browser tests run in every page, and check it.

    python3 scripts/fetch_axe.py            # a no-op when the file is there and verified
    python3 scripts/fetch_axe.py --check    # verify only; never download (exit 1 if not ready)
    python3 scripts/fetch_axe.py --pin 4.14.1   # pin another version

Standard library only: `make test` calls it before anything is installed, as it does
scripts/fetch_pyodide.py. The version, the npm tarball's integrity (npm's own sha512) and the
sha256 of axe.min.js taken from it are pinned in tests/e2e/axe.json. The file goes to
var/axe/<version>/axe.min.js (git-ignored): only tests/e2e/test_accessibility.py loads it, the
site never serves it. The tarball is kept beside it so a rebuild needs no network;
AXE_TARBALL=PATH uses a tarball fetched by other means (checked against the same integrity).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # also when loaded by a test
from npm_tarball import FetchError, download, member, sha256  # noqa: E402
from npm_tarball import tarball as npm_tarball  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PINS_FILE = ROOT / "tests" / "e2e" / "axe.json"
CACHE_DIR = ROOT / "var" / "axe"
MEMBER = "axe.min.js"


def pins() -> dict:
    return json.loads(PINS_FILE.read_text(encoding="utf-8"))


def script_path(version: str) -> Path:
    """Where the checked axe.min.js of `version` is kept (the browser tests read it here)."""
    return CACHE_DIR / version / "axe.min.js"


def tarball(pinned: dict) -> bytes:
    """The pinned npm tarball: from AXE_TARBALL, the cache, or the registry; checked."""
    return npm_tarball(
        pinned,
        cache_dir=CACHE_DIR,
        given_by="AXE_TARBALL",
        pins_file=str(PINS_FILE.relative_to(ROOT)),
        tool="fetch_axe",
    )


def problem(pinned: dict) -> str | None:
    """Why the pinned axe.min.js is not ready to use (None when it is)."""
    path = script_path(pinned["version"])
    if not path.exists():
        return f"{path.relative_to(ROOT)} is missing"
    if sha256(path.read_bytes()) != pinned["sha256"]:
        return f"{path.relative_to(ROOT)}: sha256 is not the one pinned ({pinned['sha256']})"
    return None


def build(pinned: dict) -> None:
    content = member(tarball(pinned), MEMBER)
    if sha256(content) != pinned["sha256"]:
        raise FetchError(
            f"package/{MEMBER}: sha256 {sha256(content)}, but {PINS_FILE.relative_to(ROOT)} pins "
            f"{pinned['sha256']}"
        )
    path = script_path(pinned["version"])
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = path.with_suffix(".partial")
    staging.write_bytes(content)
    staging.replace(path)  # whole or not at all


def pin(version: str) -> None:
    """Rewrite the pins for `version`: its tarball and integrity from the npm registry, then the
    sha256 of axe.min.js, read from that tarball once its integrity is checked."""
    url = f"https://registry.npmjs.org/axe-core/{version}"
    dist = json.loads(download(url, timeout=60))["dist"]
    pinned = pins()
    pinned.update(version=version, tarball=dist["tarball"], integrity=dist["integrity"])
    pinned["sha256"] = sha256(member(tarball(pinned), MEMBER))
    PINS_FILE.write_text(json.dumps(pinned, indent=2) + "\n", encoding="utf-8")
    print(f"fetch_axe: pinned axe-core {version} in {PINS_FILE.relative_to(ROOT)}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="verify only; never download")
    parser.add_argument("--pin", metavar="VERSION", help="pin another version of axe-core")
    args = parser.parse_args(argv)
    try:
        if args.pin:
            pin(args.pin)
        pinned = pins()
        found = problem(pinned)
        if not found:
            return 0
        if args.check:
            raise FetchError(f"{found} (run scripts/fetch_axe.py)")
        print(f"fetch_axe: {found}: fetching axe-core {pinned['version']}", file=sys.stderr)
        build(pinned)
        still = problem(pinned)
        if still:
            raise FetchError(still)
        path = script_path(pinned["version"]).relative_to(ROOT)
        print(f"fetch_axe: axe-core {pinned['version']} in {path}", file=sys.stderr)
        return 0
    except FetchError as error:
        print(f"fetch_axe: error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
