"""The offline page's figures (docs/offline.md), measured against a running site:

    make run                                   # in one shell (WhiteNoise serves the .gz copies)
    .venv/bin/python scripts/bench_offline.py --url http://127.0.0.1:8000 [--deals 3] [--checks 5]

- the bytes a first visit downloads, as served (compressed), counted on the wire by a proxy
  between Chromium and the site, until the service worker has cached everything; and the size
  of each file the page caches, as served with gzip;
- the cold start to a playable table online (a first visit: Python starts and imports the
  engine, a match is dealt), and the reload with the network cut (from the caches, Python from
  its snapshot, the match restored);
- the hard bots' decisions and the coach's advice in the page (Chromium), p50 and p95;
- the CPU the site spends checking a hard deal that comes home (every bot move decided again).

Not a test: figures depend on the machine and its load (say which in the note).
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import statistics
import threading
import time
import urllib.request
from urllib.parse import urlsplit

from playwright.sync_api import sync_playwright

from games.engine import bots
from games.engine.offline import OfflineMatch, redecide_report

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


class CountingProxy:
    """A TCP relay on a local port that counts the bytes the site sends to the browser."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.received = 0
        self.loop = asyncio.new_event_loop()
        self.port = 0
        ready = threading.Event()
        threading.Thread(target=self._run, args=(ready,), daemon=True).start()
        ready.wait()

    def _run(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        server = self.loop.run_until_complete(asyncio.start_server(self._client, "127.0.0.1", 0))
        self.port = server.sockets[0].getsockname()[1]
        ready.set()
        self.loop.run_forever()

    async def _pipe(self, reader, writer, count: bool) -> None:
        try:
            while data := await reader.read(65536):
                if count:
                    self.received += len(data)
                writer.write(data)
                await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()

    async def _client(self, reader, writer) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection(*self.target)
        await asyncio.gather(
            self._pipe(reader, upstream_writer, False), self._pipe(upstream_reader, writer, True)
        )


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def served_sizes(url: str) -> list[tuple[str, int, int]]:
    """(path, bytes as served with gzip, bytes unpacked) of each file the service worker caches."""
    script = urllib.request.urlopen(url + "/offline/sw.js").read().decode()
    listed = script.split("const PRECACHE = ", 1)[1].split(";\n", 1)[0]
    sizes = []
    for path in json.loads(listed):
        request = urllib.request.Request(url + path, headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(request) as response:
            body = response.read()
            packed = response.headers.get("Content-Encoding") == "gzip"
        sizes.append((path, len(body), len(gzip.decompress(body)) if packed else len(body)))
    return sizes


def wait_engine(page, timeout=120_000) -> None:
    page.wait_for_function(
        "window.__offlineTimings && window.__offlineTimings.engine", timeout=timeout
    )


def play_deals(page, deals: int, coach: bool) -> None:
    """The person plays the first legal move (after the coach's advice, when it is on); the
    page's bots play theirs."""
    if coach:
        page.locator("[data-coach-switch]").check()
    done = 0
    while done < deals:
        page.wait_for_function(
            "() => { const t = document.querySelector('#table'); return t && t.dataset.version &&"
            " (t.querySelector('.deal-result') || t.classList.contains('table-my-turn')); }",
            timeout=180_000,
        )
        version = page.locator("#table").get_attribute("data-version")
        if page.locator("#table .deal-result").count():
            done += 1
            if page.locator("#table [data-play-again]").count():
                page.locator("#table [data-play-again]").click()
            elif done < deals:
                page.keyboard.press("n")  # a thrown-in hand may be dealt again by itself first
            else:
                break
        else:
            if coach:
                page.wait_for_function(
                    "v => { const p = document.querySelector('#coach-panel');"
                    " return p.dataset.version === v && !p.classList.contains('coach-thinking'); }",
                    arg=version,
                    timeout=60_000,
                )
            discard = page.locator("#table .discard-form")
            if discard.count():
                exact = int(discard.get_attribute("data-discard-exact") or 0)
                for box in page.locator("#table .discard-form [data-action]").all()[:exact]:
                    box.check()
                page.locator("#table [data-discard-submit]").click()
            else:
                page.locator("#table [data-action]").first.click()
        page.wait_for_function(
            "v => document.querySelector('#table').dataset.version !== v",
            arg=version,
            timeout=180_000,
        )


def measure_page(url: str, deals: int) -> dict:
    split = urlsplit(url)
    proxy = CountingProxy(split.hostname, split.port or 80)
    via = f"http://127.0.0.1:{proxy.port}"
    figures: dict = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
        )
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.goto(via + "/offline/?pace=0")
        wait_engine(page)
        page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=120_000)
        page.locator("#offline-new select[name=preset]").select_option("house")
        page.locator("#offline-new select[name=bot_level]").select_option("hard")
        page.locator("[data-deal-me-in]").click()
        page.wait_for_selector("#table .scoreboard")
        # Since navigation: the page, Python started and the engine imported, a match dealt.
        figures["online_cold_start_s"] = page.evaluate("window.__offlineTimings.playable / 1000")
        figures["online_boot"] = page.evaluate("window.__offlineTimings.boot")
        # Let the service worker finish caching, and the snapshot be kept, before counting.
        page.wait_for_function(
            "caches.keys().then(k => k.some(n => n.startsWith('setback-offline-') && n !== 'setback-offline-snapshots'))",
            timeout=120_000,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not page.evaluate(
            "caches.open('setback-offline-snapshots').then(c => c.keys()).then(k => k.length)"
        ):
            page.wait_for_timeout(250)
        figures["first_visit_bytes"] = proxy.received

        play_deals(page, deals, coach=False)
        figures["bots"] = page.evaluate("window.__offlineTimings.bots")

        context.set_offline(True)
        started = time.monotonic()
        page.reload()
        page.wait_for_function(
            "window.__offlineTimings && window.__offlineTimings.playable", timeout=60_000
        )
        figures["offline_reload_s"] = page.evaluate("window.__offlineTimings.playable / 1000")
        figures["offline_reload_wall_s"] = time.monotonic() - started
        figures["offline_boot"] = page.evaluate("window.__offlineTimings.boot")
        # A deal from its start, offline, with the coach on at every decision of the person.
        for button in ("[data-play-again]", "[data-next-deal]"):
            if page.locator(f"#table {button}").count():
                page.locator(f"#table {button}").click()
                break
        play_deals(page, 1, coach=True)
        figures["coach"] = page.evaluate("window.__offlineTimings.coach")
        browser.close()
    return figures


def measure_checks(count: int) -> list[float]:
    """CPU seconds of the server's check (`redecide_report`) of `count` hard deals."""
    seconds = []
    for seed in range(1, count + 1):
        match = OfflineMatch("house", "hard", seed, f"bench{seed:04d}")
        while not match.deal.is_over:
            if match.bot_to_act:
                match.play_bot()
            else:
                match.act(bots.choose(match.observation(match.seat), "hard", seed=seed))
        mismatches, cpu = redecide_report(match.envelope(f"bench-deal-{seed:04d}"))
        assert not mismatches, mismatches
        seconds.append(cpu)
    return seconds


def report(name: str, values: list[float]) -> str:
    return (
        f"{name}: n={len(values)} p50 {statistics.median(values):.3f} s, "
        f"p95 {percentile(values, 0.95):.3f} s, max {max(values):.3f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--deals", type=int, default=3, help="hard deals played in the page")
    parser.add_argument("--checks", type=int, default=5, help="hard deals checked natively")
    args = parser.parse_args()

    sizes = served_sizes(args.url)
    print("files the page caches (as served with gzip / unpacked):")
    for path, served, unpacked in sizes:
        print(f"  {served:>10,} {unpacked:>11,}  {path}")
    print(f"  {sum(s for _, s, _ in sizes):>10,} {sum(u for _, _, u in sizes):>11,}  in all")

    figures = measure_page(args.url, args.deals)
    print(f"first visit, on the wire (headers included): {figures['first_visit_bytes']:,} bytes")
    print(
        f"cold start online to a dealt table: {figures['online_cold_start_s']:.2f} s (Python: {figures['online_boot']})"
    )
    print(
        f"reload with the network cut, to a playable table: {figures['offline_reload_s']:.2f} s since navigation (Python: {figures['offline_boot']})"
    )
    for phase in ("auction", "play"):
        values = [b["ms"] / 1000 for b in figures["bots"] if b["phase"] == phase]
        if values:
            print("hard bot in Chromium, " + report(phase, values))
    print("hard bot in Chromium, " + report("all", [b["ms"] / 1000 for b in figures["bots"]]))
    coach = [c["ms"] / 1000 for c in figures["coach"]]
    if coach:
        print("coach's advice in Chromium, " + report("all", coach))
    checks = measure_checks(args.checks)
    print("the site's check of a hard deal (CPU), " + report("per deal", checks))


if __name__ == "__main__":
    main()
