"""Issue 44 item 8: a wrong password says how many tries are left before logging in as the
name is paused; the pause's page offers the reset; a password set through a reset lifts it."""

import re

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db

LIMIT = settings.AXES_FAILURE_LIMIT
MINUTES = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
NEW_PASSWORD = "a-brand-new-secret-42"


@pytest.fixture(autouse=True)
def _requests_fall_in_one_minute(monkeypatch):
    monkeypatch.setattr("games.core.limits.current_window", lambda: 1)


def log_in(username, password, client=None):
    return (client or Client()).post(reverse("login"), {"username": username, "password": password})


def tries_left_line(response) -> str:
    found = re.search(r"<p[^>]*data-tries-left[^>]*>(.*?)</p>", response.content.decode(), re.S)
    assert found, "no tries-left warning on the page"
    return re.sub(r"<[^>]+>", "", found.group(1)).strip()


def test_each_wrong_password_says_how_many_tries_are_left(user):
    assert "data-tries-left" not in Client().get(reverse("login")).content.decode()
    first = log_in("alice", "wrong-1")
    assert first.status_code == 200
    assert tries_left_line(first).startswith(
        f"{LIMIT - 1} tries left before logging in as this name is paused for {MINUTES} minutes."
    )
    for attempt in range(2, LIMIT - 1):
        log_in("alice", f"wrong-{attempt}")
    last = log_in("alice", "wrong-last-but-one")
    assert tries_left_line(last).startswith("1 try left before")
    assert "Forgot your password?" in tries_left_line(last)


def test_the_lockout_page_offers_the_reset_link(user):
    for attempt in range(LIMIT):
        locked = log_in("alice", f"wrong-{attempt}")
    assert locked.status_code == 429
    page = locked.content.decode()
    assert "Too many failed log-ins" in page
    assert re.search(rf'href="{reverse("password_reset")}"[^>]*data-reset-link', page)
    assert "Forgot your password?" in page


def test_a_new_password_through_the_reset_link_lifts_the_lockout(user, password, send_and_collect):
    user.email = "alice@example.com"
    user.save()
    for attempt in range(LIMIT):
        log_in("alice", f"wrong-{attempt}")
    assert log_in("alice", password).status_code == 429  # the right password is paused too
    client = Client()
    _, mails = send_and_collect(client.post, reverse("password_reset"), {"email": "alice"})
    link = re.sub(r"^https?://[^/]+", "", re.search(r"https?://\S+", mails[0].body).group(0))
    opened = client.get(link, follow=True)
    form_url = opened.redirect_chain[-1][0]
    client.post(form_url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert log_in("alice", NEW_PASSWORD).status_code == 302


def test_a_wrong_password_for_a_name_nobody_has_reads_the_same(user):
    """The warning must not tell a guesser which names exist."""
    known = tries_left_line(log_in("alice", "wrong"))
    unknown = tries_left_line(log_in("nobody-here", "wrong"))
    assert known == unknown
