"""/ws/me/: a friend coming online and going reaches the friend list live; the bell's count
is pushed as notifications come and are read; only friends who are online are told."""

import asyncio
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from accounts.services import do_sign_out_everywhere
from games.core.sockets import LOGGED_OUT
from games.social import consumers, selectors, services
from games.social.models import Presence
from games.tables import services as tables
from setback_site.asgi import application

from .test_shared_table import ORIGIN, person
from .test_table_socket import drain, until

# The channel layer between processes: also on the real services.
pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
    pytest.mark.real_services,
]


async def connect(cookie):
    socket = WebsocketCommunicator(application, "/ws/me/", headers=ORIGIN + cookie)
    connected, code = await socket.connect(timeout=30)
    assert connected, code
    return socket


@database_sync_to_async
def befriend(a, b):
    services.do_ask_friend(a, name=b.username)
    services.do_answer_friend(b, name=a.username, accept=True)


async def test_a_friend_coming_online_and_going_reaches_the_friend_list_live():
    alice, _, alice_cookie = await person("alice")
    bob, _, bob_cookie = await person("bob")
    await befriend(alice, bob)
    watching = await connect(alice_cookie)
    assert 'id="bell-count"' in await until(watching, r'id="bell-count"')
    await drain(watching)
    bob_page = await connect(bob_cookie)
    html = await until(watching, rf'id="friend-{bob.pk}"')
    assert 'data-online="1"' in html and 'hx-swap-oob="true"' in html
    await bob_page.disconnect()
    html = await until(watching, rf'id="friend-{bob.pk}"[^>]*data-online="0"')
    assert "offline" in html
    await watching.disconnect()


async def test_only_friends_are_told_and_a_second_tab_is_no_news():
    alice, _, alice_cookie = await person("alice")
    bob, _, bob_cookie = await person("bob")
    carol, _, carol_cookie = await person("carol")
    await befriend(alice, bob)
    stranger = await connect(carol_cookie)
    watching = await connect(alice_cookie)
    await drain(stranger)
    await drain(watching)
    first = await connect(bob_cookie)
    await until(watching, rf'id="friend-{bob.pk}"')
    second = await connect(bob_cookie)
    for html in await drain(watching, 0.5):
        assert f'id="friend-{bob.pk}"' not in html  # still online: nothing to say
    for html in await drain(stranger, 0.3):
        assert "friend-" not in html
    for socket in (first, second, stranger, watching):
        await socket.disconnect()


async def test_a_block_stops_presence_at_once():
    alice, _, alice_cookie = await person("alice")
    bob, _, bob_cookie = await person("bob")
    await befriend(alice, bob)
    await database_sync_to_async(tables.do_set_personal_block)(
        bob, other_name="alice", kind="block", on=True
    )
    watching = await connect(alice_cookie)
    await drain(watching)
    bob_page = await connect(bob_cookie)
    for html in await drain(watching, 0.5):
        assert f'id="friend-{bob.pk}"' not in html
    await bob_page.disconnect()
    await watching.disconnect()


async def test_the_bell_counts_up_as_notifications_come_and_down_as_they_are_read():
    alice, _, _ = await person("alice")
    bob, _, bob_cookie = await person("bob")
    bell = await connect(bob_cookie)
    assert 'data-unread="0"' in await until(bell, r'id="bell-count"')
    await database_sync_to_async(services.do_ask_friend)(alice, name="bob")
    assert ">1<" in await until(bell, r'data-unread="1"')
    await database_sync_to_async(services.do_mark_read)(bob)
    await until(bell, r'data-unread="0"')
    await bell.disconnect()


async def test_a_new_friendship_redraws_the_whole_list():
    alice, _, alice_cookie = await person("alice")
    bob, _, _ = await person("bob")
    watching = await connect(alice_cookie)
    await drain(watching)
    await befriend(bob, alice)
    html = await until(watching, r'id="friend-list"')
    assert 'data-friend="bob"' in html
    await watching.disconnect()


async def test_a_socket_without_a_login_is_refused():
    socket = WebsocketCommunicator(application, "/ws/me/", headers=ORIGIN)
    connected, code = await socket.connect(timeout=30)
    assert not connected and code == consumers.UNAUTHENTICATED


async def test_signing_out_everywhere_closes_the_socket_and_counts_the_person_gone():
    alice, _, alice_cookie = await person("alice")
    page = await connect(alice_cookie)
    await drain(page)
    await database_sync_to_async(do_sign_out_everywhere)(alice)
    closed = await page.receive_output(timeout=10)
    assert closed == {"type": "websocket.close", "code": LOGGED_OUT}
    await page.disconnect()  # the server's close handshake ends with this
    online = await database_sync_to_async(selectors.online_ids)([alice.pk])
    assert online == set()


async def test_an_open_page_keeps_its_person_present_by_the_process_heartbeat(monkeypatch):
    """A live process touches the presence of the people whose pages it holds: a count no
    process touches any more (one a dead process left) is the only one that reads offline."""
    monkeypatch.setattr(selectors, "HEARTBEAT", timedelta(milliseconds=50))
    alice, _, alice_cookie = await person("alice")
    page = await connect(alice_cookie)
    long_ago = timezone.now() - selectors.STALE_AFTER - timedelta(seconds=1)

    @database_sync_to_async
    def set_back():
        Presence.objects.filter(user=alice).update(last_seen_at=long_ago)

    @database_sync_to_async
    def online():
        return alice.pk in selectors.online_ids([alice.pk])

    await set_back()
    deadline = asyncio.get_running_loop().time() + 10
    while not await online():
        assert asyncio.get_running_loop().time() < deadline, "no heartbeat touched the page"
        await asyncio.sleep(0.05)  # polling for the condition, bounded above
    await page.disconnect()
