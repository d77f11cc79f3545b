"""A Setback night of eight (issue 49): two people in Chromium and six simulated ones check in,
the event starts and sends every page to its table at once, the tables play a round of one deal
each, the panel beside the cards sends each person on to their next table, one of the two
leaves mid-round from the event page (a stand-in finishes their table's round, and they are in
no later round), and the other plays to the end and reads the final standings and their replays.

The six simulated people have no browser: a thread of the test plays their turns (the lowest
bid they may make, else the first legal move) as soon as they come. Their moves, the check-ins and the start are made in the
server's process (tests/e2e/in_server.py), as a request or the sweeper would make them there:
the pages hear of them, and the bots whose turn follows are woken there.
"""

import contextlib
import re
import threading
import time
from dataclasses import dataclass
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from games.core import services as game_services
from games.core import turns
from games.core.turns import WaitingFor
from games.events import services
from games.events.models import Entry, Event, EventTable
from games.models import Action, Match

from .test_play_a_deal import sign_up
from .test_play_with_people import shot
from .test_stats_page import eager_move

pytestmark = pytest.mark.browser

SIMULATED = ("carl", "dina", "ed", "fay", "gus", "hal")
ROUNDS = 3
# A move a person may press: armed (table.js's click guard), and not "Claim the rest" (a claim
# the engine cannot prove is refused, which is a turn lost here, not a test of claims).
ARMED_MOVE = "[data-action]:not([data-unarmed]):not([data-claim])"
# A person's move, or the table showing the match is over.
TURN_OR_OVER = f"""() => !!document.querySelector(
  '#table.table-my-turn {ARMED_MOVE}, #table .match-over')"""

TABLE_PAGE = re.compile(r"/matches/\d+/$")


# --- The simulated people: run in the server's process ----------------------------------------


def simulated_people_move(event_id: int, user_ids: list[int]) -> int:
    """At each of the event's tables in play, the simulated person whose turn it is makes their
    move: the lowest bid they may make (a round of one deal where everyone passes is thrown in
    unplayed), else the first legal move. Runs in the server (in_server), where the tables'
    screens and bots are."""
    moved = 0
    playing = Match.objects.filter(
        event_table__event_id=event_id, status=Match.Status.PLAYING
    ).values_list("pk", flat=True)
    for match_id in playing:
        turn = turns.waiting_on(match_id)
        if turn is None or turn.kind != WaitingFor.PERSON or turn.user_id not in user_ids:
            continue
        match = Match.objects.get(pk=match_id)
        try:
            game_services.do_act(
                match_id,
                seat=turn.seat,
                token=eager_move(match, turn.seat),
                version=turn.version,
                actor=game_services.Actor(user=get_user_model().objects.get(pk=turn.user_id)),
            )
        except (game_services.StaleMove, game_services.NotYourTurn, game_services.NotPlaying):
            continue  # a bot or a stand-in moved between the look and the move
        moved += 1
    return moved


class SimulatedPeople(threading.Thread):
    """The simulated people at their tables: they look for their turn every 50 ms, as a quick
    player would, and make it in the server. No database in this thread: only requests."""

    def __init__(self, in_server, event_id: int, user_ids: list[int]):
        super().__init__(name="simulated-people", daemon=True)
        self.in_server, self.event_id, self.user_ids = in_server, event_id, user_ids
        self.stopping = threading.Event()
        self.moves = 0
        self.error: BaseException | None = None

    def run(self):
        try:
            while not self.stopping.is_set():
                self.moves += self.in_server(simulated_people_move, self.event_id, self.user_ids)
                self.stopping.wait(0.05)
        except BaseException as error:  # said by stop(), in the test's thread
            self.error = error

    def stop(self):
        self.stopping.set()
        self.join(timeout=30)
        if self.error is not None:
            raise self.error


# --- The people in Chromium -------------------------------------------------------------------


@dataclass
class Person:
    name: str
    page: Page
    keyboard: bool  # plays with the keys 1-9, or by clicking the armed controls

    @property
    def user_id(self) -> int:
        return get_user_model().objects.get(username=self.name).pk


def table_in_round(event: Event, user_id: int, number: int) -> EventTable | None:
    for table in EventTable.objects.filter(event=event, round=number):
        if user_id in table.seats.values():
            return table
    return None


def table_url(match_id: int) -> re.Pattern:
    return re.compile(rf"/matches/{match_id}/$")


def match_playing(match_id: int) -> bool:
    return Match.objects.filter(pk=match_id, status=Match.Status.PLAYING).exists()


def take_turn(person: Person) -> bool:
    """If it is this person's turn and a control is armed, make the first legal move."""
    page = person.page
    try:
        if not page.locator(f"#table.table-my-turn {ARMED_MOVE}").count():
            return False
        if person.keyboard:
            page.keyboard.press("1")
        else:
            page.locator(f"#table {ARMED_MOVE}").first.click(timeout=2000)
        return True
    except PlaywrightTimeout:
        return False  # the table was swapped under the pointer (a newer one came); look again


