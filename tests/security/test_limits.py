"""Item 7: limits. Login lockout (django-axes) per user name and per address; sign-ups, new
matches, new tables, rematches and coach requests per minute; a rematch made once."""

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from games.core import services
from games.lobby.models import PairingTicket
from games.models import Match
from tests.db.replays import finish_match

from .helpers import PASSWORD, browser_for, person

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _requests_fall_in_one_minute(monkeypatch):
    """A loaded machine can take more than a minute over a test's requests; the count must not
    start again half-way because a new minute began."""
    monkeypatch.setattr("games.core.limits.current_window", lambda: 1)


LIMITS = settings.REQUEST_LIMITS_PER_MINUTE
FAILURES = settings.AXES_FAILURE_LIMIT


def log_in(username, password, address="127.0.0.1", **headers):
    return Client(REMOTE_ADDR=address).post(
        reverse("login"), {"username": username, "password": password}, **headers
    )


def test_wrong_passwords_lock_the_user_name_even_against_the_right_one():
    person("alice")
    for attempt in range(FAILURES - 1):
        assert log_in("alice", f"guess-{attempt}").status_code == 200  # the form, with its error
    locked = log_in("alice", "guess-last")
    assert locked.status_code == 429 and "Too many failed log-ins" in locked.content.decode()
    # From another address, and with the right password: still locked for 15 minutes.
    right = log_in("alice", PASSWORD, address="10.9.8.7")
    assert right.status_code == 429
    assert (
        f"Try again in {settings.AXES_COOLOFF_TIME.seconds // 60} minutes" in right.content.decode()
    )


def test_a_few_failures_from_one_address_lock_out_nobody_else_behind_it():
    """Issue 28: five typos from one address (a school, an office) locked everyone behind it
    out for a quarter of an hour."""
    for name in ("alice", "bob", "carol", "dave", "erin", "frank"):
        person(name)
    for name in ["alice", "bob", "carol", "dave", "erin"]:
        assert log_in(name, "wrong").status_code == 200
    assert log_in("frank", PASSWORD).status_code == 302


def test_one_address_guessing_many_names_is_slowed_and_a_forged_header_does_not_help():
    limit = LIMITS["login_failures"]
    names = [f"user{n}" for n in range(limit + 1)]
    for name in names:
        person(name)
    for i, name in enumerate(names[:limit]):
        assert log_in(name, "wrong", HTTP_X_FORWARDED_FOR=f"203.0.113.{i}").status_code == 200
    # The address has failed its minute's share: refused, even with a right password.
    refused = log_in(names[limit], PASSWORD, HTTP_X_FORWARDED_FOR="198.51.100.1")
    assert refused.status_code == 429
    assert "failed log-ins from your address" in refused.content.decode()
    # Someone else, elsewhere, logs in as usual.
    assert log_in(names[limit], PASSWORD, address="10.1.1.1").status_code == 302


def test_a_login_that_succeeds_before_the_limit_is_untouched():
    person("alice")
    for attempt in range(FAILURES - 1):
        log_in("alice", f"guess-{attempt}")
    assert log_in("alice", PASSWORD).status_code == 302


def sign_up(client, name):
    return client.post(
        reverse("signup"), {"username": name, "password1": PASSWORD, "password2": PASSWORD}
    )


def test_sign_ups_per_address_per_minute():
    client = Client(REMOTE_ADDR="192.0.2.1")
    for i in range(LIMITS["signup"]):
        assert sign_up(Client(REMOTE_ADDR="192.0.2.1"), f"user{i}").status_code == 302
    refused = sign_up(client, "one-too-many")
    assert refused.status_code == 429 and "at most 5 a minute" in refused.content.decode()
    assert refused["Retry-After"] == "60"
    assert not get_user_model().objects.filter(username="one-too-many").exists()
    assert sign_up(Client(REMOTE_ADDR="192.0.2.2"), "from-elsewhere").status_code == 302


@pytest.mark.parametrize(
    ("url_name", "data", "kind"),
    [
        ("new_match", {"preset": "house", "bot_level": "easy"}, "new_match"),
        ("new_table", {"preset": "house", "turn_timeout_seconds": "30"}, "new_table"),
    ],
)
def test_new_matches_and_tables_per_user_per_minute(url_name, data, kind):
    alice = browser_for(person("alice"))
    for _ in range(LIMITS[kind]):
        assert alice.post(reverse(url_name), data).status_code == 302
    refused = alice.post(reverse(url_name), data)
    assert refused.status_code == 429 and "Wait a minute" in refused.content.decode()
    assert Match.objects.count() == LIMITS[kind]
    # The limit is Alice's, not everyone's.
    assert browser_for(person("bob")).post(reverse(url_name), data).status_code == 302


def test_a_rematch_is_refused_while_the_match_is_played():
    alice = person("alice")
    match = services.do_start_match(alice, rules_spec="house", bot_level="easy")
    # A post without htmx (no script yet) is answered as every refused post at a table: the
    # table page again, with the reason on it.
    response = browser_for(alice).post(reverse("rematch", args=[match.pk]), follow=True)
    assert response.redirect_chain == [(reverse("table", args=[match.pk]), 302)]
    assert "not over yet" in response.content.decode()
    htmx = browser_for(alice).post(reverse("rematch", args=[match.pk]), HTTP_HX_REQUEST="true")
    assert htmx.status_code == 400 and "not over yet" in htmx.content.decode()
    assert Match.objects.count() == 1


def test_a_rematch_asked_twice_is_the_same_match():
    alice = person("alice")
    finished = finish_match(alice, "family")
    browser = browser_for(alice)
    first = browser.post(reverse("rematch", args=[finished.pk]))
    second = browser.post(reverse("rematch", args=[finished.pk]))
    assert first.status_code == second.status_code == 302
    assert first["Location"] == second["Location"]
    assert Match.objects.filter(rematch_of=finished).count() == 1


def test_rematches_per_user_per_minute():
    alice = person("alice")
    finished = finish_match(alice, "family")
    browser = browser_for(alice)
    for _ in range(LIMITS["rematch"]):
        assert browser.post(reverse("rematch", args=[finished.pk])).status_code == 302
    assert browser.post(reverse("rematch", args=[finished.pk])).status_code == 429


def test_coach_requests_per_user_per_minute():
    alice = person("alice")
    match = services.do_start_match(alice, rules_spec="house", bot_level="easy")
    browser = browser_for(alice)
    for _ in range(LIMITS["coach"]):
        assert browser.get(reverse("coach:panel", args=[match.pk])).status_code == 200
    refused = browser.get(reverse("coach:panel", args=[match.pk]), HTTP_HX_REQUEST="true")
    assert refused.status_code == 429 and "requests to the coach" in refused.content.decode()
    assert "<html" not in refused.content.decode()  # htmx swaps a line, not a whole page


def test_quick_pairing_requests_per_user_per_minute():
    """Issue 28: quick pairing had no limit at all."""
    alice = browser_for(person("alice"))
    ask = {"preset": "house", "seating": "partners", "players": 3, "bot_level": "easy"}
    ask["wait_seconds"] = 30
    for _ in range(LIMITS["pairing"]):
        alice.post(reverse("lobby:find_players"), ask)
        alice.post(reverse("lobby:cancel_pairing"))
    refused = alice.post(reverse("lobby:find_players"), ask)
    assert refused.status_code == 429 and "requests for players" in refused.content.decode()
    assert PairingTicket.objects.count() == LIMITS["pairing"]
