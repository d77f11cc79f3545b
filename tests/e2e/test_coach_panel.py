"""A player switches the coach on, follows its ranked advice through a deal, and reads the review."""

import contextlib
import re
import time

from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .test_play_a_deal import (
    assert_no_hidden_cards_in_page,
    sign_up,
    start_house_match,
    table_version,
    wait_for_the_table_to_move,
)

BEST = "#coach-panel .coach-option.coach-best"


def switch_the_coach_on(page: Page):
    expect(page.locator("#coach-panel")).to_contain_text("Switch the coach on")
    # A click, not check(): the switch is swapped for its new state as soon as it is saved.
    page.get_by_label("Coach off").click()
    expect(page.locator("#coach-toggle")).to_contain_text("Coach on")


def follow_the_coach(page: Page, until, deadline_seconds=150, on_advice=None, or_shown=""):
    """At each of the player's turns wait for the advice and play the coach's first choice (or
    the only legal move); move past thrown-in hands. Stops when `until()` is true."""
    deadline = time.monotonic() + deadline_seconds
    while time.monotonic() < deadline:
        if until():
            return
        version = table_version(page)
        if page.get_by_text("Everyone passed").count():
            click_unless_swapped(page.locator("[data-next-deal]"))
        elif page.locator("#table.table-my-turn [data-action]").count():
            advice = advice_for_the_table_on_screen(page)
            if "best" in advice:
                if on_advice:
                    on_advice()
                best = advice["best"]
                click_unless_swapped(page.locator(f'#table [data-action][value="{best}"]'))
            elif "forced" in advice:
                click_unless_swapped(page.locator("#table [data-action]").first)
            # else the table moved on while the coach was thinking: look again.
        if until():
            return
        wait_for_the_table_to_move(page, version, or_shown)  # or what `until` waits for
    raise AssertionError("timed out")


def advice_for_the_table_on_screen(page: Page) -> dict:
    """Wait for the coach's panel of the position on screen and read it in the same instant:
    {"best": action}, {"forced": True}, or {"moved": True} when it is no longer our turn.

    A move posted over HTTP swaps in the next table before the socket brings its panel, so the
    last position's advice is on the page for a moment (hidden only once htmx has settled), and
    the panel may then be swapped for "thinking" under a locator that was about to read it."""
    handle = page.wait_for_function(
        """() => {
            const table = document.querySelector("#table");
            const panel = document.querySelector("#coach-panel");
            if (!table || !table.classList.contains("table-my-turn")) return {moved: true};
            if (!panel || panel.dataset.version !== table.dataset.version) return null;
            if (panel.classList.contains("coach-forced")) return {forced: true};
            const best = panel.querySelector(".coach-option.coach-best");
            return best ? {best: best.dataset.action} : null;
        }""",
        timeout=60_000,  # the advice is a search; on a loaded machine it takes a while
    )
    return handle.json_value()


def click_unless_swapped(locator):
    # The table may be swapped under the pointer (a newer one came); the caller looks again.
    with contextlib.suppress(PlaywrightTimeout):
        locator.click(timeout=2000)


def test_the_coach_ranks_the_options_with_figures_and_reviews_the_deal(site, page, screenshot):
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_up(page, site, "learner")
    start_house_match(page)
    screenshot("coach-off-desktop")
    switch_the_coach_on(page)

    seen = {"advice": 0}

    def check_advice():
        seen["advice"] += 1
        if page.locator('#table[data-phase="play"]').count() and not seen.get("card"):
            seen["card"] = True
            expect(page.locator("#coach-panel .coach-card").first).to_be_visible()
            screenshot("coach-card-advice-desktop")
        if seen["advice"] > 1:
            return
        panel = page.locator("#coach-panel")
        ranks = panel.locator(".coach-rank").all_inner_texts()
        assert ranks == [str(n) for n in range(1, len(ranks) + 1)] and len(ranks) >= 2
        expect(panel.locator(".coach-points").first).to_contain_text(
            re.compile(r"[−+]?\d\.\d\d net")  # a true minus sign; 0.00 has none
        )
        expect(panel.locator(".coach-figures").first).to_contain_text(re.compile(r"High \d+%"))
        expect(panel.locator(".coach-reason").first).not_to_be_empty()
        screenshot("coach-advice-desktop")
        assert_no_hidden_cards_in_page(page, "learner")

    review = page.locator("#coach-panel .coach-review")
    follow_the_coach(
        page,
        until=lambda: review.count() > 0,
        on_advice=check_advice,
        or_shown="#coach-panel .coach-review",
    )
    assert seen["advice"] >= 2
    expect(review).to_contain_text(re.compile(r"\d+% accuracy"))
    screenshot("coach-review-desktop")

    review.get_by_role("link", name="The whole review").click()
    expect(
        page.get_by_role("heading", name=re.compile("The coach's review of deal"))
    ).to_be_visible()
    expect(page.locator(".review-table")).to_be_visible()
    replay_links = page.locator(".review-table a", has_text="Replay")
    assert replay_links.count() >= 2
    assert re.fullmatch(r"/replay/matches/\d+/\d+/\d+/", replay_links.first.get_attribute("href"))
    screenshot("coach-review-page-desktop")


def test_the_coach_on_a_phone(site, page, screenshot):
    page.set_viewport_size({"width": 390, "height": 844})
    sign_up(page, site, "pocket")
    start_house_match(page)
    switch_the_coach_on(page)
    deadline = time.monotonic() + 90
    while not page.locator(BEST).count():
        assert time.monotonic() < deadline, "no advice"
        version = table_version(page)
        if page.get_by_text("Everyone passed").count():
            click_unless_swapped(page.locator("[data-next-deal]"))
        elif page.locator("#coach-panel.coach-forced").count():
            click_unless_swapped(page.locator("#table [data-action]").first)
        # The advice, or the next position (a bot's move, a deal, our forced move).
        page.wait_for_function(
            "([v, best]) => document.querySelector(best) || "
            "document.querySelector('#table')?.dataset.version !== v",
            arg=[version, BEST],
            timeout=60_000,
        )
    page.locator("#coach-panel").scroll_into_view_if_needed()
    screenshot("coach-advice-phone")
    # Switched off, the advice goes away at once, and the choice is remembered.
    page.get_by_label("Coach on").click()
    expect(page.locator("#coach-panel")).to_contain_text("Switch the coach on")
    page.reload()
    expect(page.locator("#coach-toggle")).to_contain_text("Coach off")
