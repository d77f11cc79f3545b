"""Nothing stalls: each fault heals by itself, and nothing is lost or doubled (issue 15).

About twenty tables play at once (bots alone, and people against bots who play over HTTP and
watch on a websocket) on the suite's own PostgreSQL, Redis, two Daphne processes and a Celery
worker. Each test injects one fault from outside, restores the service, and checks that every
table went on and every screen showed the latest position within 15 s, with nobody reloading.
The last test checks the whole record. Run with `make faults`.
"""

import signal
import threading

from tests.faults import browser, event_night, play
from tests.faults.site import RECOVERY_LIMIT


def assert_healed(result: dict) -> None:
    assert result["resumed_in_limit"] == result["tables"], (
        f"{result['fault']}: only {result['resumed_in_limit']} of {result['tables']} tables "
        f"went on within {RECOVERY_LIMIT} s: {result}"
    )
    assert result["screens_current_max"] <= RECOVERY_LIMIT, (
        f"{result['fault']}: a screen did not show the latest position in time: {result}"
    )


def test_a_killed_worker_is_replaced_and_its_lost_turns_are_found(site):
    result = site.fault(
        "Celery worker kill -9, back after 10 s", site.worker.kill, 10, site.start_worker
    )
    assert_healed(result)


def test_a_killed_daphne_comes_back_and_its_screens_reconnect(site):
    """Also in Chromium: the table page on the killed Daphne says it is reconnecting, then shows
    the latest position by itself."""
    page = None
    if browser.available():
        person = site.people[0][0]  # plays through the first Daphne
        page = browser.TablePage(person.base_url, play.session_cookie(person.user))

    def kill():
        if page is not None:
            page.open(site.people[0][0].match_id)  # the person's table after the top-up
        site.daphnes[0].kill()
        if page is not None:
            page.wait_reconnecting()

    try:
        result = site.fault(
            "one Daphne kill -9, back after 15 s",
            kill,
            15,
            lambda: (site.daphnes[0].start(), site.wait_for_daphne(0)),
            also=lambda back: (
                {"page_latest_within": round(page.wait_latest(back, RECOVERY_LIMIT), 1)}
                if page is not None
                else {}
            ),
        )
    finally:
        if page is not None:
            page.close()
    assert_healed(result)


def test_redis_down_for_ten_seconds(site):
    result = site.fault("Redis stopped for 10 s", site.redis.kill, 10, site.start_redis)
    assert_healed(result)


def test_postgresql_restarted(site):
    result = site.fault("PostgreSQL fast restart", site.postgres.restart, 0, lambda: None)
    assert_healed(result)


def test_a_hung_worker_goes_on_when_it_wakes(site):
    result = site.fault(
        "Celery worker hung (SIGSTOP) for 10 s",
        lambda: site.worker.signal(signal.SIGSTOP),
        10,
        lambda: site.worker.signal(signal.SIGCONT),
    )
    assert_healed(result)


def test_a_setback_night_goes_on_through_a_killed_worker(site):
    """Started by the sweeper at its time; the worker killed mid-round and back 10 s later: its
    sweeper wakes the round's bots, the round ends, the next one is made, and the night ends
    with both rounds stored and the standings read from their deals."""
    event = event_night.schedule()
    people = event_night.People(event.pk, set(event.entries.values_list("user_id", flat=True)))
    people.start()
    try:
        event_night.wait_for(event.pk, "playing", 60)
        site.worker.kill()
        threading.Event().wait(10)  # the outage: that is the fault, not a wait
        site.start_worker()
        event_night.wait_for(event.pk, "finished", 180)
    finally:
        people.stop()
        people.join(timeout=20)
    tables = event_night.tables(event.pk)
    assert [(t.round, t.number) for t in tables] == [(1, 1), (2, 1)]
    assert all(t.match.status == "finished" for t in tables)
    assert people.moves > 0
    site.every_table += [t.match_id for t in tables]  # their records are checked below


def test_nothing_was_lost_or_doubled_and_no_saved_move_got_an_error(site):
    problems = play.Problems()
    for match_id in site.every_table:
        play.check_record(match_id, problems)
    assert problems.items == []
    errors = [
        (person.user, post)
        for person in site.every_person
        for post in person.posts
        if post.status >= 500
    ]
    saved = [post for user, post in errors if play.saved_after_error(post, user)]
    assert saved == [], f"moves saved but answered with a server error: {saved}"