def play(people: list[Person], match_ids: dict[str, int], done=None, seconds: float = 90) -> None:
    """Each person plays at their table until `done()` (by default: until their tables' matches
    are over); meanwhile everyone else's turns come from the bots and the simulated people."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        going = [p for p in people if match_playing(match_ids[p.name])]
        if done() if done else not going:
            return
        for person in going:
            version = person.page.locator("#table").get_attribute("data-version")
            if take_turn(person):
                # Our move on screen before looking again (the guard ignores a second one).
                # (A press refused as too quick times out here: it is still our turn.)
                with contextlib.suppress(PlaywrightTimeout):
                    person.page.wait_for_function(
                        "v => { const t = document.querySelector('#table');"
                        " return !t || t.dataset.version !== v; }",
                        arg=version,
                        timeout=5000,
                    )
        for person in going:  # a short look at each page for its turn, never a fixed pause
            with contextlib.suppress(PlaywrightTimeout):
                person.page.wait_for_function(TURN_OR_OVER, timeout=300 // len(going))
    raise AssertionError(
        f"the tables did not finish: {[turns.waiting_on(m) for m in match_ids.values()]}"
    )


def goes_to_next_table(person: Person, event: Event, number: int, at: dict[str, int]) -> None:
    """The person's page goes to their table of round `number` by itself."""
    table = table_in_round(event, person.user_id, number)
    assert table is not None and table.match_id, f"{person.name} has no table in round {number}"
    at[person.name] = table.match_id
    expect(person.page).to_have_url(table_url(table.match_id), timeout=30_000)
    expect(person.page.locator(".table-socket[data-connected]")).to_be_attached()
    expect(person.page.locator("#event-panel")).to_contain_text(f"round {number} of {ROUNDS}")


