"""Can one account's offline uploads stall everyone else? `python manage.py bench_flood URL`.

Against a server already running on this database (`make run`: the embedded mode, every task in
the web process's pools; or behind nginx with workers), as issue 45 found it:
- another person ("other") has a finished deal (an easy offline deal sent home and checked) and a
  match against hard bots in play, whose turns this command plays at once (a random legal move);
- one account ("flood") sends `--uploads` worst-case offline deals at once (seven players,
  cutthroat, draw, hard bots: about 8 s of CPU each to check; each a different deal, made once
  and kept in var/ so the runs before and after send the same ones);
- meanwhile the other person asks for the face-up analysis of a step of their deal.
With `--accounts N` the uploads come from N accounts (round robin), so that more of them pass the
per-person budget and are truly in flight at once (12 from 6 accounts: 2 each); the bound then
left is the lane's.
URL is the site as a browser reaches it: `make run`'s Daphne, or nginx (`make proxy`) in front of
Daphne processes with `make worker`; run the command with the server's DATABASE_URL.
It prints the flood's answers (202 taken, 429/503 busy), how long the other person's face-up
step took to be solved, and the longest wait of a bot beyond its pace at their table over
`--seconds` (from the move rows' times: a bot's move after the previous move of the same deal).
The people it creates are named bench-flood-*; their rows are left in the database.
"""

import http.cookiejar
import json
import random
import re
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.urls import reverse

from games import engine
from games.core import selectors
from games.engine import bots
from games.engine.offline import OfflineMatch
from games.models import Action, Match
from games.offline.models import OfflineUpload
from games.replay.models import FaceUpAnalysis

PASSWORD = "bench-flood-password-1"
WORST_RULES = {"preset": "auction", "cutthroat": True, "players": 7, "draw": True}


class Browser:
    def __init__(self, base: str):
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def csrf(self) -> str:
        token = next((c.value for c in self.jar if c.name == "csrftoken"), None)
        if token is None:
            self.opener.open(self.base + "/accounts/login/", timeout=60).read()
            token = next(c.value for c in self.jar if c.name == "csrftoken")
        return token

    def _send(self, request) -> tuple[int, str, bytes]:
        try:
            with self.opener.open(request, timeout=120) as response:
                return response.status, response.geturl(), response.read()
        except urllib.error.HTTPError as error:
            return error.code, "", error.read()

    def post(self, path: str, data: dict) -> tuple[int, str, bytes]:
        body = urllib.parse.urlencode({**data, "csrfmiddlewaretoken": self.csrf()}).encode()
        headers = {"Referer": self.base + "/"}
        return self._send(urllib.request.Request(self.base + path, data=body, headers=headers))

    def post_json(self, path: str, payload: dict) -> tuple[int, str, bytes]:
        headers = {
            "Content-Type": "application/json",
            "X-CSRFToken": self.csrf(),
            "Referer": self.base + "/",
        }
        body = json.dumps(payload).encode()
        return self._send(urllib.request.Request(self.base + path, data=body, headers=headers))


def _play_deal(match: OfflineMatch) -> OfflineMatch:
    while not match.deal.is_over:
        if match.bot_to_act:
            match.play_bot()
        else:
            choice = bots.choose(match.observation(match.seat), "easy", seed=match.deal.version)
            match.act(choice)
    return match


def offline_envelope(rules, level: str, seed: int, key: str, upload_id: str) -> dict:
    """The first deal of a new offline match, played as the page plays it."""
    return _play_deal(OfflineMatch(rules, level, seed, key, engine="bench")).envelope(upload_id)


def _worst(n: int) -> dict:
    return offline_envelope(WORST_RULES, "hard", 9000 + n, f"flood-m-{n:04}", f"flood-d-{n:04}")


def worst_case_uploads(count: int, write) -> list[dict]:
    cache = Path(settings.BASE_DIR) / "var" / f"bench-flood-{count}.json"
    if cache.exists():
        return json.loads(cache.read_text())
    write(f"making {count} worst-case deals (seven players, draw, hard bots; kept in {cache})")
    with ProcessPoolExecutor(max_workers=2) as pool:
        envelopes = list(pool.map(_worst, range(count)))
    cache.parent.mkdir(exist_ok=True)
    cache.write_text(json.dumps(envelopes))
    return envelopes


