"""Issue 44 items 8, 10 and 12 as a person on a phone meets them: the sign-up page's help says
what it is about; a wrong password says how many tries are left and the pause's page offers the
reset; the ratings are named where they appear; the home page opens on the last rules and bot
level; a preset's name fits the drop-down; the account page shows the address. (Items 9 and 11:
test_card_table.py's invitation and test_offline_page.py; the db tests cover each rule.)"""

import re

import pytest
from django.conf import settings
from playwright.sync_api import Page, expect

from .test_play_with_people import shot

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
PASSWORD = "a-long-fresh-secret"


def log_in(page: Page, site: str, name: str, password: str) -> None:
    page.goto(site + "/accounts/login/")
    page.get_by_label("Username").fill(name)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()


def test_sign_in_ratings_and_remembered_choices_on_a_phone(site, page: Page):
    page.set_viewport_size(PHONE)
    page.goto(site + "/accounts/signup/")
    for help_text in ("Which names work", "Why we ask", "What makes a good password"):
        expect(page.locator("summary", has_text=help_text)).to_be_visible()
    page.get_by_label("Username").fill("pat")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password confirmation").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    expect(page.get_by_role("heading", name="Hello, pat!")).to_be_visible()

    # A match on other rules and another level: the home page opens on them next time, and
    # every preset's name fits the phone's drop-down.
    page.get_by_label("Rules").select_option("family")
    page.get_by_label("Computer players").select_option("hard")
    page.get_by_role("button", name="Deal me in").click()
    expect(page.locator("#table")).to_be_visible()
    page.goto(site + "/")
    expect(page.get_by_label("Rules")).to_have_value("family")
    expect(page.get_by_label("Computer players")).to_have_value("hard")
    rules = page.get_by_label("Rules")
    assert rules.evaluate("(select) => select.scrollWidth <= select.clientWidth + 1")

    # The account page keeps the address in its field; the leaderboard names its rating.
    page.goto(site + "/accounts/")
    expect(page.locator("input[name=email]")).to_be_visible()
    page.goto(site + "/leaderboard/")
    expect(page.locator('[data-rating-note="people"]')).to_contain_text(
        "People rating: one for each set of rules"
    )

    # Wrong passwords: each says how many tries are left; the last one pauses the name, and
    # the pause's page leads to the reset.
    page.get_by_role("button", name="Log out").click()
    limit = settings.AXES_FAILURE_LIMIT
    log_in(page, site, "pat", "wrong-1")
    expect(page.locator("[data-tries-left]")).to_contain_text(f"{limit - 1} tries left")
    shot(page, "sign-in-tries-left-390")
    for attempt in range(2, limit + 1):
        log_in(page, site, "pat", f"wrong-{attempt}")
    expect(page.get_by_role("heading", name="Too many failed log-ins")).to_be_visible()
    shot(page, "sign-in-paused-390")
    page.locator("[data-reset-link]").click()
    expect(page).to_have_url(re.compile(r"/accounts/password/reset/|/password_reset/|/reset/"))
