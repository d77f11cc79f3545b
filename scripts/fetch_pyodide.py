#!/usr/bin/env python3
"""Fetch the Pyodide runtime the offline page loads, check it, and lay it out to be served.

    python3 scripts/fetch_pyodide.py            # a no-op when the files are there and verified
    python3 scripts/fetch_pyodide.py --check    # verify only; never download (exit 1 if not ready)
    python3 scripts/fetch_pyodide.py --pin 314.0.9   # pin another version (docs/offline.md)

Standard library only: `make run` and `make test` call it before anything is installed. The
version, the npm tarball's integrity (npm's own sha512) and the sha256 of every file taken from
it are pinned in games/offline/runtime.json. The files go to static/vendor/pyodide/<version>/
(git-ignored), with:

- python_stdlib.zip trimmed to the modules listed in games/offline/stdlib-modules.txt (what
  Pyodide's start-up, the engine and the offline worker import: a third of the upstream zip);
- lock.json: Pyodide's package lock with no packages (the engine needs none);
- a .gz beside each served file, which WhiteNoise sends to browsers that take gzip;
- MANIFEST.json: the sha256 of everything written, to verify the next run against.

The tarball is kept in var/pyodide/ so a rebuild needs no network; PYODIDE_TARBALL=PATH uses a
tarball fetched by other means (it is checked against the same integrity).
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # also when loaded by a test
from npm_tarball import FetchError, download, member, sha256  # noqa: E402
from npm_tarball import tarball as npm_tarball  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PINS_FILE = ROOT / "games" / "offline" / "runtime.json"
MODULES_FILE = ROOT / "games" / "offline" / "stdlib-modules.txt"
CACHE_DIR = ROOT / "var" / "pyodide"
# Copied as they are from the tarball and served.
SERVED_UPSTREAM = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm")
# Served files that get a gzip copy beside them.
COMPRESSED = (*SERVED_UPSTREAM, "python_stdlib.zip", "lock.json")
# The zip format's earliest time: the trimmed zip is the same bytes on every machine.
FIXED_TIME = (1980, 1, 1, 0, 0, 0)


def pins() -> dict:
    return json.loads(PINS_FILE.read_text(encoding="utf-8"))


def runtime_dir(version: str) -> Path:
    return ROOT / "static" / "vendor" / "pyodide" / version


def modules() -> list[str]:
    lines = MODULES_FILE.read_text(encoding="utf-8").splitlines()
    return sorted({line.strip() for line in lines if line.strip() and not line.startswith("#")})


def modules_digest() -> str:
    return sha256("\n".join(modules()).encode())


# --- Verifying what is there ------------------------------------------------------------------


def problems(folder: Path, pinned: dict) -> list[str]:
    """Why the folder is not ready to serve (empty when it is)."""
    manifest_file = folder / "MANIFEST.json"
    if not manifest_file.exists():
        return [f"{manifest_file.relative_to(ROOT)} is missing"]
    manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
    if manifest.get("version") != pinned["version"]:
        return [f"{folder.relative_to(ROOT)} holds version {manifest.get('version')}"]
    if manifest.get("modules") != modules_digest():
        return [f"{MODULES_FILE.relative_to(ROOT)} changed since the stdlib zip was built"]
    found = []
    expected = dict(manifest["files"])
    for name in SERVED_UPSTREAM:
        expected[name] = pinned["files"][name]  # the repository's pin, not the manifest's word
    for name, digest in sorted(expected.items()):
        path = folder / name
        if not path.exists():
            found.append(f"{path.relative_to(ROOT)} is missing")
        elif sha256(path.read_bytes()) != digest:
            found.append(f"{path.relative_to(ROOT)}: sha256 is not the one expected ({digest})")
    return found


# --- Fetching ---------------------------------------------------------------------------------


def tarball(pinned: dict) -> bytes:
    """The pinned npm tarball: from PYODIDE_TARBALL, the cache, or the registry; checked."""
    return npm_tarball(
        pinned,
        cache_dir=CACHE_DIR,
        given_by="PYODIDE_TARBALL",
        pins_file=str(PINS_FILE.relative_to(ROOT)),
        tool="fetch_pyodide",
    )


def upstream_files(data: bytes, pinned: dict) -> dict[str, bytes]:
    """The pinned files out of the tarball, each checked against its sha256."""
    files = {}
    for name, digest in pinned["files"].items():
        content = member(data, name)
        if sha256(content) != digest:
            raise FetchError(
                f"package/{name}: sha256 {sha256(content)}, but "
                f"{PINS_FILE.relative_to(ROOT)} pins {digest}"
            )
        files[name] = content
    return files


def trimmed_stdlib(full: bytes, wanted: list[str]) -> bytes:
    """The upstream stdlib zip keeping only the listed modules (and their packages' folders)."""
    keep = set()
    for module in wanted:
        parts = module.split(".")
        for depth in range(1, len(parts)):
            keep.add("/".join(parts[:depth]) + "/")
        keep.add("/".join(parts) + ".py")
        keep.add("/".join(parts) + "/__init__.py")
        keep.add("/".join(parts) + "/")
    source = zipfile.ZipFile(io.BytesIO(full))
    missing = [
        m
        for m in wanted
        if not (
            {f"{m.replace('.', '/')}.py", f"{m.replace('.', '/')}/__init__.py"}
            & set(source.namelist())
        )
    ]
    if missing:
        raise FetchError(
            f"{MODULES_FILE.relative_to(ROOT)}: {', '.join(missing)} not in Pyodide's python_stdlib.zip"
        )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as trimmed:
        for info in sorted(source.infolist(), key=lambda i: i.filename):
            if info.filename in keep:
                entry = zipfile.ZipInfo(info.filename, date_time=FIXED_TIME)
                entry.external_attr = info.external_attr
                entry.compress_type = zipfile.ZIP_STORED  # gzip in transit; quicker to import
                trimmed.writestr(entry, source.read(info.filename))
    return out.getvalue()


def empty_lock(upstream_lock: bytes) -> bytes:
    info = json.loads(upstream_lock)["info"]
    return json.dumps({"info": info, "packages": {}}, sort_keys=True).encode()


def build(folder: Path, pinned: dict) -> None:
    files = upstream_files(tarball(pinned), pinned)
    written = {name: files[name] for name in SERVED_UPSTREAM}
    written["python_stdlib.zip"] = trimmed_stdlib(files["python_stdlib.zip"], modules())
    written["lock.json"] = empty_lock(files["pyodide-lock.json"])
    for name in COMPRESSED:
        written[name + ".gz"] = gzip.compress(written[name], compresslevel=9, mtime=0)
    manifest = {
        "version": pinned["version"],
        "modules": modules_digest(),
        "files": {name: sha256(data) for name, data in sorted(written.items())},
    }
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".pyodide-", dir=folder.parent))
    for name, data in written.items():
        (staging / name).write_bytes(data)
    (staging / "MANIFEST.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    if folder.exists():
        shutil.rmtree(folder)
    staging.chmod(0o755)  # mkdtemp makes it private; the web server and collectstatic read it
    staging.rename(folder)  # whole or not at all: a half-written folder is never served


def pin(version: str) -> None:
    """Rewrite the pins for `version`: its tarball and integrity from the npm registry, then the
    sha256 of each file the page needs, read from that tarball once its integrity is checked."""
    url = f"https://registry.npmjs.org/pyodide/{version}"
    dist = json.loads(download(url, timeout=60))["dist"]
    pinned = pins()
    names = list(pinned["files"])
    pinned.update(version=version, tarball=dist["tarball"], integrity=dist["integrity"])
    data = tarball({**pinned, "files": {}})
    files = {name: sha256(member(data, name)) for name in names}
    lock = json.loads(member(data, "pyodide-lock.json"))
    pinned.update(python=lock["info"]["python"], files=files)
    PINS_FILE.write_text(json.dumps(pinned, indent=2) + "\n", encoding="utf-8")
    print(
        f"fetch_pyodide: pinned Pyodide {version} in {PINS_FILE.relative_to(ROOT)}", file=sys.stderr
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="verify only; never download")
    parser.add_argument(
        "--full-stdlib", metavar="PATH", help="also write Pyodide's whole python_stdlib.zip to PATH"
    )
    parser.add_argument("--pin", metavar="VERSION", help="pin another version of Pyodide")
    args = parser.parse_args(argv)
    try:
        if args.pin:
            pin(args.pin)
    except FetchError as error:
        print(f"fetch_pyodide: error: {error}", file=sys.stderr)
        return 1
    pinned = pins()
    folder = runtime_dir(pinned["version"])
    try:
        found = problems(folder, pinned)
        if args.full_stdlib:
            full = upstream_files(tarball(pinned), pinned)["python_stdlib.zip"]
            Path(args.full_stdlib).write_bytes(full)
        if not found:
            return 0
        if args.check:
            raise FetchError("; ".join(found) + " (run scripts/fetch_pyodide.py)")
        for problem in found:
            print(
                f"fetch_pyodide: {problem}: fetching Pyodide {pinned['version']}", file=sys.stderr
            )
            break
        build(folder, pinned)
        still = problems(folder, pinned)
        if still:
            raise FetchError("; ".join(still))
        print(
            f"fetch_pyodide: Pyodide {pinned['version']} in {folder.relative_to(ROOT)}",
            file=sys.stderr,
        )
        return 0
    except FetchError as error:
        print(f"fetch_pyodide: error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
