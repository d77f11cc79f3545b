"""Issue 45, finding 11: the Content-Security-Policy (no 'unsafe-inline', no eval) refuses
nothing the site does. One browser visits every kind of page, signed out and in, lets each do
its work (the table's and lobby's websockets and htmx swaps, a replay step, the coach's panel,
the offline page's engine in its worker with WebAssembly) and records every
securitypolicyviolation event and every console report of one: there must be none."""

from playwright.sync_api import expect

from games.core import selectors, services
from tests.db import replays
from tests.db.replays import played_deals

from .conftest import SCREENSHOTS
from .test_replay import log_in, off_the_event_loop

# Recorded in every document before its own scripts run.
LISTEN = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample || ""}`);
});
"""


INLINE_STYLE = """document.body.insertAdjacentHTML("beforeend", '<p style="color: red">x</p>')"""


def violations(page) -> list:
    return page.evaluate("window.__cspViolations || []")


def test_no_page_reports_a_policy_violation(site, browser, user, password):
    user.coach_enabled = True
    user.save(update_fields=["coach_enabled"])
    finished = off_the_event_loop(replays.play_deals, user, "house", played=1, seed=3)
    deal_row = played_deals(finished)[0]
    context = browser.new_context()
    context.add_init_script(LISTEN)
    reported = []
    seen = []  # violations of every document, before each leaves

    def watch(page):
        page.on(
            "console",
            lambda message: (
                reported.append(message.text) if "Content Security Policy" in message.text else None
            ),
        )
        return page

    # The offline page boots Pyodide in its worker meanwhile, in a tab of its own.
    offline = watch(context.new_page())
    offline.goto(site + "/offline/?pace=0")
    page = watch(context.new_page())

    def visit(path, ready):
        page.goto(site + path)
        expect(page.locator(ready).first).to_be_attached()
        seen.extend((path, text) for text in violations(page))

    visit("/accounts/login/", "form")
    log_in(page, site, "alice", password)
    seen.extend(("home", text) for text in violations(page))
    visit("/lobby/", "#open-tables")
    match = off_the_event_loop(services.do_start_match, user, rules_spec="house", bot_level="easy")
    visit(f"/matches/{match.pk}/", "#table[data-version]")
    expect(page.locator("#coach-panel")).to_be_attached()
    seen.extend(("table", text) for text in violations(page))
    page.screenshot(path=str(SCREENSHOTS / "csp-table.png"))  # seats placed by classes
    visit("/history/", "main")
    visit(f"/replay/matches/{finished.pk}/{deal_row.number}/0/", "#replay")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#replay")).to_have_attribute("data-step", "1")
    seen.extend(("replay step", text) for text in violations(page))
    page.screenshot(path=str(SCREENSHOTS / "csp-replay.png"))
    visit("/daily/", "main")
    visit("/stats/", "main")
    visit("/coach/exercises/", "main")
    visit("/accounts/", "main")
    visit("/rules/", "main")

    # The engine ready: Pyodide's WebAssembly compiled and ran in the worker under the policy.
    expect(offline.locator("[data-engine-state]")).to_contain_text("Engine ready", timeout=90_000)
    seen.extend(("offline", text) for text in violations(offline))

    before_probe = list(reported)
    # The listener hears a violation when there is one: an inline style attribute.
    page.evaluate(INLINE_STYLE)
    page.wait_for_function("() => window.__cspViolations.length > 0")
    assert violations(page)[0].startswith("style-src")
    context.close()
    assert selectors.rules_of(match)  # the table was a real one
    assert not seen and not before_probe, (seen, before_probe)
