"""The pages of shared tables: creating one, the invite link and code, choosing a seat,
the host's controls, spectators, chat (escaped) and leaving."""

import pytest
from django.test import Client
from django.urls import reverse

from games import engine
from games.models import ChatMessage, Match
from games.tables import services as tables
from tests.hidden import leaks

pytestmark = pytest.mark.django_db


def client_for(user):
    client = Client()
    client.force_login(user)
    return client


def invited(client, match):
    """The client follows the table's invite link, as a friend who was sent it does."""
    assert client.get(f"/t/{match.invite_code}/").status_code == 302
    return client


def test_the_home_page_offers_a_table_with_people_and_a_join_by_code_box(logged_in_client):
    page = logged_in_client.get("/").content.decode()
    assert "Play with people" in page and 'name="code"' in page and "Create a table" in page


def test_creating_a_table_from_the_home_page_shows_its_invite(logged_in_client):
    response = logged_in_client.post(
        reverse("new_table"),
        {"preset": "house", "turn_timeout_seconds": "20", "allow_spectators": "on"},
    )
    match = Match.objects.get()
    assert response["Location"] == reverse("table", args=[match.pk])
    assert (
        match.status == Match.Status.FORMING
        and match.turn_timeout_seconds == 20
        and match.allow_spectators
    )
    page = logged_in_client.get(response["Location"]).content.decode()
    assert match.invite_code in page and f"/t/{match.invite_code}/" in page
    assert "Partners: North &amp; South" in page and "East &amp; West" in page
    assert "Start the match" in page


@pytest.mark.parametrize("prefix", ["id_", "id_table_"])
def test_both_forms_of_the_home_page_offer_every_rules_option(logged_in_client, prefix):
    page = logged_in_client.get("/").content.decode()
    seating = {"cutthroat", "six_players"}  # chosen together as the seating
    for option in (set(engine.OPTION_NAMES) - seating) | {"seating"}:
        assert f'id="{prefix}{option}"' in page, option


def test_a_table_made_from_the_home_page_keeps_a_rules_option(logged_in_client):
    logged_in_client.post(
        reverse("new_table"), {"preset": "house", "turn_timeout_seconds": "20", "low_to": "holder"}
    )
    assert Match.objects.get().rules["low_to"] == "holder"


def test_a_bad_timeout_on_the_form_is_shown_and_the_next_home_page_is_blank_again(
    logged_in_client,
):
    # The blank forms' fields are rendered once per process (games.core.pages.form_fields): a form
    # sent back with its errors must show them, and must not become everyone's blank form.
    response = logged_in_client.post(
        reverse("new_table"), {"preset": "house", "turn_timeout_seconds": "1", "low_to": "holder"}
    )
    page = response.content.decode()
    assert response.status_code == 400 and not Match.objects.exists()
    assert "greater than or equal to 5" in page and '<details class="options" open>' in page
    assert '<option value="holder" selected>' in page
    again = logged_in_client.get("/").content.decode()
    assert (
        "greater than or equal to 5" not in again and '<details class="options" open>' not in again
    )
    assert '<option value="holder" selected>' not in again and 'value="30"' in again


def test_the_invite_link_and_the_code_lead_to_the_table_and_a_wrong_code_says_so(user, bob):
    match = tables.do_create_table(user, rules_spec="house")
    client = client_for(bob)
    assert client.get(f"/t/{match.invite_code}/")["Location"] == reverse("table", args=[match.pk])
    response = client.get(reverse("join_by_code"), {"code": f" {match.invite_code.lower()} "})
    assert response["Location"] == reverse("table", args=[match.pk])
    wrong = client.get(reverse("join_by_code"), {"code": "NOPE99"})
    assert wrong.status_code == 404 and "No table has the code" in wrong.content.decode()
    page = client.get(reverse("table", args=[match.pk])).content.decode()
    assert "Choose a free seat" in page and "Sit here" in page


def test_sitting_down_over_htmx_and_a_taken_seat_refused(user, bob):
    match = tables.do_create_table(user, rules_spec="house")
    client = invited(client_for(bob), match)
    response = client.post(
        reverse("sit", args=[match.pk]), {"position": "N"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200 and "bob (you)" in response.content.decode()
    taken = client.post(reverse("sit", args=[match.pk]), {"position": "S"}, HTTP_HX_REQUEST="true")
    assert taken.status_code == 400 and "already taken" in taken.content.decode()
    assert match.seats.get(position="N").user == bob


def test_the_host_fills_and_starts_and_a_guest_cannot(user, bob):
    match = tables.do_create_table(user, rules_spec="house")
    tables.do_sit(match.pk, user=bob, position="N")
    guest = client_for(bob)
    refused = guest.post(reverse("start_table", args=[match.pk]), HTTP_HX_REQUEST="true")
    assert refused.status_code == 403 and "Only the host" in refused.content.decode()
    host = client_for(user)
    early = host.post(reverse("start_table", args=[match.pk]), HTTP_HX_REQUEST="true")
    assert early.status_code == 400 and "Fill the empty seats" in early.content.decode()
    host.post(reverse("seat_bot", args=[match.pk]), {"position": "all", "level": "easy"})
    started = host.post(reverse("start_table", args=[match.pk]), HTTP_HX_REQUEST="true")
    assert started.status_code == 200 and 'data-deal="1"' in started.content.decode()
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING


def started(user, bob, **options):
    match = tables.do_create_table(user, rules_spec="house", **options)
    tables.do_sit(match.pk, user=bob, position="W")
    tables.do_fill_with_bots(match.pk, host=user, level="easy")
    return tables.do_start_table(match.pk, host=user)


def test_spectators_only_when_the_host_allows_and_they_see_no_hand(user, bob, make_user):
    match = started(user, bob)
    carol = invited(client_for(make_user("carol")), match)
    refused = carol.get(reverse("table", args=[match.pk]))
    assert refused.status_code == 403 and "does not allow spectators" in refused.content.decode()
    client_for(user).post(
        reverse("table_settings", args=[match.pk]),
        {"allow_spectators": "on", "turn_timeout_seconds": "30"},
    )
    page = carol.get(reverse("table", args=[match.pk])).content.decode()
    assert "Spectating" in page and "data-card" not in page

    assert not leaks(page, match, None)


def test_chat_is_escaped_and_pushed_back_with_errors(user, bob):
    match = started(user, bob)
    client = client_for(bob)
    response = client.post(
        reverse("chat", args=[match.pk]),
        {"text": "<script>alert(1)</script>"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    page = client.get(reverse("table", args=[match.pk])).content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>alert(1)" not in page
    long = client.post(
        reverse("chat", args=[match.pk]), {"text": "x" * 300}, HTTP_HX_REQUEST="true"
    )
    assert long.status_code == 400 and "at most 200" in long.content.decode()
    assert ChatMessage.objects.count() == 1


def test_leave_table_during_play(user, bob):
    match = started(user, bob)
    response = client_for(bob).post(reverse("leave", args=[match.pk]), follow=True)
    assert "a bot plays your seat" in response.content.decode()
    assert match.seats.get(position="W").user is None
    # No longer a player, and never invited by link: the table is not there for him.
    assert client_for(bob).get(reverse("table", args=[match.pk])).status_code == 404


def test_a_rematch_before_the_match_is_over_is_refused_on_the_table(user, bob):
    match = started(user, bob)
    response = client_for(bob).post(reverse("rematch", args=[match.pk]), HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 400 and 'id="table"' in html
    assert 'role="alert">The match is not over yet.' in html
    assert Match.objects.count() == 1
