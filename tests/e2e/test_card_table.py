"""The table behaves like a card table: refusals appear in place and in the site's words and
leave the table working, a completed trick stays in view with its winner named, people chat
while a table forms, an invite survives signing up, and no page is wider than the window."""

import re
import time

from playwright.sync_api import Page, expect

from games.models import Match
from tests.db import replays

from .test_play_a_deal import sign_up
from .test_play_with_people import shot
from .test_replay import log_in, off_the_event_loop

STALE = "The table moved on before your move arrived"


def table_still_works(page: Page):
    """The page is still the whole site (header, styles, the live table), not a bare fragment."""
    expect(page.locator("header.site-header")).to_be_visible()
    expect(page.locator("#table")).to_be_visible()
    assert (
        page.evaluate("getComputedStyle(document.body).marginTop") == "0px"
    )  # the stylesheet is there


def my_turn_or_next(page: Page, act, until, deadline_seconds=120):
    """Act whenever it is the player's turn (deal on after a thrown-in hand) until `until()`."""
    deadline = time.monotonic() + deadline_seconds
    while time.monotonic() < deadline:
        if until():
            return
        try:
            if page.locator("[data-next-deal]").count():
                page.locator("[data-next-deal]").click(timeout=2000)
            elif page.locator("#table.table-my-turn [data-action]").count():
                act()
        except Exception:  # noqa: BLE001 - the table was swapped under the pointer; look again
            pass
        page.wait_for_timeout(100)
    raise AssertionError("the table never got there")


def start_match(page: Page, site: str, seating: str = ""):
    page.goto(site + "/")
    if seating:
        page.locator(".new-match-form summary").click()
        page.locator("#id_seating").select_option(seating)
    page.get_by_role("button", name="Deal me in").click()
    expect(page.locator("#table[data-deal]")).to_be_visible()


def test_a_refused_discard_and_a_stale_move_are_shown_in_place(site, page):
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_up(page, site, "sixer")
    start_match(page, site, "six")

    def first_action():
        page.locator("#table [data-action]").first.click(timeout=2000)

    my_turn_or_next(
        page, first_action, lambda: page.locator("#table.table-my-turn .discard-form").count() > 0
    )
    form = page.locator(".discard-form")
    expect(form.locator("[data-discard-count]")).to_have_text("0 of 2 chosen")
    expect(form.locator("[data-discard-submit]")).to_be_disabled()
    # A click with nothing chosen (the button forced on, as a script-less or racing click would):
    # refused in the site's words, in place; the page stays whole.
    page.evaluate("document.querySelector('[data-discard-submit]').disabled = false")
    form.locator("[data-discard-submit]").click()
    expect(page.locator(".table-error")).to_have_text(
        "Choose exactly two cards to discard (you chose 0)."
    )
    table_still_works(page)
    assert "discard:" not in page.locator("body").inner_text()

    boxes = page.locator('.discard-form input[name="cards"]')
    boxes.nth(0).check(force=True)
    expect(page.locator("[data-discard-count]")).to_have_text("1 of 2 chosen")
    boxes.nth(1).check(force=True)
    expect(page.locator("[data-discard-count]")).to_have_text("2 of 2 chosen")
    page.locator("[data-discard-submit]").click()
    expect(page.locator(".table-error")).to_have_count(0)
    expect(page.locator(".discard-form")).to_have_count(0)

    # A move made on a position the table has left: the page's version is out of date.
    my_turn_or_next(
        page, lambda: None, lambda: page.locator("#table.table-my-turn [data-card]").count() > 0
    )
    page.evaluate(
        "document.querySelectorAll('#table input[name=version]').forEach(i => i.value = '1')"
    )
    page.locator("#table [data-card]").first.click()
    expect(page.locator(".table-error")).to_contain_text(STALE)
    table_still_works(page)
    # The refusal brought the latest table: the next click plays.
    step = int(page.locator("#table").get_attribute("data-step"))
    page.locator("#table [data-card]").first.click()
    expect(page.locator(".table-error")).to_have_count(0)
    expect(page.locator("#table")).not_to_have_attribute("data-step", str(step))


