"""Issue 44's two reproductions, measured against `make run` in Chromium (a benchmark, not a
test: it prints counts).

    .venv/bin/python scripts/measure_table_trust.py [DOUBLE_CLICK_TRIES] [RELOAD_AT_SECONDS ...]

1. A double click (two clicks 150 ms apart) on the bid of 4 that ends the auction: how many
   times a card the person did not choose was led.
2. At a shared table (the person and bots), a reload at each given second of the person's turn:
   how many times the turn was gone (a stand-in played it) when the page came back.
"""

import re
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

from benchmarks import made_run
from tests.e2e.conftest import CHROMIUM_ARGS

CLICK_GAP_MS = 150


def log_in(page, site, name):
    page.goto(site.url + "/accounts/login/")
    page.get_by_label("Username").fill(name)
    page.get_by_label("Password").fill(made_run.PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name=re.compile("Hello"))).to_be_visible()


def double_click_tries(page, site, tries: int) -> tuple[int, int]:
    made, wrong = 0, 0
    while made < tries:
        page.goto(site.url + "/")
        page.get_by_label("Rules").select_option("house")
        page.get_by_role("button", name="Deal me in").click()
        page.wait_for_function(
            "() => { const t = document.querySelector('#table');"
            " return t && (t.dataset.phase !== 'auction'"
            " || t.querySelector('.table-my-turn .bid-button, .bid-button')); }",
            timeout=30_000,
        )
        four = page.locator('#table.table-my-turn .bid-button[value="4"]')
        if not four.count():
            continue
        page.wait_for_timeout(400)  # the person reads the buttons before bidding
        box = four.bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        cards = page.locator("#table .me .hand .card").count()
        page.mouse.click(x, y)
        page.wait_for_timeout(CLICK_GAP_MS)
        page.mouse.click(x, y)
        expect(page.locator("#table")).to_have_attribute("data-phase", "play")
        page.wait_for_timeout(1000)
        made += 1
        wrong += page.locator("#table .me .hand .card").count() < cards
    return made, wrong


def reload_try(page, site, at_seconds: float) -> bool:
    """Whether the person's turn was still theirs after a reload `at_seconds` into it."""
    page.goto(site.url + "/")
    page.locator(".new-table-form").get_by_label("Game at the table").select_option("house")
    page.get_by_role("button", name="Create a table").click()
    page.locator("[data-fill-bots]").click()
    expect(page.locator("[data-fill-bots]")).to_have_count(0)
    page.locator("[data-start]").click()
    expect(page.locator("#table.table-my-turn")).to_be_visible(timeout=30_000)
    step = page.locator("#table").get_attribute("data-step")
    page.wait_for_timeout(at_seconds * 1000)  # the turn's age is what is measured
    page.reload()
    expect(page.locator("#table[data-deal]")).to_be_visible()
    page.wait_for_timeout(2000)  # a stand-in woken by the reconnect plays within this
    return page.locator("#table").get_attribute("data-step") == step


def main(argv: list[str]) -> None:
    tries = int(argv[0]) if argv else 4
    reloads = [float(a) for a in argv[1:]]
    site = made_run.start(Path(tempfile.mkdtemp()), {"BOT_PACE_SECONDS": "0.2"})
    try:
        (name,) = site.people("measure", 1)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
            )
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            log_in(page, site, name)
            made, wrong = double_click_tries(page, site, tries)
            print(f"double click on the last bid: a card not chosen was led {wrong} of {made}")
            for at in reloads:
                kept = reload_try(page, site, at)
                print(f"reload {at:.0f} s into a shared turn: turn {'kept' if kept else 'LOST'}")
            browser.close()
    finally:
        site.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
