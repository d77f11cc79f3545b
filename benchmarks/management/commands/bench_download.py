"""How long does "Download my data" take to build? `python manage.py bench_download --deals N`.

Makes a person with N one-deal matches (one real match played offline, its rows copied N-1
times in bulk: the shape issue 45 grew cheaply with easy offline uploads), then builds their
download as the task does (accounts/downloads.py: the zip written to a private file) and prints
the time, the file's size and the time per 10,000 deals. The person is named bench-download-*;
their rows are left in the database (use a throwaway one: DATABASE_URL=sqlite:////tmp/x.sqlite3).
"""

import random
import time

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from accounts import downloads
from accounts.models import DataDownload
from games.core import services as game_services
from games.engine.offline import OfflineMatch, check_deal, first_dealer
from games.models import Action, Deal, Match, Seat

BATCH = 500


class Command(BaseCommand):
    help = "Time the build of one person's data download with N one-deal matches."

    def add_arguments(self, parser):
        parser.add_argument("--deals", type=int, default=10_000)

    def handle(self, *args, deals, **options):
        stamp = random.randrange(10**6)
        user = get_user_model().objects.create_user(f"bench-download-{stamp}", password=None)
        started = time.perf_counter()
        self._one_deal_matches(user, deals, stamp)
        made = time.perf_counter() - started
        self.stdout.write(f"made {deals} one-deal matches in {made:.0f} s")
        download = DataDownload.objects.create(owner=user)
        started = time.perf_counter()
        downloads.do_build(download.pk)
        seconds = time.perf_counter() - started
        download.refresh_from_db()
        self.stdout.write(
            f"built the download of {deals} deals in {seconds:.1f} s "
            f"({seconds / deals * 10_000:.1f} s per 10,000 deals), {download.size / 1e6:.1f} MB"
        )
        downloads.do_forget_downloads(user)

    def _one_deal_matches(self, user, count: int, stamp: int) -> None:
        match = OfflineMatch("house", "easy", stamp, f"bench-{stamp}", engine="bench")
        while not match.deal.is_over:
            match.act(match.deal.legal_actions()[0]) if not match.bot_to_act else match.play_bot()
        checked = check_deal(match.envelope(f"bench-d-{stamp}"))
        with transaction.atomic():
            played = game_services.begin_offline_match(
                checked.rules, user, first_dealer(checked.rules, stamp), checked.bots
            )
            game_services.lock_match(played.pk)
            game_services.store_offline_deal(played, checked.deal, checked.seat)
        played = Match.objects.get(pk=played.pk)
        seats = list(Seat.objects.filter(match=played))
        deal = Deal.objects.get(match=played)
        actions = list(Action.objects.filter(deal=deal))
        for first in range(1, count, BATCH):
            size = min(BATCH, count - first)
            with transaction.atomic():
                copies = Match.objects.bulk_create([_copy(played) for _ in range(size)])
                Seat.objects.bulk_create(
                    [_copy(seat, match=copy) for copy in copies for seat in seats]
                )
                new_deals = Deal.objects.bulk_create([_copy(deal, match=copy) for copy in copies])
                Action.objects.bulk_create(
                    [_copy(action, deal=new) for new in new_deals for action in actions]
                )


def _copy(row, **changes):
    copy = type(row)()
    for field in row._meta.concrete_fields:
        if not field.primary_key:
            setattr(copy, field.attname, getattr(row, field.attname))
    for name, value in changes.items():
        setattr(copy, name, value)
    return copy
