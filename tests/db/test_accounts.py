"""Sign up, log in, log out and change password, as a visitor would."""

import pytest
from django.urls import reverse

from accounts.models import User

pytestmark = pytest.mark.django_db


def test_home_offers_sign_up_and_log_in_to_a_visitor(client):
    page = client.get(reverse("home")).content.decode()
    assert reverse("signup") in page
    assert reverse("login") in page
    assert "Hello," not in page


def test_sign_up_logs_the_new_user_in_and_the_home_page_greets_them(client):
    response = client.post(
        reverse("signup"),
        {
            "username": "newcomer",
            "password1": "a-long-fresh-secret",
            "password2": "a-long-fresh-secret",
        },
        follow=True,
    )
    assert response.redirect_chain[-1][0] == reverse("home")
    assert "Hello, newcomer!" in response.content.decode()
    assert User.objects.filter(username="newcomer").exists()


def test_a_taken_username_is_refused_with_a_clear_message(client, user):
    response = client.post(
        reverse("signup"),
        {
            "username": user.username,
            "password1": "a-long-fresh-secret",
            "password2": "a-long-fresh-secret",
        },
    )
    assert response.status_code == 200
    assert "A user with that username already exists." in response.content.decode()
    assert User.objects.filter(username=user.username).count() == 1


def test_mismatched_passwords_are_refused(client):
    response = client.post(
        reverse("signup"),
        {"username": "bob", "password1": "a-long-fresh-secret", "password2": "another-secret-1"},
    )
    assert "The two password fields didn’t match." in response.content.decode()
    assert not User.objects.filter(username="bob").exists()


def test_log_in_and_log_out(client, user, password):
    response = client.post(
        reverse("login"), {"username": user.username, "password": password}, follow=True
    )
    assert f"Hello, {user.username}!" in response.content.decode()
    response = client.post(reverse("logout"), follow=True)
    assert "Hello," not in response.content.decode()
    assert reverse("login") in response.content.decode()


def test_a_wrong_password_is_refused_and_nobody_is_logged_in(client, user):
    response = client.post(reverse("login"), {"username": user.username, "password": "nope-nope"})
    assert response.status_code == 200
    assert "Please enter a correct username and password" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_change_password(client, user, password):
    client.force_login(user)
    response = client.post(
        reverse("password_change"),
        {
            "old_password": password,
            "new_password1": "brand-new-secret-9",
            "new_password2": "brand-new-secret-9",
        },
        follow=True,
    )
    assert "Password changed" in response.content.decode()
    user.refresh_from_db()
    assert user.check_password("brand-new-secret-9")


def test_change_password_with_a_wrong_old_password_changes_nothing(client, user, password):
    client.force_login(user)
    response = client.post(
        reverse("password_change"),
        {
            "old_password": "wrong",
            "new_password1": "brand-new-secret-9",
            "new_password2": "brand-new-secret-9",
        },
    )
    assert "Your old password was entered incorrectly" in response.content.decode()
    user.refresh_from_db()
    assert user.check_password(password)


def test_password_change_needs_a_login(client):
    response = client.get(reverse("password_change"))
    assert response.status_code == 302
    assert reverse("login") in response["Location"]


def test_the_coach_preference_is_remembered(client, user):
    client.force_login(user)
    client.post(reverse("toggle_coach"), {"enabled": "on"})
    user.refresh_from_db()
    assert user.coach_enabled
    client.post(reverse("toggle_coach"), {})
    user.refresh_from_db()
    assert not user.coach_enabled
