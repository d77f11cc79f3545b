"""Backups of the site's database that restore: `make backup`, `make restore FILE=...`.

A backup is one consistent moment of the whole database, taken while the site runs:
- SQLite (the embedded default): SQLite's online backup API copies every page in one step
  under a read transaction, so writers carry on (WAL) and the copy is one committed state;
- PostgreSQL: `pg_dump` in its custom format (compressed, restored table by table by
  `pg_restore`), reading a snapshot that this module exports, so that the row counts written
  beside the backup are those of the very moment dumped.

Each backup `var/backups/setback-<UTC time>.<sqlite3|dump>` has a manifest beside it
(`<file>.json`: when, which database, how long, the rows of every table and the SHA-256 of the
backup's bytes). A restore checks the checksum first (a backup changed since it was taken is
refused, even if its row counts were kept: issue 45), goes only into an empty database (it never
mixes two states) and then counts every table against the manifest: a restore that lost rows
fails loudly instead of serving a partial site.

Backups are private: the files and their folder owner-only (0600, 0700), and they hold no
sessions: the session store and the signed-in browsers' list (session keys, addresses) are left
empty, so a stolen backup logs nobody in and a restored site asks everyone to log in again.
docs/operations.md says how often, where to keep copies, and what it costs.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import psycopg
from django.conf import settings
from django.db import connections

from .private_files import make_private, private_dir, write_private

SQLITE_SUFFIX = ".sqlite3"
PG_SUFFIX = ".dump"
SQLITE_MAGIC = b"SQLite format 3\x00"
PG_MAGIC = b"PGDMP"
# Tables whose rows never go into a backup (counted as empty): live session keys, and the list
# of signed-in browsers with their keys and addresses.
SESSION_TABLES = ("django_session", "accounts_loginsession")


class BackupError(Exception):
    """A backup or restore that cannot be done; the message says what to do."""


@dataclass(frozen=True)
class Result:
    path: Path
    seconds: float
    size: int
    counts: dict  # table -> rows


def backup_dir() -> Path:
    return Path(os.environ.get("BACKUP_DIR") or settings.BASE_DIR / "var" / "backups")


def _vendor(alias: str) -> str:
    return connections[alias].vendor


def _new_path(directory: Path, suffix: str) -> Path:
    private_dir(directory)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    path, n = directory / f"setback-{stamp}{suffix}", 1
    while path.exists():
        n += 1
        path = directory / f"setback-{stamp}-{n}{suffix}"
    return path


def manifest_path(path: Path) -> Path:
    return path.with_name(path.name + ".json")


def read_manifest(path: Path) -> dict | None:
    found = manifest_path(Path(path))
    return json.loads(found.read_text()) if found.exists() else None


def _write_manifest(result: Result, vendor: str, database: str) -> None:
    manifest = {
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "vendor": vendor,
        "database": database,
        "seconds": round(result.seconds, 3),
        "size": result.size,
        "tables": result.counts,
        "sha256": file_digest(result.path),
    }
    write_private(manifest_path(result.path), json.dumps(manifest, indent=1, sort_keys=True) + "\n")


def file_digest(path: Path) -> str:
    with open(path, "rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


# --- Backing up ---------------------------------------------------------------------------------


def backup(directory: Path | None = None, alias: str = "default") -> Result:
    """Write a timestamped backup of the database `alias` into `directory` (var/backups)."""
    if directory is None and backup_dir().parent == Path(settings.BASE_DIR) / "var":
        private_dir(backup_dir().parent)  # var/ holds the key, the backups, the logs
    directory = Path(directory or backup_dir())
    if _vendor(alias) == "sqlite":
        result = _backup_sqlite(directory, alias)
    elif _vendor(alias) == "postgresql":
        result = _backup_postgres(directory, alias)
    else:  # pragma: no cover - the site runs on these two only
        raise BackupError(f"No backup for a {_vendor(alias)} database.")
    _write_manifest(result, _vendor(alias), str(connections[alias].settings_dict["NAME"]))
    return result


def _sqlite_counts(db: sqlite3.Connection) -> dict:
    tables = [
        name
        for (name,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "ORDER BY name"
        )
    ]
    return {table: db.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0] for table in tables}


def _drop_sessions(copy: sqlite3.Connection) -> None:
    """Empty the session tables of a copy, their old pages overwritten (secure_delete) and the
    file rewritten (VACUUM): no session key survives in a free page."""
    copy.execute("PRAGMA secure_delete = ON")
    present = {
        name for (name,) in copy.execute("SELECT name FROM sqlite_master WHERE type='table'")
    }
    for table in SESSION_TABLES:
        if table in present:
            copy.execute(f'DELETE FROM "{table}"')
    copy.commit()
    copy.execute("VACUUM")


def _sqlite_path(alias: str) -> Path:
    return Path(connections[alias].settings_dict["NAME"])


def _backup_sqlite(directory: Path, alias: str) -> Result:
    source_path = _sqlite_path(alias)
    if not source_path.exists():
        raise BackupError(f"There is no database at {source_path} to back up.")
    path = _new_path(directory, SQLITE_SUFFIX)
    partial = path.with_name(path.name + ".partial")
    started = time.perf_counter()
    source = sqlite3.connect(f"file:{source_path}?mode=ro", uri=True, timeout=30)
    partial.touch(mode=0o600)
    make_private(partial)
    copy = sqlite3.connect(partial)
    try:
        # pages=-1: every page in one step, under one read transaction: one committed state,
        # however much the site writes meanwhile (WAL lets it).
        source.backup(copy, pages=-1)
        _drop_sessions(copy)
        if copy.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            raise BackupError("The copy failed SQLite's check; nothing was kept.")
        counts = _sqlite_counts(copy)
    finally:
        copy.close()
        source.close()
    partial.replace(path)
    return Result(path, time.perf_counter() - started, path.stat().st_size, counts)


def _pg_conninfo(alias: str) -> tuple[str, dict]:
    """A libpq connection string for `alias`, and the environment holding its password."""
    params = connections[alias].settings_dict
    parts = {
        "dbname": params["NAME"],
        "user": params.get("USER") or "",
        "host": params.get("HOST") or "",
        "port": str(params.get("PORT") or ""),
    }
    conninfo = " ".join(f"{key}={value}" for key, value in parts.items() if value)
    env = {**os.environ}
    if params.get("PASSWORD"):
        env["PGPASSWORD"] = params["PASSWORD"]
    return conninfo, env


def _pg_tables(cursor) -> list[str]:
    cursor.execute(
        "SELECT table_name FROM information_schema.tables "
        "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name"
    )
    return [name for (name,) in cursor.fetchall()]


def _pg_counts(cursor) -> dict:
    counts = {}
    for table in _pg_tables(cursor):
        cursor.execute(f'SELECT count(*) FROM "{table}"')
        counts[table] = cursor.fetchone()[0]
    return counts


def _run(command: list[str], env: dict) -> None:
    if shutil.which(command[0]) is None:
        raise BackupError(
            f"{command[0]} is not installed (Debian: apt-get install postgresql-client)."
        )
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise BackupError(f"{command[0]} failed: {done.stderr.strip()[-2000:]}")


def _backup_postgres(directory: Path, alias: str) -> Result:
    path = _new_path(directory, PG_SUFFIX)
    partial = path.with_name(path.name + ".partial")
    conninfo, env = _pg_conninfo(alias)
    started = time.perf_counter()
    # The rows are counted in a snapshot that pg_dump then reads: the manifest's counts are
    # those of the moment dumped, however many moves are made meanwhile.
    with (
        psycopg.connect(conninfo, autocommit=True) as snapshot_holder,
        snapshot_holder.cursor() as cursor,
    ):
        cursor.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        cursor.execute("SELECT pg_export_snapshot()")
        row = cursor.fetchone()
        assert row is not None  # pg_export_snapshot() answers one row
        snapshot = row[0]
        counts = _pg_counts(cursor)
        counts.update({table: 0 for table in SESSION_TABLES if table in counts})
        partial.touch(mode=0o600)
        make_private(partial)
        _run(
            ["pg_dump", "--format=custom", "--no-owner", "--no-privileges",
             *(f"--exclude-table-data={table}" for table in SESSION_TABLES),
             f"--snapshot={snapshot}", f"--file={partial}", f"--dbname={conninfo}"],
            env,
        )  # fmt: skip
        cursor.execute("COMMIT")
    partial.replace(path)
    return Result(path, time.perf_counter() - started, path.stat().st_size, counts)


# --- Restoring ----------------------------------------------------------------------------------


def kind_of(path: Path) -> str:
    """ "sqlite" or "postgresql", read from the file's first bytes (never from its name)."""
    with open(path, "rb") as file:
        head = file.read(16)
    if head.startswith(SQLITE_MAGIC):
        return "sqlite"
    if head.startswith(PG_MAGIC):
        return "postgresql"
    raise BackupError(f"{path} is neither a SQLite backup nor a pg_dump custom-format backup.")


