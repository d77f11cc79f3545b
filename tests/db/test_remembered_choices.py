"""Issue 44 item 12, the smaller things: the forms open on the person's last rules and bot
level; preset names fit a phone's drop-down; the sign-up page's help says what it is about;
the account page's e-mail field shows the address; the replay's move list has no scroll box.
(Quick pairing seating a second person at once: tests/db/test_lobby.py.)"""

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from accounts.models import User
from games.core.forms import PRESET_LABEL_MAX, PRESETS
from games.models import Match
from games.tables import services as tables

pytestmark = pytest.mark.django_db


def client_for(user):
    client = Client()
    client.force_login(user)
    return client


def selected(page: str, select_id: str) -> str:
    found = re.search(rf'<select[^>]*id="{select_id}"[^>]*>(.*?)</select>', page, re.S)
    assert found, f"no select #{select_id}"
    chosen = re.search(r'<option value="([^"]*)"[^>]*selected', found.group(1))
    return chosen.group(1) if chosen else ""


def test_the_home_page_opens_on_the_last_rules_and_bot_level(user):
    client = client_for(user)
    first = client.get("/").content.decode()
    assert selected(first, "id_preset") == "house" and selected(first, "id_bot_level") == "medium"
    client.post(reverse("new_match"), {"preset": "classic", "bot_level": "hard"})
    assert User.objects.get(pk=user.pk).last_choices == {"preset": "classic", "bot_level": "hard"}
    again = client.get("/").content.decode()
    assert selected(again, "id_preset") == "classic" and selected(again, "id_bot_level") == "hard"
    assert selected(again, "id_table_preset") == "classic"
    # Someone else still gets the defaults (the blank forms are kept per choice, not per person).
    other = client_for(User.objects.create_user("zed", password="x-long-secret-1")).get("/")
    assert selected(other.content.decode(), "id_preset") == "house"


def test_the_lobby_and_the_forming_table_open_on_the_last_choices(user):
    client = client_for(user)
    client.post(reverse("new_match"), {"preset": "family", "bot_level": "easy"})
    lobby = client.get(reverse("lobby:lobby")).content.decode()
    assert selected(lobby, "id_pairing_preset") == "family"
    assert selected(lobby, "id_pairing_bot_level") == "easy"
    match = tables.do_create_table(user, rules_spec="house")
    page = client.get(reverse("table", args=[match.pk])).content.decode()
    assert selected(page, "fill-level") == "easy"
    client.post(reverse("seat_bot", args=[match.pk]), {"position": "N", "level": "hard"})
    assert User.objects.get(pk=user.pk).last_choices["bot_level"] == "hard"


def test_a_choice_no_longer_offered_is_ignored(user):
    user.last_choices = {"preset": "gone", "bot_level": "grandmaster"}
    user.save()
    page = client_for(user).get("/").content.decode()
    assert selected(page, "id_preset") == "house" and selected(page, "id_bot_level") == "medium"
    assert Match.objects.count() == 0


def test_preset_names_are_short_enough_for_a_phones_drop_down():
    assert all(len(label) <= PRESET_LABEL_MAX for _, label in PRESETS), PRESETS


def test_the_sign_up_help_is_labelled_for_what_it_is_about():
    page = Client().get(reverse("signup")).content.decode()
    summaries = re.findall(r"<summary>(.*?)</summary>", page)
    assert "Rules" not in summaries
    assert {"Which names work", "Why we ask", "What makes a good password"} <= set(summaries)


def test_the_account_page_shows_the_address_in_its_field(user):
    user.email = "alice@example.com"
    user.save()
    page = client_for(user).get(reverse("account")).content.decode()
    assert re.search(r'<input[^>]*name="email"[^>]*value="alice@example.com"', page)


def test_the_replays_move_list_has_no_scroll_box():
    css = Path(settings.BASE_DIR, "static/css/site.css").read_text()
    rules = re.findall(r"\.move-list\s*\{([^}]*)\}", css)
    assert rules and not any("max-height" in r or "overflow" in r for r in rules)
