"""Item 9: chat only where it is shown, and only visible text."""

import pytest
from django.urls import reverse

from games.core import services
from games.models import ChatMessage, Match
from games.tables import services as tables

from .helpers import browser_for, person

pytestmark = pytest.mark.django_db


@pytest.fixture
def shared():
    alice, bob = person("alice"), person("bob")
    match = tables.do_create_table(alice, rules_spec="house")
    tables.do_sit(match.pk, user=bob, position="E")
    return alice, bob, match


def test_no_chat_at_a_match_against_bots():
    alice = person("alice")
    match = services.do_start_match(alice, rules_spec="house", bot_level="easy")
    response = browser_for(alice).post(
        reverse("chat", args=[match.pk]), {"text": "hello"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 400 and "only at a shared table" in response.content.decode()
    assert not ChatMessage.objects.exists()


def test_no_chat_once_the_match_is_over(shared):
    alice, bob, match = shared
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
    response = browser_for(bob).post(
        reverse("chat", args=[match.pk]), {"text": "gg"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 400 and not ChatMessage.objects.exists()


def test_chat_at_a_forming_and_a_playing_table(shared):
    alice, bob, match = shared
    client = browser_for(bob)
    assert (
        client.post(
            reverse("chat", args=[match.pk]), {"text": "ready?"}, HTTP_HX_REQUEST="true"
        ).status_code
        == 200
    )
    tables.do_fill_with_bots(match.pk, host=alice, level="easy")
    tables.do_start_table(match.pk, host=alice)
    assert (
        client.post(
            reverse("chat", args=[match.pk]), {"text": "go"}, HTTP_HX_REQUEST="true"
        ).status_code
        == 200
    )
    assert list(ChatMessage.objects.order_by("id").values_list("text", flat=True)) == [
        "ready?",
        "go",
    ]


def test_control_characters_are_removed_and_nul_is_stored_on_any_database(shared):
    alice, bob, match = shared
    hostile = "a\x00b\x1b[31mc\x07d\u202ee\r\nf\tg\x7f"
    response = browser_for(bob).post(
        reverse("chat", args=[match.pk]), {"text": hostile}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    assert ChatMessage.objects.get().text == "ab[31mcde  f g"
    page = browser_for(alice).get(reverse("table", args=[match.pk])).content.decode()
    assert "ab[31mcde  f g" in page and "\x00" not in page and "\x1b" not in page


def test_a_line_of_nothing_but_control_characters_is_refused(shared):
    alice, bob, match = shared
    response = browser_for(bob).post(
        reverse("chat", args=[match.pk]), {"text": "\x00\x01\u202e"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 400 and "Write something first" in response.content.decode()
    assert not ChatMessage.objects.exists()
