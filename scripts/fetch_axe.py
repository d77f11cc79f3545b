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
import base64
import hashlib
import io
import json
import os
import sys
import tarfile
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PINS_FILE = ROOT / "tests" / "e2e" / "axe.json"
CACHE_DIR = ROOT / "var" / "axe"
MEMBER = "package/axe.min.js"


class FetchError(Exception):
    """Something is wrong with a file; the message names it."""


def pins() -> dict:
    return json.loads(PINS_FILE.read_text(encoding="utf-8"))


def script_path(version: str) -> Path:
    """Where the checked axe.min.js of `version` is kept (the browser tests read it here)."""
    return CACHE_DIR / version / "axe.min.js"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _integrity_ok(data: bytes, integrity: str) -> bool:
    algorithm, _, expected = integrity.partition("-")
    return base64.b64encode(hashlib.new(algorithm, data).digest()).decode() == expected


def _download(url: str, timeout: int) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.read()
    except OSError as error:
        raise FetchError(f"could not download {url} ({error})") from None


def tarball(pinned: dict) -> bytes:
    """The pinned npm tarball: from AXE_TARBALL, the cache, or the registry; checked."""
    name = pinned["tarball"].rsplit("/", 1)[-1]
    cached = CACHE_DIR / name
    given = os.environ.get("AXE_TARBALL")
    if given:
        source, data = given, Path(given).read_bytes()
    elif cached.exists() and _integrity_ok(cached.read_bytes(), pinned["integrity"]):
        return cached.read_bytes()
    else:
        source = pinned["tarball"]
        print(f"fetch_axe: downloading {source}", file=sys.stderr)
        try:
            data = _download(source, timeout=120)
        except FetchError as error:
            raise FetchError(
                f"{error}; fetch it by other means and run again with AXE_TARBALL=/path/to/{name}"
            ) from None
    if not _integrity_ok(data, pinned["integrity"]):
        raise FetchError(
            f"{name} (from {source}): its sha512 is not the integrity pinned in "
            f"{PINS_FILE.relative_to(ROOT)} ({pinned['integrity']})"
        )
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    cached.write_bytes(data)
    return data


def script_from(data: bytes) -> bytes:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        try:
            member = archive.extractfile(MEMBER)
        except KeyError:
            member = None
        if member is None:
            raise FetchError(f"{MEMBER} is missing from the tarball")
        return member.read()


def problem(pinned: dict) -> str | None:
    """Why the pinned axe.min.js is not ready to use (None when it is)."""
    path = script_path(pinned["version"])
    if not path.exists():
        return f"{path.relative_to(ROOT)} is missing"
    if sha256(path.read_bytes()) != pinned["sha256"]:
        return f"{path.relative_to(ROOT)}: sha256 is not the one pinned ({pinned['sha256']})"
    return None


def build(pinned: dict) -> None:
    content = script_from(tarball(pinned))
    if sha256(content) != pinned["sha256"]:
        raise FetchError(
            f"{MEMBER}: sha256 {sha256(content)}, but {PINS_FILE.relative_to(ROOT)} pins "
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
    dist = json.loads(_download(url, timeout=60))["dist"]
    pinned = pins()
    pinned.update(version=version, tarball=dist["tarball"], integrity=dist["integrity"])
    pinned["sha256"] = sha256(script_from(tarball(pinned)))
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
