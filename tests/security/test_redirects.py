"""Item 6: no `next` sends the browser off the site."""

import pytest
from django.test import Client
from django.urls import reverse

from games.core import services
from tests.db.replays import finish_match

from .helpers import PASSWORD, browser_for, person

pytestmark = pytest.mark.django_db

HOSTILE = [
    "https://evil.example/",
    "//evil.example/",
    "http:evil.example",
    "///evil.example",
    "\\\\evil.example",
    "/\\evil.example",
    "javascript:alert(1)",
    "https://127.0.0.1@evil.example/",
    "foo",
    " https://evil.example/",
]


@pytest.mark.parametrize("target", HOSTILE)
def test_the_coach_switch_never_redirects_off_the_site(target):
    client = browser_for(person("alice"))
    response = client.post(reverse("toggle_coach"), {"enabled": "on", "next": target})
    assert response.status_code == 302 and response["Location"] == reverse("home")


def test_the_coach_switch_goes_back_to_a_page_of_the_site():
    alice = person("alice")
    match = services.do_start_match(alice, rules_spec="house", bot_level="easy")
    back = reverse("table", args=[match.pk])
    response = browser_for(alice).post(reverse("toggle_coach"), {"enabled": "on", "next": back})
    assert response["Location"] == back


@pytest.mark.parametrize("target", HOSTILE[:4])
def test_sharing_a_replay_never_redirects_off_the_site(target):
    alice = person("alice")
    finished = finish_match(alice, "family")
    response = browser_for(alice).post(
        reverse("replay:share", args=[finished.pk]), {"next": target}
    )
    assert response.status_code == 302 and response["Location"] == reverse(
        "replay:match", args=[finished.pk]
    )


def test_logging_in_never_redirects_off_the_site():
    person("alice")

    response = Client().post(
        reverse("login") + "?next=https://evil.example/",
        {"username": "alice", "password": PASSWORD, "next": "https://evil.example/"},
    )
    assert response.status_code == 302 and "evil" not in response["Location"]
