"""Items 3 and 4 over websockets: a forming table's socket needs the invite; logging out,
changing or resetting the password, signing out everywhere and deleting the account end the
login's open sockets (a second tab too), and no hand is sent on a session that has ended, even
when the event that says so never arrives."""

import re
import time
from unittest.mock import patch

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.contrib.sessions.models import Session
from django.db import transaction
from django.test import Client
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from games.core import services, turns
from games.core.page_consumer import PersonConsumer
from games.core.sockets import LOGGED_OUT
from games.core.turns import WaitingFor
from games.lobby.routing import websocket_urlpatterns as lobby_routes
from games.routing import websocket_urlpatterns as table_routes
from games.social.routing import websocket_urlpatterns as social_routes
from games.tables import services as tables
from games.tables.services import announce_seen
from games.web import consumers
from setback_site.asgi import application

from .helpers import PASSWORD, person

ORIGIN = [(b"origin", b"http://127.0.0.1")]
HAND = 'aria-label="Your hand"'  # the section of the table that holds the seat's own cards
# Sockets are closed through the channel layer: on CI's second pass, Redis's.
pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
    pytest.mark.real_services,
]


def cookie_of(client: Client):
    return [(b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())]


@database_sync_to_async
def logged_in(username, create=True):
    """A browser that logged in through the login page (a real session, as a person has)."""
    if create:
        person(username)
    client = Client()
    assert (
        client.post("/accounts/login/", {"username": username, "password": PASSWORD}).status_code
        == 302
    )
    return client


async def open_socket(match_id, client):
    socket = WebsocketCommunicator(
        application, f"/ws/table/{match_id}/", headers=ORIGIN + cookie_of(client)
    )
    connected, code = await socket.connect(timeout=30)
    return socket if connected else code


async def frames_until_closed(socket, timeout=10):
    """The text frames a socket receives until it closes, and its close code (None: still open
    after `timeout` seconds)."""
    texts = []
    while True:
        try:
            message = await socket.receive_output(timeout=timeout)
        except TimeoutError:
            return texts, None
        if message["type"] == "websocket.close":
            return texts, message.get("code")
        texts.append(message.get("text", ""))


SHOWN_VERSION = re.compile(r'id="table"[^>]*data-version="(\d+)"')


def describe(texts: list[str]) -> str:
    """The frames a socket received, for a failure's message: each one's table version and start."""
    return "\n".join(
        f"frame {n}: version {getattr(SHOWN_VERSION.search(text), 'group', lambda _: None)(1)}, "
        f"hand {HAND in text}: {text[:160]!r}"
        for n, text in enumerate(texts)
    )


async def until_the_persons_turn(socket, match_id: int, first: str) -> None:
    """Take every frame until the table waits on the person and the screen of that moment has
    arrived (`first`: the frame already taken). The bots of a solo match move at once until then,
    each move a screen; a quiet moment is no proof on a loaded machine (a bot's screen came after
    half a second of quiet and carried the hand past a session that had ended meanwhile)."""
    text = first
    while True:
        shown = SHOWN_VERSION.search(text)
        turn = await database_sync_to_async(turns.waiting_on)(match_id)
        if turn.kind == WaitingFor.PERSON and shown and int(shown[1]) == turn.version:
            return
        text = await socket.receive_from(timeout=30)


async def test_a_forming_table_s_socket_needs_the_invite():
    alice = await logged_in("alice")
    mallory = await logged_in("mallory")
    host = await database_sync_to_async(lambda: person_named("alice"))()
    match = await database_sync_to_async(tables.do_create_table)(host, rules_spec="house")
    refused = await open_socket(match.pk, mallory)
    nowhere = await open_socket(999999, mallory)
    assert refused == nowhere and isinstance(refused, int)  # the same refusal as no table at all
    await database_sync_to_async(mallory.get)(f"/t/{match.invite_code}/")
    socket = await open_socket(match.pk, mallory)
    first = await socket.receive_from(timeout=30)
    assert "Choose a free seat" in first and match.invite_code in first
    await socket.disconnect()
    seated = await open_socket(match.pk, alice)
    await seated.disconnect()


def person_named(username):
    return get_user_model().objects.get(username=username)


async def started_solo(client, username):
    user = await database_sync_to_async(person_named)(username)
    match = await database_sync_to_async(services.do_start_match)(
        user, rules_spec="house", bot_level="easy"
    )
    return user, match


