"""Nothing a seat receives depends on cards it cannot see: the differential test.

Each case takes a random moment of a random deal (every preset, and the options that bring in
naming trump, discards and pitches), and a twin: a deal the seat cannot tell apart at that
moment, with the hidden cards (the other hands, the stock) dealt differently. Both are stored as
tables (against bots, and shared with another person), and the same requests are made for the
seat at both: every card of the deck as a move, every call and suit, pitches, discards (also of
cards someone else holds), junk; the table page, the table fragment, the websocket's render and
the coach's panel. The answers must be identical once the per-request CSRF token and the
tables' own ids are blanked out.

Every moment's every question goes through `services.apply_move`, the check `do_act` makes for
every move once it has loaded the deal (the view, a consumer, a bot all call `do_act`). One
moment in ten is also stored as two tables and asked through `services.do_act` itself and the
websocket consumer's render; one in a hundred through the Django test client (the act view, the
table page, the coach panel) and the coach's advice; a few through a real websocket connection.

A refused request changes nothing, so both twins are asked every question in turn; a legal
move is applied inside a transaction that is rolled back.
"""

import random
import re
from functools import partial

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import transaction
from django.test import Client
from django.urls import reverse

from games import engine
from games.coach import tasks as coach_tasks
from games.coach.models import Advice
from games.core import selectors, services
from games.engine.coach.advice import advise
from games.models import Deal, Match
from games.web.consumers import TableConsumer
from setback_site.asgi import application

from .twins import RULE_SPECS, materialize, random_position, twin_of

pytestmark = pytest.mark.django_db

POSITIONS = 1000  # moments checked at the service and selector level (with their twins)
STORED_EVERY = 10  # one in this many is also stored as two tables and asked through them
VIEW_EVERY = 100  # one moment in this many also goes through the test client
COACH_EVERY = 100  # ... and through the coach's advice
SOCKET_POSITIONS = 24  # moments checked through a real websocket
CALLS = ["pass", "1", "2", "3", "4", "smudge"]
JUNK = ["", "X" * 10_000, "discard:ZZ", "pitch:", "pitch:1X", "\x00", "AS,KS", "discard:AS,AS"]


def tokens_for(rules: engine.Rules, rng: random.Random) -> list[str]:
    """The same questions for both twins: every card, call and suit, pitches, discards, junk."""
    cards = list(engine.CODES)
    tokens = cards + CALLS + list(engine.SUITS) + JUNK
    if rules.pitch_to_bid:
        tokens += ["pitch:" + card for card in cards]
    tokens += ["discard:"] + ["discard:" + ",".join(rng.sample(cards, k)) for k in (1, 1, 2, 2, 3)]
    return tokens


def twins(rng: random.Random, spec):
    """A random position with a twin the seat cannot tell from it (retrying the rare dead end)."""
    while True:
        position = random_position(rng, spec)
        twin = twin_of(position, rng)
        if twin is not None:
            return position, twin


def legal_at(match: Match, seat: str) -> set[str]:
    state = selectors.deal_state(selectors.current_deal(match))
    return set(state.observation(seat).legal_actions()) if state.to_act == seat else set()


def service_answer(match: Match, seat: str, user, token: str, legal: set[str]):
    """What the one move service answers the seat for `token` (a legal move is rolled back)."""
    actor = services.Actor(user=user)
    if token in legal:
        with transaction.atomic():
            outcome = services.do_act(
                match.pk, seat=seat, token=token, version=match.version, actor=actor
            )
            transaction.set_rollback(True)
        return ("applied", outcome.applied)
    try:
        services.do_act(match.pk, seat=seat, token=token, version=match.version, actor=actor)
    except services.GameError as error:
        return (type(error).__name__, error.status, str(error))
    raise AssertionError(f"{token!r} was applied but is not legal for {seat}")


class Blanker:
    """Blanks what differs between two tables by construction: their ids, codes and CSRF tokens."""

    # A masked CSRF token: in forms, and in the page's htmx headers.
    CSRF = re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]{64}(?![A-Za-z0-9])")

    def __init__(self, *matches: Match):
        self.words = []
        for match in matches:
            self.words += [
                str(match.pk),
                *(str(pk) for pk in match.deals.values_list("pk", flat=True)),
            ]
            if match.invite_code:
                self.words.append(match.invite_code)

    def __call__(self, text: str) -> str:
        text = self.CSRF.sub("CSRF", text)
        for word in self.words:
            text = re.sub(rf"(?<![0-9A-Za-z]){re.escape(word)}(?![0-9A-Za-z])", "ID", text)
        return text


def logged_in_session(user):
    client = Client()
    client.force_login(user)
    return client.session


