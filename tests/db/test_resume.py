"""Nothing is lost: a table whose bot turn vanished (a restart) wakes when its player returns."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games import dispatch, services, turns
from games.models import Match

pytestmark = pytest.mark.django_db(transaction=True)


def start_with_a_bot_to_act_and_no_task(user, monkeypatch):
    """A match as a restarted server finds it: a bot's turn, and no task on its way."""
    with monkeypatch.context() as quiet:
        quiet.setattr(services, "announce_after_commit", lambda match: None)
        for _ in range(50):
            match = services.do_start_match(user, "house", "easy")
            if turns.waiting_on(match.pk).kind == "bot":
                return match
    raise AssertionError("no match with a bot first")


@pytest.mark.skipif(dispatch.uses_workers(), reason="the worker test lives in tests/pg")
def test_a_lost_bot_turn_resumes_when_the_player_opens_the_table(client, user, monkeypatch):
    match = start_with_a_bot_to_act_and_no_task(user, monkeypatch)
    client.force_login(user)
    # Just after the last change the table is not stalled: a visit does not pile up tasks.
    client.get(reverse("table", args=[match.pk]))
    dispatch.wait_for_in_process_tasks()
    assert Match.objects.get(pk=match.pk).version == 0

    Match.objects.filter(pk=match.pk).update(updated_at=timezone.now() - timedelta(minutes=5))
    client.get(reverse("table", args=[match.pk]))
    dispatch.wait_for_in_process_tasks()
    match.refresh_from_db()
    assert match.version > 0
    assert turns.waiting_on(match.pk).kind in {"person", "next_deal"}
