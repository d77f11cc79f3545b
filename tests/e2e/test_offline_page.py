"""Play on without a network: the offline page, loaded once online, plays a whole deal with the
network cut and its server stopped, and the deal comes home to History once both are back.

The site is served by a Daphne process of this test's own (the shared one of the other browser
tests must not be stopped), on a port that stays the same when it starts again: the page's
service worker, its cache and its stored deals belong to that origin.
"""

import multiprocessing
import socket
from functools import partial

import pytest
from channels.testing.live import make_application, set_database_connection
from daphne.testing import DaphneProcess
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from playwright.sync_api import Page, expect

from .test_play_a_deal import sign_up, table_version, wait_for_the_table_to_move

TABLE_OR_RESULT = (
    "() => { const t = document.querySelector('#table');"
    " return t && t.dataset.version && (t.querySelector('.deal-result') || t.classList.contains('table-my-turn')); }"
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def serve(port: int):
    multiprocessing.set_start_method("spawn", force=True)
    server = DaphneProcess(
        "127.0.0.1",
        partial(make_application, static_wrapper=ASGIStaticFilesHandler),
        setup=set_database_connection,
        port=port,
    )
    server.start()
    if not server.ready.wait(timeout=60):
        server.terminate()
        raise RuntimeError("Daphne did not start")
    return server


def stop(server) -> None:
    server.terminate()
    server.join(timeout=10)


@pytest.fixture
def own_site(transactional_db):
    """A site of this test's own, which the test stops and starts again on the same port."""
    port = free_port()
    servers = [serve(port)]

    class Site:
        url = f"http://127.0.0.1:{port}"

        def stop(self):
            stop(servers[-1])

        def start(self):
            servers.append(serve(port))

    yield Site()
    for server in servers:
        if server.is_alive():
            stop(server)


# Resolves once a service worker controls the page.
IN_CHARGE = """async () => {
  if (navigator.serviceWorker.controller) return true;
  await new Promise((resolve) =>
    navigator.serviceWorker.addEventListener("controllerchange", resolve, { once: true }));
  return true;
}"""


def play_to_the_end_of_the_deal(page: Page, coach_seen: list, screenshot):
    """Act at each of the person's turns (the first legal action; two cards when two must be
    thrown) until the deal's result is on the table. The bots move by themselves."""
    keys = 0
    for _ in range(200):
        page.wait_for_function(TABLE_OR_RESULT, timeout=60_000)
        if page.locator("#table .deal-result").count():
            if not page.get_by_text("Everyone passed").count():
                return
            # A hand everyone passed is dealt again by itself: play the next one.
            version = table_version(page)
            wait_for_the_table_to_move(page, version, timeout=60_000)
            continue
        version = table_version(page)
        # The coach is on: wait for its panel of this very position, then play.
        page.wait_for_function(
            "v => { const p = document.querySelector('#coach-panel');"
            " return p.dataset.version === v && !p.classList.contains('coach-thinking'); }",
            arg=version,
            timeout=60_000,
        )
        if page.locator("#coach-panel.coach-advice .coach-figures li").count():
            coach_seen.append(page.locator("#coach-panel .coach-option").count())
            if len(coach_seen) == 1:
                # Ranked by net points, as the online coach ranks (issue 44).
                expect(page.locator("#coach-panel .coach-points").first).to_contain_text("net")
                screenshot("offline-coach-no-network")
        discard = page.locator("#table .discard-form")
        if discard.count():
            exact = int(discard.get_attribute("data-discard-exact") or 0)
            for box in page.locator("#table .discard-form [data-action]").all()[:exact]:
                box.check()
            page.locator("#table [data-discard-submit]").click()
        elif keys < 2:
            # Keys as on the live table (js/table.js): 1 acts with the first legal action.
            page.keyboard.press("1")
            keys += 1
        else:
            page.locator("#table [data-action]").first.click()
        wait_for_the_table_to_move(page, version, timeout=60_000)
    raise AssertionError("the deal did not end")


def test_the_offline_page_plays_a_whole_deal_with_the_network_cut_and_the_deal_comes_home(
    own_site, page: Page, screenshot
):
    sign_up(page, own_site.url, "traveller")
    # pace=0: the bots move at once (the page waits 0.7 s before each, for people to follow).
    page.goto(own_site.url + "/offline/?pace=0")
    expect(page.locator("[data-engine-state]")).to_contain_text("Engine ready", timeout=90_000)
    page.evaluate(IN_CHARGE)
    page.get_by_label("Rules").select_option("house")
    page.get_by_label("Computer players").select_option("medium")
    page.get_by_role("button", name="Deal me in").click()
    expect(page.locator("#table .scoreboard")).to_be_visible()
    page.get_by_label("Coach off").click()
    expect(page.locator("[data-coach-label]")).to_have_text("Coach on")

    # The network goes, and the server with it; the page is reloaded from its cache.
    page.context.set_offline(True)
    own_site.stop()
    page.reload()
    expect(page.locator("[data-net]")).to_contain_text("Offline")
    expect(page.locator("#table .scoreboard")).to_be_visible(timeout=30_000)
    expect(page.locator("#table .chip", has_text="Deal 1")).to_be_visible()
    coach_seen: list = []
    play_to_the_end_of_the_deal(page, coach_seen, screenshot)
    expect(page.locator("#table .deal-result")).to_be_visible()
    assert coach_seen, "the coach never showed its options at the person's turn"
    # The person's seat goes by their name, as on the live table (issue 44).
    expect(page.locator("#table .me-line .seat-name")).to_contain_text("traveller (you)")
    expect(page.locator("[data-outbox-item]").first).to_have_attribute("data-status", "waiting")
    # The page's own socket (/ws/me/) has failed all along: no table socket was lost, and the
    # offline table says so by saying nothing of a lost connection.
    expect(page.locator("#socket-reconnecting")).to_have_count(0)
    screenshot("offline-deal-over-no-network")

    # Back online: the deal goes home, is checked, and is in History, marked, and replays.
    own_site.start()
    page.context.set_offline(False)
    expect(page.locator("[data-outbox-item]").first).to_have_attribute(
        "data-status", "accepted", timeout=120_000
    )
    screenshot("offline-deal-home")
    page.locator("[data-outbox-item] a", has_text="Replay").first.click()
    expect(page.locator("#replay")).to_be_visible()
    expect(page.locator("[data-offline-mark]")).to_have_text("Played offline")
    page.goto(own_site.url + "/history/")
    expect(page.locator(".history-item .outcome-offline")).to_have_text("Played offline")
    screenshot("offline-history")


def test_with_no_network_the_menus_links_open_the_page_saying_what_works_offline(
    site, page: Page, screenshot
):
    """Issue 44: once the offline page has been opened, a page of the site the network cannot
    bring is answered by its service worker, not with the browser's own error page."""
    sign_up(page, site, "walker")
    page.goto(site + "/offline/")
    # Not wait_for_function: its string is evaluated in the page, which the site's CSP refuses.
    page.evaluate(IN_CHARGE)
    expect(page.locator("#offline-app")).to_have_attribute("data-player", "walker")
    page.context.set_offline(True)
    try:
        page.get_by_role("navigation", name="Main").get_by_role("link", name="Lobby").click()
        expect(page.get_by_role("heading", name="This page needs the network")).to_be_visible()
        assert page.url == site + "/lobby/"  # the address asked for: "Try again" reloads it
        screenshot("offline-menu-no-network")
        page.locator("[data-offline-link]").click()
        expect(page.locator("[data-net]")).to_contain_text("Offline")
    finally:
        page.context.set_offline(False)