def database_is_empty(alias: str = "default") -> bool:
    if _vendor(alias) == "sqlite":
        path = _sqlite_path(alias)
        if not path.exists() or path.stat().st_size == 0:
            return True
        db = sqlite3.connect(path)
        try:
            return not db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        finally:
            db.close()
    with connections[alias].cursor() as cursor:
        return not _pg_tables(cursor)


def restore(path: Path, alias: str = "default") -> Result:
    """Bring the backup at `path` back into the database `alias`, which must be empty; then
    check every table's rows against the backup's manifest."""
    path = Path(path)
    if not path.exists():
        raise BackupError(f"There is no file {path}.")
    kind = kind_of(path)
    if kind != _vendor(alias):
        raise BackupError(
            f"{path.name} is a {kind} backup, but the site's database is {_vendor(alias)}: "
            "set DATABASE_URL to a database of the same kind."
        )
    _check_digest(path)
    if not database_is_empty(alias):
        where = connections[alias].settings_dict["NAME"]
        raise BackupError(
            f"The database {where} is not empty: a restore goes only into an empty database. "
            + (
                f"Stop the site and move the file away (mv {where} {where}.old), then try again."
                if kind == "sqlite"
                else "Create a new one (createdb) and point DATABASE_URL at it, or drop and "
                "recreate this one, then try again."
            )
        )
    connections[alias].close()
    started = time.perf_counter()
    restore_kind = _restore_sqlite if kind == "sqlite" else _restore_postgres
    counts = restore_kind(path, alias)
    seconds = time.perf_counter() - started
    manifest = read_manifest(path)
    if manifest is not None and manifest["tables"] != counts:
        differ = sorted(
            t for t in set(manifest["tables"]) | set(counts)
            if manifest["tables"].get(t) != counts.get(t)
        )  # fmt: skip
        raise BackupError(f"The restored rows differ from the backup's in: {', '.join(differ)}.")
    return Result(path, seconds, path.stat().st_size, counts)


