"""Deals played offline come home: nothing the browser sends is trusted.

A deal is replayed through the engine and scored again at once (a refusal stores nothing), then
every bot move is decided again from its seed in a background task; only a deal that passes both
is stored, marked as played offline, in history, replay and statistics, and never in ratings.
"""

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import engine
from games.core import dispatch
from games.engine.offline import shuffled
from games.models import Action, Deal, Match
from games.offline import services, tasks
from games.offline.models import OfflineUpload
from games.stats.models import DealSummary, MatchRecord, Rating
from tests.engine.offline_helpers import (
    offline_match,
    play_deal,
    played_envelope,
    with_bot_move_changed,
    with_score_changed,
)

# The check of a deal runs on the Celery worker on CI's second pass.
pytestmark = [pytest.mark.django_db, pytest.mark.real_services]

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


def send(client, envelope, capture):
    body = envelope if isinstance(envelope, bytes) else json.dumps(envelope)
    with capture(execute=True):
        return client.post(UPLOAD, data=body, content_type="application/json")


def check_enqueued(enqueued) -> list[str]:
    """Run the checks the uploads enqueued, as a worker would; their outcomes."""
    outcomes = []
    while enqueued:
        name, (upload_id,) = enqueued.pop(0)
        assert name == "games.offline.tasks.check_offline_deal"
        outcomes.append(tasks.check_offline_deal(upload_id))
    return outcomes


def status_of(client, upload_id):
    return client.get(reverse("offline:upload_status", args=[upload_id])).json()


def test_a_deal_played_offline_comes_home_marked_and_replays_face_up(
    logged_in_client, user, enqueued, django_capture_on_commit_callbacks
):
    envelope = played_envelope("house", level="easy", seed=12, upload_id="deal-0001")
    answer = send(logged_in_client, envelope, django_capture_on_commit_callbacks)
    assert answer.status_code == 202 and answer.json()["status"] == "checking"
    assert check_enqueued(enqueued) == ["accepted"]

    status = status_of(logged_in_client, "deal-0001")
    assert status["status"] == "accepted"
    match = Match.objects.get()
    assert match.played_offline and match.status == Match.Status.OFFLINE
    assert match.seats.get(position="S").user == user
    assert {s.bot_level for s in match.seats.exclude(position="S")} == {"easy"}
    deal_row = match.deals.get()
    state = engine.deal_from_record(envelope["record"])
    assert list(deal_row.actions.values_list("token", flat=True)) == [t for _, t in state.history]
    assert set(deal_row.actions.filter(user=user).values_list("seat", flat=True)) == {"S"}
    assert deal_row.result["score"] == envelope["score"]
    assert OfflineUpload.objects.get().check_seconds is not None

    history = logged_in_client.get(reverse("replay:history")).content.decode()
    assert "Played offline" in history and f"Match {match.pk}" in history
    replay = logged_in_client.get(status["replay_url"], follow=True)
    assert replay.status_code == 200 and "Played offline" in replay.content.decode()
    first_card = next(
        step
        for step, action in enumerate(deal_row.actions.order_by("sequence"))
        if action.kind == Action.Kind.PLAY
    )
    faceup = reverse("replay:faceup", args=[match.pk, deal_row.number, first_card])
    with django_capture_on_commit_callbacks(execute=True):
        assert logged_in_client.post(faceup).status_code == 200
    asked = deal_row.faceup_analyses.get(step=first_card)
    assert enqueued[0] == ("games.replay.tasks.analyse_faceup", (asked.pk,))

    stats = logged_in_client.get(reverse("my_stats")).content.decode()
    assert "Played offline" in stats and 'data-figure="offline-deals">1<' in stats
    assert 'data-figure="deals">0<' in stats  # the site's own deals are counted apart
    assert DealSummary.objects.get(user=user).offline


def test_a_bot_card_changed_is_refused_after_its_check_and_nothing_is_stored(
    logged_in_client, enqueued, django_capture_on_commit_callbacks
):
    forged = with_bot_move_changed(played_envelope("house", level="easy", seed=7))
    assert send(logged_in_client, forged, django_capture_on_commit_callbacks).status_code == 202
    assert check_enqueued(enqueued) == ["refused"]
    status = status_of(logged_in_client, forged["id"])
    assert status["status"] == "refused"
    assert "A bot's move is not what that bot plays from its seed" in status["reason"]
    assert not Match.objects.exists() and not Deal.objects.exists()