def test_a_completed_trick_stays_in_view_with_its_winner(site, page):
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_up(page, site, "watcher")
    start_match(page, site)

    def first_action():
        page.locator("#table [data-action]").first.click(timeout=2000)

    winner = page.locator(".trick-done [data-trick-winner]")
    my_turn_or_next(page, first_action, lambda: winner.is_visible())
    expect(winner).to_have_text(re.compile(r"^(You take|(North|East|West) takes) the trick$"))
    done = page.locator(".trick-done")
    # Every card of the trick is on the felt, and one of them is marked as the winner.
    expect(done.locator(".trick-card")).to_have_count(4)
    expect(done.locator(".trick-won")).to_have_count(1)
    # The last-trick panel names who played what.
    panel = page.locator("#last-trick-panel")
    expect(panel.locator("li")).to_have_count(4)
    expect(panel.locator(".last-trick-won")).to_contain_text(winner.inner_text().split(" take")[0])


def test_people_chat_while_the_table_forms(site, browser):
    alice_ctx, bob_ctx = browser.new_context(), browser.new_context()
    alice, bob = alice_ctx.new_page(), bob_ctx.new_page()
    sign_up(alice, site, "alice")
    sign_up(bob, site, "bob")
    alice.get_by_role("button", name="Create a table").click()
    code = alice.locator("[data-invite-code]").inner_text()
    bob.get_by_label("Join by code").fill(code)
    bob.get_by_role("button", name="Join").click()
    bob.locator("[data-take-seat]").click()
    expect(alice.locator(".forming-seat", has_text="bob")).to_be_visible()

    # An empty message is refused in place; the page stays whole and the chat keeps working.
    alice.locator("#chat-text").fill("   ")
    alice.get_by_role("button", name="Send").click()
    expect(alice.locator("#chat-form .field-error")).to_have_text("Write something first.")
    table_still_works_forming(alice)

    alice.locator("#chat-text").fill("Who wants North?")
    alice.get_by_role("button", name="Send").click()
    expect(alice.locator("#chat-log")).to_contain_text("Who wants North?")
    expect(bob.locator("#chat-log")).to_contain_text("alice Who wants North?")
    bob.locator("#chat-text").fill("Not me")
    bob.get_by_role("button", name="Send").click()
    expect(alice.locator("#chat-log")).to_contain_text("bob Not me")
    assert Match.objects.get().status == Match.Status.FORMING
    alice_ctx.close()
    bob_ctx.close()


def table_still_works_forming(page: Page):
    expect(page.locator("header.site-header")).to_be_visible()
    expect(page.locator("#table.forming")).to_be_visible()