async def test_logging_out_closes_every_tab_of_that_login_and_says_so():
    tab_browser = await logged_in("alice")
    other_device = await logged_in("alice", create=False)
    user, match = await started_solo(tab_browser, "alice")
    first_tab = await open_socket(match.pk, tab_browser)
    second_tab = await open_socket(match.pk, tab_browser)
    phone = await open_socket(match.pk, other_device)
    for socket in (first_tab, second_tab, phone):
        first = await socket.receive_from(timeout=30)
        assert 'id="table"' in first
        await until_the_persons_turn(socket, match.pk, first)
    await database_sync_to_async(tab_browser.post)("/accounts/logout/")
    for socket in (first_tab, second_tab):
        texts, code = await frames_until_closed(socket)
        assert code == LOGGED_OUT
        assert "You are logged out" in texts[-1] and HAND not in texts[-1]
    # The phone's login did not log out: its socket stays and keeps playing.
    assert await phone.receive_nothing(timeout=0.5)
    await phone.disconnect()


async def test_a_password_change_closes_the_sockets_of_every_session():
    here = await logged_in("alice")
    elsewhere = await logged_in("alice", create=False)
    user, match = await started_solo(here, "alice")
    sockets = [await open_socket(match.pk, here), await open_socket(match.pk, elsewhere)]
    for socket in sockets:
        await socket.receive_from(timeout=30)
    changed = await database_sync_to_async(here.post)(
        "/accounts/password/",
        {
            "old_password": PASSWORD,
            "new_password1": "another-long-secret-77",
            "new_password2": "another-long-secret-77",
        },
    )
    assert changed.status_code == 302
    for socket in sockets:
        texts, code = await frames_until_closed(socket)
        assert code == LOGGED_OUT and "You are logged out" in texts[-1]


async def test_no_hand_is_sent_on_a_session_that_ended_without_a_word():
    """The session is deleted behind the socket's back (an expired session, a logout whose event
    was lost): the next deal is not delivered; the socket says it is logged out and closes."""
    browser = await logged_in("alice")
    user, match = await started_solo(browser, "alice")
    socket = await open_socket(match.pk, browser)
    first = await socket.receive_from(timeout=30)
    assert HAND in first  # the hand, while logged in
    # Every screen rendered while logged in has arrived, and no bot is left to move.
    await until_the_persons_turn(socket, match.pk, first)
    await database_sync_to_async(Session.objects.all().delete)()
    # The socket checks its login again once its last check is SESSION_RECHECK_SECONDS old.
    later = time.monotonic() + consumers.SESSION_RECHECK_SECONDS
    with patch.object(consumers, "monotonic", lambda: later):
        await database_sync_to_async(announce_seen)(match.pk, 10**6)
        texts, code = await frames_until_closed(socket)
    assert code == LOGGED_OUT
    assert all(HAND not in text for text in texts)


async def test_a_socket_of_a_logged_out_browser_cannot_reconnect():
    browser = await logged_in("alice")
    user, match = await started_solo(browser, "alice")
    old_cookie = cookie_of(browser)
    await database_sync_to_async(browser.post)("/accounts/logout/")
    socket = WebsocketCommunicator(
        application, f"/ws/table/{match.pk}/", headers=ORIGIN + old_cookie
    )
    connected, code = await socket.connect(timeout=30)
    assert not connected


def reset_by_mail(username):
    """The reset journey through the pages from the mailed link: follow it, choose a password.
    The link is made as the reset form makes it: on CI's second pass a Celery worker, in a
    process of its own, sends the mail (tests/db/test_password_reset.py follows mailed links)."""
    user = person_named(username)
    visitor = Client(REMOTE_ADDR="10.9.9.9")
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    link = reverse(
        "password_reset_confirm",
        kwargs={"uidb64": uid, "token": default_token_generator.make_token(user)},
    )
    form_url = visitor.get(link, follow=True).redirect_chain[-1][0]
    new = "a-reset-secret-long-31"
    assert visitor.post(form_url, {"new_password1": new, "new_password2": new}).status_code == 302


