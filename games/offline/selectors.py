"""Every read of the offline app: an upload for the person who sent it, and what the offline
page is served with (the runtime's and the engine wheel's addresses)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.urls import reverse

from games.core.errors import NotFound

from . import wheel
from .models import OfflineUpload

RUNTIME_PINS = Path(__file__).resolve().parent / "runtime.json"


def owned_upload(owner, client_id: str) -> OfflineUpload:
    upload = (
        OfflineUpload.objects.select_related("deal__match")
        .filter(owner=owner, client_id=client_id)
        .first()
    )
    if upload is None:
        raise NotFound("No deal of yours came home with this id.")
    return upload


def upload_answer(upload: OfflineUpload) -> dict:
    """What the offline page is told of an upload."""
    answer = {"id": upload.client_id, "status": upload.status, "reason": upload.reason}
    if upload.deal is not None:
        answer["replay_url"] = reverse(
            "replay:deal", args=[upload.deal.match_id, upload.deal.number]
        )
        answer["match_url"] = reverse("replay:match", args=[upload.deal.match_id])
    return answer


@lru_cache(maxsize=1)
def runtime_pins() -> dict:
    return json.loads(RUNTIME_PINS.read_text(encoding="utf-8"))


def runtime_folder() -> Path:
    """Where scripts/fetch_pyodide.py put the runtime (under the first static folder)."""
    return Path(settings.STATICFILES_DIRS[0]) / "vendor" / "pyodide" / runtime_pins()["version"]


# What the page's worker loads from the runtime folder, by these fixed names (Pyodide asks for
# them by name, so they are served from their folder as they are, never renamed).
RUNTIME_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "lock.json",
)


@dataclass(frozen=True)
class Runtime:
    version: str
    url: str  # the folder, ending in "/"
    ready: bool  # fetched and laid out (MANIFEST.json is written last)

    @property
    def files(self) -> list[str]:
        return [self.url + name for name in RUNTIME_FILES]


def runtime() -> Runtime:
    version = runtime_pins()["version"]
    # Not through the static storage: a hashed name (WhiteNoise's manifest storage) would not be
    # the name Pyodide asks for. collectstatic copies the files under their own names too.
    url = f"{settings.STATIC_URL}vendor/pyodide/{version}/"
    if not url.startswith("/"):
        url = "/" + url
    return Runtime(version, url, (runtime_folder() / "MANIFEST.json").exists())


def engine_wheel() -> wheel.Wheel:
    return wheel.current()
