"""The offline table is the live table's twin: on the same position, static/offline/render.js
(drawing what games/offline/worker.py builds) and the live table's template (drawing what the
presenters build, through pages.table_markup) show the same parts of the table with the same
classes, the same cards in the person's hand, the same ones playable, the same calls offered
and the same cards on the felt. Only words that name the people, the forms' plumbing (a post or
a socket, the CSRF field) and the offline page's own chip may differ."""

import json
import shutil
import subprocess
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest

from games.core import pages, presenters, services
from games.core.services import Actor
from games.engine import OVER, PLAY, Rules
from games.engine.offline import OfflineMatch
from games.models import Deal
from games.offline import worker

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
RENDER_JS = ROOT / "static/offline/render.js"
# render.js in Node, without a browser: the same function the offline page calls.
NODE_RENDER = """
const vm = require("vm"), fs = require("fs");
const context = { window: {} };
vm.createContext(context);
vm.runInContext(fs.readFileSync(process.argv[1], "utf8"), context);
const views = JSON.parse(fs.readFileSync(0, "utf8"));
const tables = views.map((view) => {
  const element = { dataset: {}, className: "", innerHTML: "" };
  context.window.SetbackOfflineRender.renderTable(element, view, "");
  return { className: element.className, html: element.innerHTML };
});
process.stdout.write(JSON.stringify(tables));
"""


def offline_render(views: list[dict]) -> list[dict]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node is not installed (CI installs it: .ci/run)")
    done = subprocess.run(
        [node, "-e", NODE_RENDER, str(RENDER_JS)],
        input=json.dumps(views),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)


VOID = {"input", "br", "img", "meta", "link", "hr"}


class Parts(HTMLParser):
    """What a table shows, as a person would check it, whatever words name the people."""

    def __init__(self):
        super().__init__()
        self.classes: Counter = Counter()
        self.hand: list[tuple[str, bool]] = []  # (card, playable) in the person's hand
        self.calls: list[str] = []  # the calls offered
        self.felt: list[str] = []  # the cards on the felt, in order
        self._open: list[set[str]] = []  # the classes of the elements open here

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = set((attrs.get("class") or "").split())
        self.classes.update(classes)
        if "bid-button" in classes:
            self.calls.append(attrs.get("value", ""))
        if "card-face" in classes:
            around = set().union(*self._open) if self._open else set()
            name = attrs.get("aria-label", "")
            if {"card-legal", "card-choice", "card-idle"} & around:
                self.hand.append((name, bool({"card-legal", "card-choice"} & around)))
            elif "trick" in around:
                self.felt.append(name)
        if tag not in VOID:
            self._open.append(classes)

    def handle_endtag(self, tag):
        if tag not in VOID and self._open:
            self._open.pop()


def parts(html: str) -> Parts:
    found = Parts()
    found.feed(html)
    return found


def positions(spec, seed: int):
    """The offline match at each position where the person decides, and once the deal is over
    (the same match, moved on after each)."""
    match = OfflineMatch(spec, "easy", seed, "twin", "native")
    while True:
        deal = match.deal
        if deal.to_act == match.seat or deal.is_over:
            yield match
        if deal.is_over:
            return
        if deal.to_act == match.seat:
            match.act(deal.legal_actions()[-1])  # the highest call: the deal is played
        else:
            match.play_bot()


def live_twin(user, match: OfflineMatch):
    """The same position at a live table: the same cards, the same moves, through do_act."""
    rules = match.rules
    seats = services.seats_with(rules, match.seat, user.pk, "easy")
    live = services.new_match(rules, user, seats, first_dealer=match.deal.dealer)
    Deal.objects.create(
        match=live,
        number=1,
        dealer=match.deal.dealer,
        hands={seat: list(cards) for seat, cards in match.deal.dealt_hands.items()},
        stock=list(match.deal.stock),
    )
    for seat, token in match.deal.history:
        actor = Actor(user=user) if seat == match.seat else Actor.bot("easy")
        version = type(live).objects.get(pk=live.pk).version
        services.do_act(live.pk, seat=seat, token=token, version=version, actor=actor)
    live.refresh_from_db()
    return pages.table_markup(presenters.table_view(live, match.seat))


# The offline page's own chip; and the live deal's "Replay" link, once it is over (an offline
# deal has a replay once it has come home).
OFFLINE_ONLY = Counter({"chip": 1, "chip-offline": 1})
LIVE_ONLY_ONCE_OVER = Counter({"button": 1, "button-small": 1, "button-ghost": 1})


def live_wrapper_classes(html: str) -> str:
    start = html.index('id="table"')
    tag = html[html.rindex("<", 0, start) : html.index(">", start)]
    return tag.split('class="', 1)[1].split('"', 1)[0]


def inner(html: str) -> str:
    """The live table without its wrapper element (the offline page renders into its own)."""
    start = html.index(">", html.index('id="table"')) + 1
    return html[start : html.rindex("</div>")]


SPECS = [
    "house",
    {"preset": "classic", "draw": True},
    {"preset": "house", "pitch_to_bid": True},
    {"preset": "family", "six_players": True},
    {"preset": "auction", "players": 3},
]


@pytest.mark.parametrize("spec", SPECS, ids=str)
def test_the_offline_table_draws_every_position_as_the_live_table_does(user, spec):
    views, live = [], []
    for match in positions(spec, seed=7):  # each position in turn: the match moves on after
        views.append(worker.table_view(match))
        live.append(live_twin(user, match))
    assert {view["phase"] for view in views} >= {PLAY, OVER} or match.deal.thrown_in
    drawn = offline_render(views)
    seen = Counter()
    for view, offline_table, live_table in zip(views, drawn, live, strict=True):
        where = f"{Rules.from_spec(spec).describe()} at step {view['step']} ({view['phase']})"
        assert offline_table["className"] == live_wrapper_classes(live_table), where
        mine, theirs = parts(offline_table["html"]), parts(inner(live_table))
        assert mine.hand == theirs.hand, where
        assert mine.calls == theirs.calls, where
        assert mine.felt == theirs.felt, where
        live_only = LIVE_ONLY_ONCE_OVER if view["phase"] == OVER else Counter()
        assert mine.classes - OFFLINE_ONLY == theirs.classes - live_only, where
        seen.update(hand=bool(theirs.hand), calls=bool(theirs.calls), felt=bool(theirs.felt))
    # Something was compared: cards in the hand, calls offered, cards on the felt.
    assert seen["hand"] and seen["calls"] and seen["felt"], seen
