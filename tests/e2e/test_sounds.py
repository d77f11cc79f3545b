"""The table's sounds (issue 50, static/js/sounds.js). What a page played is read from the list
sounds.js keeps (window.setbackSounds: `heard`, every sound the table asked for; `played`, those
that made one), not from the speakers: a turn sounds when unmuted, and not when muted or while
the tab is hidden; the mute switch and the volume are kept on the account, so a reload and the
account page show them, and in the browser for the offline page."""

from playwright.sync_api import Page, expect

from accounts.models import User

from .test_card_table import my_turn_or_next, start_match
from .test_play_a_deal import sign_up

HEARD = "() => window.setbackSounds.heard.slice()"
PLAYED = "() => window.setbackSounds.played.slice()"
MOVES = "#table [data-action]:not([data-unarmed]):not([data-claim])"


def play_on(page: Page, until):
    """Press a move whenever it is the player's turn until `until()` (never "Claim the rest",
    which may be refused and leave the turn as it was)."""
    try:
        my_turn_or_next(
            page, lambda: page.locator(MOVES).last.click(timeout=2000), until, deadline_seconds=40
        )
    except AssertionError:
        state = page.evaluate(
            "() => [document.getElementById('table').outerHTML.slice(0, 300),"
            " window.setbackSounds.heard, window.setbackSounds.played]"
        )
        raise AssertionError(f"the sounds never came: {state}") from None


def turns_heard(page: Page) -> int:
    return page.evaluate(HEARD).count("turn")


def switch_mute(page: Page):
    """Click the mute switch and wait until the account has the change."""
    page.locator("[data-sound-mute]").click()
    expect(page.locator("[data-sound-saved]")).to_have_text("Saved")


def test_a_turn_sounds_unless_muted_or_hidden_and_the_switch_is_remembered(site, page):
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_up(page, site, "listener")
    start_match(page, site)
    form = page.locator("[data-sound-form]")
    expect(form.locator("[data-sound-mute]")).not_to_be_checked()
    # The first click on the page starts the browser's audio; "Try" plays the turn's chime.
    form.locator("[data-sound-try]").click()
    page.wait_for_function("() => window.setbackSounds.played.includes('try')")

    # Unmuted and in view: the player's turn sounds, the cards on the felt snap, each trick
    # taken and the deal's end have theirs.
    def a_whole_deal_played():
        played = set(page.evaluate(PLAYED))
        return {"turn", "card", "deal"} <= played and bool({"trick-ours", "trick-theirs"} & played)

    play_on(page, until=a_whole_deal_played)

    # Muted: the turns still come, silently.
    switch_mute(page)
    played, turns = len(page.evaluate(PLAYED)), turns_heard(page)
    play_on(page, until=lambda: turns_heard(page) > turns)
    assert len(page.evaluate(PLAYED)) == played
    assert User.objects.get(username="listener").sound_muted

    # Remembered: after a reload the switch is still on, and the account page shows it.
    page.reload()
    expect(page.locator("#table[data-deal]")).to_be_visible()
    expect(page.locator("[data-sound-mute]")).to_be_checked()
    assert page.evaluate("() => window.setbackSounds.settings().muted") is True
    table_url = page.url
    page.goto(site + "/accounts/")
    expect(page.locator("[data-sound-mute]")).to_be_checked()

    # Unmuted again but the tab hidden: nothing plays.
    page.goto(table_url)
    expect(page.locator("#table[data-deal]")).to_be_visible()
    switch_mute(page)  # off; also the click that starts the audio on this page
    assert page.evaluate("() => window.setbackSounds.settings().muted") is False
    page.evaluate(
        "() => { Object.defineProperty(document, 'visibilityState', "
        "{ configurable: true, get: () => 'hidden' });"
        " document.dispatchEvent(new Event('visibilitychange')); }"
    )
    turns = turns_heard(page)
    play_on(page, until=lambda: turns_heard(page) > turns)
    assert page.evaluate(PLAYED) == []
    assert not User.objects.get(username="listener").sound_muted

    # The volume too; and the offline page, whose kept copy of the page may be old, reads the
    # browser's copy of the setting.
    page.locator("[data-sound-volume-input]").fill("40")
    expect(page.locator("[data-sound-saved]")).to_have_text("Saved")
    assert User.objects.get(username="listener").sound_volume == 40
    page.goto(site + "/offline/?pace=0")
    assert page.evaluate("() => window.setbackSounds.settings()") == {"muted": False, "volume": 40}


def test_a_chat_line_from_someone_else_sounds(site, browser):
    alice_context, bob_context = browser.new_context(), browser.new_context()
    alice, bob = alice_context.new_page(), bob_context.new_page()
    sign_up(alice, site, "alice")
    sign_up(bob, site, "bob")
    alice.get_by_role("button", name="Create a table").click()
    bob.get_by_label("Join by code").fill(alice.locator("[data-invite-code]").inner_text())
    bob.get_by_role("button", name="Join").click()
    for page in (alice, bob):
        expect(page.locator("#chat-log")).to_be_visible()
        page.locator("[data-sound-try]").click()  # the click that starts the page's audio
        page.wait_for_function("() => window.setbackSounds.played.includes('try')")
    alice.locator("#chat-text").fill("Evening all")
    alice.get_by_role("button", name="Send").click()
    expect(bob.locator("#chat-log")).to_contain_text("alice Evening all")
    bob.wait_for_function("() => window.setbackSounds.played.includes('chat')")
    expect(alice.locator("#chat-log")).to_contain_text("Evening all")
    assert "chat" not in alice.evaluate(HEARD)  # one's own line is no news
    alice_context.close()
    bob_context.close()
