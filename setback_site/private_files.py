"""Files only the site's own user may read: the SQLite database, backups and their folder, var/.

Issue 45 found backups and the SQLite file written with the umask's 644, readable by every user
of the machine, with password hashes, e-mail addresses and (then) live session keys in them. No
process-wide umask is set (collectstatic's files must stay readable by nginx); each private file
and folder is made owner-only where it is written.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from django.conf import settings

OWNER_ONLY_FILE = 0o600
OWNER_ONLY_DIR = 0o700


def private_dir(path: Path | str) -> Path:
    """Create `path` (and its parents) if needed and make it owner-only."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True, mode=OWNER_ONLY_DIR)
    os.chmod(path, OWNER_ONLY_DIR)
    return path


def make_private(path: Path | str) -> None:
    """Make the file at `path` owner-only, if it exists."""
    with contextlib.suppress(FileNotFoundError):
        os.chmod(path, OWNER_ONLY_FILE)


def write_private(path: Path | str, text: str) -> None:
    """Write `text` to a file that is owner-only from its first byte."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, OWNER_ONLY_FILE)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(text)
    os.chmod(path, OWNER_ONLY_FILE)


def sqlite_files(name: Path | str) -> list[Path]:
    """A SQLite database and the journals beside it."""
    return [Path(name), Path(f"{name}-wal"), Path(f"{name}-shm"), Path(f"{name}-journal")]


_var_checked = False


def _keep_var_private() -> None:
    """var/ (the secret key, backups, logs, an SQLite file put there) owner-only, once a process."""
    global _var_checked
    if _var_checked:
        return
    _var_checked = True
    var = Path(settings.BASE_DIR) / "var"
    if var.is_dir():
        os.chmod(var, OWNER_ONLY_DIR)


def keep_database_private(sender, connection, **kwargs) -> None:
    """connection_created: a SQLite database (and its journals) owner-only, however created."""
    if connection.vendor != "sqlite":
        return
    _keep_var_private()
    name = str(connection.settings_dict["NAME"])
    if name == ":memory:" or name.startswith("file:"):
        return
    for path in sqlite_files(name):
        make_private(path)
