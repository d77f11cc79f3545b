"""The engine's wheel for the browser, built from the tree: never a copy kept by hand.

The offline page's worker installs it in Pyodide (``unpackArchive(bytes, "wheel")``). It holds
the engine (rules, records, bots, the coach's search and words, the table's layout helpers) and
the offline worker module, byte for byte as they are in this checkout. Its name carries a hash of
those files, so a page always loads the engine this server runs, and the service worker's cache
changes with it. Built with the standard library, deterministically (sorted entries, fixed
times), once per process and again only when a source file changes.
"""

from __future__ import annotations

import base64
import hashlib
import io
import zipfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DISTRIBUTION = "setback_engine"
# What runs in the browser: the packages' __init__ files, the engine, the offline worker.
SOURCES = (
    "games/__init__.py",
    "games/engine/**/*.py",
    "games/offline/__init__.py",
    "games/offline/worker.py",
)
# The zip format's earliest time: entries carry no build time, so the same tree gives the same bytes.
FIXED_TIME = (1980, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class Wheel:
    filename: str
    data: bytes
    digest: str  # the hash of the sources: the engine's fingerprint in offline envelopes


def source_files(root: Path = ROOT) -> list[Path]:
    files: set[Path] = set()
    for pattern in SOURCES:
        files.update(p for p in root.glob(pattern) if "__pycache__" not in p.parts)
    return sorted(files)


def _stamp(files: list[Path]) -> tuple:
    return tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in files)


def current() -> Wheel:
    """The wheel of the tree as it is now (rebuilt when a source file changed)."""
    files = source_files()
    return _build(_stamp(files))


@lru_cache(maxsize=2)
def _build(stamp: tuple) -> Wheel:
    return build(ROOT)


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode()


def build(root: Path = ROOT) -> Wheel:
    files = source_files(root)
    contents = {p.relative_to(root).as_posix(): p.read_bytes() for p in files}
    fingerprint = hashlib.sha256()
    for name, data in contents.items():
        fingerprint.update(name.encode() + b"\0" + data + b"\0")
    digest = fingerprint.hexdigest()[:16]
    version = f"0+{digest}"
    dist_info = f"{DISTRIBUTION}-{version}.dist-info"
    contents[f"{dist_info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {DISTRIBUTION}\nVersion: {version}\n"
        "Summary: The Setback rules engine, its bots and coach, for the offline page\n"
    ).encode()
    contents[f"{dist_info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: games.offline.wheel\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n"
    )
    record = "".join(
        f"{name},{_record_hash(data)},{len(data)}\n" for name, data in contents.items()
    )
    contents[f"{dist_info}/RECORD"] = (record + f"{dist_info}/RECORD,,\n").encode()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as wheel:
        for name, data in contents.items():
            info = zipfile.ZipInfo(name, date_time=FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            wheel.writestr(info, data, compresslevel=9)
    return Wheel(f"{DISTRIBUTION}-{version}-py3-none-any.whl", buffer.getvalue(), digest)
