"""In Chromium, on a phone: a person who forgot their password gets the mail (through a real
SMTP server), chooses a new password and logs in; another person finds their account page,
confirms an e-mail address, downloads their data with every deal in it, and deletes the
account, after which their old opponent still replays the deals they played, against "a former
player"."""

import html
import io
import json
import re
import zipfile

from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from games.core import selectors
from games.engine import bots, match_from_record
from games.models import Match
from games.tables import services as tables
from tests.db.play import play_until
from tests.e2e.conftest import SCREENSHOTS
from tests.e2e.test_replay import log_in, off_the_event_loop

PASSWORD = "a-long-password-for-tests-1"
NEW_PASSWORD = "a-brand-new-secret-42"
PHONE = {"width": 390, "height": 844}


def person(username, email=""):
    user = get_user_model().objects.create_user(username, password=PASSWORD)
    user.email = email
    user.save()
    return user


def next_mail(mailbox, address, already: int):
    """The first mail to `address` after the `already` mails the box held."""
    mails = mailbox.wait_for(already + 1)
    found = [m for m in mails[already:] if address in m.recipients]
    assert found, [m.recipients for m in mails[already:]]
    return found[0]


def show_mail(page: Page, mail, screenshot, name: str):
    """The received mail as text on a page, for the screenshot of what arrived."""
    page.set_content(
        "<body style='font-family: monospace; padding: 1rem; white-space: pre-wrap; "
        "overflow-wrap: anywhere'>"
        + html.escape(
            f"From: {mail.sender}\nTo: {', '.join(mail.recipients)}\n"
            f"Subject: {mail.subject}\n\n{mail.body}"
        )
        + "</body>"
    )
    screenshot(name)


def test_a_forgotten_password_is_reset_by_mail_and_the_person_logs_in(
    site, page, site_mailbox, screenshot
):
    person("carol", email="carol@example.com")
    page.set_viewport_size(PHONE)
    page.goto(site + "/accounts/login/")
    page.get_by_role("link", name="Forgot your password?").click()
    expect(page.get_by_role("heading", name="Forgot your password?")).to_be_visible()
    screenshot("reset-1-forgot-password-phone")
    already = len(site_mailbox.received)
    page.get_by_label("Your user name or e-mail address").fill("carol")
    page.get_by_role("button", name="Send me a link").click()
    expect(page.get_by_role("heading", name="Check your mail")).to_be_visible()
    screenshot("reset-2-check-your-mail-phone")

    mail = next_mail(site_mailbox, "carol@example.com", already)
    assert mail.subject == "Reset your Setback password"
    link = mail.link()
    show_mail(page, mail, screenshot, "reset-3-mail-received-by-smtp")

    page.goto(link)
    expect(page.get_by_role("heading", name="Choose a new password")).to_be_visible()
    page.get_by_label("New password", exact=True).fill(NEW_PASSWORD)
    page.get_by_label("New password confirmation").fill(NEW_PASSWORD)
    screenshot("reset-4-choose-a-new-password-phone")
    page.get_by_role("button", name="Set my password").click()
    expect(page.get_by_role("heading", name="Your new password is set")).to_be_visible()
    screenshot("reset-5-password-set-phone")

    page.get_by_role("link", name="Log in", exact=True).last.click()
    page.get_by_label("Username").fill("carol")
    page.get_by_label("Password").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Hello, carol!")).to_be_visible()
    screenshot("reset-6-signed-in-with-the-new-password-phone")

    page.goto(link)  # the link worked once
    expect(page.get_by_role("alert")).to_contain_text("This link does not work")


def as_easy_bot(match: Match, seat: str) -> str:
    state = selectors.deal_state(selectors.current_deal(match))
    return bots.choose(state.observation(seat), "easy", seed=state.version)


