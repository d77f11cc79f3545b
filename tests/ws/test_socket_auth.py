"""The table's websocket route is wrapped in origin validation and authentication."""

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.test import Client

from games.core import services
from setback_site.asgi import application

ORIGIN = [(b"origin", b"http://127.0.0.1")]


def session_cookie_for(user):
    client = Client()
    client.force_login(user)
    return [(b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())]


@database_sync_to_async
def seated_user_and_match():
    User = get_user_model()
    alice = User.objects.create_user("alice", password="x-long-password-1")
    mallory = User.objects.create_user("mallory", password="x-long-password-2")
    match = services.do_start_match(alice, rules_spec="house", bot_level="easy")
    return alice, mallory, match, session_cookie_for(alice), session_cookie_for(mallory)


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_seated_user_connects_and_others_are_refused():
    alice, mallory, match, alice_cookie, mallory_cookie = await seated_user_and_match()
    path = f"/ws/table/{match.pk}/"

    anonymous = WebsocketCommunicator(application, path, headers=ORIGIN)
    connected, _ = await anonymous.connect(timeout=30)
    assert not connected

    stranger = WebsocketCommunicator(application, path, headers=ORIGIN + mallory_cookie)
    connected, _ = await stranger.connect(timeout=30)
    assert not connected

    foreign_origin = WebsocketCommunicator(
        application, path, headers=[(b"origin", b"http://evil.example")] + alice_cookie
    )
    connected, _ = await foreign_origin.connect(timeout=30)
    assert not connected

    player = WebsocketCommunicator(application, path, headers=ORIGIN + alice_cookie)
    connected, _ = await player.connect(timeout=30)
    assert connected
    assert 'id="table"' in await player.receive_from(timeout=10)
    await player.disconnect()
