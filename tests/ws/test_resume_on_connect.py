"""Nothing is lost: a table whose bot turn vanished (a restart) wakes when its player's table
connects again; opening the page itself only reads."""

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.urls import reverse
from django.utils import timezone

from games.core import dispatch, services, turns
from games.core.turns import WaitingFor
from games.models import Match

from .test_table_socket import connect, start, until

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(dispatch.uses_workers(), reason="the worker test lives in tests/pg"),
]


async def a_lost_bot_turn(monkeypatch):
    """A match as a restarted server finds it: a bot's turn, and no task on its way."""
    with monkeypatch.context() as quiet:
        quiet.setattr(services, "announce_after_commit", lambda match, deal_row=None: None)
        for n in range(50):
            match, client, cookie = await start(username=f"alice{n}")
            if (await database_sync_to_async(turns.waiting_on)(match.pk)).kind == WaitingFor.BOT:
                return match, client, cookie
    raise AssertionError("no match with a bot first")


def version_of(match) -> int:
    dispatch.wait_for_in_process_tasks()
    return Match.objects.get(pk=match.pk).version


async def test_a_lost_bot_turn_resumes_when_the_players_table_connects(monkeypatch):
    match, client, cookie = await a_lost_bot_turn(monkeypatch)
    # Just after the last change the table is not stalled: connecting does not pile up tasks.
    socket = await connect(match, cookie)
    await socket.disconnect()
    assert await database_sync_to_async(version_of)(match) == 0

    await database_sync_to_async(Match.objects.filter(pk=match.pk).update)(
        updated_at=timezone.now() - timedelta(minutes=5)
    )
    # Opening the page is a GET: it shows the table and changes nothing, however still it is.
    page = await database_sync_to_async(client.get)(reverse("table", args=[match.pk]))
    assert page.status_code == 200
    assert await database_sync_to_async(version_of)(match) == 0

    socket = await connect(match, cookie)  # the page's socket, connecting
    await until(socket, r'data-version="[1-9]')
    await socket.disconnect()
    assert await database_sync_to_async(version_of)(match) > 0
