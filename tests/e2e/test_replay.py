"""From a finished match a player opens a deal, steps through it by keyboard, shares a link to
one moment and downloads the record; another player imports that record and sees the same."""

import json
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.db import connections, transaction
from playwright.sync_api import Page, expect

from games.core import selectors
from tests.db import replays
from tests.db.replays import played_deals
from tests.e2e.conftest import SCREENSHOTS


def off_the_event_loop(play, *args, **kwargs):
    """Play through the services in a thread of its own (their on-commit pushes use async_to_sync,
    which refuses to run in this thread, where Playwright keeps its event loop), in one
    transaction, so that no bot task starts beside `play_until` until it is done."""

    def run():
        try:
            with transaction.atomic():
                return play(*args, **kwargs)
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result()


def log_in(page: Page, site: str, username: str, password: str):
    page.goto(site + "/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name=f"Hello, {username}!")).to_be_visible()


def at_step(page: Page, step: int):
    expect(page.locator("#replay")).to_have_attribute("data-step", str(step))
    expect(page).to_have_url(re.compile(rf"/{step}/$"))
    # The step is in the page's HTML before its scripts have run: a key pressed then is lost
    # (on a busy machine, five of six quick presses were), so the tests press keys only once
    # the page has loaded, as a person does after seeing it.
    page.wait_for_load_state("load")


def visible_moment(page: Page) -> dict:
    """What a person sees of a step: the caption, every hand, the trick and the points."""
    return {
        "caption": page.locator(".replay-caption").inner_text(),
        "hands": page.locator(".replay-seat").all_inner_texts(),
        "trick": page.locator(".trick .card-face").evaluate_all(
            "cards => cards.map(c => c.getAttribute('aria-label'))"
        ),
        "points": page.locator(".points-panel").inner_text(),
    }


def test_a_player_replays_shares_and_exports_and_another_imports_it(
    site, page, browser, make_user, password, screenshot
):
    alice = make_user("alice")
    make_user("bob")
    match = off_the_event_loop(replays.finish_match, alice, "house", seed=6)
    deal_row = played_deals(match)[0]
    last = deal_row.actions.count()

    page.set_viewport_size({"width": 1280, "height": 900})
    log_in(page, site, "alice", password)
    page.get_by_role("navigation").get_by_role("link", name="History").click()
    expect(page.locator(".history-item")).to_have_count(1)
    screenshot("replay-history-desktop")
    page.get_by_role("link", name=f"Match {match.pk}").click()
    page.get_by_role("link", name=f"Replay deal {deal_row.number}", exact=True).click()
    at_step(page, 0)

    # By keyboard: right, right, right; End; Home; left at the start does nothing.
    for step in (1, 2, 3):
        page.keyboard.press("ArrowRight")
        at_step(page, step)
    page.keyboard.press("End")
    at_step(page, last)
    expect(page.locator(".deal-end")).to_contain_text(re.compile("made it|set back"))
    screenshot("replay-last-step-desktop")
    page.keyboard.press("Home")
    at_step(page, 0)
    page.keyboard.press("ArrowLeft")
    at_step(page, 0)
    # Into the play: the address follows the step, so a reload opens the same moment.
    target = next(
        s for s in range(last) if selectors.deal_state(deal_row, upto=s).current_trick[1:]
    )
    for step in range(1, target + 1):
        page.keyboard.press("ArrowRight")
        at_step(page, step)
    expect(page).to_have_url(re.compile(rf"/{target}/$"))
    page.reload()
    at_step(page, target)
    state = selectors.deal_state(deal_row, upto=target)
    expect(page.locator(".trick .card-face")).to_have_count(len(state.current_trick))
    screenshot("replay-mid-trick-desktop")
    moment = visible_moment(page)

    # A link to this moment, for anyone; and the record, downloaded.
    page.get_by_role("button", name="Make a public link to this moment").click()
    link = page.get_by_label("Link to this moment").input_value()
    assert link.endswith(f"/{deal_row.number}/{target}/")
    with page.expect_download() as download:
        page.get_by_role("link", name="Download this deal").click()
    record_path = download.value.path()
    record = json.loads(Path(record_path).read_text())
    assert record["plays"] == selectors.deal_state(deal_row).plays

    guest = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    guest.goto(link)
    at_step(guest, target)
    assert visible_moment(guest)["trick"] == moment["trick"]
    assert visible_moment(guest)["hands"] == [h.replace(" (you)", "") for h in moment["hands"]]
    guest.keyboard.press("ArrowRight")
    at_step(guest, target + 1)
    screenshot_of(guest, "replay-shared-phone")
    guest.get_by_role("link", name=f"Match {match.pk}").click()
    expect(guest.locator(".deal-line")).to_have_count(match.deals.count())
    screenshot_of(guest, "replay-shared-match-phone")

    # Bob imports the file and sees the same replay.
    other = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    log_in(other, site, "bob", password)
    other.goto(site + "/replay/imports/")
    broken = {**record, "plays": record["plays"][1:]}
    other.get_by_label("…or paste the record").fill(json.dumps(broken))
    other.get_by_role("button", name="Watch it").click()
    expect(other.get_by_role("alert")).to_contain_text(re.compile(r"plays\[0\] \w\w by \w: "))
    screenshot_of(other, "replay-import-refused-desktop")
    other.get_by_label("…or paste the record").fill("")
    other.get_by_label("A record file (.json)").set_input_files(record_path)
    other.get_by_role("button", name="Watch it").click()
    at_step(other, 0)
    for _ in range(target):  # pressed faster than the steps arrive: they add up
        other.keyboard.press("ArrowRight")
    at_step(other, target)
    seen = visible_moment(other)
    assert seen["trick"] == moment["trick"] and seen["caption"] == moment["caption"]
    assert seen["hands"] == [h.replace(" (you)", "") for h in moment["hands"]]
    assert seen["points"] == moment["points"]


def screenshot_of(page: Page, name: str):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def disjoint(a: dict, b: dict) -> bool:
    return (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def boxes(locator) -> list[dict]:
    return [locator.nth(i).bounding_box() for i in range(locator.count())]


@pytest.mark.parametrize(
    ("rules", "name"),
    [
        ({"preset": "auction", "players": 7}, "seven"),
        ({"preset": "house", "six_players": True}, "six"),
        ("classic", "four"),
    ],
)
def test_every_hand_fits_on_the_felt_on_a_phone(site, page, user, password, rules, name):
    match = off_the_event_loop(replays.play_deals, user, rules, played=1, seed=2)
    deal_row = played_deals(match)[0]
    seats = len(selectors.rules_of(match).seats)
    page.set_viewport_size({"width": 390, "height": 844})
    log_in(page, site, "alice", password)
    page.goto(f"{site}/replay/matches/{match.pk}/{deal_row.number}/0/")
    at_step(page, 0)
    screenshot_of(page, f"replay-{name}-players-phone")
    felt = page.locator(".replay-felt").bounding_box()
    hands = page.locator(".replay-seat")
    expect(hands).to_have_count(seats)
    seat_boxes = boxes(hands)
    for box in seat_boxes:
        assert (
            felt["x"] - 1 <= box["x"] and box["x"] + box["width"] <= felt["x"] + felt["width"] + 1
        )
        assert (
            felt["y"] - 1 <= box["y"] and box["y"] + box["height"] <= felt["y"] + felt["height"] + 1
        )
    for i, a in enumerate(seat_boxes):
        for b in seat_boxes[i + 1 :]:
            assert disjoint(a, b), (a, b)

    # The fullest trick of the first round: every card on the felt, clear of every hand.
    full = next(
        s
        for s in range(deal_row.actions.count())
        if len(selectors.deal_state(deal_row, upto=s).current_trick) == seats - 1
    )
    page.goto(f"{site}/replay/matches/{match.pk}/{deal_row.number}/{full}/")
    at_step(page, full)
    cards = page.locator(".trick .card-face")
    expect(cards).to_have_count(seats - 1)
    screenshot_of(page, f"replay-{name}-players-trick-phone")
    for card in boxes(cards):
        for seat in boxes(hands):
            assert disjoint(card, seat), (card, seat)
