"""No account can stall the others with expensive work (issue 45, finding 1).

One account once sent 12 offline uploads in 0.3 s: each a full check of every bot move, all in
the one analysis process, and another person's face-up step took 70 s. Now each person has a
budget of work in flight (items and estimated CPU seconds), each lane a bounded queue, a deal
already checked is never checked again, and checks run in a lane of their own. These tests
assert the bounds on queued work, not times: `manage.py bench_flood` measures the times.
"""

import json

import pytest
from django.test import Client
from django.urls import reverse

from games.core import budget, dispatch, searches
from games.engine.offline import check_cost, check_deal
from games.offline import tasks
from games.offline.models import OfflineUpload
from games.replay import services as replay_services
from games.replay.models import FaceUpAnalysis
from tests.db.replays import play_deals, played_deals
from tests.engine.offline_helpers import played_envelope, with_bot_move_changed

pytestmark = pytest.mark.django_db

UPLOAD = reverse("offline:upload")


@pytest.fixture
def enqueued(monkeypatch):
    calls = []
    monkeypatch.setattr(
        dispatch, "enqueue", lambda task, *args, **kw: calls.append((task.name, args))
    )
    return calls


@pytest.fixture(autouse=True)
def _requests_fall_in_one_minute(monkeypatch):
    monkeypatch.setattr("games.core.limits.current_window", lambda: 1)


@pytest.fixture(scope="module")
def twelve_deals():
    """Twelve different deals, each the first of a match of its own (as a flood sends them)."""
    return [
        played_envelope("house", seed=100 + n, key=f"flood-match-{n:04}", upload_id=f"flood-{n:04}")
        for n in range(12)
    ]


def send(client, envelope, capture):
    with capture(execute=True):
        return client.post(UPLOAD, data=json.dumps(envelope), content_type="application/json")


def run_checks(enqueued) -> list[str]:
    outcomes = []
    while enqueued:
        _, (upload_id,) = enqueued.pop(0)
        outcomes.append(tasks.check_offline_deal(upload_id))
    return outcomes


def test_a_flood_of_uploads_queues_only_the_person_s_share_and_answers_busy_beyond_it(
    logged_in_client, enqueued, django_capture_on_commit_callbacks, twelve_deals
):
    answers = [
        send(logged_in_client, envelope, django_capture_on_commit_callbacks)
        for envelope in twelve_deals
    ]
    statuses = [answer.status_code for answer in answers]
    assert statuses == [202] * budget.PER_PERSON_ITEMS + [429] * (12 - budget.PER_PERSON_ITEMS)
    refused = answers[-1]
    assert "Busy" in refused.json()["error"] and refused["Retry-After"]
    # The bound on queued work: no more checks queued than the person's share.
    assert len(enqueued) == budget.PER_PERSON_ITEMS
    assert OfflineUpload.objects.count() == budget.PER_PERSON_ITEMS
    # Once their checks are done, the person's next deal is taken again.
    assert run_checks(enqueued) == ["accepted"] * budget.PER_PERSON_ITEMS
    again = send(logged_in_client, twelve_deals[-1], django_capture_on_commit_callbacks)
    assert again.status_code == 202


def test_another_person_is_not_held_by_one_account_s_flood(
    logged_in_client, bob, password, enqueued, django_capture_on_commit_callbacks, twelve_deals
):
    for envelope in twelve_deals[:6]:
        send(logged_in_client, envelope, django_capture_on_commit_callbacks)
    other = Client()
    other.login(username=bob.username, password=password)
    answer = send(other, twelve_deals[6], django_capture_on_commit_callbacks)
    assert answer.status_code == 202


def test_a_lane_s_queue_is_bounded_whoever_asks(
    logged_in_client,
    bob,
    password,
    enqueued,
    django_capture_on_commit_callbacks,
    monkeypatch,
    twelve_deals,
):
    monkeypatch.setitem(budget.LANE_ITEMS, budget.CHECKS, 2)
    for envelope in twelve_deals[:2]:
        assert (
            send(logged_in_client, envelope, django_capture_on_commit_callbacks).status_code == 202
        )
    other = Client()
    other.login(username=bob.username, password=password)
    answer = send(other, twelve_deals[2], django_capture_on_commit_callbacks)
    assert answer.status_code == 503 and "Busy" in answer.json()["error"]
    assert len(enqueued) == 2


def test_dearer_checks_count_as_more_of_the_budget(
    logged_in_client, enqueued, django_capture_on_commit_callbacks, monkeypatch
):
    cheap = check_deal(played_envelope("house", level="easy", seed=41))
    dear = check_deal(
        played_envelope(
            {"preset": "auction", "cutthroat": True, "players": 7, "draw": True},
            level="medium",
            seed=41,
            key="dear-match-01",
            upload_id="dear-deal-01",
        )
    )
    assert check_cost(dear) > 10 * check_cost(cheap)
    # A budget that one dear check fills: the person's next upload waits, however cheap.
    monkeypatch.setattr(budget, "PER_PERSON_SECONDS", check_cost(dear) + 0.01)
    assert (
        send(logged_in_client, dear.envelope, django_capture_on_commit_callbacks).status_code == 202
    )
    assert (
        send(logged_in_client, cheap.envelope, django_capture_on_commit_callbacks).status_code
        == 429
    )
    assert OfflineUpload.objects.get().cost == check_cost(dear)


