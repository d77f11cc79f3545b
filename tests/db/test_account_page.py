"""The account page: name, e-mail, settings, the browsers signed in (and "sign out
everywhere"), and the person's data as one download that holds every deal they played."""

import io
import json
import zipfile

import pytest
from django.test import Client
from django.urls import reverse

from accounts import downloads
from accounts.models import DataDownload, LoginSession
from games.core import selectors, services
from games.engine import RecordError, deal_from_record, match_from_record
from games.models import Match
from games.replay import selectors as replay_selectors
from games.replay import services as replay_services
from games.stats.models import DealSummary
from games.tables import services as tables
from tests.hidden import hidden_cards

from .replays import finish_match, into_a_new_deal, play_deals

pytestmark = pytest.mark.django_db


def browser(username, password, agent="") -> Client:
    client = Client(HTTP_USER_AGENT=agent)
    response = client.post(reverse("login"), {"username": username, "password": password})
    assert response.status_code == 302
    return client


LAPTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36"
PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Version/17.0 Mobile Safari/604.1"


def test_the_account_page_needs_a_login(client):
    response = client.get(reverse("account"))
    assert response.status_code == 302 and reverse("login") in response["Location"]


def test_the_account_page_shows_the_person_s_name_settings_and_browsers(user, password):
    user.email = "alice@example.com"
    user.save()
    laptop = browser("alice", password, LAPTOP)
    browser("alice", password, PHONE)
    page = laptop.get(reverse("account")).content.decode()
    assert "<strong>alice</strong>" in page and "alice@example.com" in page
    assert "The coach is <strong>off</strong>" in page
    assert "matches are <strong>public</strong>" in page
    assert "Chrome on Linux" in page and "Safari on iPhone" in page
    assert page.index("Chrome on Linux") < page.index("this browser") < page.index("iPhone")
    for name in ("download_data", "delete_account", "password_change", "sign_out_everywhere"):
        assert reverse(name) in page
    assert reverse("account") in laptop.get(reverse("home")).content.decode()  # in the menu


def test_settings_switched_on_the_account_page_come_back_to_it(logged_in_client, user):
    for url, data in [
        (reverse("toggle_coach"), {"enabled": "on", "next": reverse("account")}),
        (reverse("history_privacy"), {"public": "0", "next": reverse("account")}),
    ]:
        response = logged_in_client.post(url, data)
        assert response.status_code == 302 and response["Location"] == reverse("account")
    user.refresh_from_db()
    assert user.coach_enabled and not user.history_public
    page = logged_in_client.get(reverse("account")).content.decode()
    assert "The coach is <strong>on</strong>" in page
    assert "matches are <strong>private</strong>" in page


def test_a_browser_that_logged_out_is_no_longer_listed(user, password):
    laptop, phone = browser("alice", password, LAPTOP), browser("alice", password, PHONE)
    phone.post(reverse("logout"))
    page = laptop.get(reverse("account")).content.decode()
    assert "Chrome on Linux" in page and "iPhone" not in page
    assert LoginSession.objects.filter(user=user).count() == 1


def test_sign_out_everywhere_ends_every_session_of_the_account(user, make_user, password):
    laptop, phone = browser("alice", password, LAPTOP), browser("alice", password, PHONE)
    # A session nobody listed (started before sessions were listed) ends too.
    LoginSession.objects.filter(user=user).exclude(session_key=phone.session.session_key).delete()
    someone_else = browser(make_user("bob").username, password)

    response = phone.post(reverse("sign_out_everywhere"), follow=True)
    assert "You are signed out everywhere" in response.content.decode()
    for device in (laptop, phone):
        assert device.get(reverse("account")).status_code == 302
    assert someone_else.get(reverse("account")).status_code == 200
    assert not LoginSession.objects.filter(user=user).exists()
    assert browser("alice", password).get(reverse("account")).status_code == 200  # logs in again


def test_a_password_change_keeps_this_browser_listed_and_ends_the_others(user, password):
    laptop, phone = browser("alice", password, LAPTOP), browser("alice", password, PHONE)
    laptop.post(
        reverse("password_change"),
        {
            "old_password": password,
            "new_password1": "brand-new-secret-9",
            "new_password2": "brand-new-secret-9",
        },
    )
    page = laptop.get(reverse("account")).content.decode()
    assert "Chrome on Linux" in page and "this browser" in page and "iPhone" not in page
    assert phone.get(reverse("account")).status_code == 302


# --- Download my data ----------------------------------------------------------------------


def download(client) -> zipfile.ZipFile:
    """Ask for the download, build it as its task does, and fetch the file."""
    asked = client.post(reverse("download_data"))
    assert asked.status_code == 302
    for waiting in DataDownload.objects.filter(status=DataDownload.Status.WAITING):
        assert downloads.do_build(waiting.pk) == DataDownload.Status.READY
    response = client.get(reverse("download_data"))
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    assert "attachment" in response["Content-Disposition"]
    return zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))


