"""The soak's checks (benchmarks/soak_checks.py) and what its people read
(benchmarks/soak_people.py): what a table waits on, as the real screens say; how long a
table waited on a bot, a stand-in or an automatic deal, measured only from what the people saw
and never longer than it was (times given, no server); what the server's log holds; and the
marks the people find their way by, on the real pages."""

from types import SimpleNamespace

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from django.template.loader import render_to_string
from django.test import Client

from benchmarks.site_client import (
    FORMING_RE,
    PLAY_AGAIN_RE,
    RequestLog,
    Screen,
    SiteClient,
    route_kind,
)
from benchmarks.soak_checks import (
    BOT,
    NEXT_DEAL,
    PERSON,
    STAND_IN,
    TableWatch,
    fault_signature,
    log_faults,
    log_notes,
    turn_holder,
    waits_on,
)
from benchmarks.soak_people import (
    COACH_PANEL,
    FIRST_FREE,
    HISTORY_MATCH,
    INVITE_CODE,
    LOBBY_SIDE,
    REMATCH_LINK,
    REPLAY_LAST,
    REPLAY_LINK,
    RESUME_LINK,
    REVIEW_LINK,
    faceup_answer,
    faceup_next,
)
from games import engine
from games.core import services, turns
from games.tables import services as tables

from .play import play_until
from .replays import finish_match, play_deals, played_deals


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def watch_at(limit=15.0):
    clock = Clock()
    return TableWatch(limit, clock=clock), clock


def test_a_bot_watched_through_its_turn_waited_until_the_next_version_arrived():
    watch, clock = watch_at()
    watch.opened(1)
    watch.saw(1, 10, BOT, at=0.0)
    clock.now = 3.0
    watch.check()
    watch.saw(1, 11, PERSON, at=4.5)
    assert watch.longest[BOT].seconds == 4.5
    assert watch.counts[BOT] == 1 and not watch.stalls


def test_a_wait_nobody_watched_to_its_end_counts_only_to_its_last_sighting():
    watch, clock = watch_at()
    watch.opened(1)
    watch.saw(1, 10, BOT, at=0.0)
    clock.now = 2.0
    watch.closed(1)  # the tab is closed two seconds in: the bot has not moved by then
    watch.saw(1, 14, PERSON, at=60.0)  # back a minute later: it moved at some point
    assert watch.longest[BOT].seconds == 2.0
    assert not watch.stalls


def test_the_same_version_seen_again_after_a_gap_proves_the_table_still():
    watch, clock = watch_at()
    watch.saw(1, 10, STAND_IN, at=0.0)  # a page load, no socket
    watch.saw(1, 10, STAND_IN, at=20.0)  # a reload, twenty seconds on: still the same
    watch.saw(1, 11, PERSON, at=40.0)
    assert watch.longest[STAND_IN].seconds == 20.0
    assert [(w.match_id, w.version, w.kind) for w in watch.stalls.values()] == [(1, 10, STAND_IN)]


def test_a_socket_opened_after_a_gap_counts_only_once_it_shows_the_same_version():
    watch, clock = watch_at()
    watch.saw(1, 10, BOT, at=0.0)  # the page
    clock.now = 30.0
    watch.opened(1)  # the socket, much later: the table may have moved meanwhile
    watch.saw(1, 12, PERSON, at=30.1)
    assert watch.longest[BOT].seconds == 0.0
    watch.saw(1, 13, BOT, at=31.0)
    watch.opened(1)
    clock.now = 50.0
    assert [w.seconds for w in watch.check()] == [19.0]  # still going, watched all along


def test_a_long_turn_of_a_person_who_is_there_is_no_stall_but_their_absence_is():
    watch, clock = watch_at()
    watch.opened(1)
    watch.saw(1, 10, PERSON, at=0.0)
    clock.now = 100.0
    assert watch.check() == []
    watch.saw(1, 10, STAND_IN, at=100.0)  # they closed the tab: a stand-in is due
    clock.now = 106.0
    watch.saw(1, 10, PERSON, at=106.0)  # back before it played
    assert watch.longest[STAND_IN].seconds == 6.0
    clock.now = 200.0
    assert watch.check() == [] and not watch.stalls