def test_a_setback_night_of_eight_with_two_in_chromium(
    site, page, browser, in_server, password, screenshot
):
    ada_page = page
    bea_context = browser.new_context()
    bea_page = bea_context.new_page()
    refused = []  # the Content-Security-Policy's reports (no inline script, no eval): none
    for p in (ada_page, bea_page):
        p.set_viewport_size({"width": 1280, "height": 900})
        p.on(
            "console",
            lambda message: (
                refused.append(message.text) if "Content Security Policy" in message.text else None
            ),
        )
    sign_up(ada_page, site, "ada")
    sign_up(bea_page, site, "bea")
    ada, bea = Person("ada", ada_page, keyboard=False), Person("bea", bea_page, keyboard=True)
    simulated = [
        get_user_model().objects.create_user(name, password=password) for name in SIMULATED
    ]

    # Ada schedules the night on the events page: rotation, three rounds of one deal.
    ada_page.goto(site + "/events/")
    ada_page.get_by_label("Name").fill("Friday pitch")
    starts = timezone.now() + timedelta(minutes=10)
    ada_page.get_by_label("Start (UTC)").fill(starts.strftime("%Y-%m-%dT%H:%M"))
    ada_page.get_by_label("Game").select_option("house")
    ada_page.get_by_label("Movement").select_option("rotation")
    ada_page.get_by_label("Rounds").fill(str(ROUNDS))
    ada_page.get_by_label("Deals per round").fill("1")
    ada_page.get_by_label("Minutes per round").fill("20")
    ada_page.get_by_label("Bots in empty seats").select_option("easy")
    ada_page.locator("[data-schedule-event]").click()
    expect(ada_page.locator("[data-event-name]")).to_have_text("Friday pitch")
    event = Event.objects.get()
    event_url = f"{site}/events/{event.pk}/"
    assert ada_page.url == event_url

    # Both check in on the event page; bea finds it on the list.
    bea_page.goto(site + "/events/")
    bea_page.locator(f'[data-event-item="{event.pk}"] a').click()
    for person in (ada, bea):
        person.page.locator("[data-check-in]").click()
        expect(person.page.locator("[data-checked-in]")).to_be_visible()
    # The six others check in (in the server): both pages count them as they come, which
    # also says that both pages' sockets are open for the start.
    for user in simulated:
        in_server(services.do_check_in, event.pk, user=user)
    for person in (ada, bea):
        expect(person.page.locator("[data-checked-in-count]")).to_have_text("8")
    screenshot("event-checked-in")

    # The start, as the sweeper makes it at the event's time: both pages go to their tables
    # by themselves.
    people = SimulatedPeople(in_server, event.pk, [u.pk for u in simulated])
    people.start()
    try:
        in_server(services.do_start_event, event.pk, now=event.starts_at)
        event.refresh_from_db()
        assert (event.status, event.round_number) == ("playing", 1)
        assert EventTable.objects.filter(event=event, round=1).count() == 2
        at: dict[str, int] = {}
        for person in (ada, bea):
            goes_to_next_table(person, event, 1, at)

        # Round 1: both play their table to its end; the panel sends each to their next
        # table. Ada's page is kept a moment (her first move there answered "204 No Content",
        # which leaves a page where it is), to see the panel that sends her; she then follows
        # its button.
        kept = []

        def keep_once(route):
            if kept:
                route.continue_()
            else:
                kept.append(route.request.url)
                route.fulfill(status=204)

        ada_page.route(TABLE_PAGE, keep_once)
        play([ada, bea], at)
        next_table = ada_page.locator("#event-panel [data-next-table]")
        expect(next_table).to_be_visible(timeout=30_000)
        expect(ada_page.locator("#event-panel")).to_contain_text("your next table is table")
        # The table's end sends her on: no rematch of a round's table.
        expect(ada_page.locator(".match-over")).to_be_visible()
        expect(ada_page.locator(".match-over form")).to_have_count(0)
        screenshot("event-panel-next-table")
        ada_page.unroute(TABLE_PAGE, keep_once)
        assert kept and kept[0].endswith(next_table.get_attribute("href")), kept
        next_table.click()
        event.refresh_from_db()
        assert event.round_number == 2
        for person in (ada, bea):
            goes_to_next_table(person, event, 2, at)

        # Round 2: bea makes a move, then leaves the event from its page, where she sees the
        # live standings: round 1's results, round 2 in play.
        bea_table = EventTable.objects.get(match_id=at["bea"])
        bea_seat = next(pos for pos, uid in bea_table.seats.items() if uid == bea.user_id)
        play(
            [ada, bea],
            at,
            done=lambda: Action.objects.filter(
                deal__match_id=at["bea"], user__username="bea"
            ).exists(),
        )
        bea_page.goto(event_url)
        live = bea_page.locator("#event-live")
        expect(live).to_have_attribute("data-round", "2")
        rows = bea_page.locator("[data-standing-row]")
        expect(rows).to_have_count(8)
        expect(rows.first.locator(".sheet-cell").nth(0)).to_contain_text(re.compile(r"W|L"))
        expect(
            bea_page.locator('[data-event-table][data-table-playing="yes"]').first
        ).to_be_visible()
        # Her table waits for her (she has been away for less than the grace): still in play.
        expect(bea_page.locator('[data-standing-row="bea"] .sheet-cell').nth(1)).to_contain_text(
            "in play"
        )
        shot(bea_page, "event-standings-mid-event-1280")
        bea_page.set_viewport_size({"width": 390, "height": 844})
        shot(bea_page, "event-standings-mid-event-390")
        bea_page.set_viewport_size({"width": 1280, "height": 900})
        bea_page.once("dialog", lambda dialog: dialog.accept())
        bea_page.locator("[data-leave-event]").click()
        expect(bea_page.get_by_text("You left the event.")).to_be_visible()
        assert Entry.objects.get(event=event, user__username="bea").left_at is not None
        stand_in = Match.objects.get(pk=at["bea"]).seats.get(position=bea_seat)
        assert stand_in.user_id is None and stand_in.bot_level, "no stand-in took bea's seat"

        # Ada plays round 2 out; the stand-in finishes bea's table.
        play([ada], at)
        # Round 3: ada goes on by herself; bea, who left, is at no table and her page stays.
        ada_page.wait_for_url(lambda url: not table_url(at["ada"]).search(url), timeout=60_000)
        event.refresh_from_db()
        assert event.round_number == 3
        goes_to_next_table(ada, event, 3, at)
        assert table_in_round(event, bea.user_id, 3) is None
        assert not match_playing(bea_table.match_id)
        assert (
            Action.objects.filter(
                deal__match_id=bea_table.match_id, seat=bea_seat, user__isnull=True
            )
            .exclude(bot_level="")
            .exists()
        ), "the stand-in made no move in bea's seat"
        expect(bea_page.locator("#event-live")).to_have_attribute("data-round", "3")
        assert bea_page.url == event_url
        expect(bea_page.locator("[data-my-table]")).to_have_count(0)

        play([ada], at)
        expect(ada_page.locator("#event-panel")).to_contain_text("The event is over.")
        screenshot("event-panel-event-over")
        ada_page.locator("#event-panel [data-event-standings]").click()
    finally:
        people.stop()
    assert people.moves > 0

    # The final standings: eight sheets, ranked, each round's result with its replay.
    expect(ada_page.locator("#event-live")).to_have_attribute("data-event-status", "finished")
    rows = ada_page.locator("[data-standing-row]")
    expect(rows).to_have_count(8)
    places = [int(p) for p in rows.evaluate_all("rows => rows.map(r => r.dataset.place)")]
    assert places == sorted(places) and places[0] == 1, places
    bea_row = ada_page.locator('[data-standing-row="bea"]')
    expect(bea_row.locator(".sheet-cell").nth(2)).to_have_text("–")
    screenshot("event-final-standings")
    ada_row = ada_page.locator('[data-standing-row="ada"]')
    expect(ada_row.locator("[data-sheet-replay]")).to_have_count(ROUNDS)
    ada_row.locator("[data-sheet-replay]").first.click()
    ada_page.locator(".deal-links a").first.click()
    expect(ada_page.locator("#replay")).to_be_visible()
    # Face up: every seat's cards are shown.
    expect(ada_page.locator(".replay-seat")).to_have_count(4)
    screenshot("event-replay")
    bea_context.close()
    assert not refused, refused
