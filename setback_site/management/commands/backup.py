"""`manage.py backup` (`make backup`): a consistent, timestamped backup of the site's database."""

from django.core.management.base import BaseCommand, CommandError

from setback_site import backups


class Command(BaseCommand):
    help = "Back up the site's database into var/backups/ (or --dir), with a manifest beside it."

    def add_arguments(self, parser):
        parser.add_argument("--dir", help="Where to write it (default: BACKUP_DIR or var/backups).")

    def handle(self, *args, dir=None, **options):
        try:
            result = backups.backup(dir)
        except backups.BackupError as error:
            raise CommandError(str(error)) from None
        rows = sum(result.counts.values())
        self.stdout.write(
            f"{result.path}  ({result.size / 1e6:.1f} MB, {len(result.counts)} tables, "
            f"{rows} rows, {result.seconds:.1f} s)"
        )
