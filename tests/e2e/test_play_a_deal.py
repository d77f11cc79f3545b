"""A newcomer signs up, starts a house match and plays a whole deal in Chromium."""

import re
import time

from playwright.sync_api import Page, expect

from games.models import Match
from tests.hidden import leaks


def sign_up(page: Page, site: str, username: str):
    page.goto(site + "/accounts/signup/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password", exact=True).fill("a-long-fresh-secret")
    page.get_by_label("Password confirmation").fill("a-long-fresh-secret")
    page.get_by_role("button", name="Sign up").click()
    expect(page.get_by_role("heading", name=f"Hello, {username}!")).to_be_visible()


def start_house_match(page: Page):
    page.get_by_label("Rules").select_option("house")
    page.get_by_role("button", name="Deal me in").click()
    expect(page.locator("#table")).to_be_visible()
    expect(page.locator(".chip", has_text="To 11")).to_be_visible()


def play_until_a_deal_is_scored(page: Page, act, deadline_seconds=120):
    """Act whenever it is the player's turn; move past thrown-in hands; stop at a scored deal."""
    deadline = time.monotonic() + deadline_seconds
    while time.monotonic() < deadline:
        result = page.locator(".deal-result")
        if result.count() and result.get_by_text(re.compile(r"made it|was set back")).count():
            return result
        if result.count() and page.get_by_text("Everyone passed").count():
            act("next")
        elif page.locator("#table.table-my-turn [data-action]").count():
            act("move")
        page.wait_for_timeout(150)
    raise AssertionError("no deal was scored in time")


def assert_no_hidden_cards_in_page(page: Page, username: str):
    match = Match.objects.get(seats__user__username=username)
    seat = match.seats.get(user__username=username).position
    assert not leaks(page.content(), match, seat)


def test_a_newcomer_bids_and_plays_a_deal_by_clicking(site, page, screenshot):
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_up(page, site, "clicker")
    start_house_match(page)
    screenshot("table-start-desktop")
    clicks = {"move": 0}

    def click(what):
        try:
            if what == "next":
                page.locator("[data-next-deal]").click(timeout=2000)
            else:
                page.locator("#table [data-action]").first.click(timeout=2000)
                clicks["move"] += 1
                if clicks["move"] == 3:
                    screenshot("table-mid-deal-desktop")
                    assert_no_hidden_cards_in_page(page, "clicker")
        except Exception:  # noqa: BLE001 - the table was swapped under the pointer; look again
            pass

    result = play_until_a_deal_is_scored(page, click)
    expect(result.locator(".deal-scores")).to_contain_text(re.compile(r"You.*[-+]?\d"))
    expect(result.locator(".points-table")).to_contain_text("High")
    screenshot("table-deal-scored-desktop")
    assert clicks["move"] >= 6  # at least one call... and six cards
    # The score strip shows the running totals.
    expect(page.locator(".score-mine .score-points")).to_have_text(re.compile(r"-?\d+"))


def test_a_player_plays_a_deal_with_the_keyboard_on_a_phone(site, page, screenshot):
    page.set_viewport_size({"width": 390, "height": 844})
    sign_up(page, site, "typist")
    start_house_match(page)

    def press(what):
        page.keyboard.press("n" if what == "next" else "1")

    result = play_until_a_deal_is_scored(page, press)
    expect(result).to_be_visible()
    screenshot("table-deal-scored-phone")
    page.keyboard.press("n")
    # The next deal starts (a bot may already have made the first call).
    expect(page.locator("#table")).to_have_attribute("data-deal", "2", timeout=30_000)
    expect(page.locator(".chip", has_text="Deal 2")).to_be_visible()