def test_a_changed_score_is_refused_at_once_and_nothing_is_stored(
    logged_in_client, enqueued, django_capture_on_commit_callbacks
):
    forged = with_score_changed(played_envelope("house", seed=9))
    answer = send(logged_in_client, forged, django_capture_on_commit_callbacks)
    assert answer.status_code == 400
    assert (
        "score:" in answer.json()["error"]
        and "the engine scores the deal" in answer.json()["error"]
    )
    assert not OfflineUpload.objects.exists() and not enqueued


def _illegal_play(envelope):
    envelope["record"]["plays"][1], envelope["record"]["plays"][5] = (
        envelope["record"]["plays"][5],
        envelope["record"]["plays"][1],
    )
    return envelope


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        (b"this is not JSON", 400, "not JSON"),
        (b"\xff\xfe", 400, "not UTF-8"),
        (b"[1, 2]", 400, "a JSON object"),
        (b"[" * 100_000, 413, "larger than 16 KB"),
        (b'{"format": "setback-offline-deal/1", "number": NaN}', 400, "not JSON"),
        (b"{}", 400, "format:"),
        (lambda e: json.dumps(_illegal_play(e)).encode(), 400, "record: plays["),
        (lambda e: json.dumps({**e, "record": "cards"}).encode(), 400, "record: a deal record"),
    ],
)
def test_a_malformed_upload_is_refused_with_a_clear_error_and_stores_nothing(
    logged_in_client, enqueued, django_capture_on_commit_callbacks, body, status, words
):
    if callable(body):
        body = body(played_envelope("house", seed=21))
    answer = send(logged_in_client, body, django_capture_on_commit_callbacks)
    assert answer.status_code == status
    assert words in answer.json()["error"]
    assert not OfflineUpload.objects.exists() and not enqueued


def test_the_same_deal_sent_again_is_stored_once_and_its_id_cannot_carry_another(
    logged_in_client, enqueued, django_capture_on_commit_callbacks
):
    envelope = played_envelope("house", seed=25, upload_id="deal-0025")
    first = send(logged_in_client, envelope, django_capture_on_commit_callbacks)
    again = send(logged_in_client, envelope, django_capture_on_commit_callbacks)
    assert first.status_code == again.status_code == 202
    assert len(enqueued) == 1  # one check
    check_enqueued(enqueued)
    after = send(logged_in_client, envelope, django_capture_on_commit_callbacks)
    assert after.status_code == 200 and after.json()["status"] == "accepted"
    assert OfflineUpload.objects.count() == 1 and Deal.objects.count() == 1 and not enqueued

    other = played_envelope("classic", seed=26, key="match-0026", upload_id="deal-0025")
    refused = send(logged_in_client, other, django_capture_on_commit_callbacks)
    assert refused.status_code == 400 and "already used for another deal" in refused.json()["error"]
    assert OfflineUpload.objects.count() == 1


def test_an_upload_needs_a_session_and_a_csrf_token(user, password, enqueued):
    envelope = json.dumps(played_envelope("house", seed=27))
    anonymous = Client(enforce_csrf_checks=True)
    refused = anonymous.post(UPLOAD, data=envelope, content_type="application/json")
    assert refused.status_code == 403
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    assert browser.post(UPLOAD, data=envelope, content_type="application/json").status_code == 403
    session = browser.get(reverse("offline:session")).json()
    assert session["signed_in"] and session["username"] == user.username
    token = session["csrf_token"]
    sent = browser.post(
        UPLOAD, data=envelope, content_type="application/json", HTTP_X_CSRFTOKEN=token
    )
    assert sent.status_code == 202
    assert not Client().get(reverse("offline:session")).json()["signed_in"]


def test_uploads_are_limited_per_minute(logged_in_client, settings, enqueued):
    settings.REQUEST_LIMITS_PER_MINUTE = {**settings.REQUEST_LIMITS_PER_MINUTE, "offline_upload": 2}
    envelope = json.dumps(played_envelope("house", seed=29))
    answers = [
        logged_in_client.post(UPLOAD, data=envelope, content_type="application/json")
        for _ in range(3)
    ]
    assert [a.status_code for a in answers[:2]] == [202, 202]
    assert answers[2].status_code == 429 and answers[2]["Retry-After"] == "60"
    assert "at most 2 a minute" in answers[2].json()["error"]