def test_an_invite_link_keeps_its_table_through_sign_up(site, browser, page):
    sign_up(page, site, "host")
    page.get_by_role("button", name="Create a table").click()
    invite = page.locator("[data-invite-link]").get_attribute("href")
    # The host's own seat shows them here at once.
    expect(page.locator(".forming-seat-me .presence-on")).to_be_visible()
    # "Copy link" puts the whole invite address on the clipboard (static/js/copy.js).
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
    page.get_by_role("button", name="Copy link").click()
    expect(page.locator("button[data-copy]")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == site + invite

    # Signed out, the friend first sees who invites them to what (issue 44, item 9).
    friend = browser.new_context().new_page()
    friend.goto(site + invite)
    expect(friend.locator("h1")).to_have_text("host invites you to a game of Setback")
    expect(friend.locator("[data-invitation-rules]")).to_contain_text("House")
    friend.locator("[data-invitation-sign-up]").click()
    friend.get_by_label("Username").fill("friend")
    friend.get_by_label("Password", exact=True).fill("a-long-fresh-secret")
    friend.get_by_label("Password confirmation").fill("a-long-fresh-secret")
    friend.get_by_role("button", name="Sign up").click()
    # Signed up, at the table, in a seat.
    expect(friend.locator(".forming-seat-me")).to_contain_text("friend (you)")
    expect(page.locator(".forming-seat", has_text="friend")).to_be_visible()


def no_sideways_scroll(page: Page, what: str):
    page.wait_for_load_state("networkidle")
    wide = page.evaluate("document.documentElement.scrollWidth")
    window = page.evaluate("document.documentElement.clientWidth")
    assert wide <= window, f"{what} is {wide}px wide in a {window}px window"


def test_no_page_is_wider_than_the_window(site, page, make_user, password):
    alice = make_user("alice")
    finished = off_the_event_loop(replays.finish_match, alice, "house", seed=6)
    deal = replays.played_deals(finished)[0]
    for width, height in ((1280, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.context.clear_cookies()
        for path in ("/", "/accounts/login/", "/accounts/signup/"):
            page.goto(site + path)
            no_sideways_scroll(page, f"{path} at {width}px, logged out")
        log_in(page, site, "alice", password)
        no_sideways_scroll(page, f"home at {width}px")
        page.locator(".new-match-form summary").click()  # the long option texts in view
        no_sideways_scroll(page, f"home with its options open at {width}px")
        pages = [
            "/history/",
            f"/history/matches/{finished.pk}/",
            f"/replay/matches/{finished.pk}/{deal.number}/0/",
            "/stats/",
            "/accounts/password/",
            "/replay/imports/",
        ]
        for path in pages:
            page.goto(site + path)
            no_sideways_scroll(page, f"{path} at {width}px")
        page.goto(site + "/")
        page.get_by_role("button", name="Create a table").click()
        no_sideways_scroll(page, f"a forming table at {width}px")
        page.goto(site + "/")
        page.get_by_role("button", name="Deal me in").click()
        expect(page.locator("#table[data-deal]")).to_be_visible()
        no_sideways_scroll(page, f"a live table at {width}px")


def test_a_replay_plays_by_itself_and_any_finished_deal_can_be_reviewed(
    site, page, make_user, password
):
    alice = make_user("alice")
    finished = off_the_event_loop(replays.finish_match, alice, "house", seed=6)
    deals = replays.played_deals(finished)
    page.set_viewport_size({"width": 1280, "height": 900})
    log_in(page, site, "alice", password)
    # From History, every finished deal of hers has the coach's review, not only the latest.
    page.goto(f"{site}/history/matches/{finished.pk}/")
    first = deals[0].number
    page.locator(f'[data-review-deal="{first}"]').click()
    expect(page.get_by_role("heading", name=f"The coach's review of deal {first}")).to_be_visible()

    page.goto(f"{site}/replay/matches/{finished.pk}/{first}/0/")
    expect(page.locator(".chip-caption")).to_have_text("Score before this deal:")
    expect(page.locator("#replay [data-review-deal]")).to_have_attribute(
        "href", f"/coach/deals/{deals[0].pk}/review/"
    )
    last = page.locator("#replay").get_attribute("data-last")
    page.locator("[data-autoplay-speed]").select_option("400")
    page.locator("[data-autoplay]").click()
    expect(page.locator("[data-autoplay]")).to_have_text("❚❚ Pause")
    # It moves on by itself, a step at a time. Each step is on screen for only 0.4 s, which a
    # busy machine's polling can miss, so the test waits for "3 or later", not for step 3.
    page.wait_for_function("() => Number(document.querySelector('#replay').dataset.step) >= 3")
    expect(page.locator("#replay")).to_have_attribute("data-step", last, timeout=60_000)
    expect(page.locator("[data-autoplay]")).to_have_text("▶ Play")  # it stops at the end


# Counts the animations started on trick cards (issue 50's motion); installed before the page's
# own scripts run.
COUNT_TRAVELS = """
window.__travels = 0;
const animate = Element.prototype.animate;
Element.prototype.animate = function (frames, options) {
  if (this.classList && this.classList.contains("trick-card")) window.__travels += 1;
  return animate.call(this, frames, options);
};
"""


def travels_until_three_cards_arrive(site, browser, name: str, reduced_motion: str) -> int:
    """Trick cards that travelled while the player plays on until three cards have reached the
    felt after the first table (the bots' and the player's own, from the hand)."""
    context = browser.new_context(reduced_motion=reduced_motion)
    context.add_init_script(COUNT_TRAVELS)
    page = context.new_page()
    sign_up(page, site, name)
    start_match(page, site)
    arrived = (
        "() => document.querySelectorAll('#table .trick-live .trick-card').length >= 3"
        " || document.querySelectorAll('#table .trick-done').length > 0"
    )
    my_turn_or_next(
        page,
        lambda: page.locator("#table [data-action]:not([data-unarmed])").last.click(timeout=2000),
        until=lambda: page.evaluate(arrived),
    )
    table_still_works(page)
    travels = page.evaluate("() => window.__travels")
    context.close()
    return travels


def test_a_card_played_travels_to_the_trick_unless_the_system_asks_for_less_motion(site, browser):
    assert travels_until_three_cards_arrive(site, browser, "mover", "no-preference") >= 1
    assert travels_until_three_cards_arrive(site, browser, "still", "reduce") == 0


# A move the player may press now: armed (static/js/table.js's click guard), and not "Claim the
# rest", which the engine refuses unless every trick left is surely the player's.
ARMED_MOVE = "#table [data-action]:not([data-unarmed]):not([data-claim])"

# Records each card of a won trick set gliding to its winner (issue 50's motion): where it starts,
# the point it heads for, the name on the winning card and how long it takes; and counts the
# completed tricks that left the felt while in view, frame by frame. With `window.__freeze`, the
# next glide stops half-way and the table is kept as it is (for a screenshot). Installed before
# the page's own scripts run.
RECORD_GATHERS = """
window.__gathers = [];
window.__tricksCleared = 0;
const animate = Element.prototype.animate;
Element.prototype.animate = function (frames, options) {
  const pile = this.parentElement;
  const gathering = pile && pile.classList.contains("trick-gathered");
  if (gathering) {
    const won = pile.querySelector(".trick-won");
    const box = this.getBoundingClientRect();
    window.__gathers.push({
      winner: won ? won.title : "",
      toward: pile.dataset.toward.split(",").map(Number),
      from: [box.left + box.width / 2, box.top + box.height / 2],
      duration: options.duration,
    });
  }
  const animation = animate.call(this, frames, options);
  if (gathering && window.__freeze) {
    animation.pause();
    animation.currentTime = options.duration / 2;
    window.__frozen = true;
  }
  return animation;
};
// Once a glide is stopped, the table stays as it is: no newer table is swapped in over it.
document.addEventListener("htmx:oobBeforeSwap", (event) => {
  if (window.__frozen) event.preventDefault();
}, true);
let trickShown = false;
(function watch() {
  const done = document.querySelector("#table .trick-done");
  const shown = Boolean(done && done.getClientRects().length);
  if (trickShown && !shown) window.__tricksCleared += 1;
  trickShown = shown;
  requestAnimationFrame(watch);
})();
"""

# The place on screen nearest a point: a seat's name on the felt, or "You" for the player's own
# area below it.
NEAREST_PLACE = """([x, y]) => {
  const places = Array.from(document.querySelectorAll("#table .seat"), (seat) =>
    [seat.querySelector(".seat-name").textContent, seat.getBoundingClientRect()]);
  places.push(["You", document.querySelector("#table .me").getBoundingClientRect()]);
  const far = ([, r]) => Math.hypot(r.left + r.width / 2 - x, r.top + r.height / 2 - y);
  places.sort((a, b) => far(a) - far(b));
  return places[0][0];
}"""


def play_until_a_trick_leaves(site, browser, name: str, reduced_motion: str, picture: str = ""):
    """Plays a table (the bots quick, the player pressing their armed controls) until a
    completed trick has left the felt while in view, and one more for good measure; answers
    the page's records of won tricks gliding away (one per card) and the page. With a
    `picture`'s name, the next glide is stopped half-way and taken as a screenshot."""
    context = browser.new_context(reduced_motion=reduced_motion)
    context.add_init_script(RECORD_GATHERS)
    page = context.new_page()
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_up(page, site, name)
    start_match(page, site)
    my_turn_or_next(
        page,
        lambda: page.locator(ARMED_MOVE).last.click(timeout=2000),
        until=lambda: page.evaluate("() => window.__tricksCleared >= 2"),
    )
    gathers = page.evaluate("() => window.__gathers")
    if picture:
        # The glide stopped half-way stays on screen until the next table comes.
        page.evaluate("() => { window.__freeze = true; }")
        my_turn_or_next(
            page,
            lambda: page.locator(ARMED_MOVE).last.click(timeout=2000),
            until=lambda: page.locator("#table .trick-gathered").count() > 0,
        )
        shot(page, picture)
    table_still_works(page)
    return gathers, page


def test_a_won_trick_glides_to_its_winner_unless_the_system_asks_for_less_motion(site, browser):
    gathers, page = play_until_a_trick_leaves(
        site, browser, "gatherer", "no-preference", picture="won-trick-gliding-to-its-winner"
    )
    assert gathers, "no won trick glided away"
    for glide in gathers:
        assert glide["duration"] <= 300
        # The point the cards head for is the winner's, nearer their seat than any other.
        assert glide["winner"] in page.evaluate(NEAREST_PLACE, glide["toward"]), glide
        # And every card moves: none starts where it is sent.
        assert glide["from"] != glide["toward"]
    # Four cards a trick, all sent to the same point.
    assert len(gathers) % 4 == 0
    assert len({tuple(g["toward"]) for g in gathers[:4]}) == 1
    page.context.close()

    still, page = play_until_a_trick_leaves(site, browser, "stiller", "reduce")
    assert still == []
    assert page.evaluate("() => document.querySelectorAll('#table .trick-gathered').length") == 0
    page.context.close()
