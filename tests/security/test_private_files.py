"""Issue 45, findings 5 and 10: backups, their folder, the SQLite database and var/ are
owner-only; a backup holds no session; a backup changed since it was taken is not restored,
even with its row counts kept."""

import shutil
import sqlite3
import stat
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.sessions.models import Session
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.urls import reverse

from accounts.models import LoginSession, User
from setback_site import backups

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.real_services]

PASSWORD = "a-long-password-for-backups-7"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def logged_in_person() -> Client:
    User.objects.create_user("alice", password=PASSWORD, email="alice@example.com")
    browser = Client()
    assert (
        browser.post(reverse("login"), {"username": "alice", "password": PASSWORD}).status_code
        == 302
    )
    assert Session.objects.exists() and LoginSession.objects.exists()
    return browser


def test_manage_py_backup_writes_owner_only_files_in_an_owner_only_folder(tmp_path):
    logged_in_person()
    folder = tmp_path / "backups"
    call_command("backup", dir=str(folder))
    assert mode(folder) == 0o700
    written = list(folder.iterdir())
    assert len(written) == 2
    assert all(mode(path) == 0o600 for path in written), {p.name: oct(mode(p)) for p in written}


def test_the_sqlite_database_and_var_are_owner_only():
    if connection.vendor != "sqlite":
        pytest.skip("PostgreSQL keeps its own files")
    connection.ensure_connection()
    assert mode(Path(connection.settings_dict["NAME"])) == 0o600
    var = Path(settings.BASE_DIR) / "var"
    assert mode(var) == 0o700


def test_a_backup_holds_no_session(tmp_path):
    logged_in_person()
    keys = [s.session_key for s in Session.objects.all()]
    taken = backups.backup(tmp_path)
    assert taken.counts["django_session"] == 0 and taken.counts["accounts_loginsession"] == 0
    assert taken.counts["accounts_user"] == 1
    if connection.vendor == "sqlite":
        raw = taken.path.read_bytes()
        assert not any(key.encode() in raw for key in keys)  # not even in a free page
        copy = sqlite3.connect(taken.path)
        assert copy.execute("SELECT count(*) FROM django_session").fetchone()[0] == 0
        copy.close()


def wipe_sqlite_or_skip() -> None:
    if connection.vendor != "sqlite":
        pytest.skip("the restore below is of a SQLite file")
    name = Path(connection.settings_dict["NAME"])
    connection.close()
    for path in (name, Path(f"{name}-wal"), Path(f"{name}-shm")):
        path.unlink(missing_ok=True)


def copy_of(taken, folder: Path) -> Path:
    """The backup and its manifest, elsewhere (the checksum is checked before anything else,
    so the live database need not be emptied to see a copy refused)."""
    folder.mkdir()
    path = folder / taken.path.name
    shutil.copy(taken.path, path)
    shutil.copy(backups.manifest_path(taken.path), backups.manifest_path(path))
    return path


def test_a_tampered_backup_with_the_same_row_counts_is_refused(tmp_path):
    if connection.vendor != "sqlite":
        pytest.skip("the tampering below edits a SQLite file")
    User.objects.create_user("alice", password=PASSWORD)
    tampered = copy_of(backups.backup(tmp_path / "taken"), tmp_path / "tampered")
    # The attacker makes alice a superuser: every table keeps its number of rows.
    copy = sqlite3.connect(tampered)
    copy.execute("UPDATE accounts_user SET is_superuser = 1, is_staff = 1")
    copy.commit()
    copy.close()
    with pytest.raises(backups.BackupError, match="SHA-256 differs"):
        backups.restore(tampered)


def test_a_backup_without_its_manifest_is_refused(tmp_path):
    User.objects.create_user("alice", password=PASSWORD)
    bare = copy_of(backups.backup(tmp_path / "taken"), tmp_path / "bare")
    backups.manifest_path(bare).unlink()
    with pytest.raises(backups.BackupError, match="no manifest with a checksum"):
        backups.restore(bare)


def test_an_untouched_backup_restores_and_its_restored_database_is_owner_only(tmp_path):
    User.objects.create_user("alice", password=PASSWORD)
    taken = backups.backup(tmp_path)
    wipe_sqlite_or_skip()
    restored = backups.restore(taken.path)
    assert restored.counts["accounts_user"] == 1
    assert mode(Path(connection.settings_dict["NAME"])) == 0o600
