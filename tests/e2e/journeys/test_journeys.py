"""Every journey a person makes, played to its end, against the site as `make run` serves it
(conftest.py): its settings, its search processes, its sweeper, its limits.

Issue 28: with `make run` as it was, one idle person at a shared table stopped every bot on
the site and a "Play from here" deal could not end, while 800 tests on the test settings passed.
"""

import re

import pytest
from playwright.sync_api import expect

from .people import Person, deal_scored, match_over, play_until

pytestmark = pytest.mark.journey


@pytest.fixture
def people(browser, journey_site):
    made = []

    def person(name, viewport=(1280, 900)) -> Person:
        made.append(Person(browser, journey_site, name, viewport))
        return made[-1]

    yield person
    for somebody in made:
        somebody.close()  # fails the journey if any page got an answer of 500 or more


def start_against_bots(person: Person, preset: str, level: str = "") -> str:
    page = person.page
    page.goto(person.site.url + "/")
    page.get_by_label("Rules").select_option(preset)
    if level:
        page.get_by_label("Computer players").select_option(level)
    page.get_by_role("button", name="Deal me in").click()
    expect(page.locator("#table[data-deal]")).to_be_visible()
    page.wait_for_load_state("load")  # the table's scripts are running: keys are heard
    return re.search(r"/matches/(\d+)/", page.url).group(1)


def play_a_deal(person: Person, keyboard: bool = False) -> None:
    play_until([person], lambda: deal_scored(person), keyboard=keyboard)


def test_a_newcomer_plays_a_whole_match_against_bots_then_plays_again(people, screenshot_to):
    me = people("newcomer-match").sign_up("a-long-fresh-secret")
    match_id = start_against_bots(me, "family")
    play_until([me], lambda: match_over(me), seconds=420, keyboard=True)
    screenshot_to(me.page, "journey-match-over")
    assert me.leads_answered > 0  # every one of them was on the felt when answered
    expect(me.page.locator(".match-over")).to_contain_text("Final score")
    me.page.get_by_role("button", name="Play again").click()
    expect(me.page).not_to_have_url(re.compile(rf"/matches/{match_id}/$"))
    expect(me.page.locator(".chip", has_text="Deal 1")).to_be_visible()
    # The way back: the finished match is in History, its deals listed.
    me.page.get_by_role("link", name="History").click()
    me.page.locator(f'a[href="/history/matches/{match_id}/"]').first.click()
    expect(me.page.get_by_role("link", name="Replay deal 1", exact=True)).to_be_visible()


def test_a_person_closes_the_tab_at_a_shared_table_a_bot_stands_in_and_they_come_back(
    people, journey_site, screenshot_to
):
    host_name, guest_name = journey_site.people("standin", 2)
    host, guest = people(host_name).log_in(), people(guest_name).log_in()
    page = host.page
    page.locator(".new-table-form").get_by_label("Game at the table").select_option("family")
    page.locator(".new-table-form summary").click()
    page.locator("#id_table_players").select_option("3")
    page.locator("#id_table_turn_timeout_seconds").fill("60")
    page.get_by_role("button", name="Create a table").click()
    code = page.locator("[data-invite-code]").inner_text()
    table_url = page.url

    guest.page.get_by_label("Join by code").fill(code)
    guest.page.get_by_role("button", name="Join").click()
    guest.page.locator("[data-take-seat]").click()
    expect(page.locator(".forming-seat", has_text=guest_name)).to_be_visible()
    page.locator("[data-fill-bots]").click()
    expect(page.locator("[data-fill-bots]")).to_have_count(0)  # every seat taken: start
    page.locator("[data-start]").click()
    expect(page.locator("#table[data-deal]")).to_be_visible()
    expect(guest.page.locator("#table[data-deal]")).to_be_visible()

    # Play until it is the guest's turn; then the guest closes the tab.
    play_until([host], lambda: guest.my_turn(), seconds=120)
    seat = guest.page.locator("#table").get_attribute("data-step")
    guest.page.close()
    away = page.locator(".seat", has_text=guest_name)
    expect(away.locator(".presence-off")).to_be_visible(timeout=20_000)
    # A bot stands in within the grace and the sweeper's tick: the table goes on without them.
    expect(page.locator("#table")).not_to_have_attribute("data-step", seat, timeout=20_000)
    screenshot_to(page, "journey-stand-in")
    play_until([host], lambda: deal_scored(host) or host.my_turn(), seconds=120)

    # The guest comes back to the table and plays on, to the end of the deal.
    guest.page = guest.context.new_page()
    guest.page.goto(table_url)
    expect(guest.page.locator("#table[data-deal]")).to_be_visible()
    expect(away.locator(".presence-on")).to_be_visible(timeout=20_000)
    play_until([host, guest], lambda: deal_scored(host) and deal_scored(guest), seconds=240)


