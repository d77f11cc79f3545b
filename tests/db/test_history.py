"""The history page and a match's page: what a player sees of past matches, and that the list
stays cheap however many matches a player has."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games import engine
from games.core import selectors
from games.engine import wording
from games.models import Match

from .replays import finish_match, make_history, played_deals

pytestmark = pytest.mark.django_db


def listed(client, **params) -> list[int]:
    page = client.get(reverse("replay:history"), params).content.decode()
    return [int(n) for n in re.findall(r'class="history-item" data-match="(\d+)"', page)]


def outcome_for(match, user) -> str:
    """The oracle: the engine says which side the user's seat is on."""
    if match.status != Match.Status.FINISHED:
        return "playing"
    seat = match.seats.get(user=user).position
    return "won" if engine.Rules.from_spec(match.rules).side_of(seat) == match.winner else "lost"


def preset_of(match) -> str:
    return engine.Rules.from_spec(match.rules).preset


def test_the_history_lists_the_players_matches_newest_first(logged_in_client, user, make_user):
    mine = make_history(user, 6)
    make_history(make_user("bob"), 3)
    assert listed(logged_in_client) == sorted((m.pk for m in mine), reverse=True)
    page = logged_in_client.get(reverse("replay:history")).content.decode()
    six = next(m for m in mine if isinstance(m.rules, dict) and m.rules.get("six_players"))
    text = page.split(f'data-match="{six.pk}"')[1].split('class="history-item"')[0]
    assert "House (six players)" in text
    for position in ("P1", "P2", "P3", "P4", "P5", "P6"):
        assert f'<span class="seat-code">{position}</span>' in text
    assert '<li class="history-me"><span class="seat-code">P1</span> alice</li>' in text
    rules = engine.Rules.from_spec(six.rules)
    for side in rules.sides:
        assert f"<strong>{six.totals[side]}</strong>" in text


@pytest.mark.parametrize("preset", engine.PRESET_NAMES)
def test_filter_by_preset(logged_in_client, user, preset):
    mine = make_history(user, 12)
    assert listed(logged_in_client, preset=preset) == sorted(
        (m.pk for m in mine if preset_of(m) == preset), reverse=True
    )


@pytest.mark.parametrize("outcome", ["won", "lost", "playing"])
def test_filter_by_result(logged_in_client, user, outcome):
    mine = make_history(user, 18)
    expected = sorted((m.pk for m in mine if outcome_for(m, user) == outcome), reverse=True)
    assert expected, "the sample has matches of every outcome"
    assert listed(logged_in_client, outcome=outcome) == expected


def test_filters_combine_and_unknown_values_are_ignored(logged_in_client, user):
    mine = make_history(user, 18)
    assert listed(logged_in_client, preset="family", outcome="won") == sorted(
        (m.pk for m in mine if preset_of(m) == "family" and outcome_for(m, user) == "won"),
        reverse=True,
    )
    assert listed(logged_in_client, preset="poker", outcome="maybe") == sorted(
        (m.pk for m in mine), reverse=True
    )
    assert listed(logged_in_client, preset="poker", outcome="lost") == sorted(
        (m.pk for m in mine if outcome_for(m, user) == "lost"), reverse=True
    )


def test_pages_of_twenty(logged_in_client, user):
    mine = sorted((m.pk for m in make_history(user, 45)), reverse=True)
    assert listed(logged_in_client) == mine[:20]
    assert listed(logged_in_client, page=3) == mine[40:]
    assert listed(logged_in_client, page=99) == mine[40:]
    assert listed(logged_in_client, page="x") == mine[:20]
    page = logged_in_client.get(
        reverse("replay:history"), {"outcome": "lost", "page": 1}
    ).content.decode()
    if "Older" in page:
        assert "?outcome=lost&amp;page=2" in page


def queries_for_history(client) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(reverse("replay:history")).status_code == 200
    return len(queries)


def test_the_list_costs_the_same_few_queries_for_5_or_200_matches(
    logged_in_client, user, monkeypatch
):
    make_history(user, 5)
    few = queries_for_history(logged_in_client)
    make_history(user, 195, start=5)
    # A list page never rebuilds a deal through the engine.
    monkeypatch.setattr(selectors, "deal_state", lambda *a, **k: pytest.fail("rebuilt a deal"))
    # 8: with the bell's count, and one query for each feature that labels matches (the daily
    # deals, the Setback nights: hooks.match_labels).
    assert queries_for_history(logged_in_client) == few <= 8


def test_a_match_page_lists_its_deals_and_the_running_score(logged_in_client, user):
    match = finish_match(user, {"preset": "family", "players": 3, "target": 7}, seed=4)
    page = logged_in_client.get(reverse("replay:match", args=[match.pk])).content.decode()
    rules = selectors.rules_of(match)
    names = {seat.position: seat.display_name for seat in match.seats.all()}
    winner = names[match.winner]
    assert f"<strong>{winner}</strong> won the match." in page
    running = dict.fromkeys(rules.sides, 0)
    for deal_row in match.deals.order_by("number"):
        line = page.split(f'data-deal="{deal_row.number}"')[1].split("</tr>")[0]
        result = deal_row.result
        assert f'<td data-label="Dealer" class="cell-wide">{names[deal_row.dealer]}</td>' in line
        for side, delta in result["score"].items():
            running[side] += delta
        for side in rules.sides:
            assert f"{names[side]} {running[side]}</span>" in line
        if result["thrown_in"]:
            assert "thrown in" in line
            continue
        assert f"{names[result['pitcher']]} {result['bid']}" in line
        assert wording.SUIT_SYMBOLS[result["trump"]] in line
        assert ("made" if result["made"] else "set") in line
        for point in ("high", "low", "jack", "game"):
            taker = result["points"][point]
            assert f'<td data-label="{point.title()}">{names[taker] if taker else "—"}</td>' in line
        assert f'href="/replay/matches/{match.pk}/{deal_row.number}/0/"' in line
    assert running == match.totals
    assert played_deals(match)
