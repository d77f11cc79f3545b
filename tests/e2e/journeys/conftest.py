"""The journeys' site: started exactly as `make run` starts it (benchmarks/made_run.py,
which the soak shares).

Every other browser test runs Daphne inside the test process's own harness, on the test
settings. These run `make run` itself in a process of its own: its migrations, its collected
static files, its settings module (`setback_site.settings`, not `tests.settings`), its search
processes, its sweeper and its request limits. Besides the database (a SQLite file in a
temporary folder) only one thing differs: the bots wait `JOURNEY_BOT_PACE` seconds before a
move instead of 0.7, so that a whole match fits in a test (still long enough for a person to
see each card, and for the table's trick hold to meet the next lead).
The test process's own settings reach nothing here: every variable the tests set is removed
from the server's environment. A server-side traceback or an answer of 500 fails the test.
"""

import pytest

from benchmarks import made_run
from benchmarks.made_run import ROOT, SERVER_FAULTS

JOURNEY_BOT_PACE = "0.2"


@pytest.fixture(scope="session")
def made_run_site(tmp_path_factory):
    site = made_run.start(
        tmp_path_factory.mktemp("made-run"), {"BOT_PACE_SECONDS": JOURNEY_BOT_PACE}
    )
    yield site
    site.stop()


@pytest.fixture
def journey_site(made_run_site, request):
    """The site, for one journey: anything the server logged as a fault meanwhile fails it."""
    offset = made_run_site.log_size()
    yield made_run_site
    faults = [line for line in made_run_site.log_since(offset).splitlines()]
    found = [n for n, line in enumerate(faults) if SERVER_FAULTS.search(line)]
    if found:
        first = found[0]
        pytest.fail("the server logged a fault:\n" + "\n".join(faults[first : first + 40]))


@pytest.fixture
def screenshot_to():
    """Save a page's screenshot as var/screenshots/NAME.png, to look at as a person would."""
    folder = ROOT / "var" / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)

    def take(page, name: str) -> None:
        page.screenshot(path=str(folder / f"{name}.png"), full_page=True)

    return take