class Command(BaseCommand):
    help = "Time another person's face-up step and bots while one account floods uploads."

    def add_arguments(self, parser):
        parser.add_argument("url", help="the running server, e.g. http://127.0.0.1:8000")
        parser.add_argument("--uploads", type=int, default=12)
        parser.add_argument(
            "--accounts", type=int, default=1, help="how many accounts send the uploads"
        )
        parser.add_argument("--seconds", type=float, default=40)
        parser.add_argument("--pace", type=float, default=0.7, help="the server's BOT_PACE_SECONDS")
        parser.add_argument(
            "--wait", type=float, default=120, help="how long to wait for the face-up step"
        )

    def handle(self, *args, url, uploads, accounts, seconds, pace, wait, **options):
        self.wait = wait
        base = url.rstrip("/")
        flood_deals = worst_case_uploads(uploads, self.stdout.write)
        stamp = random.randrange(10**6)
        users = get_user_model().objects
        flooders = [Browser(base) for _ in range(max(1, accounts))]
        other = Browser(base)
        names = [f"flood{n or ''}" for n in range(len(flooders))]
        for browser, name in (*zip(flooders, names, strict=True), (other, "other")):
            username = f"bench-flood-{stamp}-{name}"
            users.create_user(username, password=PASSWORD)
            browser.post("/accounts/login/", {"username": username, "password": PASSWORD})

        deal_row = self._finished_deal(other, stamp)
        steps = self._play_steps(deal_row)
        solo = self._face_up(other, deal_row, steps[4])
        self.stdout.write(f"face-up step, nothing else going on: {solo:.1f} s")

        status, where, _ = other.post("/matches/new/", {"preset": "house", "bot_level": "hard"})
        match_id = int(re.search(r"/matches/(\d+)/", where).group(1))
        stop = threading.Event()
        player = threading.Thread(target=self._play, args=(match_id, other, stop), daemon=True)
        player.start()
        quiet_from = time.time()
        time.sleep(seconds)
        quiet = self._bot_waits(match_id, quiet_from, pace)
        self.stdout.write(
            f"bot moves at the other table in {seconds:.0f} s before the flood: {len(quiet)}, "
            f"longest wait beyond the {pace} s pace: {max(quiet, default=0):.2f} s"
        )

        started = time.time()
        with ThreadPoolExecutor(max_workers=len(flood_deals)) as pool:
            answers = list(
                pool.map(
                    lambda n: flooders[n % len(flooders)].post_json(
                        reverse("offline:upload"), flood_deals[n]
                    )[0],
                    range(len(flood_deals)),
                )
            )
        counts = {code: answers.count(code) for code in sorted(set(answers))}
        self.stdout.write(
            f"{len(flood_deals)} worst-case uploads at once from {len(flooders)} account(s): "
            f"answers {counts}"
        )
        flooded = self._face_up(other, deal_row, steps[8])
        shown = (
            f"{flooded:.1f} s" if flooded != float("inf") else f"not solved after {self.wait:.0f} s"
        )
        self.stdout.write(f"face-up step during the flood: {shown}")
        time.sleep(max(0.0, seconds - (time.time() - started)))
        stop.set()
        player.join(timeout=30)
        waits = self._bot_waits(match_id, started, pace)
        worst = max(range(len(waits)), key=waits.__getitem__, default=None)
        when = "" if worst is None else f" (the move {self._moved_at[worst] - started:.1f} s in)"
        self.stdout.write(
            f"bot moves at the other table in the {time.time() - started:.0f} s from the flood "
            f"on: {len(waits)}, longest wait "
            f"beyond the {pace} s pace: {max(waits, default=0):.2f} s{when}"
        )
        checking = OfflineUpload.objects.filter(
            owner__username__startswith=f"bench-flood-{stamp}-flood", status="checking"
        ).count()
        self.stdout.write(f"flood's uploads still being checked at the end: {checking}")

    def _finished_deal(self, browser: Browser, stamp: int):
        seed = stamp
        while True:  # a deal played out (not thrown in), with steps to analyse
            envelope = offline_envelope(
                "house", "easy", seed, f"other-m-{stamp}", f"other-d-{stamp}"
            )
            if len(envelope["record"]["plays"]) >= 20:
                break
            seed += 1
        browser.post_json(reverse("offline:upload"), envelope)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            upload = OfflineUpload.objects.filter(client_id=f"other-d-{stamp}").first()
            if upload is not None and upload.deal_id:
                return upload.deal
            time.sleep(0.2)
        raise RuntimeError("the other person's deal did not come home")

    def _play_steps(self, deal_row) -> list[int]:
        final = selectors.deal_state(deal_row)
        state = selectors.deal_state(deal_row, upto=0)
        steps = []
        for step, (seat, token) in enumerate(final.history):
            if state.phase == engine.PLAY:
                steps.append(step)
            state.apply(token, seat)
        return steps

    def _face_up(self, browser: Browser, deal_row, step: int) -> float:
        started = time.monotonic()
        path = reverse("replay:faceup", args=[deal_row.match_id, deal_row.number, step])
        browser.post(path, {})
        while time.monotonic() - started < self.wait:
            row = FaceUpAnalysis.objects.filter(deal=deal_row, step=step).first()
            if row is not None and row.status in ("ready", "too_large"):
                return time.monotonic() - started
            time.sleep(0.1)
        return float("inf")

    def _play(self, match_id: int, browser: Browser, stop: threading.Event) -> None:
        rng = random.Random(1)
        while not stop.is_set():
            match = Match.objects.get(pk=match_id)
            if match.status == Match.Status.PLAYING:
                state = selectors.deal_state(selectors.current_deal(match))
                if state.phase == engine.OVER:  # the person starts the next deal, as the page does
                    browser.post(f"/matches/{match_id}/next/", {"version": match.version})
                elif state.to_act == "S":
                    action = rng.choice(state.legal_actions())
                    browser.post(
                        f"/matches/{match_id}/act/", {"action": action, "version": match.version}
                    )
            time.sleep(0.05)

    def _bot_waits(self, match_id: int, since: float, pace: float) -> list[float]:
        rows = list(
            Action.objects.filter(deal__match_id=match_id)
            .order_by("deal_id", "sequence")
            .values("deal_id", "user_id", "created_at")
        )
        waits, self._moved_at = [], []
        for before, action in zip(rows, rows[1:], strict=False):
            bot = action["user_id"] is None
            if (
                bot
                and before["deal_id"] == action["deal_id"]
                and action["created_at"].timestamp() > since
            ):
                waits.append((action["created_at"] - before["created_at"]).total_seconds() - pace)
                self._moved_at.append(action["created_at"].timestamp())
        return waits
