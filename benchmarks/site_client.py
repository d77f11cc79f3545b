"""A person's browser, as far as the load test and the soak need one: pages and forms over
HTTP, the table's websocket, and the screens the site sends, read the way its page reads them.

It logs in through the real login form, keeps the CSRF token of the page it is on (as the
page's htmx posts send it), posts moves with the version on screen, and follows a form's
redirect with a GET as a browser does. Every answer can be counted by kind (`route_kind`) in a
`RequestLog`. It talks only to loopback addresses (`loopback_only`).
"""

import ipaddress
import json
import random
import re
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

import aiohttp
from django.core.management.base import CommandError
from multidict import CIMultiDict

TABLE_RE = re.compile(
    r'<div id="table" class="table( table-my-turn)?" data-version="(\d+)" '
    r'data-deal="(\d+)" data-step="(\d+)" data-phase="(\w+)"'
)
FORMING_RE = re.compile(r'<div id="table" class="forming" data-version="(\d+)" data-forming')
CSRF_RE = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
BUTTON_RE = re.compile(
    r'<button class="(?:button bid-button|card card-legal)" type="submit" '
    r'name="action" value="([^"]+)"'
)
DISCARD_RE = re.compile(r'<input type="checkbox" name="cards" value="(\w\w)"')
DISCARD_EXACT_RE = re.compile(r'data-discard-exact="(\d+)"')
NEXT_DEAL = "data-next-deal"
REFUSED = 'class="table-message table-error"'  # a refused move's reason, on its screen
PLAY_AGAIN_RE = re.compile(r'hx-post="(/matches/\d+/rematch/)"')
MATCH_URL_RE = re.compile(r"/matches/(\d+)/")

# Every URL the people use, named by what it is: requests are counted by method and name.
ROUTES = [
    (r"/", "home"),
    (r"/accounts/login/", "log in"),
    (r"/accounts/signup/", "sign up"),
    (r"/accounts/", "account"),
    (r"/accounts/coach/", "coach switch"),
    (r"/matches/new/", "new match"),
    (r"/matches/\d+/", "table"),
    (r"/matches/\d+/act/", "move"),
    (r"/matches/\d+/next/", "next deal"),
    (r"/matches/\d+/rematch/", "rematch"),
    (r"/matches/\d+/sit/", "sit"),
    (r"/matches/\d+/bot/", "seat bots"),
    (r"/matches/\d+/start/", "start table"),
    (r"/matches/\d+/leave/", "leave table"),
    (r"/matches/\d+/chat/", "chat"),
    (r"/tables/new/", "new table"),
    (r"/tables/join/", "join by code"),
    (r"/t/\w+/", "invite link"),
    (r"/history/", "history"),
    (r"/history/matches/\d+/", "match page"),
    (r"/history/matches/\d+/record\.json", "match record"),
    (r"/replay/matches/\d+/\d+/", "replay"),
    (r"/replay/matches/\d+/\d+/\d+/", "replay step"),
    (r"/replay/matches/\d+/\d+/\d+/faceup/", "face-up"),
    (r"/replay/matches/\d+/\d+/\d+/practice/", "play from here"),
    (r"/replay/matches/\d+/\d+/record\.json", "deal record"),
    (r"/coach/matches/\d+/panel/", "coach panel"),
    (r"/coach/deals/\d+/review/", "review"),
    (r"/coach/exercises/", "exercises"),
    (r"/coach/exercises/\d+/\d+/", "exercise"),
    (r"/coach/exercises/\d+/\d+/result/", "exercise result"),
    (r"/stats/", "statistics"),
    (r"/players/[^/]+/", "player page"),
    (r"/leaderboard/", "leaderboard"),
    (r"/lobby/", "lobby"),
    (r"/lobby/tables/\d+/sit/", "lobby sit"),
    (r"/lobby/pairing/", "pairing page"),
    (r"/lobby/pairing/find/", "find players"),
    (r"/lobby/pairing/cancel/", "cancel pairing"),
    (r"/ws/table/\d+/", "table socket"),
    (r"/ws/pairing/", "pairing socket"),
    (r"/ws/lobby/", "lobby socket"),
]
_ROUTES = [(re.compile(pattern + r"(?:\?.*)?\Z"), name) for pattern, name in ROUTES]