async def test_a_password_reset_closes_the_sockets_of_every_session():
    here = await logged_in("alice")
    elsewhere = await logged_in("alice", create=False)
    user, match = await started_solo(here, "alice")
    sockets = [await open_socket(match.pk, here), await open_socket(match.pk, elsewhere)]
    for socket in sockets:
        await socket.receive_from(timeout=30)
    await database_sync_to_async(reset_by_mail)("alice")
    for socket in sockets:
        texts, code = await frames_until_closed(socket)
        assert code == LOGGED_OUT and "You are logged out" in texts[-1]


@pytest.mark.parametrize(
    ("url", "data"),
    [("/accounts/sessions/end/", {}), ("/accounts/delete/", {"password": PASSWORD})],
)
async def test_signing_out_everywhere_or_deleting_the_account_closes_every_socket(url, data):
    here = await logged_in("alice")
    elsewhere = await logged_in("alice", create=False)
    bystander = await logged_in("bob")
    user, match = await started_solo(here, "alice")
    _, bobs = await started_solo(bystander, "bob")
    sockets = [await open_socket(match.pk, here), await open_socket(match.pk, elsewhere)]
    bobs_socket = await open_socket(bobs.pk, bystander)
    for socket, table in [(sockets[0], match), (sockets[1], match), (bobs_socket, bobs)]:
        await until_the_persons_turn(socket, table.pk, await socket.receive_from(timeout=30))
    response = await database_sync_to_async(here.post)(url, data)
    assert response.status_code == 302
    for socket in sockets:
        texts, code = await frames_until_closed(socket)
        assert code == LOGGED_OUT and all(HAND not in text for text in texts)
    assert await bobs_socket.receive_nothing(timeout=0.5)  # another person's socket stays
    await bobs_socket.disconnect()


async def test_a_password_set_in_the_admin_closes_the_sockets_of_every_session():
    """No page sends the event there: saving a new password anywhere does (accounts/signals.py)."""
    browser = await logged_in("alice")
    user, match = await started_solo(browser, "alice")
    socket = await open_socket(match.pk, browser)
    first = await socket.receive_from(timeout=30)
    assert HAND in first
    await until_the_persons_turn(socket, match.pk, first)

    def set_in_the_admin():
        with transaction.atomic():
            user.set_password("an-admin-chose-this-one")
            user.save()

    await database_sync_to_async(set_in_the_admin)()
    texts, code = await frames_until_closed(socket)
    assert code == LOGGED_OUT
    assert all(HAND not in text for text in texts), describe(texts)


async def open_page_socket(path, client):
    socket = WebsocketCommunicator(application, path, headers=ORIGIN + cookie_of(client))
    connected, code = await socket.connect(timeout=30)
    assert connected, code
    return socket


@pytest.mark.parametrize(
    ("url", "data"),
    [
        ("/accounts/sessions/end/", {}),
        ("/accounts/delete/", {"password": PASSWORD}),
        (
            "/accounts/password/",
            {
                "old_password": PASSWORD,
                "new_password1": "a-brand-new-secret-77",
                "new_password2": "a-brand-new-secret-77",
            },
        ),
    ],
)
async def test_every_kind_of_socket_closes_when_the_login_ends(url, data):
    """Issue 45, finding 6: the lobby's and pairing's sockets stayed open after "Sign out
    everywhere" (a stolen session kept hearing "Your table is ready"). Every consumer of the
    site joins the person's group, so each kind closes with LOGGED_OUT, from another browser
    of the same person (a password change keeps only the session that made it)."""
    here = await logged_in("alice")
    thief = await logged_in("alice", create=False)
    _, match = await started_solo(thief, "alice")
    sockets = {
        "table": await open_socket(match.pk, thief),
        "lobby": await open_page_socket("/ws/lobby/", thief),
        "pairing": await open_page_socket("/ws/pairing/", thief),
        "me": await open_page_socket("/ws/me/", thief),
    }
    for socket in sockets.values():
        await socket.receive_from(timeout=30)
    response = await database_sync_to_async(here.post)(url, data)
    assert response.status_code == 302, response.status_code
    for kind, socket in sockets.items():
        _, code = await frames_until_closed(socket)
        assert code == LOGGED_OUT, kind


@pytest.mark.asyncio
async def test_every_routed_socket_joins_its_person_s_group():
    """A socket kind added later is covered too: each routed consumer is a PersonConsumer."""
    routes = [*table_routes, *lobby_routes, *social_routes]
    assert len(routes) >= 4
    for route in routes:
        assert issubclass(route.callback.consumer_class, PersonConsumer), route.pattern
