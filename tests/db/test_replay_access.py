"""Who may watch what: players see their matches; a public link shows finished deals to anyone;
a deal in progress has no replay and no record for anyone. Unknown ids and others' matches 404 alike."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from games import engine
from games.core import presenters, selectors
from games.models import Match
from games.replay import services as replay_services

from .replays import into_a_new_deal, play_deals, played_deals

pytestmark = pytest.mark.django_db


@pytest.fixture
def other_client():
    """A second browser: not logged in until a test logs someone in."""
    return Client()


@pytest.fixture
def match(user):
    """A house match with a finished, played-out deal and the next deal under way."""
    match = play_deals(user, "house", played=1, seed=11)
    into_a_new_deal(match, actions=2, seed=11)
    return match


def finished(match):
    return played_deals(match)[0]


def player_urls(match):
    number = finished(match).number
    return [
        reverse("replay:match", args=[match.pk]),
        reverse("replay:match_record", args=[match.pk]),
        reverse("replay:deal_step", args=[match.pk, number, 0]),
        reverse("replay:deal_record", args=[match.pk, number]),
    ]


def test_the_players_see_their_match(logged_in_client, match):
    for url in player_urls(match):
        assert logged_in_client.get(url).status_code == 200, url


def without_tokens(response) -> str:
    """A page without its CSRF tokens, which differ at every answer."""
    return re.sub(r"[A-Za-z0-9]{64}", "", response.content.decode())


def test_someone_else_is_refused_and_a_visitor_is_asked_to_log_in(client, make_user, match):
    for url in player_urls(match):
        assert client.get(url).status_code == 302  # to the log-in page
    client.force_login(make_user("mallory"))
    missing = Match.objects.order_by("-pk").first().pk + 1
    for url in player_urls(match):
        response = client.get(url)
        # Told what a match that does not exist gets: a stranger cannot count matches.
        assert response.status_code == 404, url
        assert b"There is no such match" in response.content or url.endswith(".json")
        unknown = client.get(url.replace(f"/{match.pk}/", f"/{missing}/"))
        assert (unknown.status_code, without_tokens(unknown)) == (404, without_tokens(response))
    for name in ("replay:share", "replay:stop_sharing"):
        assert client.post(reverse(name, args=[match.pk])).status_code == 404
    match.refresh_from_db()
    assert match.share_token is None


def test_unknown_matches_deals_and_steps_are_not_found(logged_in_client, match):
    missing = Match.objects.order_by("-pk").first().pk + 1
    number = finished(match).number
    for url in [
        reverse("replay:match", args=[missing]),
        reverse("replay:match_record", args=[missing]),
        reverse("replay:deal_step", args=[missing, 1, 0]),
        reverse("replay:deal_step", args=[match.pk, 99, 0]),
        reverse("replay:deal_record", args=[match.pk, 99]),
        reverse("replay:deal_step", args=[match.pk, number, 999]),
        reverse("replay:shared_match", args=["no-such-token"]),
        reverse("replay:shared_step", args=["no-such-token", number, 0]),
    ]:
        assert logged_in_client.get(url).status_code == 404, url


def test_a_deal_in_progress_has_no_replay_and_no_record_even_for_its_players(
    logged_in_client, user, match
):
    current = selectors.current_deal(match)
    assert not current.is_over
    for url in [
        reverse("replay:deal_step", args=[match.pk, current.number, 0]),
        reverse("replay:deal_step", args=[match.pk, current.number, 1]),
        reverse("replay:deal_record", args=[match.pk, current.number]),
    ]:
        response = logged_in_client.get(url)
        assert response.status_code == 404
        assert b"still being played" in response.content
    # The match record holds only the finished deals, and the engine reads it.
    record = logged_in_client.get(reverse("replay:match_record", args=[match.pk])).json()
    assert len(record["deals"]) == current.number - 1
    engine.match_from_record(record)
    # The match page lists the deal in play without a replay link and without its cards.
    page = logged_in_client.get(reverse("replay:match", args=[match.pk])).content.decode()
    assert "Being played" in page
    assert f"/replay/matches/{match.pk}/{current.number}/" not in page
    seat = match.seats.get(user=user).position
    state = selectors.deal_state(current)
    for other in state.rules.seats:
        if other != seat:
            for card in state.hand(other):
                assert not re.search(rf"(?<![A-Za-z0-9]){card}(?![A-Za-z0-9])", page)
                assert presenters.card_view(card).name not in page


def test_a_public_link_shows_the_finished_deals_to_anyone(other_client, logged_in_client, match):
    response = logged_in_client.post(reverse("replay:share", args=[match.pk]))
    assert response.status_code == 302
    match.refresh_from_db()
    token = match.share_token
    assert token and len(token) >= 20
    # Sharing again keeps the same link.
    logged_in_client.post(reverse("replay:share", args=[match.pk]))
    match.refresh_from_db()
    assert match.share_token == token

    done = finished(match)
    current = selectors.current_deal(match)
    page = other_client.get(reverse("replay:shared_match", args=[token])).content.decode()
    assert f"/replay/shared/{token}/{done.number}/0/" in page
    assert "Being played" not in page and f"/replay/shared/{token}/{current.number}/" not in page
    step = other_client.get(reverse("replay:shared_step", args=[token, done.number, 3]))
    assert step.status_code == 200 and 'data-step="3"' in step.content.decode()
    assert "(you)" not in step.content.decode()
    assert (
        other_client.get(
            reverse("replay:shared_deal_record", args=[token, done.number])
        ).status_code
        == 200
    )
    record = other_client.get(reverse("replay:shared_match_record", args=[token])).json()
    assert len(record["deals"]) == current.number - 1
    for url in [
        reverse("replay:shared_step", args=[token, current.number, 0]),
        reverse("replay:shared_deal_record", args=[token, current.number]),
    ]:
        assert other_client.get(url).status_code == 404


def test_the_player_sees_a_link_to_the_moment_once_shared(logged_in_client, match):
    done = finished(match)
    url = reverse("replay:deal_step", args=[match.pk, done.number, 5])
    before = logged_in_client.get(url).content.decode()
    assert "Make a public link to this moment" in before
    response = logged_in_client.post(reverse("replay:share", args=[match.pk]), {"next": url})
    assert response.status_code == 302 and response["Location"] == url
    match.refresh_from_db()
    after = logged_in_client.get(url).content.decode()
    assert f"http://testserver/replay/shared/{match.share_token}/{done.number}/5/" in after


def test_a_foreign_next_address_is_not_followed(logged_in_client, match):
    response = logged_in_client.post(
        reverse("replay:share", args=[match.pk]), {"next": "https://evil.example/"}
    )
    assert response["Location"] == reverse("replay:match", args=[match.pk])


def test_withdrawing_the_link_closes_it(other_client, logged_in_client, user, match):
    token = replay_services.do_share_match(match.pk, user=user)
    number = finished(match).number
    assert (
        other_client.get(reverse("replay:shared_step", args=[token, number, 0])).status_code == 200
    )
    logged_in_client.post(reverse("replay:stop_sharing", args=[match.pk]))
    assert (
        other_client.get(reverse("replay:shared_step", args=[token, number, 0])).status_code == 404
    )
    assert other_client.get(reverse("replay:shared_match", args=[token])).status_code == 404