def route_kind(method: str, url: str) -> str:
    """What a request is, for counting: "POST move", "GET replay step", "WS table socket"."""
    parts = urlsplit(url)
    path = parts.path or "/"
    for pattern, name in _ROUTES:
        if pattern.match(path):
            return f"{method} {name}"
    return f"{method} other"


def loopback_only(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        raise CommandError("--url must be an http:// address, e.g. http://127.0.0.1:8000")
    for info in socket.getaddrinfo(parts.hostname, parts.port or 80):
        if not ipaddress.ip_address(info[4][0]).is_loopback:
            raise CommandError(
                f"{parts.hostname} is not a loopback address: the load test only "
                "sends traffic to this machine."
            )
    return url.rstrip("/")


@dataclass
class Screen:
    """The table as one seat sees it: the `#table` fragment and what its attributes say."""

    my_turn: bool
    version: int
    deal: int
    step: int
    phase: str
    html: str

    @classmethod
    def parse(cls, html: str) -> "Screen | None":
        found = TABLE_RE.search(html)
        if not found:
            return None
        return cls(
            bool(found.group(1)),
            int(found.group(2)),
            int(found.group(3)),
            int(found.group(4)),
            found.group(5),
            html,
        )


def legal_move(screen: Screen, rng: random.Random) -> dict:
    """The form a click on the screen posts: a random bid or card among the legal ones, or a
    discard: the number of cards the rules ask for, else none or one of the cards offered (the
    page offers only cards that may go, and one whenever the stock can still replace one)."""
    data: dict[str, str | list[str]] = {"version": str(screen.version)}
    tokens = BUTTON_RE.findall(screen.html)
    if tokens:
        data["action"] = rng.choice(tokens)
        return data
    cards = DISCARD_RE.findall(screen.html)
    exact = DISCARD_EXACT_RE.search(screen.html)
    count = int(exact.group(1)) if exact else rng.choice((0, 1))
    data["discard"] = "1"
    data["cards"] = rng.sample(cards, min(count, len(cards)))
    return data


def socket_message(kind: str, data: dict) -> str:
    """A form ("move" or "next_deal") as the page sends it over the table's socket
    (static/js/table.js)."""
    fields = {name: value if isinstance(value, list) else [value] for name, value in data.items()}
    return json.dumps({kind: fields})


@dataclass
class Answer:
    status: int
    text: str
    url: str
    headers: CIMultiDict  # Twisted sends "Hx-Redirect" for Django's "HX-Redirect": any case


@dataclass
class Request:
    """One request as the log keeps it."""

    kind: str
    status: int  # 0: no answer (refused, cut off, or timed out)
    seconds: float
    url: str
    who: str
    doing: str
    error: str = ""


class RequestLog:
    """Every request of a run: counted by kind and answer; kept whole when it is a failure
    (an answer of 500 or more, or none at all)."""

    def __init__(self, started: float | None = None):
        self.started = time.monotonic() if started is None else started
        self.by_kind: dict[str, dict] = {}
        self.failures: list[tuple[float, Request]] = []

    def add(self, request: Request) -> None:
        row = self.by_kind.setdefault(request.kind, {"statuses": {}, "seconds": []})
        group = f"{request.status // 100}xx" if request.status else "none"
        row["statuses"][group] = row["statuses"].get(group, 0) + 1
        row["seconds"].append(request.seconds)
        if request.status >= 500 or request.status == 0:
            self.failures.append((time.monotonic() - self.started, request))

    def count(self) -> int:
        return sum(len(row["seconds"]) for row in self.by_kind.values())


class SiteClient:
    """One person's browser: a cookie jar, the page they are on, and its CSRF token."""

    def __init__(
        self,
        base: str,
        who: str = "",
        log: RequestLog | None = None,
        timeout: float = 60,
        doing: Callable[[], str] = str,
    ):
        self.base = base
        self.who = who
        self.log = log
        self.doing = doing  # what the person is doing, for the log of failures
        self.session = aiohttp.ClientSession(
            cookie_jar=aiohttp.CookieJar(unsafe=True),  # cookies for 127.0.0.1
            timeout=aiohttp.ClientTimeout(total=timeout),
        )
        self.csrf = ""
        self.page = base + "/"

    async def close(self) -> None:
        await self.session.close()

    def _note(self, kind: str, status: int, started: float, url: str, error: str = "") -> None:
        if self.log is not None:
            seconds = time.monotonic() - started
            self.log.add(Request(kind, status, seconds, url, self.who, self.doing(), error))

    async def _send(self, method: str, path: str, **options) -> Answer:
        url = path if path.startswith("http") else self.base + path
        kind = route_kind(method, url)
        started = time.monotonic()
        try:
            async with self.session.request(method, url, **options) as response:
                text = await response.text(errors="replace")
                answer = Answer(response.status, text, str(response.url), response.headers.copy())
        except (TimeoutError, aiohttp.ClientError) as error:
            self._note(kind, 0, started, url, f"{type(error).__name__}: {error}")
            raise
        self._note(kind, answer.status, started, url)
        return answer

    async def get(self, path: str, htmx: bool = False) -> Answer:
        """A page (or, with `htmx`, a fragment the page asks for); a full page becomes the page
        the person is on, whose CSRF token their next posts send."""
        headers = self.htmx_headers() if htmx else {}
        answer = await self._send("GET", path, headers=headers, allow_redirects=False)
        while answer.status in (301, 302) and "Location" in answer.headers:
            answer = await self._send("GET", answer.headers["Location"], allow_redirects=False)
        if not htmx:
            self._on_page(answer)
        return answer

    async def post(self, path: str, data: dict, htmx: bool = False, follow: bool = True):
        """A form's post: htmx's (its header and the page's CSRF token) or a plain one, whose
        redirect the browser follows with a GET."""
        data = {"csrfmiddlewaretoken": self.csrf, **data} if not htmx else data
        headers = self.htmx_headers() if htmx else {"Referer": self.page}
        answer = await self._send("POST", path, data=data, headers=headers, allow_redirects=False)
        if follow and answer.status in (301, 302, 303) and "Location" in answer.headers:
            return await self.get(answer.headers["Location"])
        if not htmx and answer.status == 200:
            self._on_page(answer)
        return answer

    def _on_page(self, answer: Answer) -> None:
        if answer.status == 200 and answer.text.lstrip().startswith("<!"):
            self.page = answer.url
        found = CSRF_RE.search(answer.text)
        if found:
            self.csrf = found.group(1)

    def htmx_headers(self) -> dict:
        # What htmx sends with a request from the page: its header and the page's CSRF token.
        return {"HX-Request": "true", "X-CSRFToken": self.csrf, "Referer": self.page}

    async def form_token(self, path: str) -> str:
        answer = await self.get(path)
        found = CSRF_RE.search(answer.text)
        if not found:
            raise RuntimeError(f"no form on {path} (status {answer.status})")
        return found.group(1)

    async def log_in(self, username: str, password: str, prefix: str = "loadtest") -> None:
        """Through the login form; the first time with this name, through the sign-up form."""
        await self.form_token("/accounts/login/")
        data = {"username": username, "password": password, "next": "/"}
        answer = await self.post("/accounts/login/", data, follow=False)
        if answer.status == 302:
            return
        await self.form_token("/accounts/signup/")
        data = {"username": username, "password1": password, "password2": password}
        answer = await self.post("/accounts/signup/", data, follow=False)
        if answer.status != 302:
            raise CommandError(
                f"could not log in or sign up {username}: create the users first with "
                f"`manage.py loadtest_users N --prefix {prefix}` (sign-ups are limited per address)"
            )

    async def table_socket(self, match_id: int):
        """The table page's websocket (an aiohttp connection, to use with `async with`)."""
        url = self.base.replace("http://", "ws://") + f"/ws/table/{match_id}/"
        return await self.socket(url)

    async def socket(self, url: str):
        kind = route_kind("WS", url)
        started = time.monotonic()
        try:
            connection = await self.session.ws_connect(
                url, origin=self.base, heartbeat=None, autoping=True
            )
        except aiohttp.WSServerHandshakeError as error:
            self._note(kind, error.status, started, url, str(error))
            raise
        except (TimeoutError, aiohttp.ClientError) as error:
            self._note(kind, 0, started, url, f"{type(error).__name__}: {error}")
            raise
        self._note(kind, 101, started, url)
        return connection