def test_a_stall_is_found_while_it_lasts_and_kept_once():
    watch, clock = watch_at(limit=15)
    watch.opened(1)
    watch.opened(1)  # two people at the table
    watch.saw(1, 10, NEXT_DEAL, at=0.0)
    clock.now = 10.0
    assert watch.check() == []
    watch.closed(1)  # one of them leaves: the other still watches
    clock.now = 16.0
    assert [w.seconds for w in watch.check()] == [16.0]
    clock.now = 20.0
    watch.check()
    watch.saw(1, 11, PERSON, at=21.0)
    assert len(watch.stalls) == 1 and list(watch.stalls.values())[0].seconds == 21.0


def test_an_older_screen_arriving_late_changes_nothing():
    watch, clock = watch_at()
    watch.opened(1)
    watch.saw(1, 11, PERSON, at=0.0)
    watch.saw(1, 10, BOT, at=1.0)  # overtaken by the newer one
    clock.now = 30.0
    assert watch.check() == [] and not watch.counts


def test_the_end_of_the_run_counts_the_waits_still_going_on():
    watch, clock = watch_at()
    watch.opened(2)
    watch.saw(2, 5, BOT, at=0.0)
    clock.now = 3.0
    watch.finish()
    assert watch.longest[BOT].seconds == 3.0 and watch.counts[BOT] == 1


SERVER_LOG = """\
Serving Setback on http://127.0.0.1:8000/
127.0.0.1:4000 - - [02/Dec/2026:05:13:52] "GET /" 200 1698
Internal Server Error: /matches/3/
Traceback (most recent call last):
  File "x.py", line 1, in view
    raise ValueError("Need 2 values to unpack in for loop; got 3")
ValueError: Need 2 values to unpack in for loop; got 3
127.0.0.1:4000 - - [02/Dec/2026:05:13:53] "GET /matches/3/" 500 145
sweeper: woke 2 stalled table(s)
sweeper: woke 1 stalled table(s)
Not Found: /matches/9/
"""


def test_the_log_s_faults_are_each_traceback_once_with_its_exception():
    faults = log_faults(SERVER_LOG)
    assert len(faults) == 1
    assert fault_signature(faults[0]) == (
        "Internal Server Error: /matches/3/ ... "
        "ValueError: Need 2 values to unpack in for loop; got 3"
    )


def test_an_error_line_and_a_failed_task_are_faults_and_warnings_are_notes():
    assert len(log_faults("task games.web.tasks.play_bot_turn(1, 2) failed\nERROR: boom\n")) == 2
    daphne = (
        "Exception inside application: Attempt to send on a closed protocol\n"
        "Traceback (most recent call last):\n"
        '  File "consumer.py", line 82, in send\n'
        "autobahn.exception.Disconnected: Attempt to send on a closed protocol\n"
        "sweeper: woke 1 stalled table(s)\n"
    )
    assert [fault_signature(f) for f in log_faults(daphne)] == [
        "Exception inside application: Attempt to send on a closed protocol ... "
        "autobahn.exception.Disconnected: Attempt to send on a closed protocol"
    ]
    notes = log_notes(SERVER_LOG + daphne)
    assert notes == {"sweeper: woke N stalled table(s)": 3, "Not Found: /matches/N/": 1}


def test_requests_are_counted_by_what_they_are():
    assert route_kind("POST", "http://127.0.0.1:8000/matches/12/act/") == "POST move"
    assert route_kind("GET", "/replay/matches/3/1/17/") == "GET replay step"
    assert route_kind("POST", "/replay/matches/3/1/17/faceup/") == "POST face-up"
    assert route_kind("GET", "/history/?page=2") == "GET history"
    assert route_kind("WS", "ws://127.0.0.1:8000/ws/table/4/") == "WS table socket"
    assert route_kind("GET", "/nowhere/") == "GET other"


# --- The real screens ---------------------------------------------------------------------------


def page_of(user, path: str) -> str:
    client = Client()
    client.force_login(user)
    response = client.get(path, follow=True)
    assert response.status_code == 200
    return response.content.decode()


