"""Claiming the rest (issue 50), seen from both sides of a shared table: alice (North) and bob
(East) in two browsers, bots South and West, a deal rigged as tests/db/test_claims.py rigs it.
When every trick left is surely alice's, "Claim the rest" ends the deal on both screens with
who claimed and the hands as dealt; when one card still out could beat her, the claim is refused
on her screen with the reason, and nothing changes for anyone."""

import json
import re

import pytest
from playwright.sync_api import Browser, Page, expect

from games.core import selectors
from games.engine.claim import claim_refusal
from games.engine.offline import OfflineMatch
from games.engine.rules import spec_from_choices
from games.models import Action, Match
from tests.db.test_claims import CERTAIN, DOUBTFUL, shared_table, to_first_trick_over

from .test_card_table import RECORD_GATHERS
from .test_play_with_people import shot
from .test_replay import log_in, off_the_event_loop

pytestmark = pytest.mark.browser

# The claim, pressed as a person presses it: once table.js's click guard has armed it.
CLAIM = "#table [data-claim]:not([data-unarmed])"


def rigged_table(alice, bob, hands) -> Match:
    """A shared table where N (alice) bid 2 and took the first trick with the ace of spades:
    she is on lead for trick two, with the five cards `hands` gave her left."""
    match = shared_table([alice, bob])
    to_first_trick_over(match, alice, bob, hands)
    match.refresh_from_db()
    return match


def at_the_table(browser: Browser, site: str, match: Match, username: str, password: str) -> Page:
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    log_in(page, site, username, password)
    page.goto(f"{site}/matches/{match.pk}/")
    expect(page.locator(f'#table[data-version="{match.version}"]')).to_be_visible()
    expect(page.locator(".table-socket[data-connected]")).to_be_attached()
    return page


def two_at_a_rigged_table(site, browser, make_user, password, hands):
    alice, bob = make_user("alice"), make_user("bob")
    match = off_the_event_loop(rigged_table, alice, bob, hands)
    return (
        match,
        at_the_table(browser, site, match, "alice", password),
        at_the_table(browser, site, match, "bob", password),
    )


def test_a_claim_of_tricks_surely_hers_ends_the_deal_on_both_screens(
    site, browser, make_user, password
):
    match, alice, bob = two_at_a_rigged_table(site, browser, make_user, password, CERTAIN)
    # Only the player on lead is offered the claim.
    expect(bob.locator("#table [data-claim]")).to_have_count(0)
    alice.locator(CLAIM).click()

    for page, who in ((alice, "You"), (bob, "alice")):
        result = page.locator("#table .deal-result")
        expect(result.locator("[data-claim-note]")).to_have_text(
            f"{who} claimed the last 5 tricks."
        )
        expect(result).to_contain_text("bid 2 and made it")
        # The hands as dealt: alice's six best spades among them, on both screens.
        hands = result.locator(".dealt-hand-list li")
        expect(hands).to_have_count(4)
        spades = hands.filter(has_text="A♠")
        expect(spades).to_contain_text("A♠K♠Q♠J♠10♠9♠")
        expect(page.locator("#table .table-error")).to_have_count(0)
    for page in (alice, bob):  # the result scrolls within the felt: the hands in the picture
        page.locator("#table .dealt-hand-list li").last.scroll_into_view_if_needed()
    shot(alice, "claim-accepted-alice")
    shot(bob, "claim-accepted-bob")

    deal_row = selectors.current_deal(Match.objects.get(pk=match.pk))
    assert deal_row.is_over
    assert Action.objects.filter(claimed=True).count() == 20
    alice.context.close()
    bob.context.close()


def test_a_claim_one_card_still_out_could_beat_is_refused_and_changes_nothing(
    site, browser, make_user, password
):
    match, alice, bob = two_at_a_rigged_table(site, browser, make_user, password, DOUBTFUL)
    before = (match.version, Action.objects.count())
    alice.locator(CLAIM).click()

    expect(alice.locator("#table .table-error")).to_have_text(
        "Not every trick is surely yours: the queen of trump could lose to the king of trump,"
        " still out."
    )
    # The refusal changed nothing: the same position, alice still on lead with her five cards.
    match.refresh_from_db()
    assert (match.version, Action.objects.count()) == before
    for page in (alice, bob):
        expect(page.locator("#table")).to_have_attribute("data-version", str(match.version))
        expect(page.locator("#table .deal-result")).to_have_count(0)
    expect(alice.locator("#table .hand [data-card]")).to_have_count(5)
    expect(alice.locator("#table")).to_have_class(re.compile(r"\btable-my-turn\b"))
    # Bob's screen says nothing of it: a refusal is the claimer's own.
    expect(bob.locator("#table .table-error")).to_have_count(0)
    expect(bob.locator("#table .status-line")).to_contain_text("alice")
    shot(alice, "claim-refused-alice")
    shot(bob, "claim-refused-bob")

    # And she plays on as before.
    alice.locator("#table [data-card]:not([data-unarmed])").first.click()
    expect(alice.locator("#table .table-error")).to_have_count(0)
    expect(bob.locator("#table")).not_to_have_attribute("data-version", str(match.version))
    alice.context.close()
    bob.context.close()


