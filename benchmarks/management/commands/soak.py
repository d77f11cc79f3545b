"""The soak: `make soak` (`python manage.py soak`). N simulated people (20) for D seconds (600)
against the site exactly as `make run` starts it, with nothing set: SQLite, the in-memory
channel layer, the tasks and search processes inside the web process.

It starts `make run` itself in a process group of its own (benchmarks/made_run.py, which
the browser journeys share), on a free port and a SQLite file in a fresh temporary folder (a
developer's db.sqlite3 is never touched), makes the people's users with `loadtest_users` (the
site allows five sign-ups a minute from one address), and lets them loose
(benchmarks/soak_people.py): random legal things, over HTTP and websockets as the browser
does, thinking 0.5-3 s between actions. It is not a saturation test.

At the end it prints one summary and fails (exit status 1) on any of:
- an answer of 500 or more, or a request left unanswered (each is listed: when, who, doing what);
- a table stalled: its state did not move for more than `--stall-limit` seconds (15) while it
  waited on a bot, a stand-in or the next automatic deal (benchmarks/soak_checks.py);
- a fault in the server's log (stdout and stderr of `make run`) until the end of the run: a
  traceback, "Internal Server Error", a failed task, an ERROR line (what it logs while the soak
  stops it is shown, not counted);
- the server stopping before the end.
The temporary folder (database and server.log) is removed after a run that passed, and kept
(its path printed) after one that failed, or with `--keep`.
"""

import asyncio
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from benchmarks import made_run, soak_people
from benchmarks.soak_checks import fault_signature, log_faults, log_notes

PREFIX = "soak"
SERVING = "Serving Setback on "


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))] if ordered else 0


