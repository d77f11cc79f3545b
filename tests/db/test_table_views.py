"""The table page and its moves over HTTP, including every kind of bad input."""

import re

import pytest
from django.template.loader import render_to_string
from django.test import Client
from django.urls import reverse

from games.core import pages, presenters, selectors, services, turns
from games.core.turns import WaitingFor
from games.engine.wording import SUIT_SYMBOLS
from games.models import Action, Match

from .play import opened_by, play_until

pytestmark = pytest.mark.django_db


@pytest.fixture
def match(user):
    """A match whose first auction the player opens: their call before any bot's."""
    match = services.do_start_match(user, rules_spec="house", bot_level="easy", rng=opened_by("S"))
    turn = turns.waiting_on(match.pk)
    assert (turn.kind, turn.seat) == (WaitingFor.PERSON, "S")
    return match


def counts(match):
    match.refresh_from_db()
    return match.version, Action.objects.filter(deal__match=match).count()


def post_move(client, match, action, version=None, htmx=True):
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    return client.post(
        reverse("act", args=[match.pk]),
        {"action": action, "version": match.version if version is None else version},
        **headers,
    )


def test_starting_a_match_from_the_home_page(logged_in_client):
    response = logged_in_client.post(
        reverse("new_match"), {"preset": "classic", "bot_level": "easy"}
    )
    match = Match.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("table", args=[match.pk])
    assert match.rules == "classic"
    page = logged_in_client.get(response["Location"]).content.decode()
    assert 'id="table"' in page and "To 21" in page


def test_impossible_options_are_refused_with_the_engines_reason(logged_in_client):
    response = logged_in_client.post(
        reverse("new_match"),
        {"preset": "house", "bot_level": "easy", "seating": "six", "draw": "on"},
    )
    assert response.status_code == 400
    assert "draw" in response.content.decode()
    assert not Match.objects.exists()


def test_the_table_shows_the_players_cards_and_legal_moves(logged_in_client, match):
    page = logged_in_client.get(reverse("table", args=[match.pk])).content.decode()
    state = selectors.deal_state(selectors.current_deal(match))
    for card in state.hand("S"):
        assert f"{presenters.card_view(card).name}" in page
    assert "Your call: bid or pass." in page
    for token in state.legal_actions():
        assert f'value="{token}"' in page


def test_a_legal_move_over_htmx_is_applied_and_left_to_the_socket_to_show(logged_in_client, match):
    token = selectors.deal_state(selectors.current_deal(match)).legal_actions()[0]
    before = counts(match)
    response = post_move(logged_in_client, match, token)
    # No content: htmx swaps nothing, and the new table arrives once, over the websocket.
    assert response.status_code == 204 and response.content == b""
    assert counts(match) == (before[0] + 1, before[1] + 1)


def test_a_legal_move_without_htmx_goes_back_to_the_table(logged_in_client, match):
    token = selectors.deal_state(selectors.current_deal(match)).legal_actions()[0]
    response = post_move(logged_in_client, match, token, htmx=False)
    assert response.status_code == 302 and response["Location"] == reverse("table", args=[match.pk])


@pytest.mark.parametrize(
    ("action", "version_shift", "status", "message"),
    [
        ("smudge", 0, 400, "smudge"),  # not a call in house rules
        ("KS9", 0, 400, ""),  # not a token at all
        ("", 0, 400, "incomplete"),
        ("pass", -1, 409, "moved on"),  # stale
        ("pass", 5, 409, "moved on"),  # from the future
    ],
)
def test_bad_moves_are_refused_with_a_clear_message_and_change_nothing(
    logged_in_client, match, action, version_shift, status, message
):
    before = counts(match)
    response = post_move(logged_in_client, match, action, version=match.version + version_shift)
    assert response.status_code == status
    body = response.content.decode()
    assert 'role="alert"' in body
    assert message in body
    assert counts(match) == before


def test_a_move_for_a_bot_seat_is_refused(logged_in_client, user):
    match = services.do_start_match(user, rules_spec="house", bot_level="easy", rng=opened_by("W"))
    assert selectors.deal_state(selectors.current_deal(match)).to_act == "W"
    before = counts(match)
    response = post_move(logged_in_client, match, "pass")
    assert response.status_code == 409
    assert "turn" in response.content.decode()
    assert counts(match) == before


def test_a_non_participant_cannot_see_or_move(client, make_user, match):
    mallory = make_user("mallory")
    client.force_login(mallory)
    before = counts(match)
    # As for a match that does not exist (tests/security/test_access_matrix.py).
    assert client.get(reverse("table", args=[match.pk])).status_code == 404
    assert post_move(client, match, "pass").status_code == 404
    assert (
        client.post(reverse("next_deal", args=[match.pk]), {"version": match.version}).status_code
        == 404
    )
    assert counts(match) == before


