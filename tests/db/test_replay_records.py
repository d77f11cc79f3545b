"""Records out and in (docs/rules.md section 4): exports the engine reads, imports that replay the
same, and bad records refused with the engine's own message, storing nothing."""

import html
import json
import random
import subprocess
import sys
from dataclasses import asdict

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from games import engine
from games.core import selectors
from games.engine import deal_to_record
from games.replay import selectors as replay_selectors
from games.replay.models import ImportedDeal

from .replays import into_a_new_deal, play_deals, played_deals

pytestmark = pytest.mark.django_db


@pytest.fixture
def other_client():
    """A second browser: not logged in until a test logs someone in."""
    return Client()


@pytest.fixture
def match(user):
    return play_deals(user, {"preset": "classic", "draw": True}, played=2, seed=21)


def upload(client, content: bytes, name="record.json"):
    return client.post(reverse("replay:imports"), {"file": SimpleUploadedFile(name, content)})


def engine_cli(command: str, record: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "games.engine", command, "-"],
        input=json.dumps(record),
        capture_output=True,
        text=True,
        timeout=60,
    )


def what_a_frame_shows(frame) -> dict:
    """A frame without its links (which name where it is served from)."""
    shown = asdict(frame)
    shown.pop("links")
    for move in shown["moves"]:
        move.pop("url")
    for group in shown["groups"]:
        for move in group["moves"]:
            move.pop("url")
    return shown


def test_a_deal_record_is_what_the_engine_scores(logged_in_client, match):
    deal_row = played_deals(match)[0]
    response = logged_in_client.get(reverse("replay:deal_record", args=[match.pk, deal_row.number]))
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == (
        f'attachment; filename="setback-match-{match.pk}-deal-{deal_row.number}.json"'
    )
    record = response.json()
    assert record["format"] == "setback-deal/1"
    assert {k: v for k, v in record.items() if k != "meta"} == deal_to_record(
        selectors.deal_state(deal_row)
    )
    assert record["meta"]["players"]["S"] == "alice"
    scored = engine_cli("score", record)
    assert scored.returncode == 0, scored.stderr
    assert json.loads(scored.stdout) == deal_row.result


def test_a_match_record_is_what_the_engine_replays(logged_in_client, match):
    record = logged_in_client.get(reverse("replay:match_record", args=[match.pk])).json()
    replayed = engine_cli("match", record)
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout)["totals"] == match.totals


def test_export_import_export_is_identical_and_replays_the_same(
    other_client, logged_in_client, make_user, match
):
    deal_row = played_deals(match)[0]
    exported = logged_in_client.get(
        reverse("replay:deal_record", args=[match.pk, deal_row.number])
    ).content

    bob = make_user("bob")
    other_client.force_login(bob)
    response = upload(other_client, exported)
    imported = ImportedDeal.objects.get(owner=bob)
    assert response.status_code == 302
    assert response["Location"] == reverse("replay:imported", args=[imported.pk])
    again = other_client.get(reverse("replay:imported_record", args=[imported.pk])).content
    assert again == exported

    # Bob's replay is Alice's replay, step by step (seen as a guest: no "you", no marks).
    replay = replay_selectors.read_import(imported)
    for step in range(deal_row.actions.count() + 1):
        theirs = replay_selectors.match_deal_frame(match, deal_row, step, None, str)
        mine = replay_selectors.imported_frame(replay, 1, step, str)
        expected = what_a_frame_shows(theirs)
        expected["totals_before"] = expected["totals_after"] = []  # a lone deal has no match score
        assert what_a_frame_shows(mine) == expected
    page = other_client.get(reverse("replay:imported_step", args=[imported.pk, 1, 4]))
    assert page.status_code == 200 and 'data-step="4"' in page.content.decode()


def test_a_match_record_round_trip_is_identical(
    other_client, logged_in_client, make_user, match, user
):
    into_a_new_deal(match, actions=1, seed=2)  # the deal in play is left out of the record
    exported = logged_in_client.get(reverse("replay:match_record", args=[match.pk])).content
    other_client.force_login(make_user("bob"))
    upload(other_client, exported, "match.json")
    imported = ImportedDeal.objects.get()
    assert imported.kind == ImportedDeal.Kind.MATCH
    assert (
        other_client.get(reverse("replay:imported_record", args=[imported.pk])).content == exported
    )
    listing = other_client.get(reverse("replay:imports")).content.decode()
    count = match.deals.filter(phase="over").count()
    assert f"Match record {imported.pk} ({count} deals)" in listing and "Classic (draw)" in listing
    page = other_client.get(reverse("replay:imported", args=[imported.pk])).content.decode()
    for deal_row in match.deals.filter(phase="over"):
        assert reverse("replay:imported_step", args=[imported.pk, deal_row.number, 0]) in page
    last = played_deals(match)[-1]
    theirs = replay_selectors.match_deal_frame(match, last, 5, None, str)
    mine = replay_selectors.imported_frame(
        replay_selectors.read_import(imported), last.number, 5, str
    )
    assert what_a_frame_shows(mine) == what_a_frame_shows(theirs)


