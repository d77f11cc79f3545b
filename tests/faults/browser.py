"""A real table page in Chromium, to see what a person sees while their server is down: the
"reconnecting" notice, then the latest position, with no reload."""

import os
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from games.models import Match

CHROMIUM = "/usr/bin/chromium"
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


def available() -> bool:
    """FAULTS_BROWSER=0 leaves the page out (to measure code from before the page had a notice)."""
    return os.path.exists(CHROMIUM) and os.environ.get("FAULTS_BROWSER") != "0"


class TablePage:
    def __init__(self, base_url: str, session_key: str):
        self.base_url = base_url
        self.playwright = sync_playwright().start()
        self.browser = self.playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = self.browser.new_context()
        context.add_cookies([{"name": "sessionid", "value": session_key, "url": base_url}])
        self.page = context.new_page()
        self.shots = os.environ.get("FAULTS_SCREENSHOTS")

    def open(self, match_id: int) -> None:
        self.match_id = match_id
        self.page.goto(f"{self.base_url}/matches/{match_id}/")
        self.page.wait_for_selector(".table-socket[data-connected]", timeout=30_000)

    def wait_reconnecting(self) -> None:
        self.page.wait_for_selector("#socket-reconnecting", state="visible", timeout=15_000)
        self.screenshot("reconnecting")

    def wait_latest(self, since: float, timeout: float) -> float:
        """Seconds from `since` (the server's return) until the page, checked from now on, is
        connected again and shows the table's latest version: an upper bound."""
        left = max(0.5, since + timeout - time.monotonic())
        self.page.wait_for_selector(".table-socket[data-connected]", timeout=left * 1000)
        while True:
            shown = int(self.page.get_attribute("#table", "data-version"))
            if shown >= Match.objects.get(pk=self.match_id).version:
                break
            if time.monotonic() - since > timeout:
                raise TimeoutError(f"the page still shows version {shown}")
            self.page.wait_for_timeout(100)  # a poll interval: lets the page take its messages
        assert self.page.locator("#socket-reconnecting").is_hidden()
        self.screenshot("reconnected")
        return time.monotonic() - since

    def screenshot(self, name: str) -> None:
        if self.shots:
            Path(self.shots).mkdir(parents=True, exist_ok=True)
            self.page.screenshot(path=f"{self.shots}/daphne-kill-{name}.png", full_page=True)

    def close(self) -> None:
        self.browser.close()
        self.playwright.stop()
