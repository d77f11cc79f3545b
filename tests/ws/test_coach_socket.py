"""The coach over the table's websocket: advice arrives when it is ready, only for the seat's own
screen and only for the moment on it; the table works meanwhile."""

import re
import threading
from functools import partial

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.contrib.auth import get_user_model
from django.urls import reverse

from games.coach import tasks as coach_tasks
from games.coach.models import Advice, Work
from games.coach.realtime import CoachReady
from games.core import dispatch, selectors, turns
from games.core.turns import WaitingFor
from games.models import Action, Match
from tests.hidden import leaks

from .test_table_socket import connect, person_turn_move, start, until

# The channel layer between processes and the worker's tasks: also on the real services.
pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
    pytest.mark.real_services,
]

ADVICE = 'class="coach-option coach-best"'
PANEL_MOMENT = re.compile(
    r'id="coach-panel"[^>]*data-deal="(\d+)" data-step="(\d+)" data-version="(\d+)"'
)


@database_sync_to_async
def coach_on(username="alice"):
    get_user_model().objects.filter(username=username).update(coach_enabled=True)


@database_sync_to_async
def single_choice_turn(match):
    """If the person must act with only one legal move, the move is made; returns whether it was."""
    match.refresh_from_db()
    turn = turns.waiting_on(match.pk)
    if turn is None or turn.kind != WaitingFor.PERSON:
        return False
    state = selectors.deal_state(selectors.current_deal(match))
    return len(state.observation(turn.seat).legal_actions()) == 1


async def until_advice(socket, client, match, seconds=60):
    """Messages until the panel shows ranked advice; forced moves are made on the way."""
    messages = []
    for _ in range(int(seconds / 0.2)):
        while not await socket.receive_nothing(timeout=0.2):
            html = await socket.receive_from(timeout=30)
            messages.append(html)
            if ADVICE in html:
                return messages
        if await single_choice_turn(match):
            await database_sync_to_async(person_turn_move)(client, match)
    raise AssertionError("no advice arrived")


async def test_advice_arrives_on_the_socket_for_the_position_on_screen():
    match, client, cookie = await start()
    await coach_on()
    socket = await connect(match, cookie)
    messages = await until_advice(socket, client, match)
    panel = messages[-1]
    deal, step, version = map(int, PANEL_MOMENT.search(panel).groups())
    current = await database_sync_to_async(lambda: Match.objects.get(pk=match.pk).version)()
    assert version == current  # advice for the moment the table is at
    advice = await database_sync_to_async(
        lambda: Advice.objects.get(deal__match=match, step=step, seat="S")
    )()
    assert advice.status == Work.READY
    assert len(re.findall(r'class="coach-option( coach-best)?"', panel)) == len(advice.options)
    # Every message the seat got (tables with their panels, panels alone) hides the others' cards.
    for html in messages:
        if 'id="table"' in html:
            assert not await database_sync_to_async(leaks)(html, match, "S")
    await socket.disconnect()


async def test_a_coach_event_for_another_seat_or_an_old_moment_sends_nothing():
    match, client, cookie = await start()
    await coach_on()
    socket = await connect(match, cookie)
    await until_advice(socket, client, match)
    while not await socket.receive_nothing(timeout=1):  # anything still on its way
        await socket.receive_from(timeout=30)
    version = await database_sync_to_async(lambda: Match.objects.get(pk=match.pk).version)()
    layer = get_channel_layer()
    group = selectors.table_group(match.pk)
    await layer.group_send(group, CoachReady(version=version, seat="N").message())
    assert await socket.receive_nothing(timeout=0.5)
    await layer.group_send(group, CoachReady(version=version - 1, seat="S").message())
    assert await socket.receive_nothing(timeout=0.5)
    await layer.group_send(group, CoachReady(version=version, seat="S").message())
    assert not await socket.receive_nothing(timeout=5)
    html = await socket.receive_from(timeout=30)
    assert html.lstrip().startswith('<section id="coach-panel"') and 'id="table"' not in html
    await socket.disconnect()


