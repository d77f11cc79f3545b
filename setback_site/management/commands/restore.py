"""`manage.py restore FILE` (`make restore FILE=...`): a backup back into an empty database."""

from django.core.management.base import BaseCommand, CommandError

from setback_site import backups


class Command(BaseCommand):
    help = (
        "Restore a backup made by `manage.py backup` into the site's database, which must be "
        "empty; then check every table's rows against the backup's manifest."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="A .sqlite3 or .dump file from var/backups/.")

    def handle(self, *args, file, **options):
        try:
            result = backups.restore(file)
        except backups.BackupError as error:
            raise CommandError(str(error)) from None
        checked = "checked against its manifest" if backups.read_manifest(file) else "no manifest"
        self.stdout.write(
            f"restored {result.path} ({sum(result.counts.values())} rows in "
            f"{len(result.counts)} tables, {checked}) in {result.seconds:.1f} s"
        )