def test_the_download_needs_a_login(client):
    response = client.get(reverse("download_data"))
    assert response.status_code == 302 and reverse("login") in response["Location"]


def test_the_download_holds_every_deal_the_person_played(logged_in_client, user, make_user):
    finished = finish_match(user, "house", seed=3)
    two_deals = play_deals(user, "classic", played=2, seed=4)
    in_play = services.do_start_match(user, rules_spec="auction", bot_level="easy")
    deal_in_play = into_a_new_deal(in_play, actions=3, seed=5)
    logged_in_client.post(reverse("change_email"), {"email": "alice@example.com"})
    first_deal = finished.deals.get(number=1)
    imported = replay_services.do_import_record(
        user, data=json.dumps(replay_selectors.deal_record(finished, first_deal))
    )

    archive = download(logged_in_client)
    names = set(archive.namelist())
    assert {"README.txt", "profile.json", "statistics.json", "chat.json"} <= names
    profile = json.loads(archive.read("profile.json"))
    assert profile["username"] == "alice" and profile["email_waiting_for_confirmation"]

    # Every finished deal is in its match's record, which the engine reads back to the same scores.
    finished_deals = 0
    for match in (finished, two_deals, in_play):
        stored = {d.number: d.result for d in match.deals.filter(phase="over")}
        if not stored:
            continue
        record = json.loads(archive.read(f"matches/match-{match.pk}.json"))
        state = match_from_record(record)
        assert [h["score"] for h in state.history] == [stored[n]["score"] for n in sorted(stored)]
        assert record["meta"]["players"][match.seats.get(user=user).position] == "alice"
        finished_deals += len(stored)
    assert finished_deals == DealSummary.objects.filter(user=user).count()
    stats = json.loads(archive.read("statistics.json"))
    assert len(stats["deals"]) == finished_deals

    # The deal in play: only what alice's seat sees, nothing of the other hands or the stock.
    name = f"deals-in-play/match-{in_play.pk}-deal-{deal_in_play.number}.json"
    view = json.loads(archive.read(name))
    state = selectors.deal_state(deal_in_play)
    seat = in_play.seats.get(user=user).position
    assert view["view"] == state.observation(seat, match_totals=dict(in_play.totals)).to_json()
    hidden = hidden_cards(in_play, deal_in_play.number, state.version, seat)
    assert hidden and not [card for card in hidden if f'"{card}"' in archive.read(name).decode()]
    with pytest.raises(RecordError, match="unknown field"):
        deal_from_record(view)  # a seat's view is no deal record: it cannot be replayed whole
    assert json.loads(archive.read(f"imports/import-{imported.pk}.json")) == imported.record


def test_the_download_holds_nothing_of_another_person(logged_in_client, user, make_user, password):
    bob = make_user("bob")
    bobs_match = finish_match(bob, "house", seed=6)
    bob.email = "bob@example.com"
    bob.save()
    archive = download(logged_in_client)
    everything = b"".join(archive.read(name) for name in archive.namelist()).decode()
    assert "bob@example.com" not in everything and f"match-{bobs_match.pk}" not in everything
    assert not [n for n in archive.namelist() if n.startswith("matches/")]
    # Another person downloading gets their own file, not alice's.
    bobs = download(browser("bob", password))
    assert json.loads(bobs.read("profile.json"))["username"] == "bob"
    assert f"matches/match-{bobs_match.pk}.json" in bobs.namelist()


def test_a_shared_match_in_play_is_downloaded_from_the_seat_s_view_only(user, make_user):
    bob = make_user("bob")
    match = tables.do_create_table(user, rules_spec="house")
    tables.do_sit(match.pk, user=bob, position="N")
    tables.do_fill_with_bots(match.pk, host=user, level="easy")
    tables.do_start_table(match.pk, host=user)
    deal_row = selectors.current_deal(Match.objects.get(pk=match.pk))
    for person, seat in ((user, "S"), (bob, "N")):
        client = Client()
        client.force_login(person)
        archive = download(client)
        (name,) = [n for n in archive.namelist() if n.startswith("deals-in-play/")]
        text = archive.read(name).decode()
        hidden = hidden_cards(match, deal_row.number, deal_row.steps, seat)
        assert len(hidden) >= 18 and not [card for card in hidden if f'"{card}"' in text]
        assert json.loads(text)["view"]["hand"] == selectors.deal_state(deal_row).hand(seat)


def test_downloads_are_limited(logged_in_client, settings):
    limit = settings.REQUEST_LIMITS_PER_MINUTE["data_download"]
    for _ in range(limit):
        assert logged_in_client.post(reverse("download_data")).status_code == 302
    refused = logged_in_client.post(reverse("download_data"))
    assert refused.status_code == 429 and "Too many data downloads" in refused.content.decode()
