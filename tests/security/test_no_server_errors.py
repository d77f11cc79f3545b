"""No input gives a server error: every URL pattern of the site, walked with hostile values.

The walk iterates the URL resolver, so a view added later is walked too. Each pattern is tried
with real ids (a forming table, a match being played, someone else's match, an unfinished deal,
an import) and with ids no row has (zero, huge, beyond 64 bits), by a stranger and by a player,
with bad query strings and bad POST bodies. Every answer must be a page or a clear 4xx.
"""

import json
import random
import re

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from games import engine
from games.core import services
from games.engine import deal_to_record
from games.models import Match
from games.replay import services as replay_services
from games.tables import services as tables

pytestmark = pytest.mark.django_db

BEYOND_64_BITS = str(2**64)
HUGE = "1" + "0" * 40
PARAM = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<name>[^>]+)>")

QUERIES = [
    "",
    "?page=-1&until=9999-12-31&since=0001-01-01&preset=%00&outcome=won",
    f"?page={HUGE}&until=31-12-9999&since=x&next=foo&code=%00&step={HUGE}",
    "?next=https://evil.example/&preset=house&outcome=lost&page=abc",
]
BODIES = [
    {},
    {
        "version": "x",
        "action": "AS",
        "cards": ["ZZ", "AS", "AS"],
        "position": "Q",
        "level": "god",
        "text": "\x00hi",
        "next": "foo",
        "enabled": "on",
        "code": "\x00",
        "rules": "x",
        "preset": "x",
        "turn_timeout_seconds": "-5",
        "allow_spectators": "maybe",
        "username": "\x00",
        "password": "x",
        "payload": "{",
        "record": "[]",
    },
    {
        "version": HUGE,
        "action": "X" * 100_000,
        "discard": "1",
        "cards": "X" * 1000,
        "position": "all",
        "level": "",
        "text": "x" * 10_000,
        "next": "//evil.example",
        "old_password": "x",
        "new_password1": "a",
        "new_password2": "b",
        "seating": "six",
        "players": "99",
        "target": "-1",
        "low_to": "nobody",
        "bot_level": "\x00",
    },
]


def walk(patterns, prefix=""):
    """Every URL pattern under the resolver: (route string with converters, is a plain route)."""
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
        else:
            assert isinstance(pattern, URLPattern)
            route = prefix + str(pattern.pattern)
            yield route


@pytest.fixture
def no_background_work(monkeypatch):
    """Bot and coach tasks would run on threads outside this test's transaction: keep them."""
    queued = []
    monkeypatch.setattr(
        "games.core.dispatch.enqueue", lambda task, *args, **kwargs: queued.append(task)
    )
    return queued


@pytest.fixture
def world(make_user, no_background_work):
    """A player with a forming table, a match in play and an import; and a stranger's match."""
    player = make_user("mallory")
    other = make_user("olivia")
    forming = tables.do_create_table(player, rules_spec="house")
    playing = services.do_start_match(player, rules_spec="classic")
    theirs = services.do_start_match(other, rules_spec="family")
    deal = engine.Deal.new("house", "N", random.Random(7))
    deal.apply(deal.legal_actions()[0])
    imported = replay_services.do_import_record(player, data=json.dumps(deal_to_record(deal)))
    assert forming.status == Match.Status.FORMING
    ints = [
        str(forming.pk),
        str(playing.pk),
        str(theirs.pk),
        str(playing.deals.get().pk),
        str(imported.pk),
        "0",
        BEYOND_64_BITS,
        HUGE,
    ]
    strings = [forming.invite_code, "ZZZZZZ", "a" * 300, "%00..", "'\"<>%F0%9F%82%A1"]
    return {"player": player, "ints": ints, "strings": strings}


def urls_for(route: str, world) -> list[str]:
    """The route with each parameter set in turn to every value (the others at their first)."""
    if route.startswith("^") or "(?P" in route:  # a regular expression (the admin's catch-alls)
        route = re.sub(r"\^|\$|\(\?P<[^>]+>[^)]*\)", "x", route)
    params = [(m.group("converter") or "str", m.group("name")) for m in PARAM.finditer(route)]
    if not params:
        return ["/" + route]
    values = {name: world["ints"] if conv == "int" else world["strings"] for conv, name in params}
    combos = []
    for varied, _ in enumerate(params):
        for value in values[params[varied][1]]:
            combos.append(
                [value if i == varied else values[name][0] for i, (_, name) in enumerate(params)]
            )
    return sorted({"/" + _fill(route, combo) for combo in combos})


def _fill(route: str, values: list[str]) -> str:
    remaining = iter(values)
    return PARAM.sub(lambda _m: next(remaining), route)


def test_every_url_answers_hostile_input_without_a_server_error(world):
    routes = list(walk(get_resolver().url_patterns))
    assert any("act/" in r for r in routes) and any("review" in r for r in routes)
    stranger = Client(raise_request_exception=False)
    player = Client(raise_request_exception=False)
    player.force_login(world["player"])
    failures, requests = [], 0

    def check(response, method, url, who):
        nonlocal requests
        requests += 1
        if response.status_code >= 500:
            failures.append(f"{response.status_code} {method} {url} ({who})")

    for route in routes:
        for url in urls_for(route, world):
            check(stranger.get(url), "GET", url, "stranger")
            check(stranger.post(url, BODIES[1]), "POST", url, "stranger")
            # Each query string and body once, with and without htmx's header by turns.
            for i, query in enumerate(QUERIES):
                headers = {"HX-Request": "true"} if i % 2 else {}
                check(player.get(url + query, headers=headers), "GET", url + query, "player")
            for i, body in enumerate(BODIES):
                headers = {"HX-Request": "true"} if i % 2 == 0 else {}
                check(player.post(url, body, headers=headers), "POST", url, "player")
            check(
                player.post(url, b"\xff{not json", content_type="application/json"),
                "POST json",
                url,
                "player",
            )
            if "logout" in url or "password" in url:
                player.force_login(world["player"])  # the walk goes on as the player
    print(f"{len(routes)} URL patterns, {requests} requests")
    assert requests > 1000
    assert not failures, "\n".join(failures)