# --- The offline page -------------------------------------------------------------------------
#
# The offline page keeps its match in localStorage as the engine's saved form (the match's seed
# and every move so far) and replays it when it loads, taking each move as given. A position is
# rigged by choosing a seed whose deal suits and moves that lead there, and keeping that match
# before the page loads. Both were found once by a search over seeds and playouts; the test
# checks with the engine itself that each position is what it is said to be.

OFFLINE_MATCH_KEY = "setback.offline.match"  # static/offline/page.js
# You (South) were dealt all six clubs: you bid 4 after a 3 and pitch the ace, and every other
# seat shows it holds no club. The five tricks left are surely yours (and yet the bid is set:
# the jack of clubs was not dealt, so High, Low and Game are the most you can make).
SURELY_YOURS = (184, ["3", "pass", "pass", "4", "AC", "QD", "5D", "5S"])
# Three cards left, the jack of spades among them while the ace is still out.
ONE_STILL_OUT = (
    12345,
    ["pass", "pass", "pass", "3", "8D", "4D", "6C", "5D", "KC", "TD", "5S", "AC"]
    + ["7S", "2S", "8S", "QC"],
)


def offline_match(seed: int, moves: list[str]):
    match = OfflineMatch(spec_from_choices("house"), "easy", seed, "rigged-claim-match")
    for token in moves:
        match.deal.apply(token)
    return match


def keep_offline_match(page: Page, match) -> None:
    """The page's kept match is `match`: the next load resumes it."""
    kept = {"saved": match.saved(), "choices": {"preset": "house", "level": "easy"}}
    page.evaluate(
        "([key, value]) => localStorage.setItem(key, value)",
        [OFFLINE_MATCH_KEY, json.dumps(kept)],
    )


def test_a_claim_on_the_offline_page_is_refused_or_ends_the_deal(site, page: Page):
    doubtful, certain = offline_match(*ONE_STILL_OUT), offline_match(*SURELY_YOURS)
    refusal = claim_refusal(doubtful.observation(doubtful.seat))
    assert refusal == (
        "Not every trick is surely yours: the jack of spades could lose to the ace of spades,"
        " still out."
    )
    assert claim_refusal(certain.observation(certain.seat)) is None
    assert len(certain.deal.hand(certain.seat)) == 5

    page.set_viewport_size({"width": 1280, "height": 900})
    page.add_init_script(RECORD_GATHERS)
    page.goto(site + "/offline/?pace=0")
    keep_offline_match(page, doubtful)
    page.reload()
    expect(page.locator("[data-engine-state]")).to_contain_text("Engine ready", timeout=90_000)
    version = f"1.{doubtful.deal.version}"
    expect(page.locator(f'#table[data-version="{version}"]')).to_be_visible()
    page.locator(CLAIM).click()
    expect(page.locator("#table .table-error")).to_have_text(refusal)
    # Nothing changed: the same position, your three cards, no result.
    expect(page.locator("#table")).to_have_attribute("data-version", version)
    expect(page.locator("#table .hand [data-card]")).to_have_count(3)
    expect(page.locator("#table .deal-result")).to_have_count(0)
    shot(page, "claim-refused-offline")

    keep_offline_match(page, certain)
    page.reload()
    expect(page.locator("[data-engine-state]")).to_contain_text("Engine ready", timeout=90_000)
    expect(page.locator(f'#table[data-version="1.{certain.deal.version}"]')).to_be_visible()
    page.locator(CLAIM).click()
    result = page.locator("#table .deal-result")
    expect(result.locator("[data-claim-note]")).to_have_text("You claimed the last 5 tricks.")
    expect(result.locator("h2")).to_have_text("You bid 4 and were set back")
    expect(result.locator(".dealt-hand-list li", has_text="A♣K♣Q♣9♣6♣5♣")).to_have_count(1)
    # The trick on the felt before the claim (your ace) glided to your side as it went: the
    # offline table moves as the live one does.
    glides = page.evaluate("() => window.__gathers")
    assert len(glides) == 4 and {glide["winner"] for glide in glides} == {"You"}
    page.locator("#table .dealt-hand-list li").last.scroll_into_view_if_needed()
    shot(page, "claim-accepted-offline")
