"""Tables in play for the fault suite: bot tables, people who play over HTTP, screens on
websockets, and the checks that nothing was lost, doubled or stuck.

The test process is a client of the site like any browser (HTTP and websockets to Daphne), and
reads the database directly only to decide a person's move and to check the record.
"""

import os
import random
import re
import secrets
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from django.db import close_old_connections, connection, connections, transaction
from websockets.exceptions import WebSocketException
from websockets.sync.client import connect

from accounts.models import User
from games import engine
from games.core import selectors, services, turns
from games.core.turns import WaitingFor
from games.models import Action, Deal, Match, Seat

RULES = "classic"  # to 21: matches last long enough to see every fault


def backoff(retries: int) -> float:
    """The page's reconnect delay (static/js/table.js): jittered, doubling, at most 4 s.
    FAULTS_PAGE_BACKOFF=htmx-default measures the htmx extension's own (full jitter up to 64 s),
    which the page used before."""
    if os.environ.get("FAULTS_PAGE_BACKOFF") == "htmx-default":
        return 2.0 ** min(retries, 6) * random.random()
    ceiling = min(4.0, 2.0**retries)
    return ceiling / 2 + random.random() * ceiling / 2


def make_user(name: str) -> User:
    user, _ = User.objects.get_or_create(username=name)
    user.coach_enabled = False
    user.save()
    return user


def session_cookie(user: User) -> str:
    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    return store.session_key


def start_bot_table(host: User) -> int:
    """A match that bots play from start to end (the host's seat is handed to a bot)."""
    match = services.do_start_match(host, rules_spec=RULES, bot_level="easy")
    Seat.objects.filter(match=match, user=host).update(user=None, bot_level="easy")
    services.announce_change(match.pk, match.version)  # wake whoever is first to act
    return match.pk


def start_person_table(person: User) -> int:
    return services.do_start_match(person, rules_spec=RULES, bot_level="easy").pk


@dataclass
class Post:
    match_id: int
    path: str
    token: str
    version: int
    status: int  # 0: no answer (the server was down)
    sent_at: float  # wall clock: the rows it may have saved were made between sending and the
    answered_at: float  # answer (a person's next try, of maybe the same move, comes later)


