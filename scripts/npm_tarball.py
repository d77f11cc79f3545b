"""A pinned npm tarball, fetched once and checked: what scripts/fetch_pyodide.py and
scripts/fetch_axe.py share.

Standard library only (both run before anything is installed). A tarball is pinned by its URL and
npm's own integrity (``sha512-<base64>``); it comes from an environment variable naming a file
fetched by other means, from the cache folder, or from the registry, and is refused unless its
integrity is the pinned one. A good tarball is kept in the cache so a rebuild needs no network.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import sys
import tarfile
import urllib.request
from pathlib import Path


class FetchError(Exception):
    """Something is wrong with a file; the message names it."""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def integrity_ok(data: bytes, integrity: str) -> bool:
    algorithm, _, expected = integrity.partition("-")
    return base64.b64encode(hashlib.new(algorithm, data).digest()).decode() == expected


def download(url: str, timeout: int) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.read()
    except OSError as error:
        raise FetchError(f"could not download {url} ({error})") from None


def tarball(pinned: dict, *, cache_dir: Path, given_by: str, pins_file: str, tool: str) -> bytes:
    """The pinned tarball (``pinned["tarball"]``, ``pinned["integrity"]``): from the file the
    environment variable ``given_by`` names, the cache, or the registry; checked, then cached."""
    name = pinned["tarball"].rsplit("/", 1)[-1]
    cached = cache_dir / name
    given = os.environ.get(given_by)
    if given:
        source, data = given, Path(given).read_bytes()
    elif cached.exists() and integrity_ok(cached.read_bytes(), pinned["integrity"]):
        return cached.read_bytes()
    else:
        source = pinned["tarball"]
        print(f"{tool}: downloading {source}", file=sys.stderr)
        try:
            data = download(source, timeout=120)
        except FetchError as error:
            raise FetchError(
                f"{name}: {error}; fetch it by other means and run again with "
                f"{given_by}=/path/to/{name}"
            ) from None
    if not integrity_ok(data, pinned["integrity"]):
        raise FetchError(
            f"{name} (from {source}): its sha512 is not the integrity pinned in "
            f"{pins_file} ({pinned['integrity']})"
        )
    cache_dir.mkdir(parents=True, exist_ok=True)
    cached.write_bytes(data)
    return data


def member(data: bytes, name: str) -> bytes:
    """The file ``package/<name>`` out of the tarball ``data``."""
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        try:
            found = archive.extractfile(f"package/{name}")
        except KeyError:
            found = None
        if found is None:
            raise FetchError(f"package/{name} is missing from the tarball")
        return found.read()
