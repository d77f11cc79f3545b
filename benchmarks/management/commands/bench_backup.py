"""Time a backup and a restore of a database holding 10,000 deals (docs/operations.md).

    python manage.py bench_backup [--deals 10000]              # SQLite
    DATABASE_URL=postgres://... python manage.py bench_backup  # PostgreSQL

In a scratch database of its own (a file in the temporary folder, or a new PostgreSQL database
named after the site's with `_bench_backup`), which it drops at the end: never the site's data.
It writes the history bench_stats writes (easy bots' real deals, whole matches, statistics
rows and ratings) and every bid and card's row, backs it up with `setback_site.backups`, wipes
the database, restores it, and prints the figures.
"""

import gzip
import os
import random
import shutil
import tempfile
import time
from pathlib import Path

from django.core.management.base import BaseCommand
from django.db import connection, connections, transaction

from benchmarks.management.commands.bench_stats import generate_history
from games.models import Action, Deal
from setback_site import backups


class Command(BaseCommand):
    help = "Back up and restore a scratch database of --deals deals; print the times and sizes."

    def add_arguments(self, parser):
        parser.add_argument("--deals", type=int, default=10_000)
        parser.add_argument("--seed", type=int, default=1)

    def handle(self, *args, deals, seed, **options):
        vendor = connection.vendor
        scratch = connection.settings_dict.setdefault("TEST", {})
        original_test_name = scratch.get("NAME")
        if vendor == "sqlite":
            scratch["NAME"] = str(
                Path(tempfile.gettempdir()) / f"setback-bench-backup-{os.getpid()}.sqlite3"
            )
        else:
            scratch["NAME"] = f"{connection.settings_dict['NAME']}_bench_backup"
        old_name = connection.creation.create_test_db(
            verbosity=0, autoclobber=True, serialize=False
        )
        folder = Path(tempfile.mkdtemp(prefix="setback-bench-backup-"))
        try:
            self._measure(deals, seed, folder)
        finally:
            connection.creation.destroy_test_db(old_name, verbosity=0)
            scratch["NAME"] = original_test_name
            for leftover in folder.iterdir():
                leftover.unlink()
            folder.rmdir()

    def _measure(self, deals, seed, folder):
        started = time.perf_counter()
        with transaction.atomic():
            generate_history(deals, random.Random(seed), actions=True)
        self.stdout.write(
            f"{connection.vendor}: wrote {Deal.objects.count()} deals, "
            f"{Action.objects.count()} actions in {time.perf_counter() - started:.0f} s"
        )
        taken = backups.backup(folder)
        rows = sum(taken.counts.values())
        self.stdout.write(
            f"backup: {taken.seconds:.2f} s, {taken.size / 1e6:.1f} MB, {rows} rows in "
            f"{len(taken.counts)} tables ({taken.path.name})"
        )
        if connection.vendor == "sqlite":
            # The file is the database as it is; copies kept elsewhere are worth compressing
            # (pg_dump's custom format already is).
            started = time.perf_counter()
            packed = taken.path.with_name(taken.path.name + ".gz")
            with taken.path.open("rb") as raw, gzip.open(packed, "wb", compresslevel=6) as out:
                shutil.copyfileobj(raw, out)
            self.stdout.write(
                f"gzip -6 of the backup: {packed.stat().st_size / 1e6:.1f} MB in "
                f"{time.perf_counter() - started:.2f} s"
            )
        self._wipe()
        restored = backups.restore(taken.path)
        self.stdout.write(
            f"restore into an empty database: {restored.seconds:.2f} s, rows checked against "
            f"the manifest (load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores)"
        )

    def _wipe(self):
        if connection.vendor == "sqlite":
            name = Path(connection.settings_dict["NAME"])
            connections.close_all()
            for path in (name, Path(f"{name}-wal"), Path(f"{name}-shm")):
                path.unlink(missing_ok=True)
        else:
            with connection.cursor() as cursor:
                cursor.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public;")
            connections.close_all()
