"""The site under test: its processes, its tables, and one fault at a time with its measurements."""

import contextlib
import os
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from django.db import close_old_connections

from games.models import Match
from setback_site.celery import app
from tests.faults import cluster, play

BOT_TABLES = int(os.environ.get("FAULTS_BOT_TABLES", "16"))
PEOPLE = int(os.environ.get("FAULTS_PEOPLE", "4"))
# Must have 1 of issue 15: every table goes on within 15 s of the service's return.
RECOVERY_LIMIT = 15.0
WORKER_NAME = "faults@localhost"


class Site:
    def __init__(self, workdir: Path, pg_port: int, redis_port: int, http_ports: tuple[int, int]):
        self.workdir = workdir
        self.http_ports = http_ports
        self.postgres = cluster.Postgres(workdir, pg_port)
        self.redis_port = redis_port
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        self.redis = cluster.redis(redis_port, env, workdir)
        self.daphnes = [
            cluster.daphne(f"daphne-{i + 1}", port, env, workdir)
            for i, port in enumerate(http_ports)
        ]
        self.worker = cluster.worker(env, workdir)
        self.bot_tables: list[int] = []
        self.people: list[tuple[play.Person, play.Screen]] = []
        self.every_person: list[play.Person] = []  # with those whose match ended
        self.every_table: list[int] = []
        self.results: list[dict] = []
        self.stopping = threading.Event()

    # --- processes ---------------------------------------------------------------------------

    def start(self) -> None:
        self.postgres.init()
        self.start_redis()
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=cluster.ROOT,
            env=self.redis.env,
            check=True,
        )
        for daphne in self.daphnes:
            daphne.start()
        self.start_worker()
        threading.Thread(target=self.supervise, daemon=True, name="supervisor").start()
        for index, _ in enumerate(self.daphnes):
            self.wait_for_daphne(index)
        host = play.make_user("faults-host")
        for _ in range(BOT_TABLES):
            self.bot_tables.append(play.start_bot_table(host))
        self.every_table += self.bot_tables
        for number in range(PEOPLE):
            self.seat_person(play.make_user(f"faults-person-{number}"), number)

    def supervise(self) -> None:
        """A production site runs its workers and servers under a supervisor that restarts a
        process that died by itself (a crash), so this one does too; `restarts` counts them."""
        while not self.stopping.wait(1.0):
            for process in [self.worker, *self.daphnes]:
                process.supervise()

    def stop(self) -> None:
        self.stopping.set()
        for person, screen in self.people:
            person.stop()
            screen.stop()
        for person, screen in self.people:
            person.join(timeout=20)
            screen.join(timeout=20)
        # Stopped before the database was ready: stop the rest all the same.
        with contextlib.suppress(Exception):
            Match.objects.filter(status=Match.Status.PLAYING).update(status=Match.Status.FINISHED)
        close_old_connections()
        for process in [self.worker, *self.daphnes, self.redis]:
            process.stop()
        self.postgres.stop()

    def start_redis(self) -> None:
        self.redis.start()
        cluster.wait_until(lambda: cluster.port_open(self.redis_port), 30, what="Redis")

    def start_worker(self) -> None:
        self.worker.start()
        cluster.wait_until(
            lambda: app.control.ping(destination=[WORKER_NAME], timeout=0.5),
            90,
            interval=0.5,
            what="the Celery worker",
        )

    def wait_for_daphne(self, index: int) -> None:
        url = f"http://127.0.0.1:{self.http_ports[index]}/accounts/login/"
        cluster.wait_until(
            lambda: urllib.request.urlopen(url, timeout=2).status == 200,
            60,
            what=f"Daphne on port {self.http_ports[index]}",
        )

    # --- tables ------------------------------------------------------------------------------

    def seat_person(self, user, number: int) -> None:
        """A person at a new table against bots, playing through one Daphne, with a screen on
        the same Daphne."""
        daphne = number % len(self.http_ports)
        match_id = play.start_person_table(user)
        person = play.Person(user, match_id, f"http://127.0.0.1:{self.http_ports[daphne]}")
        screen = play.Screen(user, match_id, self.http_ports[daphne])
        person.start()
        screen.start()
        self.people.append((person, screen))
        self.every_person.append(person)
        self.every_table.append(match_id)

    def all_tables(self) -> list[int]:
        return self.bot_tables + [person.match_id for person, _ in self.people]

    def top_up(self) -> None:
        """Replace the tables whose match has ended, so every fault meets a full house."""
        finished = set(
            Match.objects.filter(
                pk__in=self.all_tables(), status=Match.Status.FINISHED
            ).values_list("pk", flat=True)
        )
        host = play.make_user("faults-host")
        for index, match_id in enumerate(self.bot_tables):
            if match_id in finished:
                self.bot_tables[index] = play.start_bot_table(host)
                self.every_table.append(self.bot_tables[index])
        for number, (person, screen) in enumerate(list(self.people)):
            if person.match_id in finished:
                person.stop()
                screen.stop()
                self.people.remove((person, screen))
                self.seat_person(person.user, number)
        self.people.sort(key=lambda pair: pair[0].user.username)

    def versions(self) -> dict[int, tuple[int, str]]:
        return {
            pk: (version, status)
            for pk, version, status in Match.objects.filter(pk__in=self.all_tables()).values_list(
                "pk", "version", "status"
            )
        }

    def wait_until_all_move(self, timeout: float) -> dict[int, float]:
        """Wait until every table still playing has moved; seconds until each one did."""
        started = time.monotonic()
        before = cluster.wait_until(self.versions, 60, what="the database")
        playing = [pk for pk, (_, status) in before.items() if status == Match.Status.PLAYING]
        moved: dict[int, float] = {}

        def everyone_moved():
            now = self.versions()
            for pk in playing:
                if pk not in moved and (now[pk][0] > before[pk][0] or now[pk][1] != "playing"):
                    moved[pk] = time.monotonic() - started
            return len(moved) == len(playing)

        try:
            cluster.wait_until(everyone_moved, timeout, interval=0.1, what="every table to move")
        except TimeoutError:
            pass  # reported: the tables missing from `moved` did not go on
        finally:
            close_old_connections()
        return {pk: moved.get(pk, float("inf")) for pk in playing}

    def wait_until_screens_current(self, since: float, timeout: float) -> dict[str, float]:
        """Wait until every screen shows its table's latest position, seconds after `since`."""
        caught_up: dict[str, float] = {}

        def all_current():
            for _, screen in self.people:
                if screen.name in caught_up:
                    continue
                match = Match.objects.get(pk=screen.match_id)
                latest = match.version
                if screen.connected.is_set() and screen.newest_since(since) >= latest:
                    caught_up[screen.name] = time.monotonic() - since
            return len(caught_up) == len(self.people)

        try:
            cluster.wait_until(all_current, timeout, interval=0.1, what="every screen")
        except TimeoutError:
            pass
        finally:
            close_old_connections()
        return {screen.name: caught_up.get(screen.name, float("inf")) for _, screen in self.people}

    # --- one fault ---------------------------------------------------------------------------

    def fault(self, name: str, inject, outage: float, restore, also=None) -> dict:
        """Play, inject the fault, keep it for `outage` seconds, restore the service (the call
        returns once it answers again), then measure how long every table and every screen
        took to go on. `also(back)` measures more afterwards (a browser page)."""
        self.top_up()
        warm = self.wait_until_all_move(30)
        # A table that did not move now was left stranded by an earlier fault (which failed for
        # it): it is taken out and replaced, so that this fault is measured on tables in play.
        stranded = [pk for pk, seconds in warm.items() if seconds == float("inf")]
        if stranded:
            Match.objects.filter(pk__in=stranded).update(status=Match.Status.FINISHED)
            self.top_up()
            self.wait_until_all_move(30)
        posts_before = {person.name: len(person.posts) for person, _ in self.people}
        restarts_before = sum(p.restarts for p in [self.worker, *self.daphnes])
        inject()
        threading.Event().wait(outage)  # the fault lasts this long: that is the fault, not a wait
        restore()
        back = time.monotonic()
        tables = self.wait_until_all_move(RECOVERY_LIMIT + 45)
        screens = self.wait_until_screens_current(back, RECOVERY_LIMIT + 45)
        extra = also(back) if also else {}
        posts = [
            post for person, _ in self.people for post in person.posts[posts_before[person.name] :]
        ]
        result = {
            "fault": name,
            "tables": len(tables),
            "resumed_in_limit": sum(1 for t in tables.values() if t <= RECOVERY_LIMIT),
            "resumed": sum(1 for t in tables.values() if t != float("inf")),
            "recovery_median": round(statistics.median(tables.values()), 1),
            "recovery_max": round(max(tables.values()), 1),
            "screens": len(screens),
            "screens_current_max": round(max(screens.values()), 1),
            "server_errors": sum(1 for post in posts if post.status >= 500),
            "stranded_before": len(stranded),
            "crashed_and_restarted": sum(p.restarts for p in [self.worker, *self.daphnes])
            - restarts_before,
            **extra,
        }
        self.results.append(result)
        return result


def summary_table(results: list[dict]) -> str:
    lines = [
        "| fault | tables that went on within 15 s | recovery median / max (s) "
        "| every screen current after (s) | 5xx answers | crashed, restarted |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        page = f"; the page: {r['page_latest_within']}" if "page_latest_within" in r else ""
        lines.append(
            f"| {r['fault']} | {r['resumed_in_limit']} of {r['tables']} "
            f"({r['resumed']} at all) | {r['recovery_median']} / {r['recovery_max']} "
            f"| {r['screens_current_max']}{page} | {r['server_errors']} "
            f"| {r.get('crashed_and_restarted', 0)} |"
        )
    return "\n".join(lines)