def finished_match_between(host, other) -> Match:
    match = tables.do_create_table(host, rules_spec={"preset": "auction", "players": 2})
    tables.do_sit(match.pk, user=other, position="P2")
    match = tables.do_start_table(match.pk, host=host)
    return play_until(match, person=as_easy_bot)


def test_the_account_page_download_and_deleting_the_account(
    site, page, browser, site_mailbox, screenshot
):
    alice, bob = person("alice"), person("bob")
    match = off_the_event_loop(finished_match_between, alice, bob)
    assert match.status == Match.Status.FINISHED
    finished = match.deals.filter(phase="over").count()

    page.set_viewport_size(PHONE)
    log_in(page, site, "alice", PASSWORD)
    page.get_by_role("navigation").get_by_role("link", name="Account").click()
    expect(page.get_by_role("heading", name="Your account", exact=True)).to_be_visible()
    expect(page.locator(".session-current")).to_contain_text("this browser")
    screenshot("account-1-page-phone")

    already = len(site_mailbox.received)
    page.get_by_label("E-mail address").fill("alice@example.com")
    page.get_by_role("button", name="Add address").click()
    expect(page.get_by_role("status")).to_contain_text("We sent a link to alice@example.com")
    page.goto(next_mail(site_mailbox, "alice@example.com", already).link())
    page.get_by_role("button", name="Confirm this address").click()
    expect(page.get_by_role("status")).to_contain_text(
        "Your e-mail address is now alice@example.com"
    )
    screenshot("account-2-address-confirmed-phone")

    # Put together by a task off the web process; the panel links the file once it is ready.
    page.get_by_role("button", name="Put my data together").click()
    with page.expect_download() as download:
        page.get_by_role("link", name="Download my data").click()
    assert re.fullmatch(r"setback-data-alice-\d{8}\.zip", download.value.suggested_filename)
    archive = zipfile.ZipFile(io.BytesIO(download.value.path().read_bytes()))
    record = json.loads(archive.read(f"matches/match-{match.pk}.json"))
    assert len(match_from_record(record).history) == finished  # every deal, replayable
    assert json.loads(archive.read("profile.json"))["email"] == "alice@example.com"

    page.set_viewport_size({"width": 1280, "height": 900})
    screenshot("account-3-page-desktop")
    page.set_viewport_size(PHONE)
    page.get_by_role("link", name="Delete my account…").click()
    expect(page.get_by_role("heading", name="Delete your account", exact=True)).to_be_visible()
    page.get_by_role("button", name="Delete my account").click()  # no password: refused
    expect(page.get_by_label("Your password")).to_be_visible()
    page.get_by_label("Your password").fill("not-my-password")
    page.get_by_role("button", name="Delete my account").click()
    expect(page.get_by_role("alert")).to_contain_text("That is not your password")
    screenshot("account-4-delete-refused-without-the-password-phone")
    page.get_by_label("Your password").fill(PASSWORD)
    page.get_by_role("button", name="Delete my account").click()
    expect(page.get_by_role("status")).to_contain_text("Your account is deleted")
    screenshot("account-5-deleted-phone")

    opponent = browser.new_context(viewport=PHONE)
    bobs_page = opponent.new_page()
    log_in(bobs_page, site, "bob", PASSWORD)
    bobs_page.goto(f"{site}/history/")
    row = bobs_page.locator(f'[data-match="{match.pk}"]')
    expect(row).to_contain_text("a former player")
    row.get_by_role("link", name=f"Match {match.pk}").click()
    played = next(d for d in match.deals.order_by("number") if not d.result["thrown_in"])
    bobs_page.goto(f"{site}/replay/matches/{match.pk}/{played.number}/")
    bobs_page.get_by_role("link", name="Last »").click()
    expect(bobs_page.locator("#replay")).to_contain_text("a former player")
    assert "alice" not in bobs_page.content()
    bobs_page.screenshot(
        path=str(SCREENSHOTS / "account-6-opponent-replays-a-former-player-phone.png"),
        full_page=True,
    )
    opponent.close()
