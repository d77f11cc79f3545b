"""What a newcomer meets first (issue 28): the landing page says what the game is and shows a
table, a rules page for anyone, a mistyped join code kept to correct, and the same default bot
level wherever one is offered."""

import pytest
from django.test import Client
from django.urls import reverse

from games import engine
from games.core.forms import PRESETS, NewMatchForm
from games.lobby.forms import PairingForm
from games.models import DEFAULT_BOT_LEVEL
from games.tables import services as tables

pytestmark = pytest.mark.django_db


def test_the_landing_page_says_what_the_game_is_shows_a_table_and_links_the_rules():
    page = Client().get("/").content.decode()
    assert "High, Low, Jack and Game" in page
    assert 'class="landing-picture"' in page and "table-preview.png" in page
    assert reverse("rules") in page


def test_the_rules_page_explains_a_deal_and_every_preset_the_site_offers():
    page = Client().get(reverse("rules")).content.decode()
    assert "The four points" in page and "set back" in page
    for name, label in PRESETS:
        assert label in page
        assert engine.Rules.from_spec(name).describe()[1:] in page


def test_a_mistyped_join_code_stays_in_the_box(logged_in_client):
    response = logged_in_client.get(reverse("join_by_code"), {"code": "K7M2QZ"})
    assert response.status_code == 404
    assert 'value="K7M2QZ"' in response.content.decode()


def test_every_form_and_seat_control_offers_the_same_bot_level_first(user):
    assert NewMatchForm().fields["bot_level"].initial == DEFAULT_BOT_LEVEL
    assert PairingForm().fields["bot_level"].initial == DEFAULT_BOT_LEVEL
    table = tables.do_create_table(user, rules_spec="house")
    client = Client()
    client.force_login(user)
    page = client.get(reverse("table", args=[table.pk])).content.decode()
    fill = page.split('id="fill-level"', 1)[1].split("</select>", 1)[0]
    assert f'value="{DEFAULT_BOT_LEVEL}" selected' in fill
