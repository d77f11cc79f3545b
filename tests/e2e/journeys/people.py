"""A person in the journeys: a browser context of their own, driven through the site's pages
as a person would (forms, buttons, keys), never through the database."""

import contextlib
import re
import time

from playwright.sync_api import Browser, expect
from playwright.sync_api import Error as PlaywrightError

from benchmarks.made_run import PASSWORD, ROOT

FAILED_SCREENS = ROOT / "var" / "screenshots"

# The card a player must answer is on the felt, not hidden behind the trick just won.
LEAD_HIDDEN = """() => {
  const table = document.querySelector('#table.table-my-turn[data-phase="play"]');
  const live = table && table.querySelector('.trick-live');
  if (!live || !live.querySelector('.trick-card')) return null;
  return getComputedStyle(live).display === 'none';
}"""


class Person:
    def __init__(self, browser: Browser, site, name: str, viewport=(1280, 900)):
        self.name = name
        self.site = site
        self.context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
        self.server_errors: list[str] = []
        self.context.on(
            "response",
            lambda r: r.status >= 500 and self.server_errors.append(f"{r.status} {r.url}"),
        )
        self.page = self.context.new_page()
        self.leads_answered = 0
        # What the table's socket sent, to say what the screen did when a journey gets stuck.
        self.socket_frames: list[tuple[float, str]] = []
        self.context.on("page", self._watch_sockets)
        self._watch_sockets(self.page)

    def _watch_sockets(self, page) -> None:
        page.on(
            "websocket",
            lambda socket: socket.on(
                "framereceived",
                lambda frame: self.socket_frames.append(
                    (time.monotonic(), frame[:120] if isinstance(frame, str) else "")
                ),
            ),
        )

    def recent_frames(self, seconds: float = 10) -> str:
        since = time.monotonic() - seconds
        recent = [head for at, head in self.socket_frames if at >= since]
        return (
            f"{self.name}: {len(recent)} socket messages in the last {seconds:.0f} s: "
            + " | ".join(head.replace("\n", " ")[:60] for head in recent[-5:])
        )

    # --- Getting in ----------------------------------------------------------------------------

    def log_in(self) -> "Person":
        page = self.page
        page.goto(self.site.url + "/accounts/login/")
        page.get_by_label("Username").fill(self.name)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()
        expect(page.get_by_role("heading", name=f"Hello, {self.name}!")).to_be_visible()
        return self

    def sign_up(self, password: str) -> "Person":
        page = self.page
        page.goto(self.site.url + "/")
        page.get_by_role("link", name="Sign up to play").click()
        page.get_by_label("Username").fill(self.name)
        page.get_by_label("Password", exact=True).fill(password)
        page.get_by_label("Password confirmation").fill(password)
        page.get_by_role("button", name="Sign up").click()
        expect(page.get_by_role("heading", name=f"Hello, {self.name}!")).to_be_visible()
        return self

    def close(self) -> None:
        assert not self.server_errors, f"{self.name} got {self.server_errors}"
        self.context.close()

    # --- At the table ----------------------------------------------------------------------

    def table(self):
        return self.page.locator("#table")

    def version(self) -> str | None:
        try:
            return self.table().get_attribute("data-version", timeout=1000)
        except PlaywrightError:
            return None

    def my_turn(self) -> bool:
        return self.page.locator("#table.table-my-turn").count() > 0

    def act_once(self, keyboard: bool = False) -> bool:
        """One move if it is this person's turn (or "Next deal" if the table waits on it);
        False when there was nothing to do. A table swapped under the pointer is looked at
        again by the caller."""
        page = self.page
        try:
            if page.locator("#table [data-next-deal]").count():
                page.locator("#table [data-next-deal]").click(timeout=2000)
                return True
            if not self.my_turn():
                return False
            hidden = page.evaluate(LEAD_HIDDEN)
            if hidden is not None:
                assert not hidden, f"{self.name}: the card led is hidden on their turn"
                self.leads_answered += 1
            form = page.locator("#table.table-my-turn .discard-form")
            if form.count():
                exact = int(form.get_attribute("data-discard-exact", timeout=1000) or 0)
                boxes = form.locator('input[name="cards"]')
                for n in range(exact):
                    boxes.nth(n).check(force=True, timeout=2000)
                form.locator("[data-discard-submit]").click(timeout=2000)
            elif page.locator("#table.table-my-turn .bid-button").count():
                # The lowest bid, not a pass: if everyone passed, every hand would be thrown in
                # and dealt again, and no deal would ever be scored.
                bids = page.locator('#table.table-my-turn .bid-button:not([value="pass"])')
                chosen = bids.first if bids.count() else page.locator("#table .bid-button").first
                chosen.click(timeout=2000)
            elif keyboard:
                page.keyboard.press("1")
            else:
                page.locator("#table.table-my-turn [data-action]").first.click(timeout=2000)
            return True
        except PlaywrightError:
            return False  # the table changed under the pointer

    def wait_for_a_change(self, version: str | None, timeout_ms: int = 1000) -> None:
        """Until the table on screen is not `version` (someone moved), or `timeout_ms`."""
        with contextlib.suppress(PlaywrightError):  # nobody moved yet: the caller looks again
            self.page.wait_for_function(
                "v => { const t = document.querySelector('#table');"
                " return !t || t.dataset.version !== v; }",
                arg=version,
                timeout=timeout_ms,
            )


def play_until(people: list[Person], done, seconds: float = 240, keyboard: bool = False) -> None:
    """Each person moves whenever it is their turn, until `done()`; the others wait on screen."""
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            for person in people:  # what each of them saw, to look at
                person.page.screenshot(path=str(FAILED_SCREENS / f"stuck-{person.name}.png"))
            raise AssertionError(
                f"the table never got there (see {FAILED_SCREENS}/stuck-*.png); "
                + "; ".join(person.recent_frames() for person in people)
            )
        acted = False
        for person in people:
            version = person.version()
            if person.act_once(keyboard=keyboard):
                acted = True
                person.wait_for_a_change(version, timeout_ms=3000)
        if not acted:
            people[0].wait_for_a_change(people[0].version(), timeout_ms=500)


def deal_scored(person: Person) -> bool:
    result = person.page.locator("#table .deal-result")
    return bool(result.count() and result.get_by_text(re.compile(r"made it|set back")).count())


def match_over(person: Person) -> bool:
    return person.page.get_by_role("heading", name=re.compile("the match!")).count() > 0