class Command(BaseCommand):
    help = (
        "Simulated people doing random legal things against `make run`'s defaults; fails on "
        "an answer of 500, a stalled table or a fault in the server's log."
    )

    def add_arguments(self, parser):
        parser.add_argument("--people", type=int, default=20)
        parser.add_argument("--seconds", type=float, default=600)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument(
            "--stall-limit",
            type=float,
            default=15,
            help="seconds a table may wait on a bot, a stand-in or an automatic deal",
        )
        parser.add_argument("--keep", action="store_true", help="keep the database and server log")

    def handle(self, *args, people, seconds, seed, stall_limit, keep, **options):
        folder = Path(tempfile.mkdtemp(prefix="setback-soak-"))
        out = self.stdout.write
        out(f"soak: starting `make run` on a database in {folder} ...")
        started = time.monotonic()
        site = made_run.start(folder)
        out(f"soak: {site.url} served after {time.monotonic() - started:.0f} s")
        try:
            names = site.people(PREFIX, people)
            out(f"soak: {people} people for {seconds:.0f} s (seed {seed})")
            world, elapsed = asyncio.run(
                soak_people.run(site.url, names, made_run.PASSWORD, seconds, seed, stall_limit)
            )
            run_end = site.log_size()
            stopped_early = not site.running()
        finally:
            site.stop()
        log = site.log.read_bytes()
        during = log[:run_end].decode("utf-8", errors="replace")
        after = log[run_end:].decode("utf-8", errors="replace")
        failures = self.report(world, elapsed, during, after, stopped_early, site)
        if failures or keep:
            out(f"soak: the database and server log are kept in {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
        if failures:
            raise CommandError("soak failed: " + "; ".join(failures))
        out("soak: passed")

    # --- The summary ---------------------------------------------------------------------------

    def report(self, world, elapsed, during: str, after: str, stopped_early: bool, site) -> list:
        out = self.stdout.write
        people = len(world.names)
        out("")
        out(
            f"== soak: {people} people, {elapsed:.0f} s from {world.started_at} against "
            f"`make run` at {site.url}"
        )
        self.report_requests(world)
        self.report_doings(world)
        failures = []
        failures += self.report_server_errors(world)
        failures += self.report_tables(world)
        failures += self.report_log(during, after)
        if stopped_early:
            failures.append("the server stopped before the end of the run")
        if world.soak_errors:
            out("the soak's own errors (a person stopped what they were doing; not the site's):")
            for key, trace in world.soak_errors.items():
                out(f"  {key}\n{trace}")
        verdict = "FAIL: " + "; ".join(failures) if failures else "PASS"
        out(
            f"SOAK people={people} seconds={elapsed:.0f} "
            f"requests={world.log.count()} server_errors={len(world.log.failures)} "
            f"stalls={len(world.watch.stalls)} log_faults={len(log_faults(during))} {verdict}"
        )
        return failures

    def report_requests(self, world) -> None:
        out = self.stdout.write
        out(f"requests by kind ({world.log.count()}):")
        out(
            f"  {'kind':<28} {'n':>6} {'2xx':>6} {'3xx':>5} {'4xx':>5} {'5xx':>4} {'none':>4}"
            f" {'p50 ms':>7} {'p95 ms':>7} {'max ms':>7}"
        )
        for kind, row in sorted(world.log.by_kind.items()):
            statuses, seconds = row["statuses"], row["seconds"]
            ok = statuses.get("2xx", 0) + statuses.get("1xx", 0)  # 101: a socket opened
            out(
                f"  {kind:<28} {len(seconds):>6} {ok:>6} {statuses.get('3xx', 0):>5} "
                f"{statuses.get('4xx', 0):>5} {statuses.get('5xx', 0):>4} "
                f"{statuses.get('none', 0):>4} {percentile(seconds, 50) * 1000:>7.0f} "
                f"{percentile(seconds, 95) * 1000:>7.0f} {max(seconds) * 1000:>7.0f}"
            )

    def report_doings(self, world) -> None:
        out = self.stdout.write
        out("what the people did:")
        for what, count in sorted(world.tally.items()):
            out(f"  {what}: {count}")
        for outcome, seconds in sorted(world.faceup_seconds.items()):
            out(
                f"  face-up {outcome}: after p50 {percentile(seconds, 50):.1f} s, "
                f"p95 {percentile(seconds, 95):.1f} s, max {max(seconds):.1f} s"
            )
        if world.coach_seconds:
            seconds = world.coach_seconds
            out(
                f"  coach's advice: {len(seconds)}, after p50 {percentile(seconds, 50):.1f} s, "
                f"p95 {percentile(seconds, 95):.1f} s, max {max(seconds):.1f} s"
            )
        missed = world.missed_changes
        out(f"screens a reload showed newer than their socket had (missed changes): {len(missed)}")
        for offset, name, match_id, before, kind, after in missed[:20]:
            out(
                f"  at {offset:.0f} s: {name} at match {match_id}: the socket's screen at version "
                f"{before} (waiting on {kind or 'nothing'}), the reload's {after}"
            )
        if world.confusions:
            out("what they could not do (the site said no, or the page had changed):")
            for what, count in world.confusions.most_common():
                out(f"  {what}: {count}")

    def report_server_errors(self, world) -> list:
        out = self.stdout.write
        failures = world.log.failures
        out(f"answers of 500 or more, and requests left unanswered: {len(failures)}")
        for offset, request in failures[:50]:
            status = request.status or "no answer"
            out(
                f"  at {offset:.0f} s: {request.kind} {request.url} -> {status} "
                f"({request.who}, doing: {request.doing}) {request.error}"
            )
        if not failures:
            return []
        kinds = Counter(request.kind for _, request in failures)
        return [f"{len(failures)} answers of 500 or more or none ({dict(kinds)})"]

    def report_tables(self, world) -> list:
        out = self.stdout.write
        watch = world.watch
        out(
            f"tables watched: {len(watch.tables)}; waits on something other than a person "
            f"there: {dict(watch.counts)}"
        )
        for kind, wait in sorted(watch.longest.items()):
            out(
                f"  longest wait on {kind}: {wait.seconds:.1f} s "
                f"(match {wait.match_id}, version {wait.version})"
            )
        stalls = sorted(watch.stalls.values(), key=lambda w: -w.seconds)
        out(f"tables stalled longer than {watch.limit:g} s: {len(stalls)}")
        for wait in stalls[:30]:
            out(
                f"  match {wait.match_id} at version {wait.version}: waited on {wait.kind} "
                f"for {wait.seconds:.1f} s"
            )
        return [f"{len(stalls)} tables stalled"] if stalls else []

    def report_log(self, during: str, after: str) -> list:
        out = self.stdout.write
        faults = log_faults(during)
        out(f"faults in the server's log: {len(faults)}")
        for line, count in Counter(fault_signature(f) for f in faults).most_common():
            out(f"  {count} x {line}")
        for fault in faults[:5]:
            out("  ---\n  " + "\n  ".join(fault.splitlines()[:40]))
        serving = during.find(SERVING)
        notes = log_notes(during[serving:] if serving >= 0 else during)
        if notes:
            out("other lines the server logged while serving (numbers as N):")
            for line, count in notes.most_common(20):
                out(f"  {count} x {line}")
        late = log_faults(after)
        if late:
            out(f"faults logged while the server was being stopped (not counted): {len(late)}")
            for fault in late[:3]:
                out("  " + "\n  ".join(fault.splitlines()[:40]))
        return [f"{len(faults)} faults in the server's log"] if faults else []
