"""A newcomer signs up in Chromium and is greeted."""

import re

from playwright.sync_api import expect


def test_a_newcomer_signs_up_and_is_greeted(site, page, screenshot):
    page.set_viewport_size({"width": 390, "height": 844})  # a phone
    page.goto(site + "/")
    page.get_by_role("link", name="Sign up to play").click()
    page.get_by_label("Username").fill("newcomer")
    page.get_by_label("Password", exact=True).fill("a-long-fresh-secret")
    page.get_by_label("Password confirmation").fill("a-long-fresh-secret")
    page.get_by_role("button", name="Sign up").click()
    expect(page.get_by_role("heading", name="Hello, newcomer!")).to_be_visible()
    screenshot("home-after-sign-up-phone")

    page.get_by_role("button", name="Log out").click()
    expect(page).to_have_url(re.compile(r"/$"))
    page.get_by_role("navigation").get_by_role("link", name="Log in").click()
    page.get_by_label("Username").fill("newcomer")
    page.get_by_label("Password").fill("wrong-password")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("alert")).to_contain_text(
        "Please enter a correct username and password"
    )