class Person(threading.Thread):
    """A person at a table against bots who plays over HTTP: a random legal move at their turn,
    and "Next deal" when a deal is over. Like a person, they try again when nothing answers."""

    def __init__(self, user: User, match_id: int, base_url: str):
        super().__init__(daemon=True, name=f"person-{user.username}")
        self.user = user
        self.match_id = match_id
        self.base_url = base_url
        self.cookie = f"sessionid={session_cookie(user)}"
        self.csrf = secrets.token_hex(16)
        self.posts: list[Post] = []
        self.stopping = threading.Event()

    def stop(self):
        self.stopping.set()

    def next_request(self) -> tuple[str, dict, str, int] | None:
        match = Match.objects.get(pk=self.match_id)
        if match.status != Match.Status.PLAYING:
            return None
        turn = turns.waiting_on(self.match_id)
        if turn is None:
            return None
        if turn.kind == WaitingFor.NEXT_DEAL and not turn.automatic:
            return "next", {"version": turn.version}, "next", turn.version
        if turn.kind != WaitingFor.PERSON:
            return None
        state = selectors.deal_state(selectors.current_deal(match))
        token = random.choice(state.legal_actions())
        return "act", {"version": turn.version, "action": token}, token, turn.version

    def run(self):
        retries = 0
        while not self.stopping.is_set():
            try:
                request = self.next_request()
                finished = (
                    request is None
                    and Match.objects.filter(
                        pk=self.match_id, status=Match.Status.FINISHED
                    ).exists()
                )
            except Exception:  # noqa: BLE001 - the database is restarting: look again
                request, finished = None, False
            finally:
                close_old_connections()
            if finished:
                break
            if request is None:
                self.stopping.wait(0.15)
                continue
            path, data, token, version = request
            status = self.post(path, data, token, version)
            if status == 0 or status >= 500:
                self.stopping.wait(backoff(retries))
                retries += 1
            else:
                retries = 0
        connections.close_all()

    def post(self, path: str, data: dict, token: str, version: int) -> int:
        sent_at = time.time()
        request = urllib.request.Request(
            f"{self.base_url}/matches/{self.match_id}/{path}/",
            data=urllib.parse.urlencode(data).encode(),
            headers={
                "Cookie": f"{self.cookie}; csrftoken={self.csrf}",
                "X-CSRFToken": self.csrf,
                "HX-Request": "true",
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=15) as response:
                status = response.status
        except urllib.error.HTTPError as error:
            status = error.code
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            status = 0
        self.posts.append(Post(self.match_id, path, token, version, status, sent_at, time.time()))
        return status


class Screen(threading.Thread):
    """A table page's websocket: reconnects with the page's backoff and remembers the versions
    it was shown."""

    def __init__(self, user: User, match_id: int, port: int):
        super().__init__(daemon=True, name=f"screen-{user.username}")
        self.url = f"ws://127.0.0.1:{port}/ws/table/{match_id}/"
        self.origin = f"http://127.0.0.1:{port}"
        self.cookie = f"sessionid={session_cookie(user)}"
        self.match_id = match_id
        self.shown: list[tuple[float, int]] = []  # (monotonic time, version on screen)
        self.connected = threading.Event()
        self.drops = 0
        self.stopping = threading.Event()

    def stop(self):
        self.stopping.set()

    def newest_since(self, since: float) -> int:
        return max((v for at, v in self.shown if at >= since), default=-1)

    def run(self):
        retries = 0
        while not self.stopping.is_set():
            try:
                with connect(
                    self.url,
                    origin=self.origin,
                    open_timeout=5,
                    additional_headers={"Cookie": self.cookie},
                ) as socket:
                    self.connected.set()
                    retries = 0
                    while not self.stopping.is_set():
                        try:
                            message = socket.recv(timeout=0.5)
                        except TimeoutError:
                            continue
                        found = re.search(r'data-version="(\d+)"', message)
                        if found:
                            self.shown.append((time.monotonic(), int(found[1])))
            except (OSError, WebSocketException, TimeoutError):
                pass
            if self.connected.is_set():
                self.drops += 1
            self.connected.clear()  # the page shows "reconnecting" now
            self.stopping.wait(backoff(retries))
            retries += 1


@dataclass
class Problems:
    items: list[str] = field(default_factory=list)

    def add(self, text: str):
        self.items.append(text)


def check_record(match_id: int, problems: Problems) -> None:
    """Every deal's actions are numbered 0..n-1 without a gap, replay legally through the
    engine, and every step of the match's version is one action or one new deal: nothing lost,
    nothing doubled. Read in one snapshot: the table may still be playing."""
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        _check_record(match_id, problems)


def _check_record(match_id: int, problems: Problems) -> None:
    match = Match.objects.get(pk=match_id)
    rules = selectors.rules_of(match)
    deals = list(Deal.objects.filter(match=match).order_by("number"))
    if [d.number for d in deals] != list(range(1, len(deals) + 1)):
        problems.add(f"match {match_id}: deal numbers {[d.number for d in deals]}")
    actions = 0
    for index, deal_row in enumerate(deals):
        rows = list(Action.objects.filter(deal=deal_row).order_by("sequence"))
        actions += len(rows)
        if [a.sequence for a in rows] != list(range(len(rows))):
            problems.add(
                f"match {match_id} deal {deal_row.number}: sequence {[a.sequence for a in rows]}"
            )
            continue
        state = engine.Deal(rules, deal_row.dealer, deal_row.hands, deal_row.stock)
        try:
            for row in rows:
                state.apply(row.token, row.seat)
        except engine.IllegalAction as error:
            problems.add(f"match {match_id} deal {deal_row.number}: replay refused: {error}")
            continue
        last = index == len(deals) - 1
        if not last and state.phase != "over":
            problems.add(f"match {match_id} deal {deal_row.number}: left unfinished")
    if match.version != actions + len(deals) - 1:
        problems.add(
            f"match {match_id}: version {match.version} but {actions} actions "
            f"and {len(deals)} deals"
        )


def saved_after_error(post: Post, user: User) -> bool:
    """Whether a move answered 5xx was saved nonetheless (what must never happen): a row made
    while the post waited for its answer. The person's next try, which may well be the same
    card, is sent after the answer and a backoff, so its row is not taken for this one."""
    during = (
        datetime.fromtimestamp(post.sent_at, tz=UTC),
        datetime.fromtimestamp(post.answered_at, tz=UTC),
    )
    if post.path == "next":
        return Deal.objects.filter(match_id=post.match_id, started_at__range=during).exists()
    return Action.objects.filter(
        deal__match_id=post.match_id, user=user, token=post.token, created_at__range=during
    ).exists()
