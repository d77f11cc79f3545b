"""An optional e-mail address: typed at sign-up or on the account page, in use once its
mailed link is followed; bad addresses and bad links are refused and change nothing."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User

pytestmark = pytest.mark.django_db


def link_path(mail) -> str:
    found = re.search(r"https?://[^/\s]+(/\S+)", mail.body)
    assert found, mail.body
    return found.group(1)


def sign_up(client, send_and_collect, **extra):
    data = {
        "username": "newcomer",
        "password1": "a-long-fresh-secret",
        "password2": "a-long-fresh-secret",
        **extra,
    }
    return send_and_collect(client.post, reverse("signup"), data)


def test_an_address_given_at_sign_up_is_used_once_its_link_is_followed(client, send_and_collect):
    response, mails = sign_up(client, send_and_collect, email="New.Comer@Example.COM")
    assert response.status_code == 302
    user = User.objects.get(username="newcomer")
    assert user.email == "" and user.email_pending == "New.Comer@example.com"
    assert len(mails) == 1 and mails[0].to == ["New.Comer@example.com"]

    link = link_path(mails[0])
    page = client.get(link)
    assert page.status_code == 200
    assert "Use <strong>New.Comer@example.com</strong> for the account" in page.content.decode()
    user.refresh_from_db()
    assert user.email == ""  # opening the link changes nothing: the button does

    confirmed = client.post(link, follow=True)
    assert "Your e-mail address is now New.Comer@example.com" in confirmed.content.decode()
    user.refresh_from_db()
    assert user.email == "New.Comer@example.com" and user.email_pending == ""


def test_sign_up_without_an_address_sends_nothing(client, send_and_collect):
    response, mails = sign_up(client, send_and_collect)
    assert response.status_code == 302 and mails == []
    assert User.objects.get(username="newcomer").email_pending == ""


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("not-an-address", "That is not an e-mail address"),
        ("a@b", "That is not an e-mail address"),
        ("two@@example.com", "That is not an e-mail address"),
        ("x" * 250 + "@example.com", "at most 254 characters"),
    ],
)
def test_a_malformed_or_oversized_address_is_refused_at_sign_up(
    client, send_and_collect, typed, message
):
    response, mails = sign_up(client, send_and_collect, email=typed)
    assert response.status_code == 200 and message in response.content.decode()
    assert not User.objects.filter(username="newcomer").exists() and mails == []


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("not-an-address", "That is not an e-mail address"),
        ("", "This field is required."),
        ("x" * 250 + "@example.com", "at most 254 characters"),
        ("a\x00b@example.com", "Null characters are not allowed."),
    ],
)
def test_a_malformed_or_oversized_address_is_refused_on_the_account_page(
    logged_in_client, user, send_and_collect, typed, message
):
    user.email = "alice@example.com"
    user.save()
    response, mails = send_and_collect(
        logged_in_client.post, reverse("change_email"), {"email": typed}
    )
    assert response.status_code == 400 and message in response.content.decode()
    user.refresh_from_db()
    assert (user.email, user.email_pending) == ("alice@example.com", "") and mails == []


def ask_for(client, send_and_collect, address):
    return send_and_collect(client.post, reverse("change_email"), {"email": address})


def test_a_new_address_replaces_the_old_one_only_once_confirmed_and_the_old_one_is_told(
    logged_in_client, user, send_and_collect
):
    user.email = "old@example.com"
    user.save()
    response, mails = ask_for(logged_in_client, send_and_collect, "new@example.com")
    assert response.status_code == 302
    page = logged_in_client.get(reverse("account")).content.decode()
    assert "Password reset links go to <strong data-email>old@example.com" in page
    assert "Waiting for confirmation: <strong>new@example.com" in page

    _, notices = send_and_collect(logged_in_client.post, link_path(mails[0]))
    user.refresh_from_db()
    assert user.email == "new@example.com"
    assert [m.to for m in notices] == [["old@example.com"]]
    assert "is now new@example.com" in notices[0].body


def test_a_confirmation_link_works_once(logged_in_client, user, send_and_collect):
    _, mails = ask_for(logged_in_client, send_and_collect, "first@example.com")
    link = link_path(mails[0])
    logged_in_client.post(link)
    logged_in_client.post(reverse("change_email"), {"remove": "1"})
    again = logged_in_client.post(link)
    assert again.status_code == 410
    assert "already been used" in again.content.decode()
    user.refresh_from_db()
    assert user.email == ""


def test_a_newer_request_replaces_the_older_link(logged_in_client, user, send_and_collect):
    _, first = ask_for(logged_in_client, send_and_collect, "first@example.com")
    _, second = ask_for(logged_in_client, send_and_collect, "second@example.com")
    refused = logged_in_client.post(link_path(first[0]))
    assert refused.status_code == 410 and "a newer one replaced it" in refused.content.decode()
    logged_in_client.post(link_path(second[0]))
    user.refresh_from_db()
    assert user.email == "second@example.com"


def test_a_forged_link_is_refused(logged_in_client, user, send_and_collect):
    _, mails = ask_for(logged_in_client, send_and_collect, "mine@example.com")
    real = link_path(mails[0])
    token = real.rstrip("/").split("/")[-1]
    forged = token[:-3] + ("aaa" if not token.endswith("aaa") else "bbb")
    for path in (reverse("confirm_email", args=[forged]), reverse("confirm_email", args=["x"])):
        for answer in (logged_in_client.get(path), logged_in_client.post(path)):
            assert answer.status_code == 404
            assert "not a valid confirmation link" in answer.content.decode()
    user.refresh_from_db()
    assert user.email == "" and user.email_pending == "mine@example.com"


def test_an_expired_link_is_refused(logged_in_client, user, send_and_collect, settings):
    _, mails = ask_for(logged_in_client, send_and_collect, "late@example.com")
    settings.EMAIL_CONFIRM_DAYS = 0
    answer = logged_in_client.post(link_path(mails[0]))
    assert answer.status_code == 410 and "This link has expired" in answer.content.decode()
    user.refresh_from_db()
    assert user.email == ""


def test_a_link_opened_in_another_account_changes_nothing(
    logged_in_client, user, make_user, send_and_collect
):
    _, mails = ask_for(logged_in_client, send_and_collect, "alice@example.com")
    mallory = Client()
    mallory.force_login(make_user("mallory"))
    link = link_path(mails[0])
    assert "confirms the address of another account" in mallory.get(link).content.decode()
    refused = mallory.post(link)
    assert refused.status_code == 403
    for person in User.objects.all():
        assert person.email == ""


def test_the_address_can_be_removed(logged_in_client, user):
    user.email, user.email_pending = "alice@example.com", "other@example.com"
    user.save()
    logged_in_client.post(reverse("change_email"), {"remove": "1"})
    user.refresh_from_db()
    assert (user.email, user.email_pending) == ("", "")


def test_address_changes_are_limited(logged_in_client, user, send_and_collect, settings):
    limit = settings.REQUEST_LIMITS_PER_MINUTE["email_change"]
    for n in range(limit):
        ask_for(logged_in_client, send_and_collect, f"try{n}@example.com")
    response, mails = ask_for(logged_in_client, send_and_collect, "one-more@example.com")
    assert response.status_code == 429 and mails == []
    user.refresh_from_db()
    assert user.email_pending == f"try{limit - 1}@example.com"


def test_a_confirmation_link_reaches_a_real_smtp_server(
    logged_in_client, user, send_and_collect, settings, mailbox
):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", mailbox.port
    ask_for(logged_in_client, send_and_collect, "alice@example.com")
    (mail,) = mailbox.wait_for(1)
    assert mail.recipients == ["alice@example.com"]
    assert mail.subject == "Confirm your e-mail address for Setback"
    logged_in_client.post(re.sub(r"^https?://[^/]+", "", mail.link()))
    user.refresh_from_db()
    assert user.email == "alice@example.com"