def waiting(match_id: int, kind: str, seat: str = ""):
    def stop(match) -> bool:
        turn = turns.waiting_on(match_id)
        return turn is not None and turn.kind == kind and (not seat or turn.seat == seat)

    return stop


@pytest.fixture
def shared(user, make_user):
    """A started table: the user (the host, South) and bob (West), bots in the other seats."""
    bob = make_user("bob")
    match = tables.do_create_table(user, rules_spec="house")
    tables.do_sit(match.pk, user=bob, position="W")
    tables.do_fill_with_bots(match.pk, host=user, level="easy")
    return tables.do_start_table(match.pk, host=user), bob


@pytest.mark.django_db
def test_a_bots_turn_and_ones_own_as_the_screen_says(user):
    match = services.do_start_match(user, rules_spec="house", bot_level="easy")
    play_until(match, stop=waiting(match.pk, "bot"))
    assert waits_on(page_of(user, f"/matches/{match.pk}/")) == BOT
    play_until(match, stop=waiting(match.pk, "person"))
    screen = page_of(user, f"/matches/{match.pk}/")
    assert waits_on(screen) == PERSON and Screen.parse(screen).my_turn


@pytest.mark.django_db
def test_another_persons_turn_is_a_stand_ins_while_they_are_away(shared, user):
    match, bob = shared
    play_until(match, stop=waiting(match.pk, "person", "W"))
    page = page_of(user, f"/matches/{match.pk}/")
    assert waits_on(page) == STAND_IN and turn_holder(page) == "bob"
    tables.do_presence(match.pk, user=bob, delta=+1)  # bob's tab opens
    page = page_of(user, f"/matches/{match.pk}/")
    assert waits_on(page) == PERSON and turn_holder(page) == "bob"
    assert turn_holder(page_of(bob, f"/matches/{match.pk}/")) == ""  # his own turn


@pytest.mark.django_db
def test_a_deal_played_out_waits_on_a_click_and_a_thrown_in_one_deals_on_by_itself(user, make_user):
    match = play_deals(user, "house", played=1, seed=3)
    play_until(match, stop=lambda m: m.deals.last().is_over)
    page = page_of(user, f"/matches/{match.pk}/")
    over = Screen.parse(page).phase == "over" and "Everyone passed" not in page
    assert waits_on(page) == (PERSON if over else NEXT_DEAL)
    # Four people who all pass: the hand is thrown in (house rules: the dealer need not bid).
    people = [user, *(make_user(name) for name in ("bob", "carol", "dave"))]
    table = tables.do_create_table(user, rules_spec="house")
    for person, seat in zip(people[1:], ("W", "N", "E"), strict=True):
        tables.do_sit(table.pk, user=person, position=seat)
    table = tables.do_start_table(table.pk, host=user)
    play_until(table, stop=lambda m: m.deals.last().is_over, person=lambda m, seat: "pass")
    assert waits_on(page_of(user, f"/matches/{table.pk}/")) == NEXT_DEAL


@pytest.mark.django_db
def test_a_finished_match_a_finished_practice_deal_and_a_forming_table_wait_on_nothing(user):
    finished = finish_match(user, "family", seed=2)
    assert waits_on(page_of(user, f"/matches/{finished.pk}/")) == ""
    deal_row = played_deals(finished)[0]
    practice = services.do_start_practice(
        user, match_id=finished.pk, number=deal_row.number, step=8, bot_level="easy"
    )
    play_until(practice)
    page = page_of(user, f"/matches/{practice.pk}/")
    assert Screen.parse(page).phase == "over" and waits_on(page) == ""
    forming = page_of(user, f"/matches/{tables.do_create_table(user, rules_spec='house').pk}/")
    assert waits_on(forming) == "" and FORMING_RE.search(forming)


