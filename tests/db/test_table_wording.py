"""What the table and the lists say: sides by their players' names, a true minus sign, the
going-out rule when it bites, and a bot's level."""

import pytest
from django.urls import reverse

from games.core import presenters, services
from games.models import Match

pytestmark = pytest.mark.django_db


def test_the_home_page_names_the_sides_of_an_unfinished_match_and_writes_minus_signs(
    logged_in_client, user
):
    match = services.do_start_match(
        user, rules_spec={"preset": "house", "six_players": True}, bot_level="easy"
    )
    Match.objects.filter(pk=match.pk).update(totals={"P1P4": 1, "P2P5": 1, "P3P6": -3})
    page = logged_in_client.get(reverse("home")).content.decode()
    assert "P1P4" not in page and "P3P6" not in page
    assert "You &amp; Player 4 <strong>1</strong>" in page
    assert "Player 3 &amp; Player 6 <strong>\u22123</strong>" in page


def test_a_side_past_the_target_is_told_it_must_bid_to_go_out(user):
    match = services.do_start_match(user, rules_spec="house", bot_level="easy")
    assert presenters.table_view(match, "S").going_out_note == ""
    Match.objects.filter(pk=match.pk).update(totals={"NS": 12, "EW": 3})
    match.refresh_from_db()
    note = presenters.table_view(match, "S").going_out_note
    assert note.startswith("North & You (12) have reached 11")
    assert "bidding and making the bid" in note and "15" in note


def test_the_table_shows_each_bots_level_and_the_viewer_is_here(user):
    match = services.do_start_match(user, rules_spec="house", bot_level="hard")
    view = presenters.table_view(match, "S")
    assert {seat.bot_level for seat in view.seats if not seat.is_me} == {"hard"}
    assert view.me_seat.connected