def test_pasted_text_is_accepted_too(logged_in_client, user, match):
    record = deal_to_record(selectors.deal_state(played_deals(match)[0]))
    response = logged_in_client.post(reverse("replay:imports"), {"text": json.dumps(record)})
    assert response.status_code == 302
    assert ImportedDeal.objects.get().record == record


def a_good_record():
    rules = engine.Rules.from_spec("house")

    deal = engine.Deal.new(rules, "W", random.Random(4))
    rng = random.Random(5)
    while not deal.is_over:
        deal.apply(rng.choice(deal.legal_actions()))
    return deal_to_record(deal)


def broken_records():
    good = a_good_record()
    yield "not json", b'{"format": "setback-deal/1",'
    yield "not an object", b"[1, 2, 3]"
    yield "wrong format", json.dumps({**good, "format": "setback-deal/9"}).encode()
    yield (
        "five cards",
        json.dumps({**good, "hands": {**good["hands"], "E": good["hands"]["E"][:5]}}).encode(),
    )
    yield "unknown field", json.dumps({**good, "score": 3}).encode()
    yield "unknown call", json.dumps({**good, "auction": ["7"] + good["auction"][1:]}).encode()
    plays = list(good["plays"])
    plays[1], plays[2] = plays[2], plays[1]  # two cards out of turn
    yield "out of turn", json.dumps({**good, "plays": plays}).encode()
    yield (
        "a match whose deal breaks",
        json.dumps(
            {
                "format": "setback-match/1",
                "rules": "house",
                "deals": [{**good, "plays": good["plays"][:3] + good["plays"][:1]}],
            }
        ).encode(),
    )


def engine_message(content: bytes) -> str:
    try:
        record = engine.records.load_json(content.decode())
        if isinstance(record, dict) and record.get("format") == "setback-match/1":
            engine.match_from_record(record)
        else:
            engine.deal_from_record(record)
    except engine.RecordError as error:
        return str(error)
    raise AssertionError("the engine accepted it")


@pytest.mark.parametrize(
    ("name", "content"), list(broken_records()), ids=[n for n, _ in broken_records()]
)
def test_a_bad_record_gets_the_engines_message_and_nothing_is_stored(
    logged_in_client, name, content
):
    response = upload(logged_in_client, content)
    assert response.status_code == 400
    message = engine_message(content)
    assert f"<code>{message}</code>" in html.unescape(response.content.decode())
    assert not ImportedDeal.objects.exists()


def test_the_message_is_the_one_the_command_line_prints(logged_in_client):
    good = a_good_record()
    plays = list(good["plays"])
    plays[1], plays[2] = plays[2], plays[1]
    bad = {**good, "plays": plays}
    cli = engine_cli("score", bad)
    assert cli.returncode == 2
    line = cli.stderr.strip()
    assert line.startswith("error: ")
    page = html.unescape(upload(logged_in_client, json.dumps(bad).encode()).content.decode())
    assert f"<code>{line.removeprefix('error: ')}</code>" in page


def test_other_refusals_store_nothing(logged_in_client):
    assert upload(logged_in_client, b"\xff\xfe not text").status_code == 400
    assert upload(logged_in_client, b" " * (600 * 1024)).status_code == 400
    nan = json.dumps({**a_good_record(), "meta": float("nan")}).encode()
    assert upload(logged_in_client, nan).status_code == 400
    empty = logged_in_client.post(reverse("replay:imports"), {})
    assert empty.status_code == 400 and b"Choose a record file" in empty.content
    assert not ImportedDeal.objects.exists()


def test_a_record_that_stops_mid_deal_replays_up_to_where_it_stops(logged_in_client):
    record = a_good_record()
    record["plays"] = record["plays"][:5]
    assert upload(logged_in_client, json.dumps(record).encode()).status_code == 302
    imported = ImportedDeal.objects.get()
    last = len(record["auction"]) + 5
    page = logged_in_client.get(
        reverse("replay:imported_step", args=[imported.pk, 1, last])
    ).content.decode()
    assert "The record stops here" in page
    assert "no point is scored" in page


def test_only_the_uploader_sees_an_import(other_client, logged_in_client, make_user):
    logged_in_client.post(reverse("replay:imports"), {"text": json.dumps(a_good_record())})
    imported = ImportedDeal.objects.get()
    urls = [
        reverse("replay:imported", args=[imported.pk]),
        reverse("replay:imported_step", args=[imported.pk, 1, 0]),
        reverse("replay:imported_record", args=[imported.pk]),
    ]
    assert logged_in_client.get(urls[1]).status_code == 200
    other_client.force_login(make_user("mallory"))
    for url in urls:
        assert other_client.get(url).status_code == 403
    assert other_client.post(reverse("replay:delete_import", args=[imported.pk])).status_code == 403
    assert other_client.get(reverse("replay:imported", args=[imported.pk + 1])).status_code == 404
    assert (
        other_client.get(reverse("replay:imported_step", args=[imported.pk, 2, 0])).status_code
        == 403
    )
    assert (
        logged_in_client.get(reverse("replay:imported_step", args=[imported.pk, 2, 0])).status_code
        == 404
    )
    logged_in_client.post(reverse("replay:delete_import", args=[imported.pk]))
    assert not ImportedDeal.objects.exists()
