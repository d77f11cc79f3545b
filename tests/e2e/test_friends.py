"""Two people become friends, see each other come online, and one invites the other to a
forming table: the bell rings on the other's page without a reload, "Join" from the
notifications takes them to the table, where they sit, and the two play a deal to its end."""

import contextlib
import re
import time

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .test_play_a_deal import sign_up, table_version, wait_for_the_table_to_move
from .test_play_with_people import fill_with_easy_bots_and_start, no_leaks, shot

SCORED = re.compile(r"made it|set back")


def play_a_deal_together(people: dict[str, Page], deadline_seconds: float = 150) -> None:
    """Each person makes the first legal move whenever it is their turn (a hand everyone passed
    is dealt again), until every page shows the deal scored. No page ever holds another's hand."""
    first = next(iter(people.values()))
    deadline = time.monotonic() + deadline_seconds
    while time.monotonic() < deadline:
        version = table_version(first)
        for name, page in people.items():
            no_leaks(page, name)
        if all(p.locator(".deal-result").get_by_text(SCORED).count() for p in people.values()):
            return
        for page in people.values():
            try:
                if page.locator("#table.table-my-turn [data-action]").count():
                    # Pressed once armed, as a person presses it (static/js/table.js).
                    page.locator("#table [data-action]:not([data-unarmed])").first.click(
                        timeout=2000
                    )
                elif page.get_by_text("Everyone passed").count():
                    page.locator("[data-next-deal]:not([data-unarmed])").click(timeout=2000)
            except PlaywrightTimeout:
                pass  # the table was swapped under the pointer; look again
        # Every move shows on the first page; a turn that reached another page while this one
        # waited is looked at again after a short wait for a move, not a fixed pause.
        with contextlib.suppress(PlaywrightTimeout):
            wait_for_the_table_to_move(first, version, timeout=5000)
    raise AssertionError("the people did not finish a deal in time")


pytestmark = pytest.mark.browser


def test_friends_see_each_other_and_join_a_table_from_the_bell(site, browser):
    alice_ctx, bob_ctx = browser.new_context(), browser.new_context()
    alice, bob = alice_ctx.new_page(), bob_ctx.new_page()
    alice.set_viewport_size({"width": 1280, "height": 900})
    bob.set_viewport_size({"width": 390, "height": 844})
    sign_up(alice, site, "alice")
    sign_up(bob, site, "bob")

    # Alice asks bob by name; bob's bell counts it without a reload.
    alice.goto(site + "/friends/")
    alice.get_by_label("Player's name").fill("bob")
    alice.locator("[data-ask-friend]").click()
    expect(alice.get_by_text("Your request is on its way.")).to_be_visible()
    expect(bob.locator("#bell-count")).to_have_text("1")
    bob.goto(site + "/friends/")
    bob.locator('[data-request-from="alice"] [data-accept]').click()
    # Each sees the other online: alice's list is redrawn live, as she sits on her page.
    expect(bob.locator('[data-friend="alice"][data-online="1"]')).to_be_visible()
    expect(alice.locator('[data-friend="bob"][data-online="1"]')).to_be_visible()
    shot(bob, "friends-online-390")
    shot(alice, "friends-online-1280")

    # Bob's page closes; alice sees him go, live.
    bob.goto("about:blank")
    expect(alice.locator('[data-friend="bob"][data-online="0"]')).to_be_visible()
    bob.goto(site + "/")

    # Alice creates a table and invites bob in one click; bob's bell rings.
    alice.goto(site + "/")
    alice.get_by_role("button", name="Create a table").click()
    expect(alice.locator("[data-invite-code]")).to_be_visible()
    alice.locator('[data-invite-friend="bob"]').click()
    expect(alice.get_by_text("bob is invited.")).to_be_visible()
    expect(bob.locator("#bell-count")).to_have_text(re.compile(r"[1-9]"))
    bob.locator("[data-bell]").click()
    expect(bob.get_by_text("alice invites you to table")).to_be_visible()
    shot(bob, "friends-bell-390")
    bob.locator('[data-notification="table_invite"] [data-open-notification]').click()
    bob.locator('[data-sit="W"]').click()
    expect(alice.locator('.forming-seat[data-seat="W"]')).to_contain_text("bob")
    expect(alice.locator('[data-invite-row="bob"]')).to_be_hidden()  # he sits: not offered
    expect(alice.get_by_text("Your friends here are all at the table.")).to_be_visible()
    expect(bob.locator('[data-invite-row="alice"]')).to_have_count(0)  # nor the host to him
    expect(bob.locator("#bell-count")).to_have_text("")  # read on the way in
    shot(alice, "friends-joined-1280")

    # Alice fills the other seats with bots and starts; the two friends play a deal to its end.
    fill_with_easy_bots_and_start(alice, [alice, bob])
    expect(bob.locator('.seat[data-seat="S"]')).to_contain_text("alice")
    play_a_deal_together({"alice": alice, "bob": bob})
    for page in (alice, bob):
        expect(page.locator(".deal-result .points-table")).to_be_visible()
    expect(bob.locator("#invite-friends")).to_be_hidden()  # the match is on
    shot(bob, "friends-deal-played-390")
    alice_ctx.close()
    bob_ctx.close()
