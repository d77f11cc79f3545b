"""Three people play the day's first deal in Chromium against the hard bots, each in a browser of
their own; each sees the field only once their own play is over, and then everyone's results."""

import re
import time

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from games.daily.services import today
from games.models import Match
from tests.hidden import leaks

from .test_replay import log_in

pytestmark = pytest.mark.browser

OVER_TEXT = "See how the others played it"
OVER = f"#daily-panel a:has-text('{OVER_TEXT}')"


def play_the_deal(page: Page, deadline_seconds: float = 180) -> None:
    """Click the first offered call or card at each of our turns until the deal is over."""
    deadline = time.monotonic() + deadline_seconds
    refusals: list[str] = []
    while time.monotonic() < deadline:
        if page.locator(OVER).count():
            return
        version = page.locator("#table").get_attribute("data-version")
        if page.locator("#table.table-my-turn [data-action]").count():
            try:
                page.locator("#table [data-action]").first.click(timeout=2000)
            except PlaywrightTimeout:
                continue  # the table was swapped under the pointer: look again
        # The table moves on, the deal ends, or the move is refused with the reason on the
        # table (a click that raced a swap of the table): then look again, as a person would.
        try:
            page.wait_for_function(
                "([v, over]) => [...document.querySelectorAll('#daily-panel a')]"
                ".some((link) => link.textContent.includes(over))"
                " || document.querySelector('#table .table-error')"
                " || document.querySelector('#table').dataset.version !== v",
                arg=[version, OVER_TEXT],
                timeout=60_000,
            )
        except PlaywrightTimeout:
            raise AssertionError(_stuck(page, version)) from None
        refused = page.locator("#table .table-error")
        if refused.count():
            refusals.append(refused.first.inner_text())
            if len(refusals) > 3:
                raise AssertionError(f"moves refused again and again: {refusals}")
            page.reload()  # the table afresh, without the reason on it
            expect(page.locator("#table")).to_be_visible()
    raise AssertionError("the daily deal did not end in time")


def _stuck(page: Page, version: str) -> str:
    """What a table that did not move for a minute shows, beside what the database holds."""
    match_id = int(re.search(r"/matches/(\d+)/", page.url).group(1))
    match = Match.objects.get(pk=match_id)
    deal = match.deals.order_by("-number").first()
    table = page.locator("#table")
    return (
        f"the table showed version {version} for a minute ({table.get_attribute('class')}); "
        f"the database: match version {match.version}, {deal.steps} steps, to act "
        f"{deal.to_act!r}, phase {deal.phase}"
    )


def test_three_people_play_the_day_s_first_deal(site, browser, make_user, password):
    people = ["ada", "ben", "cleo"]
    for name in people:
        make_user(name)
    pages = {}
    for name in people:
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        log_in(page, site, name, password)
        page.goto(site + "/daily/")
        page.get_by_role("button", name="Play").first.click()
        expect(page.locator("#table")).to_be_visible()
        expect(page.locator("#daily-panel")).to_contain_text("Daily deal 1 of")
        pages[name] = page
    day = today().isoformat()
    deal_url = f"{site}/daily/{day}/1/"
    for name in people[:2]:
        page = pages[name]
        match = Match.objects.get(seats__user__username=name)
        assert not leaks(page.content(), match, "S")  # only South's own hand before the end
        play_the_deal(page)
    # cleo has not finished: the field is hidden from her, even by its address.
    peek = pages["cleo"].context.new_page()
    assert peek.goto(deal_url).status == 404
    peek.close()
    play_the_deal(pages["cleo"])
    for name in people:
        page = pages[name]
        page.goto(deal_url)
        # Compared with the two others only, by net points, and the matchpoints explained.
        expect(page.locator("#my-result")).to_contain_text(
            re.compile(r"points? net \(.+\): \d+% against 2 other results")
        )
        expect(page.locator("#matchpoints-explained")).to_contain_text("1 matchpoint")
        expect(page.locator("#field-results thead")).to_contain_text("Net")
        expect(page.locator("#field-results tbody tr").first).to_be_visible()
        others = [other for other in people if other != name]
        for other in others:
            expect(page.locator("#field-plays")).to_contain_text(other)
    page = pages["ada"]
    page.locator("#field-plays a").first.click()
    expect(page.locator("#replay")).to_be_visible()
    page.goto(site + "/daily/")
    expect(page.locator(".daily-table")).to_contain_text("cleo")
    expect(page.locator("#share-line")).to_have_value(
        re.compile(rf"Setback daily {day}: (\d/1 made, )?\d+%$")
    )
