"""A person who forgot their password gets a link by mail, chooses a new one, and logs in; the
link works once and expires, and nobody learns from the answers whether an account exists."""

import re
import time
from datetime import datetime, timedelta
from smtplib import SMTPServerDisconnected

import pytest
from django.contrib.auth.tokens import PasswordResetTokenGenerator, default_token_generator
from django.core import mail as django_mail
from django.test import Client
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from accounts import tasks
from accounts.models import LoginSession, User
from accounts.services import do_delete_account
from games.core import mail

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "a-brand-new-secret-42"
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"|"X-CSRFToken": "[^"]+"')


@pytest.fixture
def alice(make_user):
    user = make_user("alice")
    user.email = "alice@example.com"
    user.save()
    return user


def ask_for_link(send_and_collect, client, typed):
    response, mails = send_and_collect(client.post, reverse("password_reset"), {"email": typed})
    return response, mails


def path_of(link: str) -> str:
    return re.sub(r"^https?://[^/]+", "", link)


def link_in(mail) -> str:
    found = re.search(r"https?://\S+", mail.body)
    assert found, mail.body
    return path_of(found.group(0))


def set_new_password(client, link_path, password=NEW_PASSWORD):
    """Open the mailed link (Django moves the token out of the URL) and choose a password."""
    opened = client.get(link_path, follow=True)
    assert "Choose a new password" in opened.content.decode()
    form_url = opened.redirect_chain[-1][0] if opened.redirect_chain else link_path
    return client.post(form_url, {"new_password1": password, "new_password2": password})


def can_log_in(username, password) -> bool:
    response = Client().post(reverse("login"), {"username": username, "password": password})
    return response.status_code == 302


@pytest.mark.parametrize("typed", ["alice", "ALICE", "alice@example.com", "Alice@Example.COM"])
def test_a_forgotten_password_is_reset_through_the_mailed_link(
    client, alice, password, send_and_collect, typed
):
    response, mails = ask_for_link(send_and_collect, client, typed)
    assert response.status_code == 302 and response["Location"] == reverse("password_reset_done")
    assert len(mails) == 1 and mails[0].to == ["alice@example.com"]
    assert "alice" in mails[0].body and "works once" in mails[0].body

    done = set_new_password(client, link_in(mails[0]))
    assert done.status_code == 302 and done["Location"] == reverse("password_reset_complete")
    assert can_log_in("alice", NEW_PASSWORD)
    assert not can_log_in("alice", password)


def test_the_link_works_once(client, alice, send_and_collect):
    _, mails = ask_for_link(send_and_collect, client, "alice")
    link = link_in(mails[0])
    set_new_password(client, link)

    again = Client().get(link, follow=True)
    assert "This link does not work" in again.content.decode()
    # Posting a password through the old link's form changes nothing either.
    uid, token = link.rstrip("/").split("/")[-2:]
    Client().post(
        reverse("password_reset_confirm", args=[uid, token]),
        {"new_password1": "yet-another-secret-5", "new_password2": "yet-another-secret-5"},
    )
    assert can_log_in("alice", NEW_PASSWORD)
    assert not can_log_in("alice", "yet-another-secret-5")


def test_an_expired_link_changes_nothing(client, alice, password, send_and_collect, monkeypatch):
    _, mails = ask_for_link(send_and_collect, client, "alice")
    later = datetime.now() + timedelta(hours=3)  # PASSWORD_RESET_TIMEOUT is 2 hours
    monkeypatch.setattr(PasswordResetTokenGenerator, "_now", lambda self: later)
    page = Client().get(link_in(mails[0]), follow=True)
    assert "This link does not work" in page.content.decode()
    assert can_log_in("alice", password)


def test_a_token_made_for_one_person_does_not_reset_another(make_user, alice, password):
    bob = make_user("bob")
    alice_token = default_token_generator.make_token(alice)
    bob_uid = urlsafe_base64_encode(force_bytes(bob.pk))
    page = Client().get(reverse("password_reset_confirm", args=[bob_uid, alice_token]), follow=True)
    assert "This link does not work" in page.content.decode()
    forged = Client().get(
        reverse("password_reset_confirm", args=[bob_uid, "cz8k2q-0123456789abcdef"]), follow=True
    )
    assert "This link does not work" in forged.content.decode()
    assert can_log_in("bob", password) and can_log_in("alice", password)


def page_text(response) -> str:
    return CSRF.sub("", response.content.decode())


def test_a_known_and_an_unknown_account_get_the_same_answer(alice, make_user, send_and_collect):
    unconfirmed = make_user("carol")
    unconfirmed.email_pending = "carol@example.com"  # typed, never confirmed
    unconfirmed.save()
    answers = {}
    sent = {}
    for typed in ["alice", "alice@example.com", "nobody", "nobody@example.com", "carol",
                  "carol@example.com", "x" * 254]:  # fmt: skip
        browser = Client(REMOTE_ADDR=f"10.0.2.{len(answers) + 1}")  # each under the rate limit
        response, mails = ask_for_link(send_and_collect, browser, typed)
        followed = browser.get(response["Location"])
        answers[typed] = (response.status_code, response["Location"], page_text(followed))
        sent[typed] = len(mails)
    assert len(set(answers.values())) == 1
    assert sent == {
        "alice": 1,
        "alice@example.com": 1,
        "nobody": 0,
        "nobody@example.com": 0,
        "carol": 0,
        "carol@example.com": 0,
        "x" * 254: 0,
    }


def test_an_oversized_request_is_refused_with_a_clear_message(client, alice, send_and_collect):
    response, mails = ask_for_link(send_and_collect, client, "a" * 300 + "@example.com")
    assert response.status_code == 200
    assert "at most 254 characters" in response.content.decode()
    assert mails == []


def test_reset_requests_are_limited_per_address(client, alice, send_and_collect, settings):
    limit = settings.REQUEST_LIMITS_PER_MINUTE["password_reset"]
    for n in range(limit):
        response, _ = ask_for_link(send_and_collect, client, f"nobody-{n}")
        assert response.status_code == 302
    response, mails = ask_for_link(send_and_collect, client, "alice")
    assert response.status_code == 429
    assert "Too many password reset requests" in response.content.decode()
    assert mails == []
    # Another address is not held back by this one's requests.
    elsewhere = Client(REMOTE_ADDR="10.0.0.9")
    response, mails = ask_for_link(send_and_collect, elsewhere, "alice")
    assert response.status_code == 302 and len(mails) == 1


def test_one_mailbox_gets_at_most_a_few_links_an_hour_whoever_asks(
    alice, send_and_collect, settings
):
    cap = settings.EMAILS_PER_ADDRESS_PER_HOUR
    delivered = 0
    for n in range(cap + 3):
        browser = Client(REMOTE_ADDR=f"10.0.1.{n + 1}")
        response, mails = ask_for_link(send_and_collect, browser, "alice")
        assert response.status_code == 302  # the same answer, mailed or not
        delivered += len(mails)
    assert delivered == cap


def test_a_reset_signs_out_every_browser_of_the_account(client, alice, password, send_and_collect):
    laptop, phone = Client(), Client()
    for browser in (laptop, phone):
        browser.post(reverse("login"), {"username": "alice", "password": password})
        assert browser.get(reverse("account")).status_code == 200
    assert LoginSession.objects.filter(user=alice).count() == 2

    _, mails = ask_for_link(send_and_collect, client, "alice")
    set_new_password(client, link_in(mails[0]))
    for browser in (laptop, phone):
        response = browser.get(reverse("account"))
        assert response.status_code == 302 and reverse("login") in response["Location"]
    assert not LoginSession.objects.filter(user=alice).exists()


def test_the_login_page_leads_to_the_reset(client):
    page = client.get(reverse("login")).content.decode()
    assert reverse("password_reset") in page and "Forgot your password?" in page


def test_the_reset_mail_goes_through_a_real_smtp_server(
    client, alice, send_and_collect, settings, mailbox
):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", mailbox.port
    ask_for_link(send_and_collect, client, "alice@example.com")
    (mail,) = mailbox.wait_for(1)
    assert mail.recipients == ["alice@example.com"]
    assert mail.subject == "Reset your Setback password"
    set_new_password(client, path_of(mail.link()))
    assert can_log_in("alice", NEW_PASSWORD)


def test_by_default_the_reset_mail_is_printed_on_the_console(
    client, alice, send_and_collect, settings, capsys
):
    # The site's default (setback_site/settings.py); Django's test runner had put its outbox there.
    settings.EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
    ask_for_link(send_and_collect, client, "alice")
    printed = capsys.readouterr().out
    assert "To: alice@example.com" in printed and "Subject: Reset your Setback password" in printed
    link = re.search(r"http://testserver(/accounts/password/reset/\S+)", printed).group(1)
    set_new_password(client, link)
    assert can_log_in("alice", NEW_PASSWORD)


def test_a_deleted_account_gets_no_reset_mail(client, alice, password, send_and_collect):
    do_delete_account(alice, password=password)
    _, mails = ask_for_link(send_and_collect, client, "alice@example.com")
    assert mails == []
    assert not User.objects.filter(email="alice@example.com").exists()


def test_a_reset_mail_the_smtp_server_refuses_once_is_sent_again(
    client, alice, send_and_collect, monkeypatch
):
    """The mail goes through the task queue (accounts/tasks.py): a refusal is retried, so the
    link still arrives, and the page answered as it always does."""
    real_send, refusals = mail.send, []

    def refuse_once(*args):
        if not refusals:
            refusals.append(args)
            raise SMTPServerDisconnected("the server went away")
        real_send(*args)

    monkeypatch.setattr(mail, "send", refuse_once)
    # The retry's wait, as short as a test can afford (30 s and more on a site).
    monkeypatch.setattr(tasks.send_mail, "retry_backoff", False)
    monkeypatch.setattr(tasks.send_mail, "default_retry_delay", 0.05)
    response, _ = ask_for_link(send_and_collect, client, "alice")
    assert response.status_code == 302 and len(refusals) == 1
    deadline = time.monotonic() + 10  # the retry waits on a timer of its own
    while not django_mail.outbox and time.monotonic() < deadline:
        time.sleep(0.01)
    (sent,) = django_mail.outbox
    assert sent.to == ["alice@example.com"] and "/accounts/" in link_in(sent)
