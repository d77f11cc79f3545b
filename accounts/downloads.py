""" "Download my data", built off the web process.

Building the zip (accounts/export.py) reads every match the person played: 15 to 17 s for
3,030 one-deal matches, and six at once took the log-in page's median for everyone from 12 ms to
112 ms when it was built in the web process on request (issue 45). Now a request only asks
(`do_request_download`); a task on the `checks` queue (accounts/tasks.py) writes the file into a
private folder (`settings.DOWNLOADS_DIR`, owner-only: 0700, files 0600) under a random name, and
the account page links it when ready. One build at a time per person (asking again while one is
waiting or being built answers that one), counted in the person's budget of expensive work
(games/core/budget.py); a newer file replaces the older, and deleting the account removes them.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from games.core import budget, dispatch
from games.models import Match

from . import export
from .models import DataDownload

_IN_FLIGHT = (DataDownload.Status.WAITING, DataDownload.Status.BUILDING)
# A build still waiting or running after this long was lost (its worker died): asking again
# starts a new one.
LOST_SECONDS = 15 * 60
# The build's cost, from what it reads: about 5 ms of CPU per match (3,030 matches: 15 s).
BASE_SECONDS = 0.5
SECONDS_PER_MATCH = 0.005


def folder() -> Path:
    """The private folder, created owner-only."""
    path = Path(settings.DOWNLOADS_DIR)
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.chmod(0o700)
    return path


def estimated_cost(user) -> float:
    matches = Match.objects.filter(seats__user=user).count()
    return round(BASE_SECONDS + SECONDS_PER_MATCH * matches, 3)


def in_flight(owner_id: int | None) -> list[budget.Work]:
    """The builds waiting or running (the budget's source, registered by the app)."""
    rows = DataDownload.objects.filter(status__in=_IN_FLIGHT)
    if owner_id is not None:
        rows = rows.filter(owner_id=owner_id)
    return [
        budget.Work(budget.CHECKS, owner, cost)
        for owner, cost in rows.values_list("owner_id", "cost")
    ]


def _lost() -> Q:
    before = timezone.now() - timedelta(seconds=LOST_SECONDS)
    return Q(requested_at__lt=before, started_at__isnull=True) | Q(started_at__lt=before)


def do_request_download(user) -> DataDownload:
    """Ask for a new build of the person's data; the one waiting or being built if there is
    one. Raises budget.Busy (nothing asked) when the person or the lane has no room."""
    with transaction.atomic():
        DataDownload.objects.filter(owner=user, status__in=_IN_FLIGHT).filter(_lost()).update(
            status=DataDownload.Status.FAILED
        )
        current = DataDownload.objects.filter(owner=user, status__in=_IN_FLIGHT).first()
        if current is not None:
            return current
        cost = estimated_cost(user)
        budget.admit(user, budget.CHECKS, cost)
        download = DataDownload.objects.create(owner=user, cost=cost)
        transaction.on_commit(lambda: _enqueue(download.pk), robust=True)
    return download


def _enqueue(download_id: int) -> None:
    # The task is registered by AccountsConfig.ready(): it imports this module.
    dispatch.enqueue(dispatch.task_named("accounts.tasks.build_data_download"), download_id)


def run_build(download_id: int) -> str:
    """The task's body: in a process of its own without workers (`make run`), else here."""
    if dispatch.uses_workers() or not settings.DATA_DOWNLOAD_SUBPROCESS:
        return do_build(download_id)
    command = [sys.executable, str(Path(settings.BASE_DIR) / "manage.py")]
    # Below the web's priority, as the search processes are (games/core/searches.py).
    subprocess.run(  # noqa: S603 - our own interpreter and command, an integer argument
        ["nice", "-n", "10", *command, "build_data_download", str(int(download_id))],
        check=False,
        timeout=LOST_SECONDS,
        env=os.environ.copy(),
    )
    return DataDownload.objects.get(pk=download_id).status


def do_build(download_id: int) -> str:
    """Claim the build and write its file; its status."""
    taken = DataDownload.objects.filter(pk=download_id, status=DataDownload.Status.WAITING).update(
        status=DataDownload.Status.BUILDING, started_at=timezone.now()
    )
    if not taken:
        return "done"
    download = DataDownload.objects.select_related("owner").get(pk=download_id)
    name = f"{download.owner_id}-{secrets.token_hex(16)}.zip"
    path = folder() / name
    started = time.perf_counter()
    try:
        # Created owner-only from the start: never readable by others, even while written.
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as out:
            export.write_zip(download.owner, out)
    except Exception:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        DataDownload.objects.filter(pk=download_id).update(
            status=DataDownload.Status.FAILED, finished_at=timezone.now()
        )
        raise
    DataDownload.objects.filter(pk=download_id).update(
        status=DataDownload.Status.READY,
        file_name=name,
        size=path.stat().st_size,
        seconds=time.perf_counter() - started,
        finished_at=timezone.now(),
    )
    _remove_older(download)
    return DataDownload.Status.READY


def _remove_older(download: DataDownload) -> None:
    for older in DataDownload.objects.filter(owner_id=download.owner_id).exclude(pk=download.pk):
        remove_file(older)
        older.delete()


def remove_file(download: DataDownload) -> None:
    if download.file_name:
        with contextlib.suppress(FileNotFoundError):
            (folder() / download.file_name).unlink()


def do_forget_downloads(user) -> None:
    """Remove every download of the person, files and rows (deleting the account)."""
    for download in DataDownload.objects.filter(owner=user):
        remove_file(download)
        download.delete()


def ready_download(user) -> DataDownload | None:
    """The person's newest ready file, if still kept."""
    keep = timezone.now() - timedelta(days=settings.DATA_DOWNLOAD_KEEP_DAYS)
    download = DataDownload.objects.filter(
        owner=user, status=DataDownload.Status.READY, finished_at__gte=keep
    ).first()
    if download is None or not (folder() / download.file_name).is_file():
        return None
    return download


def file_path(download: DataDownload) -> Path:
    return folder() / download.file_name


def download_view(user) -> dict:
    """What the account page shows of the person's download: one being built, or the ready
    file (its size and when), or nothing."""
    current = DataDownload.objects.filter(owner=user, status__in=_IN_FLIGHT).first()
    ready = ready_download(user)
    failed = (
        current is None
        and ready is None
        and DataDownload.objects.filter(owner=user, status=DataDownload.Status.FAILED).exists()
    )
    return {
        "building": current is not None,
        "ready": ready,
        "kilobytes": (ready.size + 1023) // 1024 if ready else 0,
        "failed": failed,
    }
