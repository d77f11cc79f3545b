"""Finding a game in the browser: three people meet at a public table through the lobby, two
are paired by quick pairing with bots filling after the wait, and the player page and the
leaderboard. Screenshots (desktop 1280x900 and phone 390x844) land in var/screenshots/."""

import re
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from playwright.sync_api import Page, expect

from accounts.models import User
from games.models import Match, Seat
from games.stats import services as stats_services

from .conftest import SCREENSHOTS
from .test_play_a_deal import sign_up

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def shots(page: Page, name: str):
    """The page on a desktop and on a phone."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(size)
        page.screenshot(path=str(SCREENSHOTS / f"lobby-{name}-{label}.png"), full_page=True)
    page.set_viewport_size(DESKTOP)


def person(browser, site, name):
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    sign_up(page, site, name)
    return context, page


def test_three_people_meet_at_a_public_table_through_the_lobby(site, browser):
    (alice_ctx, alice), (bob_ctx, bob), (carol_ctx, carol) = (
        person(browser, site, name) for name in ("alice", "bob", "carol")
    )
    # Bob and carol are already looking at the lobby when alice opens her table.
    for page in (bob, carol):
        page.get_by_role("link", name="Lobby").first.click()
        expect(page.locator("#open-tables")).to_contain_text("No open tables")

    alice.get_by_label("Game at the table").select_option("house")
    alice.get_by_label("List it in the lobby, open to anyone").check()
    alice.get_by_role("button", name="Create a table").click()
    expect(alice.locator("#table.forming")).to_be_visible()
    match = Match.objects.get()

    # The table appears on both lobby screens without a reload.
    for page in (bob, carol):
        expect(page.locator(f'[data-table="{match.pk}"]')).to_contain_text("alice")
    expect(bob.locator(f'[data-table="{match.pk}"]')).to_contain_text("House rules")
    shots(bob, "open-tables")

    bob.locator(f'[data-table="{match.pk}"] [data-sit-side="EW"]').click()
    expect(bob).to_have_url(re.compile(rf"/matches/{match.pk}/$"))
    # Carol's lobby already shows bob at the table, and she takes the seat beside alice's side.
    expect(carol.locator(f'[data-table="{match.pk}"]')).to_contain_text("bob")
    carol.locator(f'[data-table="{match.pk}"] [data-sit-side="NS"]').click()
    expect(carol).to_have_url(re.compile(rf"/matches/{match.pk}/$"))

    expect(alice.locator('.forming-seat[data-seat="E"]')).to_contain_text("bob")
    expect(alice.locator('.forming-seat[data-seat="N"]')).to_contain_text("carol")
    # The host fills the last seat with a bot and starts: every screen gets the game.
    alice.get_by_label(re.compile("Fill 1 empty seat with")).select_option("easy")
    alice.locator("[data-fill-bots]").click()
    expect(alice.locator('.forming-seat[data-seat="W"]')).to_contain_text("Bot (easy)")
    alice.locator("[data-start]").click()
    for page in (alice, bob, carol):
        expect(page.locator("#table[data-deal]")).to_be_visible(timeout=30_000)
    seats = {s.position: s.user.username if s.user_id else s.bot_level for s in match.seats.all()}
    assert seats == {"N": "carol", "E": "bob", "S": "alice", "W": "easy"}
    for context in (alice_ctx, bob_ctx, carol_ctx):
        context.close()


def test_quick_pairing_seats_a_second_person_at_once_with_bots(site, browser):
    (alice_ctx, alice), (bob_ctx, bob) = (person(browser, site, name) for name in ("alice", "bob"))

    def find_players(page: Page, wait: str):
        page.goto(site + "/lobby/")
        page.get_by_label("Rules").select_option("house")
        page.get_by_label("Seating").select_option("partners")
        page.get_by_label("Bots for empty seats").select_option("easy")
        page.get_by_label("Wait (seconds)").fill(wait)
        page.locator("[data-find-players]").click()

    find_players(alice, "120")
    expect(alice.locator("#pairing-status")).to_have_attribute("data-status", "waiting")
    expect(alice.locator("#pairing-status")).to_contain_text("Nobody else is waiting yet")
    shots(alice, "pairing-waiting")
    find_players(bob, "120")

    # Bob's request seats both at once (issue 44), against each other, with alice's easy bots:
    # alice's page hears it over its socket, long before her two minutes.
    for page in (alice, bob):
        expect(page).to_have_url(re.compile(r"/matches/\d+/$"))
        expect(page.locator("#table[data-deal]")).to_be_visible()
    match = Match.objects.get()
    assert alice.url == bob.url
    seats = {s.position: s.user.username if s.user_id else s.bot_level for s in match.seats.all()}
    assert seats == {"S": "alice", "W": "bob", "N": "easy", "E": "easy"}
    for context in (alice_ctx, bob_ctx):
        context.close()


@transaction.atomic  # as in the move that ends a match: the ratings are locked while they change
def _finished(winner, loser, days_ago):
    match = Match.objects.create(
        rules={"preset": "family", "players": 2},
        status=Match.Status.FINISHED,
        host=winner,
        first_dealer="P1",
        totals={"P1": 7, "P2": 4},
        winner="P1",
        invite_code=f"E{Match.objects.count():05d}",
        finished_at=timezone.now() - timedelta(days=days_ago),
    )
    Seat.objects.create(match=match, position="P1", user=winner)
    Seat.objects.create(match=match, position="P2", user=loser)
    stats_services.do_record_match(match)


def test_the_player_page_and_the_leaderboard(site, browser):
    context, alice = person(browser, site, "alice")
    me = User.objects.get(username="alice")
    rivals = [
        User.objects.create_user(name, password="a-long-fresh-secret")
        for name in ("bob", "carol", "dave")
    ]
    # A season of two-handed family matches between people, alice winning most.
    for day in range(12):
        for n, rival in enumerate(rivals):
            if (day + n) % 4:
                _finished(me, rival, day)
            else:
                _finished(rival, me, day)
        _finished(rivals[day % 3], rivals[(day + 1) % 3], day)

    alice.get_by_role("link", name="Leaderboard").first.click()
    alice.get_by_role("link", name="Family").click()
    expect(alice.locator('tr[data-rank="1"]')).to_contain_text("alice")
    expect(alice.locator("table.leaderboard tbody tr")).to_have_count(4)
    shots(alice, "leaderboard")

    alice.locator('tr[data-rank="2"] a').click()
    expect(alice.get_by_role("heading", name="Record against people")).to_be_visible()
    expect(alice.locator("#recent-title + .match-list [data-replay]").first).to_be_visible()
    alice.get_by_role("link", name="alice").last.click()
    expect(alice.locator('[data-preset="family"] [data-rating]')).not_to_have_text("–")
    shots(alice, "player-page")
    context.close()
