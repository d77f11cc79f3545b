"""Do bots and the coach starve page requests? `python manage.py bench_pages_under_load URL`.

Against a server already running on this database (`make run`, embedded mode: bot and coach
work runs inside the web process), it times the login page with nothing going on, then starts
`--matches` matches against hard bots for people with the coach on, plays the people's turns
(a random legal move as soon as it is theirs) so bots and coach keep working, and times the
login page again for `--seconds`. Prints the median and 95th percentile of both, in ms.
The people it creates are named bench-load-*; their matches are left in the database.
"""

import http.cookiejar
import random
import re
import statistics
import threading
import time
import urllib.parse
import urllib.request

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from games.core import selectors
from games.models import Match

PASSWORD = "bench-load-password-1"
PER_PERSON = 5  # matches each person starts: under the per-minute limit of new matches


class Browser:
    def __init__(self, base: str):
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def _csrf(self) -> str:
        token = next((c.value for c in self.jar if c.name == "csrftoken"), None)
        if token is None:
            self.get("/accounts/login/")
            token = next(c.value for c in self.jar if c.name == "csrftoken")
        return token

    def get(self, path: str) -> tuple[int, str]:
        with self.opener.open(self.base + path, timeout=60) as response:
            return response.status, response.geturl()

    def post(self, path: str, data: dict) -> tuple[int, str]:
        body = urllib.parse.urlencode({**data, "csrfmiddlewaretoken": self._csrf()}).encode()
        request = urllib.request.Request(
            self.base + path, data=body, headers={"Referer": self.base + "/"}
        )
        try:
            with self.opener.open(request, timeout=60) as response:
                return response.status, response.geturl()
        except urllib.error.HTTPError as error:
            return error.code, ""


def timed_login_pages(
    base: str, seconds: float, stop: threading.Event | None = None
) -> list[float]:
    times = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not (stop and stop.is_set()):
        started = time.perf_counter()
        with urllib.request.urlopen(base + "/accounts/login/", timeout=60) as response:
            response.read()
        times.append((time.perf_counter() - started) * 1000)
        time.sleep(0.1)
    return times


def summary(times: list[float]) -> str:
    times = sorted(times)
    p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
    return f"median {statistics.median(times):.0f} ms, p95 {p95:.0f} ms over {len(times)} requests"


class Command(BaseCommand):
    help = "Time a page while bots and the coach work, against a running server."

    def add_arguments(self, parser):
        parser.add_argument("url", help="the running server, e.g. http://127.0.0.1:8000")
        parser.add_argument("--matches", type=int, default=40)
        parser.add_argument("--level", default="hard")
        parser.add_argument("--seconds", type=float, default=45)

    def handle(self, *args, url, matches, level, seconds, **options):
        base = url.rstrip("/")
        self.stdout.write(f"idle: {summary(timed_login_pages(base, 10))}")
        User = get_user_model()
        stamp = random.randrange(10**6)
        people = []
        for i in range((matches + PER_PERSON - 1) // PER_PERSON):
            user = User.objects.create_user(
                f"bench-load-{stamp}-{i}", password=PASSWORD, coach_enabled=True
            )
            browser = Browser(base)
            browser.post("/accounts/login/", {"username": user.username, "password": PASSWORD})
            people.append(browser)
        match_ids = []
        for n in range(matches):
            status, where = people[n // PER_PERSON].post(
                "/matches/new/", {"preset": "house", "bot_level": level}
            )
            found = re.search(r"/matches/(\d+)/", where)
            if found:
                match_ids.append((int(found.group(1)), people[n // PER_PERSON]))
        self.stdout.write(f"started {len(match_ids)} matches against {level} bots, coach on")
        stop = threading.Event()
        moves = threading.Thread(target=self._play_people, args=(match_ids, stop), daemon=True)
        moves.start()
        loaded = timed_login_pages(base, seconds)
        stop.set()
        moves.join(timeout=30)
        self.stdout.write(f"under load: {summary(loaded)}; people's moves made: {self.moves}")

    def _play_people(self, match_ids, stop: threading.Event) -> None:
        """Each person plays a random legal move whenever it is their turn."""
        self.moves = 0
        rng = random.Random(1)
        while not stop.is_set():
            for match_id, browser in match_ids:
                match = Match.objects.get(pk=match_id)
                if match.status != Match.Status.PLAYING:
                    continue
                state = selectors.deal_state(selectors.current_deal(match))
                if state.to_act != "S" or stop.is_set():
                    continue
                action = rng.choice(state.legal_actions())  # house rules: calls and cards
                browser.post(
                    f"/matches/{match_id}/act/", {"action": action, "version": match.version}
                )
                self.moves += 1
            time.sleep(0.2)