async def test_with_the_coach_off_no_advice_is_computed_or_sent():
    match, client, cookie = await start()
    socket = await connect(match, cookie)
    html = await socket.receive_from(timeout=10)
    assert 'id="coach-panel"' in html and "Switch the coach on" in html
    for _ in range(10):
        while not await socket.receive_nothing(timeout=0.2):
            assert ADVICE not in await socket.receive_from(timeout=30)
    assert not await database_sync_to_async(Advice.objects.exists)()
    await socket.disconnect()


@pytest.mark.skipif(dispatch.uses_workers(), reason="in-process tasks only run without a broker")
async def test_the_table_plays_on_while_the_coach_thinks_and_late_advice_is_dropped(
    searches_in_this_process, monkeypatch
):
    thinking, release = threading.Event(), threading.Event()
    real_advise = coach_tasks.advise

    def slow_advise(*args, **kwargs):
        thinking.set()
        release.wait(timeout=30)
        return real_advise(*args, **kwargs)

    monkeypatch.setattr(coach_tasks, "advise", slow_advise)
    match, client, cookie = await start()
    await coach_on()
    socket = await connect(match, cookie)
    for _ in range(300):  # forced moves are made until the coach has a real decision to weigh
        if thinking.is_set():
            break
        while not await socket.receive_nothing(timeout=0.1):
            await socket.receive_from(timeout=30)
        if await single_choice_turn(match):
            await database_sync_to_async(person_turn_move)(client, match)
    assert thinking.is_set(), "the coach never started"

    # The coach is busy: the page loads and the player's move is taken at once.
    page = await database_sync_to_async(lambda: client.get(f"/matches/{match.pk}/"))()
    assert page.status_code == 200
    version = await database_sync_to_async(lambda: Match.objects.get(pk=match.pk).version)()
    moved = await database_sync_to_async(person_turn_move)(client, match)
    assert moved == ""  # answered at once, with no content: the new table comes over the socket
    made = await database_sync_to_async(
        lambda: Action.objects.filter(deal__match=match, seat="S", user__isnull=False).count()
    )()
    assert made >= 1 and not release.is_set()

    release.set()
    messages = []
    for _ in range(40):
        while not await socket.receive_nothing(timeout=0.1):
            messages.append(await socket.receive_from(timeout=30))
    old = await database_sync_to_async(
        lambda: Advice.objects.get(deal__match=match, version=version)
    )()
    assert old.status == Work.READY  # computed and kept (the review will use it) ...
    for html in messages:  # ... but never shown: the table had moved on
        moment = PANEL_MOMENT.search(html)
        if moment and ADVICE in html:
            assert int(moment.group(3)) != version
    await socket.disconnect()


async def test_the_switch_redraws_the_panel_over_the_socket_and_the_advice_follows():
    # The page never fetches the panel: a fetched one could arrive after the advice and hide it.
    match, client, cookie = await start()
    socket = await connect(match, cookie)
    assert "Switch the coach on" in await socket.receive_from(timeout=30)
    switch = partial(client.post, reverse("toggle_coach"), HTTP_HX_REQUEST="true")
    answer = await database_sync_to_async(switch)({"enabled": "on", "match": match.pk})
    assert answer.status_code == 200 and 'id="coach-panel"' not in answer.content.decode()
    received = []
    panel = await until(socket, r'\A\s*<section id="coach-panel"', seen=received)
    assert "Switch the coach on" not in panel and "coach-off" not in panel
    # On a quiet machine the advice may come right behind the redrawn panel.
    if not any(ADVICE in html for html in received):
        await until_advice(socket, client, match)

    await database_sync_to_async(switch)({"match": match.pk})  # off
    panel = await until(socket, r'\A\s*<section id="coach-panel"')
    assert "Switch the coach on" in panel and ADVICE not in panel
    await socket.disconnect()
