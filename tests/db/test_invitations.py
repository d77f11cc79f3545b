"""Issue 44 item 9: a signed-out person who follows an invite link sees who invited them, the
rules and the seats, and signing up or in from there brings them back to the table, seated;
the forming table offers "Copy link"."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from games.tables import services as tables

pytestmark = pytest.mark.django_db


def test_a_signed_out_invitee_sees_who_invited_them_the_rules_and_the_seats(user):
    match = tables.do_create_table(user, rules_spec="classic")
    response = Client().get(f"/t/{match.invite_code}/")
    assert response.status_code == 200
    page = response.content.decode()
    assert re.search(r"<span data-inviter>alice</span> invites you to a game of Setback", page)
    assert "Classic Setback: 4 players in two partnerships" in page
    assert page.count('class="forming-seat') == 4 and "3 seats are free" in page
    back = f"/t/{match.invite_code}/"
    assert f'href="{reverse("signup")}?next={back}"' in page
    assert f'href="{reverse("login")}?next={back}"' in page
    # No hand, no code other than the link's, no way to act at the table before signing in.
    assert "Sit here" not in page and "data-take-seat" not in page


def test_signing_up_from_the_invitation_comes_back_seated(user):
    match = tables.do_create_table(user, rules_spec="house")
    client = Client()
    client.get(f"/t/{match.invite_code}/")
    response = client.post(
        reverse("signup") + f"?next=/t/{match.invite_code}/",
        {
            "username": "friend",
            "password1": "a-long-fresh-secret",
            "password2": "a-long-fresh-secret",
            "next": f"/t/{match.invite_code}/",
        },
        follow=True,
    )
    assert response.redirect_chain[-1][0] == reverse("table", args=[match.pk])
    assert match.seats.filter(user__username="friend").exists()
    assert "friend (you)" in response.content.decode()


def test_signing_in_from_the_invitation_comes_back_seated(user, bob, password):
    match = tables.do_create_table(user, rules_spec="house")
    client = Client()
    response = client.post(
        reverse("login"),
        {"username": "bob", "password": password, "next": f"/t/{match.invite_code}/"},
        follow=True,
    )
    assert response.redirect_chain[-1][0] == reverse("table", args=[match.pk])
    assert match.seats.filter(user=bob).exists()


def test_a_wrong_code_signed_out_still_asks_to_log_in_first():
    response = Client().get("/t/NOPE42/")
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    box = Client().get(reverse("join_by_code"), {"code": "ANY"})
    assert box.status_code == 302 and box["Location"].startswith(reverse("login"))


def test_the_forming_table_has_a_copy_link_button(user):
    match = tables.do_create_table(user, rules_spec="house")
    client = Client()
    client.force_login(user)
    page = client.get(reverse("table", args=[match.pk])).content.decode()
    assert re.search(
        r'<button type="button"[^>]*data-copy="\[data-invite-link\]"[^>]*>Copy link<', page
    )
    assert "js/copy.js" in page