def _check_digest(path: Path) -> None:
    """Refuse a backup whose bytes are not those its manifest recorded."""
    manifest = read_manifest(path)
    if manifest is None or "sha256" not in manifest:
        raise BackupError(
            f"{path.name} has no manifest with a checksum beside it ({manifest_path(path).name}): "
            "it cannot be told from a changed file, so it is not restored."
        )
    if file_digest(path) != manifest["sha256"]:
        raise BackupError(
            f"{path.name} is not the file that was backed up: its SHA-256 differs from its "
            "manifest's. Nothing was restored."
        )


def _restore_sqlite(path: Path, alias: str) -> dict:
    target = _sqlite_path(alias)
    for leftover in (target, Path(f"{target}-wal"), Path(f"{target}-shm")):
        leftover.unlink(missing_ok=True)  # an empty file, or an empty one's journal
    target.parent.mkdir(parents=True, exist_ok=True)
    source = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    restored = sqlite3.connect(target)
    make_private(target)
    try:
        source.backup(restored, pages=-1)
        return _sqlite_counts(restored)
    finally:
        restored.close()
        source.close()


def _restore_postgres(path: Path, alias: str) -> dict:
    conninfo, env = _pg_conninfo(alias)
    _run(
        ["pg_restore", "--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction",
         f"--dbname={conninfo}", str(path)],
        env,
    )  # fmt: skip
    with connections[alias].cursor() as cursor:
        return _pg_counts(cursor)
