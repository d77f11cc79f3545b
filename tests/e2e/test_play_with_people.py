"""Two people at one table from an invite code, bots in the other seats, in two browser
contexts. Neither page ever holds the other's hand, and when one closes the tab the match goes
on: a stand-in bot plays their turns."""

import re
import time

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from games.core import turns
from games.models import Action, Match
from tests.hidden import leaks

from .conftest import SCREENSHOTS
from .test_play_a_deal import sign_up, table_version, wait_for_the_table_to_move


def shot(page: Page, name: str):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def no_leaks(page: Page, username: str):
    html = page.content()
    if 'data-deal="' not in html:
        return
    match = Match.objects.get(seats__user__username=username)
    seat = match.seats.get(user__username=username).position
    assert not leaks(html, match, seat), f"{username}'s page holds hidden cards"


def take_turn(page: Page) -> bool:
    """If it is this page's turn, make the first legal move (or deal the next hand)."""
    try:
        # Pressed once armed, as a person presses it: the click guard ignores a press on a
        # control that has not been on screen and still for its moment (static/js/table.js).
        if page.locator("#table.table-my-turn [data-action]").count():
            page.locator("#table [data-action]:not([data-unarmed])").first.click(timeout=2000)
            return True
        if page.locator("[data-next-deal]").count():
            page.locator("[data-next-deal]:not([data-unarmed])").click(timeout=2000)
            return True
    except PlaywrightTimeout:
        pass  # the table was swapped under the pointer (a newer one came); look again
    return False


def fill_with_easy_bots_and_start(host: Page, pages: list[Page], free=("N", "E")) -> None:
    """The host fills the two free seats with easy bots and starts; every page gets the game."""
    host.get_by_label(re.compile(f"Fill {len(free)} empty seats with")).select_option("easy")
    host.locator("[data-fill-bots]").click()
    # Both bots on her screen before Start: a click on a button that a live update is replacing
    # is lost, as a person's would be.
    for seat in free:
        expect(host.locator(f'.forming-seat[data-seat="{seat}"]')).to_contain_text("Bot (easy)")
    host.locator("[data-start]").click()
    for page in pages:
        expect(page.locator("#table[data-deal]")).to_be_visible(timeout=30_000)


def step_of(page: Page) -> tuple[int, int]:
    table = page.locator("#table")
    return int(table.get_attribute("data-deal") or 0), int(table.get_attribute("data-step") or 0)


@pytest.mark.real_services  # the browser smoke test of CI's second pass
def test_two_people_play_with_bots_and_the_match_survives_a_closed_tab(site, browser):
    alice_ctx, bob_ctx = browser.new_context(), browser.new_context()
    alice, bob = alice_ctx.new_page(), bob_ctx.new_page()
    for page in (alice, bob):
        page.set_viewport_size({"width": 1280, "height": 900})
    sign_up(alice, site, "alice")
    sign_up(bob, site, "bob")

    # Alice creates a table with a short turn timeout.
    alice.get_by_label("Game at the table").select_option("house")
    alice.get_by_text("Table options").click()
    alice.get_by_label("Seconds before a bot plays for an absent player").fill("5")
    alice.get_by_role("button", name="Create a table").click()
    code = alice.locator("[data-invite-code]").inner_text()
    assert re.fullmatch(r"[A-Z0-9]{6}", code)

    # Bob joins by the code and takes West; alice's page shows him at once.
    bob.get_by_label("Join by code").fill(code.lower())
    bob.get_by_role("button", name="Join").click()
    expect(bob.get_by_text("Partners: North & South")).to_be_visible()
    bob.locator('[data-sit="W"]').click()
    expect(alice.locator('.forming-seat[data-seat="W"]')).to_contain_text("bob")
    expect(alice.locator('.forming-seat[data-seat="W"] .presence-on')).to_be_visible()
    shot(alice, "people-forming-table")

    # The host fills the empty seats with easy bots and starts: both pages get the game.
    fill_with_easy_bots_and_start(alice, [alice, bob])
    expect(alice.locator('.seat[data-seat="W"]')).to_contain_text("bob")
    expect(bob.locator('.seat[data-seat="S"]')).to_contain_text("alice")

    # A chat line reaches the other screen at once, as text.
    alice.get_by_label("Message").fill("good luck <b>bob</b>")
    alice.get_by_role("button", name="Send").click()
    expect(bob.locator("#chat-log")).to_contain_text("good luck <b>bob</b>")
    expect(bob.locator("[data-leave]")).to_be_visible()

    # Both play, checking that neither page ever holds the other's hand.
    shots_taken = False
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        version = table_version(alice)
        for page, name in ((alice, "alice"), (bob, "bob")):
            no_leaks(page, name)
            take_turn(page)
        by_bob = Action.objects.filter(seat="W", user__username="bob").count()
        if by_bob >= 3 and not shots_taken:
            shot(bob, "people-table-bob")
            shot(alice, "people-table-alice")
            shots_taken = True
        if by_bob >= 6:
            break
        wait_for_the_table_to_move(alice, version)  # every move shows on alice's screen
    else:
        raise AssertionError("bob did not get to play")
    assert Match.objects.get().status == Match.Status.PLAYING

    # Bob closes his tab. Alice sees him away, and a stand-in bot plays his turns.
    bob.close()
    expect(alice.locator('.seat[data-seat="W"] .presence-off')).to_be_visible(timeout=30_000)
    start = step_of(alice)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        version = table_version(alice)
        no_leaks(alice, "alice")
        take_turn(alice)
        stand_ins = Action.objects.filter(seat="W", user__isnull=True).exclude(bot_level="").count()
        if stand_ins >= 3 and step_of(alice) > start:
            break
        wait_for_the_table_to_move(alice, version)
    else:
        match = Match.objects.get()
        raise AssertionError(
            f"the match did not go on after bob closed his tab: {turns.waiting_on(match.pk)}, "
            f"{list(Action.objects.filter(seat='W').values_list('user', 'bot_level'))}, "
            f"{list(match.seats.values_list('position', 'connections'))}, {step_of(alice)} from {start}"
        )
    match = Match.objects.get()
    assert match.seats.get(position="W").user.username == "bob"  # still his seat
    shot(alice, "people-table-after-bob-left")
    alice_ctx.close()
    bob_ctx.close()
