"""A newcomer signs up, starts a house match and plays a whole deal in Chromium."""

import re
import time
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from games.core import services, turns
from games.core.turns import WaitingFor
from games.models import Match
from games.web import tasks
from tests.db.play import play_until
from tests.hidden import leaks

from .test_replay import log_in, off_the_event_loop


def sign_up(page: Page, site: str, username: str):
    page.goto(site + "/accounts/signup/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password", exact=True).fill("a-long-fresh-secret")
    page.get_by_label("Password confirmation").fill("a-long-fresh-secret")
    page.get_by_role("button", name="Sign up").click()
    expect(page.get_by_role("heading", name=f"Hello, {username}!")).to_be_visible()


def start_house_match(page: Page):
    page.get_by_label("Rules").select_option("house")
    page.get_by_role("button", name="Deal me in").click()
    expect(page.locator("#table")).to_be_visible()
    expect(page.locator(".chip", has_text="To 11")).to_be_visible()
    page.wait_for_load_state("load")  # the table's script runs now: a key pressed before is lost


def table_version(page: Page) -> str | None:
    return page.locator("#table").get_attribute("data-version")


def wait_for_the_table_to_move(
    page: Page, version: str | None, or_shown: str = "", timeout: float = 30_000
):
    """Wait until the table on screen is another version than `version` (a move was made, by
    anyone, or a new deal was dealt), or something matching `or_shown` appears: a condition,
    never a fixed pause."""
    page.wait_for_function(
        "([v, other]) => { const t = document.querySelector('#table');"
        " return (t && t.dataset.version !== v) || (other && document.querySelector(other)); }",
        arg=[version, or_shown],
        timeout=timeout,
    )


def play_until_a_deal_is_scored(page: Page, act, deadline_seconds=120):
    """Act whenever it is the player's turn; move past thrown-in hands; stop at a scored deal."""
    deadline = time.monotonic() + deadline_seconds
    while time.monotonic() < deadline:
        # The version is read before the screen is looked at: a table that arrives in between
        # then ends the wait below at once, instead of being taken for the one already seen.
        version = table_version(page)
        result = page.locator(".deal-result")
        if result.count() and result.get_by_text(re.compile(r"made it|set back")).count():
            return result
        if result.count() and page.get_by_text("Everyone passed").count():
            act("next")
        elif page.locator("#table.table-my-turn [data-action]").count():
            act("move")
        wait_for_the_table_to_move(page, version)  # our move, a bot's, or the next deal
    raise AssertionError("no deal was scored in time")


def assert_no_hidden_cards_in_page(page: Page, username: str):
    match = Match.objects.get(seats__user__username=username)
    seat = match.seats.get(user__username=username).position
    assert not leaks(page.content(), match, seat)


@pytest.mark.real_services  # the browser smoke test of CI's second pass
def test_a_newcomer_bids_and_plays_a_deal_by_clicking(site, page, screenshot):
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_up(page, site, "clicker")
    start_house_match(page)
    screenshot("table-start-desktop")
    clicks = {"move": 0}
    posted = []  # moves and next deals sent as requests: only while the table's socket is down
    page.on(
        "request", lambda r: posted.append(r.url) if r.url.endswith(("/act/", "/next/")) else None
    )
    expect(page.locator(".table-socket[data-connected]")).to_be_attached()

    def click(what):
        try:
            if what == "next":
                page.locator("[data-next-deal]").click(timeout=2000)
            else:
                page.locator("#table [data-action]").first.click(timeout=2000)
                clicks["move"] += 1
        except PlaywrightTimeout:
            return  # the table was swapped under the pointer (a newer one came); look again
        if clicks["move"] == 3 and what == "move":
            screenshot("table-mid-deal-desktop")
            assert_no_hidden_cards_in_page(page, "clicker")

    result = play_until_a_deal_is_scored(page, click)
    expect(result.locator(".deal-scores")).to_contain_text(re.compile(r"You.*[-+]?\d"))
    expect(result.locator(".points-table")).to_contain_text("High")
    screenshot("table-deal-scored-desktop")
    assert clicks["move"] >= 6  # at least one call... and six cards
    assert posted == []  # all went over the open socket (games.web.consumers: receive)
    # The score strip shows the running totals.
    expect(page.locator(".score-mine .score-points")).to_have_text(re.compile(r"-?\d+"))


def test_a_player_plays_a_deal_with_the_keyboard_on_a_phone(site, page, screenshot):
    page.set_viewport_size({"width": 390, "height": 844})
    sign_up(page, site, "typist")
    start_house_match(page)

    def press(what):
        page.keyboard.press("n" if what == "next" else "1")

    result = play_until_a_deal_is_scored(page, press)
    expect(result).to_be_visible()
    screenshot("table-deal-scored-phone")
    page.keyboard.press("n")
    # The next deal starts (a bot may already have made the first call).
    expect(page.locator("#table")).to_have_attribute("data-deal", "2", timeout=30_000)
    expect(page.locator(".chip", has_text="Deal 2")).to_be_visible()


def test_play_again_from_the_end_screen_that_arrives_while_watching(
    site, page, make_user, password, screenshot, monkeypatch
):
    """The end of a match comes over the websocket (the last card is a bot's), rendered without a
    request: its "Play again" must still start a new match."""

    def a_bot_plays_the_last_card(m):
        turn = turns.waiting_on(m.pk)
        if turn.kind != WaitingFor.BOT:
            return False
        trial = transaction.savepoint()
        tasks.play_bot_turn(m.pk, turn.version)
        over = Match.objects.get(pk=m.pk).status == Match.Status.FINISHED
        transaction.savepoint_rollback(trial)
        return over

    def a_match_that_a_bot_will_end():
        for _ in range(12):  # alice plays the last card of one match in four
            attempt = transaction.savepoint()
            match = services.do_start_match(alice, rules_spec="house", bot_level="easy")
            if play_until(match, stop=a_bot_plays_the_last_card).status == Match.Status.PLAYING:
                return match
            transaction.savepoint_rollback(attempt)
        raise AssertionError("alice played the last card of every match")

    alice = make_user("alice")
    with monkeypatch.context() as quiet:  # no bot task here: the site's server makes that move
        quiet.setattr(services, "announce_after_commit", lambda match, deal_row=None: None)
        match = off_the_event_loop(a_match_that_a_bot_will_end)
    # Still for a minute, as if the bot's task was lost: opening the table wakes the bot.
    Match.objects.filter(pk=match.pk).update(updated_at=timezone.now() - timedelta(minutes=1))
    page.set_viewport_size({"width": 1280, "height": 900})
    log_in(page, site, "alice", password)
    page.goto(f"{site}/matches/{match.pk}/")
    expect(page.get_by_role("heading", name=re.compile("the match!"))).to_be_visible()
    screenshot("table-match-over-desktop")
    page.get_by_role("button", name="Play again").click()
    expect(page).not_to_have_url(re.compile(rf"/matches/{match.pk}/$"))
    again = Match.objects.exclude(pk=match.pk).get()
    expect(page).to_have_url(re.compile(rf"/matches/{again.pk}/$"))
    expect(page.locator("#table[data-deal]")).to_be_visible()
    expect(page.locator(".chip", has_text="To 11")).to_be_visible()
