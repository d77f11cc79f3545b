"""Item 3: a shared table is reached through its invite (link or code), never by its number.

Mallory knows only the table's number. Every way in answers as if there were no table, the
same as for a number no table has, and nothing she receives holds the invite code.
"""

import pytest
from django.urls import reverse

from games.core import presenters, selectors
from games.models import ChatMessage, Match
from games.tables import services as tables

from .helpers import browser_for, follow_invite, person

pytestmark = pytest.mark.django_db


@pytest.fixture
def forming():
    alice = person("alice")
    return alice, tables.do_create_table(alice, rules_spec="house")


def by_number(match_id):
    """Every request Mallory can make knowing a table's number (method, url name, data)."""
    return [
        ("get", "table", {}),
        ("post", "sit", {"position": "E"}),
        ("post", "chat", {"text": "hello"}),
        ("post", "seat_bot", {"position": "E", "level": "easy"}),
        ("post", "start_table", {}),
        ("post", "table_settings", {"allow_spectators": "on", "turn_timeout_seconds": "30"}),
        ("post", "leave", {}),
        ("post", "act", {"action": "pass", "version": "1"}),
        ("post", "next_deal", {"version": "1"}),
        ("post", "rematch", {}),
    ]


def test_a_forming_table_by_its_number_is_not_there(forming):
    alice, match = forming
    mallory = browser_for(person("mallory"))
    for method, name, data in by_number(match.pk):
        response = getattr(mallory, method)(reverse(name, args=[match.pk]), data)
        nowhere = getattr(mallory, method)(reverse(name, args=[999999]), data)
        assert response.status_code == nowhere.status_code == 404, name
        assert match.invite_code not in response.content.decode(), name
    # Nothing changed: she sits nowhere, said nothing, and the table is still forming.
    assert not match.seats.filter(user__username="mallory").exists()
    assert not ChatMessage.objects.exists()
    assert Match.objects.get(pk=match.pk).status == Match.Status.FORMING


def test_the_invite_opens_the_table_and_shows_its_code(forming):
    alice, match = forming
    bob = follow_invite(browser_for(person("bob")), match)
    page = bob.get(reverse("table", args=[match.pk]))
    assert page.status_code == 200 and match.invite_code in page.content.decode()
    sat = bob.post(reverse("sit", args=[match.pk]), {"position": "E"})
    assert sat.status_code == 302 and match.seats.get(position="E").user.username == "bob"


def test_the_code_typed_on_the_home_page_counts_as_the_invite(forming):
    alice, match = forming
    bob = browser_for(person("bob"))
    assert bob.get(reverse("join_by_code"), {"code": match.invite_code.lower()}).status_code == 302
    assert bob.get(reverse("table", args=[match.pk])).status_code == 200


def test_an_invite_in_one_browser_does_not_open_the_table_in_another(forming):
    """The invite belongs to the browser that followed it (its session), not to the account:
    a stolen table number is no better in a second browser of someone invited elsewhere."""
    alice, match = forming
    bob = person("bob")
    follow_invite(browser_for(bob), match)
    assert browser_for(bob).get(reverse("table", args=[match.pk])).status_code == 404


def test_a_started_table_with_spectators_is_watched_only_through_the_invite(forming):
    alice, match = forming
    tables.do_table_settings(match.pk, host=alice, allow_spectators=True, turn_timeout_seconds=30)
    tables.do_fill_with_bots(match.pk, host=alice, level="easy")
    tables.do_start_table(match.pk, host=alice)
    carol = browser_for(person("carol"))
    assert carol.get(reverse("table", args=[match.pk])).status_code == 404
    follow_invite(carol, match)
    page = carol.get(reverse("table", args=[match.pk])).content.decode()
    assert "Spectating" in page


def test_the_selector_is_the_one_place_that_decides(forming):
    """Views and the websocket consumer ask the same selector; public tables plug in there."""

    alice, match = forming
    mallory = person("mallory")
    assert selectors.hidden_from(match, mallory, frozenset())
    assert not selectors.hidden_from(match, mallory, frozenset({match.pk}))
    assert not selectors.hidden_from(match, alice, frozenset())
    assert presenters.forming_view(match, mallory, frozenset()).code == ""