def rendered_for_socket(match: Match, user) -> str:
    """What the table's websocket consumer sends the seat (its render, without a connection)."""
    consumer = TableConsumer()
    consumer.match_id, consumer.user, consumer.present = match.pk, user, True
    # Every render checks that the socket's login still holds, as a connected socket's would.
    consumer.scope = {"user": user, "session": logged_in_session(user)}
    consumer.session_key = consumer.scope["session"].session_key
    return consumer._render_table()[1]


@pytest.fixture
def no_background_work(monkeypatch):
    """Tasks would run on threads outside this test's transaction; record them instead."""
    queued = []
    monkeypatch.setattr(
        "games.core.dispatch.enqueue", lambda task, *args, **kwargs: queued.append(task)
    )
    return queued


@pytest.fixture
def people(make_user):
    return make_user("alice"), make_user("bob")


def _table_kinds(position, alice, bob, shared: bool) -> dict:
    """Who sits where: alone against bots, or (shared) with bob in another seat."""
    sitting = {position.seat: alice}
    if shared:
        other = next(s for s in position.rules.seats if s != position.seat)
        sitting[other] = bob
    return sitting


def engine_answer(state, seat: str, token: str, legal: set[str]):
    """What the move service decides for `token` at this state (services.apply_move, the check
    `do_act` makes once it has loaded the deal): the phase of a legal move, else the refusal."""
    try:
        # A refused move leaves the state as it was; only a legal one needs a copy to play on.
        return (
            "applied",
            services.apply_move(state.copy() if token in legal else state, seat, token),
        )
    except services.GameError as error:
        return (type(error).__name__, error.status, str(error))


def hidden_tokens(position, twin, rng) -> list[str]:
    """A few questions an attacker would ask first: cards the others hold (in either twin) and
    stock cards, a huge token, a call; asked through the stored tables."""
    state = position.state()
    others = [c for s in position.rules.seats if s != position.seat for c in state.hand(s)]
    others_twin = [c for s in twin.rules.seats if s != twin.seat for c in twin.state().hand(s)]
    stock = state.stock_remaining
    picks = rng.sample(others, min(3, len(others))) + rng.sample(
        others_twin, min(2, len(others_twin))
    )
    picks += rng.sample(stock, min(1, len(stock)))
    legal = state.observation(position.seat).legal_actions()
    return picks + ["pass", "X" * 1_000_000] + legal[:1]


