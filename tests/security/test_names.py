"""Item 10: a user name that looks like an existing one is refused at sign-up."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from accounts.names import skeleton

from .helpers import PASSWORD, person

pytestmark = pytest.mark.django_db


def sign_up(name):
    return Client().post(
        reverse("signup"), {"username": name, "password1": PASSWORD, "password2": PASSWORD}
    )


@pytest.mark.parametrize(
    ("lookalike", "why"),
    [
        ("ali\u0441e", "mixes scripts"),  # a Cyrillic es for the c
        ("\u0430li\u0441e", "mixes scripts"),  # Cyrillic a and es
        ("aIice", "looks too much like"),  # a capital I for the l
        ("ALICE", "already exists"),  # Django's own case-insensitive check
        (
            "\uff41\uff4c\uff49\uff43\uff45",
            "already exists",
        ),  # full-width letters: NFKC makes them alice
    ],
)
def test_a_name_that_looks_like_alice_is_refused(lookalike, why):
    person("alice")
    response = sign_up(lookalike)
    assert response.status_code == 200 and why in response.content.decode()
    assert get_user_model().objects.count() == 1


def test_a_whole_name_in_another_script_that_reads_as_an_existing_one_is_refused():
    person("coca")
    cyrillic = "\u0441\u043e\u0441\u0430"  # сoса: every letter Cyrillic, one script
    assert skeleton(cyrillic) == skeleton("coca")
    response = sign_up(cyrillic)
    assert response.status_code == 200 and "looks too much like" in response.content.decode()


@pytest.mark.parametrize("name", ["alicia", "alice_2", "\u0418\u0432\u0430\u043d", "\u00e9lodie"])
def test_names_that_only_resemble_are_welcome(name):
    person("alice")
    assert sign_up(name).status_code == 302
