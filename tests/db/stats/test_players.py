"""Player pages and the leaderboard: openskill between people only, per preset, at least ten
matches to be listed, the last 30 days, private histories, and who sees a replay link."""

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.models import Match, Seat
from games.stats import players
from games.stats import services as stats_services

pytestmark = pytest.mark.django_db

TWO_HANDED = {"preset": "family", "players": 2}


def finished(winner_user, loser, *, days_ago=0, bot=False, shared=True):
    """A finished two-handed family match between two people (or a person and a bot), rated by
    the statistics service the way a real match end rates it."""
    match = Match.objects.create(
        rules=TWO_HANDED,
        status=Match.Status.FINISHED,
        host=winner_user,
        first_dealer="P1",
        totals={"P1": 7, "P2": 3},
        winner="P1",
        invite_code=f"C{Match.objects.count():05d}" if shared else None,
        finished_at=timezone.now() - timedelta(days=days_ago),
    )
    Seat.objects.create(match=match, position="P1", user=winner_user)
    if bot:
        Seat.objects.create(match=match, position="P2", bot_level="easy")
    else:
        Seat.objects.create(match=match, position="P2", user=loser)
    stats_services.do_record_match(match)
    return match


def client_for(user):
    client = Client()
    client.force_login(user)
    return client


def test_the_board_lists_people_with_ten_people_only_matches_best_first(user, bob, carol):
    for _ in range(10):
        finished(user, bob)
    for _ in range(9):
        finished(carol, bob)
    for _ in range(5):
        finished(carol, None, bot=True)  # against a bot: not on the board
    board = players.leaderboard("family")
    assert [(line.rank, line.name, line.matches) for line in board.lines] == [
        (1, "alice", 10),
        (2, "bob", 19),
    ]
    assert board.lines[0].rating > board.lines[1].rating
    assert players.leaderboard("house").lines == []
    page = Client().get(reverse("leaderboard") + "?preset=family").content.decode()
    assert page.index("alice") < page.index("bob") and "carol" not in page


def test_the_last_30_days_board_counts_only_recent_matches(user, bob):
    for _ in range(10):
        finished(user, bob, days_ago=40)
    for _ in range(10):
        finished(bob, user, days_ago=1)
    recent = players.leaderboard("family", recent=True)
    assert [line.name for line in recent.lines] == ["bob", "alice"]
    assert all(line.matches == 10 for line in recent.lines)
    assert {line.matches for line in players.leaderboard("family").lines} == {20}


def test_a_private_history_keeps_a_player_off_the_board_and_their_page_bare(user, bob, carol):
    for _ in range(10):
        finished(user, bob)
    client_for(bob).post(reverse("history_privacy"), {"public": "0"})
    assert [line.name for line in players.leaderboard("family").lines] == ["alice"]
    page = client_for(carol).get(reverse("player", args=["bob"])).content.decode()
    assert "keeps their history private" in page and "Member since" in page
    assert "Record against people" not in page
    own = client_for(bob).get(reverse("player", args=["bob"])).content.decode()
    assert "Record against people" in own and "Make it public" in own


def test_a_player_page_shows_rating_record_and_replays_for_those_who_may_see_them(user, bob, carol):
    matches = [finished(user, bob) for _ in range(3)]
    shared = matches[0]
    Match.objects.filter(pk=shared.pk).update(share_token="tok123")
    as_bob = client_for(bob).get(reverse("player", args=["alice"])).content.decode()
    assert "Member since" in as_bob and 'data-preset="family"' in as_bob
    assert reverse("player", args=["bob"]) in as_bob  # the opponent's name links to their page
    assert (
        ">3</td><td>0</td>" not in as_bob and "<td>3</td><td>3</td>" in as_bob
    )  # alice beat bob 3 of 3
    for match in matches:
        assert reverse("replay:match", args=[match.pk]) in as_bob  # bob played them
    as_carol = client_for(carol).get(reverse("player", args=["alice"])).content.decode()
    assert reverse("replay:match", args=[matches[1].pk]) not in as_carol
    assert reverse("replay:shared_match", args=["tok123"]) in as_carol
    assert as_carol.count("data-replay") == 1
    assert Client().get(reverse("player", args=["nobody"])).status_code == 404


def test_a_private_player_is_not_named_on_their_opponents_pages(user, bob, carol):
    """Issue 28: bob's results and dates appeared on alice's page though he keeps them private."""
    matches = [finished(user, bob) for _ in range(3)]
    client_for(bob).post(reverse("history_privacy"), {"public": "0"})
    as_carol = client_for(carol).get(reverse("player", args=["alice"])).content.decode()
    assert "bob" not in as_carol
    for match in matches:
        assert f"/{match.pk}/" not in as_carol
    # bob played those matches: on alice's page he still finds them, with their replays.
    as_bob = client_for(bob).get(reverse("player", args=["alice"])).content.decode()
    assert reverse("replay:match", args=[matches[0].pk]) in as_bob


def test_a_visitor_not_signed_in_finds_no_match_with_a_private_player(user, bob):
    """The visitor's seat was looked up with no id, which found a bot's seat in any match with
    one: a match with bob, who keeps his history private, was listed with his name."""
    match = finished(user, bob)
    Seat.objects.create(match=match, position="P3", bot_level="easy")  # a bot's seat too
    client_for(bob).post(reverse("history_privacy"), {"public": "0"})
    as_visitor = Client().get(reverse("player", args=["alice"])).content.decode()
    assert "Member since" in as_visitor  # alice's page, her history public
    assert "bob" not in as_visitor and f"/{match.pk}/" not in as_visitor


def test_the_lobby_shows_no_rating_for_a_host_who_keeps_their_history_private(user, bob):
    for _ in range(3):
        finished(user, bob)
    assert players.shown_ratings([user.pk, bob.pk]).keys() == {user.pk, bob.pk}
    client_for(bob).post(reverse("history_privacy"), {"public": "0"})
    assert players.shown_ratings([user.pk, bob.pk]).keys() == {user.pk}