def test_two_people_quick_paired_play_a_deal_to_its_end(people, journey_site, screenshot_to):
    names = journey_site.people("paired", 2)
    players = [people(name).log_in() for name in names]
    for person in players:
        page = person.page
        page.get_by_role("link", name="Lobby", exact=True).click()
        page.get_by_label("Rules").select_option("house")
        page.get_by_label("Seating").select_option("cutthroat")
        page.get_by_label("Players").select_option("2")
        page.get_by_role("button", name="Find players").click()
    for person in players:  # both land on the table's own address
        expect(person.page).to_have_url(re.compile(r"/matches/\d+/$"), timeout=30_000)
        expect(person.page.locator("#table[data-deal]")).to_be_visible()
    assert players[0].page.url == players[1].page.url
    play_until(players, lambda: all(deal_scored(p) for p in players), seconds=240)
    screenshot_to(players[0].page, "journey-paired-deal-scored")


def test_play_from_here_to_the_end_of_the_deal_and_back_to_history(people, screenshot_to):
    me = people("practiser").sign_up("a-long-fresh-secret")
    match_id = start_against_bots(me, "family", "easy")
    play_a_deal(me)
    page = me.page
    page.goto(f"{me.site.url}/replay/matches/{match_id}/1/8/")
    page.get_by_label("against").select_option("medium")
    page.locator("[data-practice-start]").click()
    expect(page.locator("#table [data-practice]")).to_be_visible()
    play_until([me], lambda: deal_scored(me), seconds=180)
    expect(page.locator("[data-really]")).to_contain_text("What really happened")
    screenshot_to(page, "journey-practice-end")
    page.get_by_role("link", name="Back to the replay").first.click()
    expect(page.locator("#replay")).to_have_attribute("data-step", "8")
    page.get_by_role("link", name="History").click()
    expect(page.locator(f'a[href="/history/matches/{match_id}/"]').first).to_be_visible()


def test_a_replay_steps_with_the_keys_and_every_card_is_valued_face_up(people, screenshot_to):
    me = people("replayer").sign_up("a-long-fresh-secret")
    match_id = start_against_bots(me, "family", "easy")
    play_a_deal(me)
    page = me.page
    page.goto(f"{me.site.url}/replay/matches/{match_id}/1/0/")
    page.wait_for_load_state("load")
    page.keyboard.press("End")
    expect(page.locator("#replay")).not_to_have_attribute("data-step", "0")
    last = int(page.locator("#replay").get_attribute("data-step"))
    # Back to the first card of the last trick, then step on: each step is solved face up,
    # the next ones ahead of time.
    for _ in range(3):
        page.keyboard.press("ArrowLeft")
    expect(page.locator("#replay")).to_have_attribute("data-step", str(last - 3))
    expect(page.locator("#faceup .faceup-choice").first).to_be_visible(timeout=30_000)
    screenshot_to(page, "journey-replay-faceup")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#replay")).to_have_attribute("data-step", str(last - 2))
    expect(page.locator("#faceup .faceup-choice").first).to_be_visible(timeout=30_000)
    expect(page.locator("#faceup .faceup-actual")).to_have_count(1)
    # Back leaves the replay for the page before it, not the previous step.
    page.go_back()
    expect(page).not_to_have_url(re.compile(r"/replay/matches/\d+/1/\d+/$"))


