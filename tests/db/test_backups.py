"""Backups that restore, taken while matches are being played: back up, wipe the database,
restore, and find every finished deal replaying to its score, every person able to log in, and
every table holding the rows it held at the moment of the backup.

The same test runs on the embedded SQLite database and, in CI's second run (DATABASE_URL set),
on PostgreSQL: the backup module picks SQLite's online backup API or pg_dump by itself.
"""

import threading
import time
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import OperationalError, connection, connections
from django.test import Client
from django.urls import reverse

from accounts.models import User
from games.core import selectors, services
from games.core.dispatch import cancel_delayed_tasks, wait_for_in_process_tasks
from games.core.errors import GameError
from games.engine import bots
from games.models import Action, Deal, Match
from games.tables import services as tables
from setback_site import backups

from .play import play_until

# SQLite's online backup here, pg_dump and pg_restore on CI's second pass.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.real_services]

PASSWORD = "a-long-password-for-backups-7"
PLAYERS = 4


def as_easy_bot(match: Match, seat: str) -> str:
    state = selectors.deal_state(selectors.current_deal(match))
    return bots.choose(state.observation(seat), "easy", seed=state.version)


def counts_now() -> dict:
    with connection.cursor() as cursor:
        tables = connection.introspection.table_names(cursor)
        counts = {}
        for table in tables:
            cursor.execute(f'SELECT count(*) FROM "{table}"')
            counts[table] = cursor.fetchone()[0]
    return counts


def finished_deals() -> int:
    return Deal.objects.filter(phase="over").count()


def matches_being_played() -> list[Match]:
    people = [User.objects.create_user(f"player{n}", password=PASSWORD) for n in range(PLAYERS)]
    matches = [
        services.do_start_match(person, rules_spec="house", bot_level="easy")
        for person in people[:3]
    ]
    shared = tables.do_create_table(people[3], rules_spec={"preset": "auction", "players": 2})
    tables.do_sit(shared.pk, user=people[0], position="P2")
    matches.append(tables.do_start_table(shared.pk, host=people[3]))
    for match in matches:  # every match has a finished deal before the backup
        play_until(match, stop=lambda m: m.deals.filter(phase="over").exists(), person=as_easy_bot)
    return matches


class Players:
    """A thread per match, playing its people's moves (and its bots') until told to stop."""

    def __init__(self, matches):
        self.stop = threading.Event()
        self.errors: list[BaseException] = []
        self.threads = [threading.Thread(target=self._play, args=(m,)) for m in matches]

    def _play(self, match):
        try:
            while not self.stop.is_set():
                try:
                    match = play_until(match, stop=lambda m: self.stop.is_set(), person=as_easy_bot)
                except GameError:  # a bot task of the site's own moved first: look again
                    continue
                if match.status != Match.Status.PLAYING:
                    return
        except BaseException as error:  # noqa: BLE001 - reported by the test
            self.errors.append(error)
        finally:
            connections.close_all()

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=60)
        assert not self.errors, self.errors


def wait_for_more_actions(than: int, at_least: int = 10, timeout: float = 60) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        count = Action.objects.count()
        if count >= than + at_least:
            return count
        time.sleep(0.05)
    raise AssertionError(f"the matches made fewer than {at_least} moves in {timeout} s")


def wipe() -> None:
    """Lose the database: the file (SQLite), or every table in it (PostgreSQL)."""
    # The backup is taken: end the matches, so that no bot task still on its way (in this
    # process, or in CI's Celery worker) moves while the tables go.
    Match.objects.update(status=Match.Status.FINISHED)
    cancel_delayed_tasks()
    wait_for_in_process_tasks(timeout=60)
    if connection.vendor == "sqlite":
        name = Path(connection.settings_dict["NAME"])
        connections.close_all()
        for path in (name, Path(f"{name}-wal"), Path(f"{name}-shm")):
            path.unlink(missing_ok=True)
    else:
        for attempt in range(10):
            try:
                with connection.cursor() as cursor:
                    cursor.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public;")
                break
            except OperationalError:  # a worker's last task read a table: it ends at once
                if attempt == 9:
                    raise
                time.sleep(0.2)
        connections.close_all()
    assert backups.database_is_empty()


def test_a_backup_taken_during_play_restores_every_deal_login_and_row(tmp_path):
    matches = matches_being_played()
    with Players(matches):
        before = counts_now()
        wait_for_more_actions(before["games_action"])  # the matches are being played
        taken = backups.backup(tmp_path)
        after_actions = wait_for_more_actions(Action.objects.count())  # and go on after it
    manifest = backups.read_manifest(taken.path)
    assert manifest["tables"] == taken.counts and set(taken.counts) == set(before)
    for table in ("games_action", "games_deal", "games_match", "accounts_user"):
        assert before[table] <= taken.counts[table] <= counts_now()[table]
    assert before["games_action"] < taken.counts["games_action"] < after_actions

    wipe()
    restored = backups.restore(taken.path)

    assert restored.counts == counts_now() == manifest["tables"]
    over = list(Deal.objects.filter(phase="over").select_related("match"))
    assert len(over) >= len(matches)
    for deal_row in over:
        assert (
            selectors.deal_state(deal_row).result().to_json()["score"] == deal_row.result["score"]
        )
    for deal_row in Deal.objects.all():
        # Each move's row and the deal's cached step count were written together: a torn
        # copy would show one without the other.
        assert deal_row.steps == deal_row.actions.count()
    for match in Match.objects.all():
        scores = [d.result["score"] for d in match.deals.filter(phase="over")]
        assert match.totals == {side: sum(s[side] for s in scores) for side in match.totals}
    for person in User.objects.all():
        answer = Client().post(
            reverse("login"), {"username": person.username, "password": PASSWORD}
        )
        assert answer.status_code == 302, person.username


def test_a_restore_goes_only_into_an_empty_database(tmp_path):
    User.objects.create_user("someone", password=PASSWORD)
    taken = backups.backup(tmp_path)
    with pytest.raises(backups.BackupError, match="is not empty"):
        backups.restore(taken.path)
    assert User.objects.get().username == "someone"
    with pytest.raises(CommandError, match="is not empty"):
        call_command("restore", str(taken.path))


def test_a_file_that_is_no_backup_or_of_the_other_kind_is_refused(tmp_path):
    junk = tmp_path / "notes.sqlite3"
    junk.write_text("not a database")
    with pytest.raises(backups.BackupError, match="neither a SQLite backup nor a pg_dump"):
        backups.restore(junk)
    other = tmp_path / "other.dump"
    other.write_bytes(
        (backups.PG_MAGIC if connection.vendor == "sqlite" else backups.SQLITE_MAGIC) + b"\0" * 64
    )
    with pytest.raises(backups.BackupError, match="set DATABASE_URL to a database of the same"):
        backups.restore(other)


def test_the_backup_command_writes_a_timestamped_file_and_its_manifest(tmp_path, capsys):
    call_command("backup", dir=str(tmp_path))
    written = sorted(p.name for p in tmp_path.iterdir())
    suffix = backups.SQLITE_SUFFIX if connection.vendor == "sqlite" else backups.PG_SUFFIX
    assert len(written) == 2 and written[0].endswith(suffix) and written[1] == written[0] + ".json"
    assert written[0].startswith("setback-20") and str(tmp_path) in capsys.readouterr().out
