"""Two people become friends, see each other come online, and one invites the other to a
forming table: the bell rings on the other's page without a reload, and "Join" from the
notifications takes them to the table, where they sit."""

import re

import pytest
from playwright.sync_api import expect

from .test_play_a_deal import sign_up
from .test_play_with_people import shot

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
    expect(bob.locator("#bell-count")).to_have_text("")  # read on the way in
    shot(alice, "friends-joined-1280")