def test_deals_come_home_in_order_from_the_score_the_earlier_ones_add_up_to(
    logged_in_client, enqueued, django_capture_on_commit_callbacks
):
    match = play_deal(offline_match("house", level="easy", seed=31, key="match-0031"))
    first = match.envelope("deal-0031-1")
    match.next_deal()
    second = play_deal(match).envelope("deal-0031-2")

    early = send(logged_in_client, second, django_capture_on_commit_callbacks)
    assert (
        early.status_code == 409
        and "Deal 1 of this match has not come home" in early.json()["error"]
    )
    send(logged_in_client, first, django_capture_on_commit_callbacks)
    waiting = send(logged_in_client, second, django_capture_on_commit_callbacks)
    assert waiting.status_code == 409 and "still being checked" in waiting.json()["error"]
    assert check_enqueued(enqueued) == ["accepted"]

    wrong_totals = json.loads(json.dumps(second))
    side = next(iter(wrong_totals["totals_before"]))
    wrong_totals["totals_before"][side] += 3
    wrong_totals["id"] = "deal-0031-x"
    refused = send(logged_in_client, wrong_totals, django_capture_on_commit_callbacks)
    assert refused.status_code == 400 and "score before this deal" in refused.json()["error"]

    assert send(logged_in_client, second, django_capture_on_commit_callbacks).status_code == 202
    assert check_enqueued(enqueued) == ["accepted"]
    stored = Match.objects.get()
    assert stored.deals.count() == 2 and stored.totals == match.state.totals


def test_a_match_won_offline_is_counted_apart_and_never_rated(
    logged_in_client, user, enqueued, django_capture_on_commit_callbacks
):
    match = offline_match("family", level="easy", seed=41, key="match-0041")
    envelopes = []
    while True:
        play_deal(match)
        envelopes.append(match.envelope(f"deal-0041-{match.number}"))
        if match.over:
            break
        match.next_deal()
    for envelope in envelopes:
        assert (
            send(logged_in_client, envelope, django_capture_on_commit_callbacks).status_code == 202
        )
        assert check_enqueued(enqueued) == ["accepted"]
    stored = Match.objects.get()
    assert stored.status == Match.Status.FINISHED and stored.winner == match.state.winner
    assert stored.totals == match.state.totals
    assert not MatchRecord.objects.exists() and not Rating.objects.exists()
    assert DealSummary.objects.filter(user=user, offline=True).count() == len(envelopes)

    # A deal after the end, legal in itself and dealt by the match's seed, is refused.
    after_end = shuffled(match.rules, 41, match.number + 1)
    while not after_end.is_over:
        after_end.apply(after_end.legal_actions()[0])
    late = {
        **envelopes[-1],
        "id": "deal-0041-late",
        "number": match.number + 1,
        "totals_before": dict(match.state.totals),
        "score": dict(after_end.result().score),
        "record": engine.deal_to_record(after_end),
    }
    answer = send(logged_in_client, late, django_capture_on_commit_callbacks)
    assert answer.status_code == 400 and "This match is over" in answer.json()["error"]


def test_someone_else_cannot_read_how_an_upload_went(
    logged_in_client, make_user, enqueued, django_capture_on_commit_callbacks
):
    send(
        logged_in_client,
        played_envelope("house", seed=43, upload_id="deal-0043"),
        django_capture_on_commit_callbacks,
    )
    other = Client()
    other.force_login(make_user("bob"))
    assert other.get(reverse("offline:upload_status", args=["deal-0043"])).status_code == 404
    assert Client().get(reverse("offline:upload_status", args=["deal-0043"])).status_code == 403


def test_the_table_of_a_match_played_offline_leads_to_its_deals(
    logged_in_client, enqueued, django_capture_on_commit_callbacks
):
    send(logged_in_client, played_envelope("house", seed=47), django_capture_on_commit_callbacks)
    check_enqueued(enqueued)
    match = Match.objects.get()
    answer = logged_in_client.get(reverse("table", args=[match.pk]))
    assert answer.status_code == 302 and answer["Location"] == reverse(
        "replay:match", args=[match.pk]
    )
    page = logged_in_client.get(answer["Location"]).content.decode()
    assert f"Match {match.pk}, played offline" in page and "Back to the table" not in page


