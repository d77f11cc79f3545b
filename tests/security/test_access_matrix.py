"""Who may open each page or post that names a match or a deal (issue 29: the core, coach,
replay, practice and tables checked access each their own way, and a stranger could count
matches by the 403s). One matrix: every such URL, as a visitor logged out, a stranger, a
spectator of a table that welcomes them, and a player.

- logged out: to the log-in page;
- a stranger: 404, word for word what a number with no match gets;
- a spectator: the table page only (its posts say "not playing"; history and coach, 404);
- a player: never refused for who they are (a post may still be refused for what it says).
"""

import re

import pytest
from django.test import Client
from django.urls import reverse

from games.models import Match
from games.tables import services as tables
from tests.db.replays import into_a_new_deal, play_deals, played_deals

pytestmark = pytest.mark.django_db

# (URL name, method, what it takes: "match", "deal" (match id, number), "deal_id", "step")
MATCH_URLS = [
    ("table", "GET"),
    ("act", "POST"),
    ("next_deal", "POST"),
    ("rematch", "POST"),
    ("sit", "POST"),
    ("seat_bot", "POST"),
    ("start_table", "POST"),
    ("table_settings", "POST"),
    ("leave", "POST"),
    ("chat", "POST"),
    ("remove_from_table", "POST"),
    ("coach:panel", "GET"),
    ("replay:match", "GET"),
    ("replay:match_record", "GET"),
    ("replay:share", "POST"),
    ("replay:stop_sharing", "POST"),
]
DEAL_URLS = [("replay:deal", "GET"), ("replay:deal_record", "GET")]
STEP_URLS = [
    ("replay:deal_step", "GET"),
    ("replay:faceup", "GET"),
    ("replay:faceup", "POST"),
    ("replay:practice", "POST"),
]
DEAL_ID_URLS = [("coach:review", "GET"), ("coach:review", "POST")]
# What a spectator of a table may open: the table itself. The posts of a shared table (sit,
# chat...) are refused them for what they ask, not hidden; the game's own, history and the
# coach are not theirs at all.
FOR_SPECTATORS = {"table"}
NOT_FOR_SPECTATORS = {"act", "next_deal", "rematch", "coach:panel", "replay:match"}
NOT_FOR_SPECTATORS |= {"replay:match_record", "replay:share", "replay:stop_sharing"}
# What the post names does not exist, whoever asks: a match against bots has no chat, and an
# empty post names no seat to remove.
NO_SUCH_THING = {"chat", "remove_from_table"}


def urls_of(match: Match) -> list[tuple[str, str, str]]:
    deal = played_deals(match)[0]
    step = deal.actions.filter(kind="play").order_by("sequence").first().sequence
    return (
        [(name, method, reverse(name, args=[match.pk])) for name, method in MATCH_URLS]
        + [(n, m, reverse(n, args=[match.pk, deal.number])) for n, m in DEAL_URLS]
        + [(n, m, reverse(n, args=[match.pk, deal.number, step])) for n, m in STEP_URLS]
        + [(n, m, reverse(n, args=[deal.pk])) for n, m in DEAL_ID_URLS]
    )


def ask(client: Client, method: str, url: str):
    return client.get(url) if method == "GET" else client.post(url, {"version": "0"})


def without_tokens(response) -> str:
    return re.sub(r"[A-Za-z0-9]{64}", "", response.content.decode())


@pytest.fixture
def match(user):
    """The player's match against bots, one deal finished and the next one under way."""
    match = play_deals(user, "house", played=1, seed=3)
    into_a_new_deal(match, actions=1, seed=3)
    return match


def test_a_visitor_logged_out_is_sent_to_log_in(match):
    for name, method, url in urls_of(match):
        answer = ask(Client(), method, url)
        assert answer.status_code == 302 and "/accounts/login/" in answer["Location"], name


def test_a_stranger_gets_what_a_number_with_no_match_gets(match, make_user):
    stranger = Client()
    stranger.force_login(make_user("mallory"))
    missing = Match.objects.order_by("-pk").first().pk + 1
    for name, method, url in urls_of(match):
        answer = ask(stranger, method, url)
        assert answer.status_code == 404, (name, method, answer.status_code)
        if "deal_id" not in name and f"/{match.pk}/" in url:
            unknown = ask(stranger, method, url.replace(f"/{match.pk}/", f"/{missing}/", 1))
            assert unknown.status_code == 404, name
            assert without_tokens(unknown) == without_tokens(answer), name


def test_a_player_is_never_refused_for_who_they_are(match, logged_in_client):
    for name, method, url in urls_of(match):
        if name in NO_SUCH_THING:
            continue
        answer = ask(logged_in_client, method, url)
        assert answer.status_code not in (401, 403, 404), (name, method, answer.status_code)
        if answer.status_code == 302:
            assert "/accounts/login/" not in answer["Location"], name


def test_a_spectator_watches_the_table_and_nothing_more(user, bob, carol):
    table = tables.do_create_table(user, rules_spec="house", allow_spectators=True)
    tables.do_sit(table.pk, user=bob, position="W")
    tables.do_fill_with_bots(table.pk, host=user, level="easy")
    tables.do_start_table(table.pk, host=user)
    spectator = Client()
    spectator.force_login(carol)
    assert spectator.get(f"/t/{table.invite_code}/").status_code == 302  # came by the invite
    for name, method in MATCH_URLS:
        answer = ask(spectator, method, reverse(name, args=[table.pk]))
        if name in FOR_SPECTATORS:
            assert answer.status_code == 200, name
        elif name in NOT_FOR_SPECTATORS:
            assert answer.status_code in (403, 404), (name, answer.status_code)
        else:  # refused for what it asks: back to the table with the reason, or a 4xx
            assert answer.status_code in (302, 400, 403, 409), (name, answer.status_code)
    table.refresh_from_db()
    assert table.seats.filter(user=carol).count() == 0
