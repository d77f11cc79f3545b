"""Create the load test's users in the site's database: `python manage.py loadtest_users 100`.

The site allows five sign-ups a minute from one address and locks out an address after five
failed logins, so `loadtest` cannot sign up a hundred people through the form; with the users
made here, every one of them logs in through the real login form on the first try.
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Create users <prefix>-1 .. <prefix>-N with the load test's password (existing ones are kept)."

    def add_arguments(self, parser):
        parser.add_argument("count", type=int)
        parser.add_argument("--prefix", default="loadtest")
        parser.add_argument("--password", default="Quiet-harbor-58213")

    def handle(self, *args, count, prefix, password, **options):
        User = get_user_model()
        # One hash for all: hashing is slow on purpose, and these users share one password.
        hashed = make_password(password)
        names = [f"{prefix}-{n}" for n in range(1, count + 1)]
        existing = set(User.objects.filter(username__in=names).values_list("username", flat=True))
        User.objects.bulk_create(
            [User(username=name, password=hashed) for name in names if name not in existing]
        )
        self.stdout.write(f"{count - len(existing)} users created, {len(existing)} already there")
