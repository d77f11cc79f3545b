"""A player who has played a few matches opens the statistics page, on a desktop and a phone."""

import re
import time
from concurrent.futures import ThreadPoolExecutor

from django.db import connection
from playwright.sync_api import Page, expect

from games.core import selectors, services, turns
from games.core.turns import WaitingFor
from games.stats import services as stats_services
from games.stats.models import DealSummary


def play_a_few_matches(user):
    """Whole matches through the real services, on a thread of their own: the services push
    to the channel layer with async_to_sync, which refuses Playwright's thread (it runs a loop)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(_play, user).result()
    # The coach does not exist yet: pretend it judged some deals, to see its chart.
    for n, row in enumerate(DealSummary.objects.filter(user=user).order_by("finished_at")[:12]):
        stats_services.do_record_coach_accuracy(
            row.deal_id, seat=row.seat, accuracy=0.5 + (n % 5) / 10
        )


def _play(user):
    try:
        _play_matches(user)
    finally:
        connection.close()


def _play_matches(user):
    for rules in ("house", {"preset": "auction", "players": 3}, "house"):
        _play_to_the_end(services.do_start_match(user, rules_spec=rules, bot_level="easy"), user)


def eager_move(match, seat: str) -> str:
    """Bid the lowest bid whenever allowed (so the page has bids to show), else the first move."""
    legal = selectors.deal_state(selectors.current_deal(match)).observation(seat).legal_actions()
    bids = [token for token in legal if token.isdigit()]
    return bids[0] if bids else legal[0]


def _play_to_the_end(match, user, seconds=120):
    """Make the person's moves and deal on; the bots move by themselves (tasks on commit)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        turn = turns.waiting_on(match.pk)
        if turn is None:
            return
        try:
            if turn.kind == WaitingFor.PERSON:
                match.refresh_from_db()
                services.do_act(
                    match.pk,
                    seat=turn.seat,
                    token=eager_move(match, turn.seat),
                    version=turn.version,
                    actor=services.Actor(user=user),
                )
            elif turn.kind == WaitingFor.NEXT_DEAL and not turn.automatic:
                services.do_next_deal(match.pk, version=turn.version)
            else:
                time.sleep(0.02)
        except (services.StaleMove, services.NotYourTurn, services.NotPlaying):
            pass  # a bot moved (or ended the match) between our look and our move; look again
    raise AssertionError("the match did not end in time")
    # The coach does not exist yet: pretend it judged some deals, to see its chart.
    for n, row in enumerate(DealSummary.objects.filter(user=user).order_by("finished_at")[:12]):
        stats_services.do_record_coach_accuracy(
            row.deal_id, seat=row.seat, accuracy=0.5 + (n % 5) / 10
        )


def log_in(page: Page, site: str, username: str, password: str):
    page.goto(site + "/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name=f"Hello, {username}!")).to_be_visible()


def test_the_statistics_page_reads_well_on_a_desktop_and_a_phone(
    site, page, screenshot, user, password
):
    play_a_few_matches(user)
    deals = DealSummary.objects.filter(user=user).count()
    page.set_viewport_size({"width": 1280, "height": 900})
    log_in(page, site, user.username, password)
    page.get_by_role("navigation").get_by_role("link", name="Statistics").click()
    expect(page.get_by_role("heading", name="Your statistics")).to_be_visible()
    screenshot("stats-desktop")
    expect(page.locator('[data-figure="deals"]')).to_have_text(str(deals))
    expect(page.locator('[data-figure="rating"]')).to_have_text(re.compile(r"^\d+$"))
    for title in (
        "Your rating after each match",
        "Bids made, by level",
        "How often your side took each point",
    ):
        expect(page.locator("svg.chart title", has_text=title)).to_have_count(1)
    # The coach's verdict over one day is a sentence, not a lone dot under two "100%" labels.
    expect(page.locator("#coach-title + p")).to_contain_text(
        re.compile(r"played the coach's choice \d+%")
    )

    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    screenshot("stats-phone")
    # Nothing wider than the phone's screen: no sideways scrolling.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390

    page.get_by_label("Rules").select_option("auction")
    page.get_by_role("button", name="Show").click()
    auction_deals = DealSummary.objects.filter(user=user, preset="auction").count()
    expect(page.locator('[data-figure="deals"]')).to_have_text(str(auction_deals))
    expect(page.locator("table.stats-table").first).to_contain_text("Auction")
