"""Build one data download (accounts/downloads.py): what `make run`'s task starts in a process of
its own, so that the web process never spends its CPU on it."""

from django.core.management.base import BaseCommand

from accounts import downloads


class Command(BaseCommand):
    help = "Build the data download with this id into its private file."

    def add_arguments(self, parser):
        parser.add_argument("download_id", type=int)

    def handle(self, *args, download_id: int, **options):
        self.stdout.write(downloads.do_build(download_id))