@pytest.mark.parametrize(
    ("status", "next_request", "answer"),
    [
        ("none", ("POST", 0.0), ""),
        ("busy", ("POST", 1.0), ""),
        ("pending", ("GET", 0.25), ""),
        ("computing", ("GET", 0.25), ""),
        ("ready", None, "ready"),
        ("too_large", None, "too large"),
    ],
)
def test_the_face_up_panel_is_asked_again_as_htmx_would(status, next_request, answer):
    panel = SimpleNamespace(
        status=status, choices=[], who="You", pitcher_side="Us", bid_label="3",
        actual_best=None, exact_from_trick=None,
    )  # fmt: skip
    html = render_to_string("replay/_faceup.html", {"panel": panel, "url": "/replay/x/"})
    assert faceup_next(html) == next_request
    assert faceup_answer(html) == answer


@pytest.mark.django_db
def test_the_people_find_their_way_on_the_real_pages(user, make_user):
    match = play_deals(user, "house", played=1, seed=4)
    number = played_deals(match)[0].number
    assert str(match.pk) in HISTORY_MATCH.findall(page_of(user, "/history/"))
    match_page = page_of(user, f"/history/matches/{match.pk}/")
    assert (str(match.pk), str(number)) in REPLAY_LINK.findall(match_page)
    assert REVIEW_LINK.search(match_page)
    step = page_of(user, f"/replay/matches/{match.pk}/{number}/0/")
    last = int(REPLAY_LAST.search(step).group(1))
    played = page_of(user, f"/replay/matches/{match.pk}/{number}/{last - 1}/")
    assert faceup_next(played) == ("POST", 0.0) and "data-practice-start" in played
    assert str(match.pk) in RESUME_LINK.findall(page_of(user, "/"))
    table = tables.do_create_table(user, rules_spec="house", public=True)
    host_page = page_of(user, f"/matches/{table.pk}/")
    assert INVITE_CODE.search(host_page).group(1) == table.invite_code
    guest = make_user("bob")
    assert FIRST_FREE.search(page_of(guest, f"/t/{table.invite_code}/"))
    tables.do_presence(table.pk, user=user, delta=+1)  # the host has the table open: it is listed
    assert str(table.pk) in [found for found, _ in LOBBY_SIDE.findall(page_of(guest, "/lobby/"))]


@pytest.mark.django_db
def test_the_end_of_a_shared_match_offers_its_rematch_and_then_leads_to_it(user, make_user):
    bob = make_user("bob")
    table = tables.do_create_table(user, rules_spec="family")
    tables.do_sit(table.pk, user=bob, position=engine.Rules.from_spec("family").seats[1])
    tables.do_fill_with_bots(table.pk, host=user, level="easy")
    match = play_until(tables.do_start_table(table.pk, host=user))
    assert PLAY_AGAIN_RE.search(page_of(bob, f"/matches/{match.pk}/"))
    rematch = tables.do_table_rematch(match.pk, user=user)
    assert REMATCH_LINK.search(page_of(bob, f"/matches/{match.pk}/")).group(1) == str(rematch.pk)


@pytest.mark.parametrize("state", ["thinking", "advice", "off"])
def test_the_coach_panels_state_and_moment_are_read(state):
    panel = SimpleNamespace(state=state, enabled=state != "off", deal_number=2, step=9, version=41)
    html = render_to_string("coach/_panel.html", {"panel": panel})
    assert COACH_PANEL.search(html).groups() == (state, "41")


@pytest.mark.asyncio
async def test_the_client_reads_a_header_in_any_case_and_counts_what_it_asked():
    async def rematch(request):
        # Daphne (Twisted) sends Django's "HX-Redirect" as "Hx-Redirect".
        return web.Response(headers={"Hx-Redirect": "/matches/8/"})

    app = web.Application()
    app.router.add_post("/matches/7/rematch/", rematch)
    async with TestServer(app, host="127.0.0.1") as server:
        log = RequestLog()
        browser = SiteClient(str(server.make_url("")).rstrip("/"), who="ann", log=log)
        try:
            answer = await browser.post("/matches/7/rematch/", {}, htmx=True)
        finally:
            await browser.close()
    assert answer.headers.get("HX-Redirect") == "/matches/8/"
    assert log.by_kind["POST rematch"]["statuses"] == {"2xx": 1} and not log.failures