def _nested(depth: int):
    value: object = "x"
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda e: e["record"].update(meta={"junk": "x" * 60}), "record: unknown field 'meta'"),
        (lambda e: e["record"].update(meta=_nested(800)), "nested deeper"),
        (lambda e: e.update(engine=_nested(5)), "nested deeper"),
        (
            lambda e: (
                e["record"]["rules"].update(note="y" * 65)
                if isinstance(e["record"]["rules"], dict)
                else e["record"].update(rules={"preset": "y" * 65})
            ),
            "longer than 64",
        ),
        (lambda e: e["record"]["plays"].extend(["AS"] * 70), "more than 64 items"),
        (
            lambda e: e["bots"].update(N="hard"),
            "bots: the offline page's bots are all of one level",
        ),
    ],
)
def test_an_upload_outside_the_page_s_schema_is_refused_and_stores_nothing(
    logged_in_client, enqueued, django_capture_on_commit_callbacks, change, words
):
    """Known keys, short texts, no deeper than a deal, bots as the page seats them (issue 45:
    62,000 bytes of junk in `record.meta` were accepted; 800 levels of it broke the check)."""
    envelope = played_envelope("house", level="easy", seed=61)
    change(envelope)
    answer = send(logged_in_client, envelope, django_capture_on_commit_callbacks)
    assert answer.status_code == 400
    assert words in answer.json()["error"]
    assert not OfflineUpload.objects.exists() and not enqueued


def test_a_settled_upload_keeps_no_envelope_and_a_refusal_goes_after_a_while(
    logged_in_client, user, enqueued, django_capture_on_commit_callbacks
):
    accepted = played_envelope("house", seed=63, key="match-0063", upload_id="deal-0063")
    forged = with_bot_move_changed(
        played_envelope("house", seed=7, key="match-0064", upload_id="deal-0064")
    )
    for envelope in (accepted, forged):
        send(logged_in_client, envelope, django_capture_on_commit_callbacks)
    assert check_enqueued(enqueued) == ["accepted", "refused"]
    assert [u.envelope for u in OfflineUpload.objects.all()] == [{}, {}]
    refused = OfflineUpload.objects.get(status=OfflineUpload.Status.REFUSED)
    # The page can still read why, for a while.
    assert "bot's move" in status_of(logged_in_client, "deal-0064")["reason"]
    OfflineUpload.objects.filter(pk=refused.pk).update(
        checked_at=timezone.now() - timedelta(days=services.REFUSED_KEEP_DAYS + 1)
    )
    send(
        logged_in_client,
        played_envelope("house", seed=65, key="match-0065", upload_id="deal-0065"),
        django_capture_on_commit_callbacks,
    )
    assert not OfflineUpload.objects.filter(pk=refused.pk).exists()
    assert OfflineUpload.objects.filter(status=OfflineUpload.Status.ACCEPTED).count() == 1


def test_the_outbox_ties_a_deal_to_the_account_that_played_it(
    logged_in_client, bob, password, enqueued, django_capture_on_commit_callbacks
):
    """A browser shared by two people once sent one person's offline deals home under whoever
    signed in next (issue 45): the page keeps the session's token with each deal it plays, and
    the site refuses a deal whose token names another account."""
    alices = logged_in_client.get(reverse("offline:session")).json()["outbox_token"]
    envelope = played_envelope("house", seed=81, key="match-0081", upload_id="deal-0081")
    bobs_browser = Client()
    bobs_browser.login(username=bob.username, password=password)
    with django_capture_on_commit_callbacks(execute=True):
        refused = bobs_browser.post(
            UPLOAD,
            data=json.dumps(envelope),
            content_type="application/json",
            headers={"X-Setback-Outbox": alices},
        )
    assert refused.status_code == 403
    assert "signed in as alice" in refused.json()["error"]
    forged = bobs_browser.post(
        UPLOAD,
        data=json.dumps(envelope),
        content_type="application/json",
        headers={"X-Setback-Outbox": alices[:-3] + "xyz"},
    )
    assert forged.status_code == 403
    assert not OfflineUpload.objects.exists() and not enqueued
    # Under the account that played it, it goes home.
    with django_capture_on_commit_callbacks(execute=True):
        taken = logged_in_client.post(
            UPLOAD,
            data=json.dumps(envelope),
            content_type="application/json",
            headers={"X-Setback-Outbox": alices},
        )
    assert taken.status_code == 202
    assert bobs_browser.get(reverse("offline:session")).json()["outbox_token"] != alices