def test_an_exercise_from_a_reviewed_deal_is_answered(people, screenshot_to):
    me = people("learner").sign_up("a-long-fresh-secret")
    page = me.page
    start_against_bots(me, "house", "easy")
    page.locator("#coach-toggle input[name=enabled]").check()
    for _ in range(6):  # the first legal move each time: the coach soon marks a mistake
        play_a_deal(me)
        expect(page.locator("#coach-panel .coach-review")).to_be_visible(timeout=60_000)
        if page.locator("#coach-panel .mark-mistake, #coach-panel .mark-blunder").count():
            break
        if match_over(me):
            # The learner's lowest bids, set back, can lose the match (at -6) within six deals:
            # a new match then (the coach stays on: it is the person's setting).
            start_against_bots(me, "house", "easy")
        else:
            play_until([me], lambda: not deal_scored(me), seconds=60)  # "Next deal"
    page.get_by_role("link", name="Practise").click()
    page.locator("[data-exercise] a").first.click()
    choice = page.locator("[data-choice]").first
    choice.click()
    expect(page.locator(".exercise-verdict")).to_be_visible()
    expect(page.locator(".coach-options li").first).to_contain_text("net")
    screenshot_to(page, "journey-exercise-answered")


def test_a_match_between_people_is_rated_and_puts_them_on_the_leaderboard(
    people, journey_site, screenshot_to
):
    names = journey_site.people("rated", 2)
    # Nine earlier matches between them, as the statistics record a finished one; the tenth,
    # which puts them on the board (ten people-only matches), is played here.
    journey_site.manage("shell", "-c", EARLIER_MATCHES.format(a=names[0], b=names[1]))
    host, guest = people(names[0]).log_in(), people(names[1]).log_in()
    page = host.page
    page.locator(".new-table-form").get_by_label("Game at the table").select_option("family")
    page.locator(".new-table-form summary").click()
    page.locator("#id_table_players").select_option("2")
    page.get_by_role("button", name="Create a table").click()
    guest.page.goto(journey_site.url + page.locator("[data-invite-link]").get_attribute("href"))
    guest.page.locator("[data-take-seat]").click()
    expect(page.locator(".forming-seat", has_text=names[1])).to_be_visible()
    page.locator("[data-start]").click()
    play_until([host, guest], lambda: match_over(host) and match_over(guest), seconds=600)
    page.get_by_role("link", name="Leaderboard").click()
    page.locator(".board-tabs").get_by_role("link", name="Family").click()
    board = page.locator("table.leaderboard")
    expect(board).to_contain_text(names[0])
    expect(board).to_contain_text(names[1])
    screenshot_to(page, "journey-leaderboard")


EARLIER_MATCHES = """
from django.utils import timezone
from accounts.models import User
from games.models import Match, Seat
from games.stats import services
a, b = User.objects.get(username="{a}"), User.objects.get(username="{b}")
for n in range(9):
    winner, loser = (a, b) if n % 2 else (b, a)
    match = Match.objects.create(
        rules={{"preset": "family", "players": 2}}, status=Match.Status.FINISHED, host=winner,
        first_dealer="P1", totals={{"P1": 7, "P2": 3}}, winner="P1",
        invite_code=f"R{{a.pk:03d}}{{n:02d}}", finished_at=timezone.now(),
    )
    Seat.objects.create(match=match, position="P1", user=winner)
    Seat.objects.create(match=match, position="P2", user=loser)
    services.do_record_match(match)
"""
