"""Websocket handshakes an attacker (or a stale tab) makes: each gets a clean close, never a
server error. A consumer that raises in its handshake makes the communicator raise here."""

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from accounts.models import User
from games.core import services
from games.tables import services as tables
from games.web.consumers import FORBIDDEN, NOT_FOUND
from setback_site.asgi import application

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]
ORIGIN = (b"origin", b"http://127.0.0.1")


def _player_with_tables():
    user = User.objects.create_user("mallory", password="a-long-password-1")
    user.coach_enabled = True
    user.save(update_fields=["coach_enabled"])
    forming = tables.do_create_table(user, rules_spec="house")
    playing = services.do_start_match(user, rules_spec="house", bot_level="easy")
    client = Client()
    client.force_login(user)
    return forming, playing, (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())


async def handshake(path: str, *headers):
    socket = WebsocketCommunicator(application, path, headers=[ORIGIN, *headers])
    connected, code = await socket.connect(timeout=10)
    if connected:
        await socket.disconnect()
    return connected, code


async def test_unknown_socket_paths_are_closed_not_failed():
    for path in ("/ws/nowhere/", "/ws/table/abc/", "/ws/table/", "/", "/ws/table/1/extra/"):
        assert await handshake(path) == (False, NOT_FOUND), path


async def test_hostile_table_ids_are_refused_cleanly():
    _, _, cookie = await database_sync_to_async(_player_with_tables)()
    for match_id in ("0", "999999", str(2**64), "1" + "0" * 40):
        assert await handshake(f"/ws/table/{match_id}/", cookie) == (False, FORBIDDEN), match_id


async def test_a_seated_player_with_the_coach_on_connects_to_a_forming_table():
    forming, playing, cookie = await database_sync_to_async(_player_with_tables)()
    for match in (forming, playing):
        socket = WebsocketCommunicator(
            application, f"/ws/table/{match.pk}/", headers=[ORIGIN, cookie]
        )
        connected, _ = await socket.connect(timeout=10)
        assert connected
        frame = await socket.receive_from(timeout=10)
        assert 'id="table"' in frame
        await socket.disconnect()