def test_face_up_steps_in_flight_count_in_the_same_budget(
    logged_in_client, user, enqueued, django_capture_on_commit_callbacks, twelve_deals
):
    match = play_deals(user, "house", played=1, seed=5)
    deal_row = played_deals(match)[0]
    with django_capture_on_commit_callbacks(execute=True):
        replay_services.do_request_faceup(
            deal_row, step=8, user=user
        )  # and the next two play steps
    assert [work.lane for work in budget.in_flight(user.pk)] == [budget.ANALYSIS] * 3
    answers = [
        send(logged_in_client, envelope, django_capture_on_commit_callbacks).status_code
        for envelope in twelve_deals[:3]
    ]
    # Three steps of about 4 s each in flight: room for one more item only.
    assert answers == [202, 429, 429]


def test_a_deal_already_checked_is_not_checked_again(
    logged_in_client, bob, password, enqueued, django_capture_on_commit_callbacks
):
    envelope = played_envelope("house", seed=51, key="match-0051", upload_id="deal-0051")
    assert send(logged_in_client, envelope, django_capture_on_commit_callbacks).status_code == 202
    assert run_checks(enqueued) == ["accepted"]
    # The same deal again, under fresh ids, from another account: settled from the first check.
    copy = {**envelope, "id": "deal-0052", "match": "match-0052"}
    other = Client()
    other.login(username=bob.username, password=password)
    answer = send(other, copy, django_capture_on_commit_callbacks)
    assert answer.status_code == 200 and answer.json()["status"] == "accepted"
    assert enqueued == []
    assert OfflineUpload.objects.get(client_id="deal-0052").check_seconds == 0.0


def test_a_forged_deal_sent_again_under_fresh_ids_is_refused_without_a_new_check(
    logged_in_client, enqueued, django_capture_on_commit_callbacks
):
    forged = with_bot_move_changed(played_envelope("house", seed=53, upload_id="deal-0053"))
    send(logged_in_client, forged, django_capture_on_commit_callbacks)
    assert run_checks(enqueued) == ["refused"]
    again = {**forged, "id": "deal-0054", "match": "match-0054"}
    answer = send(logged_in_client, again, django_capture_on_commit_callbacks)
    assert answer.json()["status"] == "refused" and "bot's move" in answer.json()["reason"]
    assert enqueued == []


def test_checks_have_a_queue_and_a_search_lane_of_their_own(settings):
    assert dispatch.queue_of(tasks.check_offline_deal).endswith("checks")
    assert dispatch.THREADS_PER_QUEUE["checks"] == 1
    assert searches.NICENESS[searches.Lane.CHECKS] > searches.NICENESS[searches.Lane.ANALYSIS]
    assert searches.NICENESS[searches.Lane.ANALYSIS] > searches.NICENESS[searches.Lane.PLAY]
    lanes = {searches.Lane.PLAY, searches.Lane.ANALYSIS, searches.Lane.CHECKS}
    assert len(lanes) == 3


def test_a_face_up_step_waits_while_the_person_s_budget_or_the_lane_is_full(
    logged_in_client, user, enqueued, django_capture_on_commit_callbacks, monkeypatch, twelve_deals
):
    """Face-up steps count in the budget, and the budget counts for them too: a person whose
    share is taken by offline checks, or anyone when the analysis lane is full, waits."""
    match = play_deals(user, "house", played=1, seed=5)
    deal_row = played_deals(match)[0]
    for envelope in twelve_deals[: budget.PER_PERSON_ITEMS]:
        assert (
            send(logged_in_client, envelope, django_capture_on_commit_callbacks).status_code == 202
        )
    with pytest.raises(replay_services.AnalysisBusy):
        replay_services.do_request_faceup(deal_row, step=8, user=user)
    assert not FaceUpAnalysis.objects.exists()
    assert run_checks(enqueued) == ["accepted"] * budget.PER_PERSON_ITEMS
    monkeypatch.setitem(budget.LANE_ITEMS, budget.ANALYSIS, 0)
    with pytest.raises(replay_services.AnalysisBusy):
        replay_services.do_request_faceup(deal_row, step=8, user=user)
    monkeypatch.setitem(budget.LANE_ITEMS, budget.ANALYSIS, 200)
    with django_capture_on_commit_callbacks(execute=True):
        replay_services.do_request_faceup(deal_row, step=8, user=user)
    assert FaceUpAnalysis.objects.filter(deal=deal_row).count() == 3  # the step and two ahead