def test_twin_deals_get_the_same_answers_for_every_request(
    people, no_background_work, monkeypatch, settings
):
    alice, bob = people
    rng = random.Random(20261130)
    player = Client()
    player.force_login(alice)
    checked = questions = requests = 0
    by_spec = {}
    for number in range(POSITIONS):
        spec = RULE_SPECS[number % len(RULE_SPECS)]
        position, twin = twins(rng, spec)
        seat = position.seat
        states = [position.state(), twin.state()]
        legal = [set(s.legal_actions()) if s.to_act == seat else set() for s in states]
        assert legal[0] == legal[1], _differ(position, twin, "the legal moves", legal)
        for token in tokens_for(position.rules, rng):
            answers = [engine_answer(state, seat, token, legal[0]) for state in states]
            assert answers[0] == answers[1], _differ(position, twin, token, answers)
            questions += 2
        checked += 1
        by_spec[str(spec)] = by_spec.get(str(spec), 0) + 1
        if number % STORED_EVERY:
            continue
        # Through the stored tables: the service, the websocket's render, the views, the coach.
        # Each moment counts its requests afresh where per-minute request limits apply, so
        # both twins are always asked under the same limit.
        settings.REQUEST_LIMITS_NAMESPACE = f"twins-{number}"
        shared = (number // STORED_EVERY) % 2 == 1
        sitting = _table_kinds(position, alice, bob, shared)
        first = materialize(position, sitting, shared=shared)
        second = materialize(twin, sitting, shared=shared)
        blank = Blanker(first, second)
        legal = legal_at(first, seat)
        assert legal == legal_at(second, seat)
        for token in hidden_tokens(position, twin, rng):
            answers = [service_answer(m, seat, alice, token, legal) for m in (first, second)]
            assert answers[0] == answers[1], _differ(position, twin, token, answers)
            assert all(len(str(answer)) < 400 for answer in answers)
            requests += 2
        pages = [blank(rendered_for_socket(m, alice)) for m in (first, second)]
        assert pages[0] == pages[1], _differ(position, twin, "the websocket's render", pages)
        requests += 2
        if number % VIEW_EVERY == 0:
            requests += _through_the_views(player, first, second, blank, position, twin, rng)
        if number % COACH_EVERY == 0:
            requests += _through_the_coach(
                player, alice, first, second, blank, position, twin, monkeypatch
            )
    print(
        f"{checked} positions with twins: {questions} moves judged, {requests} requests compared "
        f"at stored tables; by rules: {by_spec}"
    )
    assert checked >= 1000 and len(by_spec) == len(RULE_SPECS)


def _through_the_views(client: Client, first, second, blank, position, twin, rng) -> int:
    """The act view for every card and call (htmx and not), the table page and the coach panel."""
    count = 0
    seat = position.seat
    legal = legal_at(first, seat)
    tokens = tokens_for(position.rules, rng)
    plain = set(hidden_tokens(position, twin, rng))  # these also without htmx (a whole page back)
    for token in tokens + sorted(plain - set(tokens)):
        if token in legal:
            continue  # applied, it would change the table; the service check covers it
        for htmx in (True, False) if token in plain else (True,):
            answers = []
            for match in (first, second):
                response = client.post(
                    reverse("act", args=[match.pk]),
                    {"action": token, "version": match.version},
                    headers={"HX-Request": "true"} if htmx else {},
                    follow=not htmx,  # without htmx the refusal is told on the table it returns to
                )
                answers.append((response.status_code, blank(response.content.decode())))
            assert answers[0] == answers[1], _differ(position, twin, f"POST act {token!r}", answers)
            count += 2
    discard = [
        (
            m,
            client.post(
                reverse("act", args=[m.pk]),
                {"discard": "1", "cards": ["AS", "KD"], "version": m.version},
                headers={"HX-Request": "true"},
            ),
        )
        for m in (first, second)
    ]
    answers = [(r.status_code, blank(r.content.decode())) for _, r in discard]
    if "discard:AS,KD" not in legal:
        assert answers[0] == answers[1], _differ(position, twin, "a discard form", answers)
    for url in ("table", "coach:panel"):
        answers = []
        for match in (first, second):
            response = client.get(reverse(url, args=[match.pk]))
            answers.append((response.status_code, blank(response.content.decode())))
        assert answers[0] == answers[1], _differ(position, twin, f"GET {url}", answers)
        count += 2
    return count + 2


def _through_the_coach(client, user, first, second, blank, position, twin, monkeypatch) -> int:
    """The coach's panel once its advice is computed: from the seat's observation only.

    The search's seed normally includes the table's id (the hard bot's seed); both twins get the
    same seed here, and a small budget, so that only what the seat sees could tell them apart.
    """

    with monkeypatch.context() as patched:
        patched.setattr("games.core.turns.search_seed", lambda match_id, version: version)
        patched.setattr(coach_tasks, "advise", partial(advise, budget=60))
        user.coach_enabled = True
        user.save(update_fields=["coach_enabled"])
        answers = []
        for match in (first, second):
            client.post(
                reverse("toggle_coach"), {"enabled": "on", "match": match.pk}
            )  # asks for the advice
            for advice in Advice.objects.filter(deal__match=match):
                coach_tasks.advise_position(advice.pk)
            response = client.get(reverse("coach:panel", args=[match.pk]))
            answers.append((response.status_code, blank(response.content.decode())))
        user.coach_enabled = False
        user.save(update_fields=["coach_enabled"])
    assert answers[0] == answers[1], _differ(position, twin, "the coach's panel", answers)
    return 4


def _differ(position, twin, what, answers) -> str:
    a, b = answers
    if isinstance(a, tuple):
        a, b = a[-1], b[-1]
    a, b = str(a), str(b)
    at = next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )
    return (
        f"{what}: the seat {position.seat} can tell the twins apart\n"
        f"rules {position.rules.to_spec()}, dealer {position.dealer}, actions {position.tokens}\n"
        f"hands {position.hands} stock {position.stock}\n"
        f"twin  {twin.hands} stock {twin.stock}\n"
        f"first:  ...{a[max(0, at - 150) : at + 150]!r}\nsecond: ...{b[max(0, at - 150) : at + 150]!r}"
    )


def _session_cookie(user) -> tuple[bytes, bytes]:
    client = Client()
    client.force_login(user)
    return (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_twin_deals_send_the_same_websocket_frames(people, no_background_work):
    alice, bob = people
    cookie = await database_sync_to_async(_session_cookie)(alice)
    rng = random.Random(1130)
    for number in range(SOCKET_POSITIONS):
        spec = RULE_SPECS[number % len(RULE_SPECS)]
        position, twin = twins(rng, spec)
        sitting = _table_kinds(position, alice, bob, shared=number % 2 == 1)
        first = await database_sync_to_async(materialize)(position, sitting, shared=number % 2 == 1)
        second = await database_sync_to_async(materialize)(twin, sitting, shared=number % 2 == 1)
        blank = await database_sync_to_async(Blanker)(first, second)
        frames = []
        for match in (first, second):
            communicator = WebsocketCommunicator(
                application,
                f"/ws/table/{match.pk}/",
                headers=[(b"origin", b"http://127.0.0.1"), cookie],
            )
            connected, _ = await communicator.connect(timeout=30)
            assert connected
            frames.append(blank(await communicator.receive_from(timeout=10)))
            await communicator.disconnect()
        assert frames[0] == frames[1], _differ(position, twin, "the first websocket frame", frames)
    assert await Deal.objects.acount() == 2 * SOCKET_POSITIONS