def test_anonymous_visitors_are_sent_to_log_in(client, match):
    response = client.get(reverse("table", args=[match.pk]))
    assert response.status_code == 302 and reverse("login") in response["Location"]
    response = client.post(reverse("act", args=[match.pk]), {"action": "pass", "version": 0})
    assert response.status_code == 302


def test_an_unknown_match_is_404(logged_in_client):
    assert logged_in_client.get(reverse("table", args=[424242])).status_code == 404
    assert (
        logged_in_client.post(
            reverse("act", args=[424242]), {"action": "pass", "version": 0}
        ).status_code
        == 404
    )


def test_a_move_for_another_match_is_refused(logged_in_client, user, make_user, match):
    other_owner = make_user("bob")
    other = services.do_start_match(other_owner, rules_spec="house", bot_level="easy")
    before = counts(other)
    response = post_move(logged_in_client, other, "pass")
    assert response.status_code == 404
    assert counts(other) == before


def test_unfinished_matches_are_listed_on_the_home_page_and_resume(logged_in_client, match):
    page = logged_in_client.get(reverse("home")).content.decode()
    assert reverse("table", args=[match.pk]) in page
    assert "Resume" in page


def test_play_again_works_from_the_end_screen_that_the_socket_sends(user, password):
    """The end screen mostly arrives over the websocket, rendered without a request and so with
    no CSRF field; its button must still start a new match when a browser posts it."""
    finished = play_until(services.do_start_match(user, rules_spec="classic", bot_level="easy"))
    assert finished.status == Match.Status.FINISHED
    pushed = render_to_string("games/_table.html", {"view": presenters.table_view(finished, "S")})
    form = re.search(r'<form[^>]*action="([^"]+)"[^>]*>(?:(?!</form>).)*Play again', pushed, re.S)
    assert form and "hx-post=" in form.group(0)  # htmx sends the page's CSRF header with it

    browser = Client(enforce_csrf_checks=True)
    browser.login(username=user.username, password=password)
    page = browser.get(reverse("table", args=[finished.pk])).content.decode()
    csrf_header = re.search(r'"X-CSRFToken": "([^"]+)"', page).group(1)
    assert browser.post(form.group(1), HTTP_HX_REQUEST="true").status_code == 403
    response = browser.post(form.group(1), HTTP_HX_REQUEST="true", HTTP_X_CSRFTOKEN=csrf_header)
    again = Match.objects.exclude(pk=finished.pk).get()
    assert response.status_code == 200 and response["HX-Redirect"] == reverse(
        "table", args=[again.pk]
    )
    assert again.rules == "classic" and again.status == Match.Status.PLAYING


def test_with_pitching_allowed_each_card_in_the_auction_sends_its_pitch(logged_in_client, user):
    """The table's card buttons send `pitch:<card>` in the auction (the engine's spelling)."""
    rules = {"preset": "classic", "pitch_to_bid": True}
    # The player opens the auction: no bot's pitch can end it first.
    match = services.do_start_match(
        user, rules_spec=rules, bot_level="easy", rng=opened_by("S", rules)
    )
    state = selectors.deal_state(selectors.current_deal(match))
    assert (state.to_act, state.phase) == ("S", "auction")
    page = logged_in_client.get(reverse("table", args=[match.pk])).content.decode()
    pitches = [t for t in state.legal_actions() if t.startswith("pitch:")]
    assert pitches
    for token in pitches:
        assert f'value="{token}"' in page
    assert post_move(logged_in_client, match, pitches[0]).status_code == 204
    assert selectors.deal_state(selectors.current_deal(match)).calls[-1] == ("S", pitches[0])


def test_the_trick_being_played_marks_who_led_and_shows_the_suit_led_beside_trump(match):
    """Issue 50: who led is marked on the felt, and the led suit and trump are shown at the
    trick (the offline table draws the same: tests/db/test_offline_twin.py)."""

    def mid_trick(m):
        state = selectors.deal_state(selectors.current_deal(m))
        return len(state.current_trick) == 2

    match = play_until(match, stop=mid_trick)
    state = selectors.deal_state(selectors.current_deal(match))
    (leader, first), _ = state.current_trick
    view = presenters.table_view(match, "S")
    html = pages.table_markup(view)
    start = html.index('class="trick trick-live"')
    trick = html[start : html.index("</p>", html.index("trick-suits", start))]
    leader_name = next(seat.name for seat in view.seats if seat.position == leader)
    assert trick.count("trick-led") == 1 and f'title="{leader_name} led"' in trick
    led_symbol, trump_symbol = SUIT_SYMBOLS[first[1]], SUIT_SYMBOLS[state.trump]
    assert f"Led {led_symbol}</span> · " in trick and f"Trump {trump_symbol}</span>" in trick
