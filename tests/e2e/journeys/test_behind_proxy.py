"""A person plays through nginx, as a deployment serves the site: `make proxy` itself
(scripts/serve_behind_proxy.py, deploy/nginx.conf.template), on a free port and a SQLite file.

What only the proxy can break: the table's socket through nginx's upgrade, a form post's CSRF
check against the Host nginx passes on, static files served by nginx rather than Daphne, and the
client's address that the site (setback_site/proxies.py) reads from X-Forwarded-For (set by
nginx, never taken from the client).
"""

import shutil
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

from benchmarks import made_run
from benchmarks.made_run import SERVER_FAULTS

from .people import Person, deal_scored, play_until
from .test_journeys import start_against_bots

pytestmark = [
    pytest.mark.journey,
    pytest.mark.skipif(
        not shutil.which("nginx"), reason="needs nginx (apt-get install nginx-light)"
    ),
]


@pytest.fixture(scope="module")
def proxied_site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("behind-proxy")
    site = made_run.start(folder, {"BOT_PACE_SECONDS": "0.2"}, target="proxy")
    yield site, folder / "proxy"
    site.stop()


def _daphne_faults(run_dir: Path) -> list[str]:
    lines = []
    for log in sorted(run_dir.glob("daphne-*.log")):
        lines += log.read_text(errors="replace").splitlines()
    return [line for line in lines if SERVER_FAULTS.search(line)]


def _nginx_found_daphne_down(run_dir: Path) -> list[str]:
    log = run_dir / "error.log"
    lines = log.read_text(errors="replace").splitlines() if log.exists() else []
    return [line for line in lines if "connect() failed" in line or "no live upstreams" in line]


def test_a_deal_played_through_nginx_with_its_socket_its_posts_and_its_static_files(
    browser, proxied_site, screenshot_to
):
    site, run_dir = proxied_site
    # nginx never found a Daphne refusing: it counts one that refuses as down for ten seconds,
    # and people then got 502 pages although the site said it was serving.
    assert not _nginx_found_daphne_down(run_dir)
    with urllib.request.urlopen(site.url + "/static/css/site.css", timeout=10) as answer:
        assert answer.headers["Server"].startswith("nginx")  # not passed on to Daphne
    with urllib.request.urlopen(site.url + "/", timeout=10) as answer:
        assert answer.status == 200
    me = Person(browser, site, "behind-proxy")
    try:
        me.sign_up("a-long-fresh-secret")  # a form post: CSRF against the Host nginx passed on
        start_against_bots(me, "house", "easy")
        play_until([me], lambda: deal_scored(me), seconds=240)  # every screen by the socket
        screenshot_to(me.page, "journey-behind-proxy-deal-scored")
        expect(me.page.locator("#table .deal-result")).to_be_visible()
        # The page knows only nginx's address: every screen its socket brought came through it.
        assert me.socket_frames
    finally:
        me.close()
    assert not _daphne_faults(run_dir)
    assert not _nginx_found_daphne_down(run_dir)
