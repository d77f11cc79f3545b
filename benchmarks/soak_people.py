"""The soak's people (`manage.py soak`): each logs in through the form, then does random legal
things, as a person does, until the time is up, over HTTP and websockets as the browser does
(benchmarks/site_client.py).

What a person does next is drawn by weight (`WEIGHTS`): play against bots (a random preset and
level), go back to an unfinished match, play at a table shared with another of the soak's
people (an invite code, a public table in the lobby, or quick pairing), "Play from here" from a
finished deal's replay and play the practice deal to its end, ask for the face-up analysis of
many replay steps at once, ask the coach for a review or answer an exercise, or look at pages
(history, statistics, player pages, the lobby). At a table they play their turns and deal on,
and now and then close the tab (at a shared table sometimes on their own turn, so that a
stand-in must play it), reload the page, switch the coach on or off, chat, step away from a
shared table and come back, or leave it for good. They think 0.5-3 s between actions.

Every table they see goes to the `TableWatch` (what it waits on, how long); every request to
the `RequestLog`. A person who cannot do what they meant (a page without the link they
looked for, a refusal) counts it and does something else: only the site's answers of 500,
requests left unanswered, stalls and the server's log fail the soak.
"""

import asyncio
import random
import re
import time
import traceback
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import aiohttp

from games import engine

from .site_client import (
    FORMING_RE,
    MATCH_URL_RE,
    NEXT_DEAL,
    PLAY_AGAIN_RE,
    RequestLog,
    Screen,
    SiteClient,
    legal_move,
)
from .soak_checks import PERSON, STAND_IN, TableWatch, turn_holder, waits_on

PRESETS = ("house", "classic", "auction", "family")
LEVELS = ("easy", "medium", "hard")
# Seating a new match may ask for beside its preset's own (the home page's "Seating" option).
SEATINGS = (
    {},
    {},
    {},
    {"seating": "cutthroat", "players": "3"},
    {"seating": "cutthroat", "players": "2"},
    {"seating": "six"},
)
WEIGHTS = {
    "play against bots": 26,
    "resume a match": 8,
    "share a table": 16,
    "play from here": 9,
    "face-up analysis": 9,
    "coach review": 3,
    "exercise": 3,
    "browse": 12,
}
THINK = (0.5, 3.0)
# Close codes the table's socket ends with when the person may no longer look (games.core.sockets,
# games.web.consumers): the page stops there, it does not reconnect.
FINAL_CLOSE_CODES = {4401, 4403, 4404}

FACEUP_SECTION = re.compile(r'<section id="faceup".*?</section>', re.S)
REPLAY_LAST = re.compile(
    r'<div id="replay" class="replay" data-deal="\d+" data-step="\d+" data-last="(\d+)"'
)
HISTORY_MATCH = re.compile(r'href="/history/matches/(\d+)/"')
REPLAY_LINK = re.compile(r'href="/replay/matches/(\d+)/(\d+)/0/"')
REVIEW_LINK = re.compile(r'href="(/coach/deals/\d+/review/)"')
EXERCISE_LINK = re.compile(r'href="(/coach/exercises/\d+/\d+/)"')
CHOICE = re.compile(r'name="choice" value="([^"]+)"')
RESUME_LINK = re.compile(r'href="/matches/(\d+)/">Resume</a>')
INVITE_CODE = re.compile(r"data-invite-code>(\w+)<")
FIRST_FREE = re.compile(r'name="position" value="(\w+)">\s*<span class="muted">Choose a free seat')
LOBBY_SIDE = re.compile(r'action="/lobby/tables/(\d+)/sit/".*?name="side" value="(\w*)"', re.S)
PAIRING_STATUS = re.compile(r'data-status="(\w+)"')
COACH_PANEL = re.compile(
    r'<section id="coach-panel" class="coach-panel coach-(\w+)[^"]*"[^>]*data-version="(\d+)"', re.S
)
REMATCH_LINK = re.compile(r'href="/matches/(\d+)/" data-rematch-link')
PRACTICE_BACK = re.compile(r'href="(/replay/matches/\d+/\d+/\d+/)">Back to the replay')


def faceup_next(html: str) -> tuple[str, float] | None:
    """What the face-up panel asks htmx to do next: ("POST", delay) to ask (again), ("GET",
    delay) to look again, or None once it is answered (or the step has no panel)."""
    section = FACEUP_SECTION.search(html)
    if section is None:
        return None
    panel = section.group(0)
    head = panel[: panel.find(">")]
    if "hx-get=" in head:
        return ("GET", 0.25)
    if "hx-post=" in head:
        return ("POST", 1.0 if "delay:1s" in head else 0.0)
    return None


def faceup_answer(html: str) -> str:
    """How the face-up panel was answered: "ready", "too large", or "" (not yet, or none)."""
    section = FACEUP_SECTION.search(html)
    if section is None:
        return ""
    if "faceup-choices" in section.group(0):
        return "ready"
    if "Too many cards left" in section.group(0):
        return "too large"
    return ""


class Board:
    """Where the soak's people who want to play together find each other: the stand-in for
    sending a friend the code. A host posts an offer; the next person who wants company takes it."""

    def __init__(self):
        self.offers: list[Offer] = []

    def post(self, offer: "Offer") -> None:
        self.offers.append(offer)

    def offered_to(self, name: str) -> bool:
        return any(offer.host != name for offer in self.offers)

    def take(self, name: str) -> "Offer | None":
        for offer in self.offers:
            if offer.host != name:
                self.offers.remove(offer)
                return offer
        return None

    def withdraw(self, offer: "Offer") -> None:
        if offer in self.offers:
            self.offers.remove(offer)


@dataclass
class Offer:
    way: str  # "code", "lobby" or "quick"
    host: str
    code: str = ""
    match_id: int = 0
    form: dict = field(default_factory=dict)  # the quick pairing form both send
    seated: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass
class World:
    """What the people share: the site, the clock, the watch, the log and the board."""

    base: str
    password: str
    names: list[str]
    stop_at: float
    watch: TableWatch
    log: RequestLog
    board: Board = field(default_factory=Board)
    started_at: str = ""
    tally: Counter = field(default_factory=Counter)  # what the people did
    confusions: Counter = field(default_factory=Counter)  # what they could not do, and why
    faceup_seconds: dict = field(default_factory=dict)  # answer -> seconds until it came
    coach_seconds: list = field(default_factory=list)  # from "weighing" to the advice
    soak_errors: dict = field(default_factory=dict)  # the soak's own mistakes: their tracebacks
    # Who has a table's page open (its socket), by match: the truth its "here" and "away" show.
    open_pages: defaultdict = field(default_factory=lambda: defaultdict(Counter))
    # Screens a reload showed newer than the socket had: (seconds into the run, person, match,
    # version on the socket's screen, what it waited on, version after the reload).
    missed_changes: list = field(default_factory=list)

    def has_open(self, name: str, match_id: int) -> bool:
        """Whether `name` has the table's page open ("" is the one looking: they have)."""
        return not name or self.open_pages[match_id][name] > 0


class Confused(Exception):
    """The page was not what the person expected (no link to follow, a refusal): they give up
    on what they were doing and do something else."""


class TableTab:
    """One browser tab on one table: its page, its socket, the table it shows."""

    def __init__(self, person: "Person", match_id: int):
        self.person = person
        self.match_id = match_id
        self.screen: Screen | None = None
        self.forming = ""
        self.changed = asyncio.Event()
        self.shown = 0  # how many screens (or refusals) the tab has shown: a change is a new one
        self.socket_task: asyncio.Task | None = None
        self.refused_code: int | None = None
        self.sockets_dropped = 0
        self.coach_thinking: tuple[int, float] | None = None  # (version, since)

    async def open(self, page_html: str | None = None) -> int:
        """The page (or one already loaded, after a redirect) and its socket; the page's status."""
        status = 200
        if page_html is None:
            answer = await self.person.web.get(f"/matches/{self.match_id}/")
            status, page_html = answer.status, answer.text
        if status == 200:
            self.show(page_html)
            self.socket_task = asyncio.create_task(self._hold_socket())
        return status

    async def close(self) -> None:
        if self.socket_task is not None:
            self.socket_task.cancel()
            await asyncio.gather(self.socket_task, return_exceptions=True)
            self.socket_task = None

    def show(self, html: str) -> None:
        self.note_coach(html)
        screen = Screen.parse(html)
        if screen is not None:
            if self.screen is None or screen.version >= self.screen.version:
                self.screen = screen  # the same version again: presence or chat changed
            kind = waits_on(html)
            if kind == PERSON and not self.person.world.has_open(turn_holder(html), self.match_id):
                # The page says "here" of a person who has no page of the table open: whatever
                # it says, nobody will play that turn but a stand-in.
                kind = STAND_IN
            self.person.world.watch.saw(self.match_id, screen.version, kind)
            self._changed()
        elif FORMING_RE.search(html):
            self.forming = html
            self._changed()

    def note_coach(self, html: str) -> None:
        """How long the coach weighs a position before its advice comes (from the first panel
        that says it is thinking to the panel with the advice, for the same moment)."""
        panel = COACH_PANEL.search(html)
        if panel is None:
            return
        state, version = panel.group(1), int(panel.group(2))
        thinking = self.coach_thinking
        if thinking and thinking[0] != version:
            self.person.world.tally["coach still weighing when the table moved on"] += 1
            thinking = self.coach_thinking = None
        if state == "thinking" and thinking is None:
            self.coach_thinking = (version, time.monotonic())
        elif state in ("advice", "forced") and thinking is not None:
            self.person.world.coach_seconds.append(time.monotonic() - thinking[1])
            self.coach_thinking = None

    def _changed(self) -> None:
        self.shown += 1
        self.changed.set()

    async def _hold_socket(self) -> None:
        """The page's websocket, reopened after a jittered pause when the server drops it (as
        htmx's ws extension does), until the page is closed or the socket is refused."""
        world, delay = self.person.world, 0.5
        while True:
            try:
                async with await self.person.web.table_socket(self.match_id) as socket_:
                    world.watch.opened(self.match_id)
                    world.open_pages[self.match_id][self.person.name] += 1
                    try:
                        async for message in socket_:
                            if message.type != aiohttp.WSMsgType.TEXT:
                                break
                            self.show(message.data)
                    finally:
                        world.open_pages[self.match_id][self.person.name] -= 1
                        world.watch.closed(self.match_id)
                    if socket_.close_code in FINAL_CLOSE_CODES:
                        self.refused_code = socket_.close_code
                        self._changed()
                        return
            except aiohttp.WSServerHandshakeError as error:
                self.refused_code = error.status
                self._changed()
                return
            except (TimeoutError, aiohttp.ClientError):
                pass
            self.sockets_dropped += 1
            world.tally["table sockets dropped by the server"] += 1
            await asyncio.sleep(self.person.rng.uniform(0, delay))
            delay = min(delay * 2, 8)

    async def next_change(self, seconds: float, after: int | None = None) -> bool:
        """Until the tab shows something it had not shown when it was looked at (`after`: the
        count of screens then; by default now), or `seconds` (never past the end of the run)."""
        after = self.shown if after is None else after
        deadline = time.monotonic() + min(seconds, self.person.time_left())
        while self.shown <= after:
            self.changed.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            try:
                await asyncio.wait_for(self.changed.wait(), left)
            except TimeoutError:
                return self.shown > after
        return True


class Person:
    def __init__(self, name: str, world: World, seed: int):
        self.name = name
        self.world = world
        self.rng = random.Random(seed)
        self.doing = "logging in"
        self.web = SiteClient(world.base, who=name, log=world.log, doing=lambda: self.doing)
        self.tab: TableTab | None = None
        self.coach_on = False

    # --- Time --------------------------------------------------------------------------------

    def time_left(self) -> float:
        return self.world.stop_at - time.monotonic()

    async def think(self, low: float = THINK[0], high: float = THINK[1]) -> None:
        await asyncio.sleep(max(0.0, min(self.rng.uniform(low, high), self.time_left())))

    # --- A life --------------------------------------------------------------------------------

    async def live(self) -> None:
        activities = {
            "play against bots": self.play_against_bots,
            "resume a match": self.resume_a_match,
            "share a table": self.share_a_table,
            "play from here": self.play_from_here,
            "face-up analysis": self.face_up_analysis,
            "coach review": self.coach_review,
            "exercise": self.exercise,
            "browse": self.browse,
        }
        names = list(WEIGHTS)
        weights = [WEIGHTS[name] for name in names]
        while self.time_left() > 0:
            self.doing = self.rng.choices(names, weights)[0]
            if self.world.board.offered_to(self.name) and self.rng.random() < 0.7:
                self.doing = "share a table"  # a friend's invitation: most people say yes
            self.world.tally[f"chose: {self.doing}"] += 1
            try:
                await activities[self.doing]()
            except Confused as why:
                self.world.confusions[f"{self.doing}: {why}"] += 1
            except (TimeoutError, aiohttp.ClientError) as error:
                self.world.confusions[f"{self.doing}: {type(error).__name__}"] += 1
            except Exception as error:  # the soak's own mistake: kept, and the person goes on
                key = f"{self.doing}: {type(error).__name__}: {error}"
                self.world.soak_errors.setdefault(key, traceback.format_exc())
            finally:
                await self.close_tab()
            await self.think()

    async def close(self) -> None:
        await self.close_tab()
        await self.web.close()

    async def close_tab(self) -> None:
        if self.tab is not None:
            await self.tab.close()
            self.tab = None

    async def open_table(self, match_id: int, page_html: str | None = None) -> TableTab:
        await self.close_tab()
        self.tab = TableTab(self, match_id)
        status = await self.tab.open(page_html)
        if status != 200:
            raise Confused(f"the table page answered {status}")
        return self.tab

    # --- At a table ------------------------------------------------------------------------------

    async def play(self, seconds: float, shared: bool = False) -> str:
        """Play at the open tab for about `seconds`: "over" once the match (or the practice
        deal) is over, "time" when the person moves on, "gone" when they left the table."""
        until = time.monotonic() + seconds
        while time.monotonic() < until and self.time_left() > 0:
            tab = self.tab
            if tab.refused_code is not None:
                raise Confused(f"the table's socket was refused ({tab.refused_code})")
            seen, screen = tab.shown, tab.screen
            if screen is None:  # still forming, or not loaded
                if not await tab.next_change(20, after=seen) and self.time_left() > 0:
                    await self.reload()
                continue
            if await self.interrupt(screen, shared):
                if self.tab is None:
                    return "gone"
                continue
            outcome = await self.act(screen, seen, shared)
            if outcome:
                return outcome
        return "time"

    async def act(self, screen: Screen, seen: int, shared: bool) -> str:
        """One look at the table (`seen`: the tab's count of screens then): a move, a deal on,
        the end, or a wait for the next change."""
        html = screen.html
        if screen.phase == engine.Phase.OVER and (
            'class="match-over"' in html or "data-practice" in html
        ):
            return "over"  # the match, or the one deal of a practice match
        if screen.my_turn:
            if shared and self.rng.random() < 0.1:
                await self.close_tab_on_own_turn()
                return ""
            await self.think()
            if self.tab.screen is not screen:
                return ""  # it changed while they thought: look again
            await self.move(screen)
            return ""
        if screen.phase == engine.Phase.OVER and NEXT_DEAL in html:
            await self.think()
            if self.tab.screen is screen:
                data = {"version": str(screen.version)}
                answer = await self.web.post(f"/matches/{self.tab.match_id}/next/", data, htmx=True)
                self.world.tally[f"Next deal clicked ({answer.status})"] += 1
        if not await self.tab.next_change(20, after=seen) and self.time_left() > 0:
            await self.reload_a_still_table(screen)
        return ""

    async def reload_a_still_table(self, screen: Screen) -> None:
        """Nothing for a while: a person reloads a page that seems stuck. A reload that shows a
        newer table than the socket did means the socket missed a change: kept, to report."""
        waiting_on = waits_on(screen.html) or "nothing"
        if waiting_on == PERSON and screen.my_turn:
            waiting_on = "their own move"  # (a refused move's screen, say)
        self.world.tally[f"reloads of a table still for 20 s (waiting on {waiting_on})"] += 1
        await self.reload()
        now = self.tab.screen
        if now is not None and now.version > screen.version:
            self.world.missed_changes.append(
                (
                    time.monotonic() - self.world.log.started,
                    self.name,
                    self.tab.match_id,
                    screen.version,
                    waits_on(screen.html),
                    now.version,
                )
            )

    async def move(self, screen: Screen) -> None:
        answer = await self.web.post(
            f"/matches/{self.tab.match_id}/act/", legal_move(screen, self.rng), htmx=True
        )
        if answer.status == 204:
            self.world.tally["moves"] += 1
        else:
            self.world.tally[f"moves refused ({answer.status})"] += 1
            self.tab.show(answer.text)  # htmx swaps the table with the reason in

    async def interrupt(self, screen: Screen, shared: bool) -> bool:
        """Now and then, something other than the next move; True when something was done.
        Mostly at a moment of decision (their turn, a deal's end), where a person's attention
        is; a tab is also closed at any moment, a bot's turn included."""
        decision = screen.my_turn or screen.phase == engine.Phase.OVER
        roll = self.rng.random() * (1 if decision else 4)
        if roll < 0.025:
            await self.close_tab_for_a_while()
        elif roll < 0.05:
            self.world.tally["reloads"] += 1
            await self.reload()
        elif roll < 0.065:
            await self.switch_coach(not self.coach_on)
        elif roll < 0.08 and shared:
            await self.step_away_and_come_back()
        elif roll < 0.085 and shared:
            await self.leave_for_good()
        elif roll < 0.11 and shared:
            self.world.tally["chat lines"] += 1
            text = self.rng.choice(("nice one", "oops", "well played", "gg", "hm"))
            await self.web.post(f"/matches/{self.tab.match_id}/chat/", {"text": text}, htmx=True)
        else:
            return False
        return True

    async def close_tab_for_a_while(
        self, tally: str = "tabs closed", away: tuple[float, float] = (2, 20)
    ) -> None:
        self.world.tally[tally] += 1
        match_id = self.tab.match_id
        await self.close_tab()
        await self.think(*away)
        await self.open_table(match_id)

    async def reload(self) -> None:
        await self.open_table(self.tab.match_id)

    async def close_tab_on_own_turn(self) -> None:
        """At a shared table, on their own turn: the stand-in must play it while they are away."""
        tally = "tabs closed on their own turn at a shared table"
        await self.close_tab_for_a_while(tally, away=(5, 25))

    async def step_away_and_come_back(self) -> None:
        """Leave the table's page for others (the lobby, home) and come back to it from the
        home page's unfinished matches, or by its address."""
        self.world.tally["stepped away from a shared table and came back"] += 1
        match_id = self.tab.match_id
        await self.close_tab()
        for _ in range(self.rng.randint(1, 3)):
            await self.look_at(self.rng.choice(("/lobby/", "/", "/history/")), 2, 10)
        home = await self.web.get("/")
        if str(match_id) in RESUME_LINK.findall(home.text):
            self.world.tally["came back through Resume"] += 1
        await self.open_table(match_id)

    async def leave_for_good(self) -> None:
        """ "Leave table": a bot takes the seat for the rest of the match. Then back to the
        table's address once, as a person who changed their mind does (refused, or spectating)."""
        self.world.tally["left a shared table for good"] += 1
        match_id = self.tab.match_id
        await self.close_tab()
        await self.web.post(f"/matches/{match_id}/leave/", {})
        await self.think()
        answer = await self.web.get(f"/matches/{match_id}/")
        self.world.tally[f"came back after leaving: {answer.status}"] += 1

    async def switch_coach(self, on: bool) -> None:
        """The coach's switch beside the table (remembered on the user)."""
        self.world.tally["coach switched on" if on else "coach switched off"] += 1
        data = {"enabled": "on"} if on else {}
        if self.tab is not None:
            data["match"] = str(self.tab.match_id)
        await self.web.post("/accounts/coach/", data, htmx=True)
        self.coach_on = on

    # --- Against bots ----------------------------------------------------------------------------

    async def play_against_bots(self) -> None:
        home = await self.web.get("/")
        if "new-match-form" not in home.text:
            raise Confused("no Deal me in on the home page")
        data = {**self.rules_choice(), "bot_level": self.rng.choice(LEVELS)}
        answer = await self.web.post("/matches/new/", data)
        found = MATCH_URL_RE.search(answer.url)
        if answer.status != 200 or not found:
            raise Confused(f"Deal me in answered {answer.status}")
        self.world.tally["matches started against bots"] += 1
        await self.open_table(int(found.group(1)), answer.text)
        if self.rng.random() < 0.25:
            await self.switch_coach(True)
        await self.play_on()

    def rules_choice(self) -> dict:
        """A preset and, now and then, another seating: a choice the form accepts (the engine
        says which combinations go together, as the form asks it)."""
        while True:
            choice = {"preset": self.rng.choice(PRESETS), **self.rng.choice(SEATINGS)}
            players = int(choice["players"]) if "players" in choice else None
            spec = engine.rules.spec_from_choices(
                choice["preset"], choice.get("seating", ""), players
            )
            try:
                engine.Rules.from_spec(spec)
            except engine.RulesError:
                continue
            return choice

    async def play_on(self) -> None:
        """At a table against bots, for a while; at the match's end, sometimes Play again."""
        outcome = await self.play(self.rng.uniform(40, 200))
        if outcome == "over":
            self.world.tally["matches seen to their end"] += 1
            again = PLAY_AGAIN_RE.search(self.tab.screen.html) if self.tab else None
            if again and self.rng.random() < 0.5:
                answer = await self.web.post(again.group(1), {}, htmx=True)
                found = MATCH_URL_RE.search(answer.headers.get("HX-Redirect", ""))
                if found:
                    self.world.tally["Play again"] += 1
                    await self.open_table(int(found.group(1)))
                    await self.play(self.rng.uniform(30, 120))

    async def resume_a_match(self) -> None:
        home = await self.web.get("/")
        matches = RESUME_LINK.findall(home.text)
        if not matches:
            return await self.play_against_bots()
        self.world.tally["matches resumed"] += 1
        await self.open_table(int(self.rng.choice(matches)))
        await self.play_on()

    # --- With another person -----------------------------------------------------------------

    async def share_a_table(self) -> None:
        offer = self.world.board.take(self.name)
        if offer is not None:
            self.world.tally[f"joined a table by {offer.way}"] += 1
            await self.join(offer)
        else:
            await self.host(self.rng.choice(("code", "code", "lobby", "quick")))

    async def host(self, way: str) -> None:
        if way == "quick":
            form = self.pairing_form()
            offer = Offer("quick", self.name, form=form)
            self.world.board.post(offer)
            try:
                await self.quick_pairing(form)
            finally:
                self.world.board.withdraw(offer)
            return
        await self.web.get("/")
        data = self.rules_choice()
        data["turn_timeout_seconds"] = str(self.rng.choice((30, 30, 10, 60)))
        if way == "lobby":
            data["public"] = "on"
        answer = await self.web.post("/tables/new/", data)
        found, code = MATCH_URL_RE.search(answer.url), INVITE_CODE.search(answer.text)
        if answer.status != 200 or not found or not code:
            raise Confused(f"Create a table answered {answer.status}")
        match_id = int(found.group(1))
        self.world.tally[f"hosted a table ({way})"] += 1
        await self.open_table(match_id, answer.text)
        offer = Offer(way, self.name, code=code.group(1), match_id=match_id)
        self.world.board.post(offer)
        try:
            await asyncio.wait_for(offer.seated.wait(), max(0.1, min(45, self.time_left())))
        except TimeoutError:
            self.world.tally["hosts who started with bots only"] += 1
        finally:
            self.world.board.withdraw(offer)
        await self.think()
        if "data-fill-bots" in self.tab.forming:
            level = self.rng.choice(LEVELS)
            data = {"position": "all", "level": level}
            await self.web.post(f"/matches/{match_id}/bot/", data, htmx=True)
        answer = await self.web.post(f"/matches/{match_id}/start/", {}, htmx=True)
        if answer.status != 200:
            raise Confused(f"Start the match answered {answer.status}")
        await self.play_shared()

    async def join(self, offer: Offer) -> None:
        if offer.way == "quick":
            await self.quick_pairing(offer.form)
            return
        if offer.way == "code":
            page = await self.web.get(f"/tables/join/?code={offer.code}")
            free = FIRST_FREE.search(page.text)
            if page.status != 200 or not free:
                raise Confused(f"the invite's page answered {page.status}, no free seat")
            answer = await self.web.post(
                f"/matches/{offer.match_id}/sit/", {"position": free.group(1)}, htmx=True
            )
        else:
            lobby = await self.web.get("/lobby/")
            sides = [
                side
                for table, side in LOBBY_SIDE.findall(lobby.text)
                if int(table) == offer.match_id
            ]
            if not sides:
                raise Confused("the table was not in the lobby")
            answer = await self.web.post(
                f"/lobby/tables/{offer.match_id}/sit/", {"side": sides[0]}, htmx=True
            )
        if answer.status != 200:
            raise Confused(f"taking a seat answered {answer.status}")
        offer.seated.set()
        await self.open_table(offer.match_id)
        await self.play_shared()

    def pairing_form(self) -> dict:
        form = {
            "preset": self.rng.choice(PRESETS),
            "seating": "cutthroat",
            "players": "2",
            "bot_level": self.rng.choice(LEVELS),
            "wait_seconds": str(self.rng.randint(10, 20)),
        }
        if self.rng.random() < 0.4:
            form.update(seating="partners", players="3")
        return form

    async def quick_pairing(self, form: dict) -> None:
        """The lobby's "Find players", then the waiting page's socket until seated."""
        await self.web.get("/lobby/")
        answer = await self.web.post("/lobby/pairing/find/", form)
        found = MATCH_URL_RE.search(answer.url)
        if found is None and answer.url.endswith("/lobby/pairing/"):
            found = await self.wait_to_be_paired(int(form["wait_seconds"]) + 20)
        if found is None:
            raise Confused(f"quick pairing answered {answer.status} at {answer.url}")
        self.world.tally["quick pairings seated"] += 1
        match_id = int(found.group(1))
        await self.open_table(match_id)
        await self.play_shared()

    async def listen(self, path: str, seconds: float, heard):
        """Hold the socket at `path` open for `seconds` (within the run), handing each message to
        `heard`; the first answer of `heard` that is not None ends it and is returned."""
        url = self.web.base.replace("http://", "ws://") + path
        deadline = time.monotonic() + min(seconds, max(0, self.time_left()))
        async with await self.web.socket(url) as socket_:
            while (left := deadline - time.monotonic()) > 0:
                try:
                    message = await socket_.receive(timeout=left)
                except TimeoutError:
                    break
                if message.type != aiohttp.WSMsgType.TEXT:
                    break
                if (answer := heard(message.data)) is not None:
                    return answer
        return None

    async def wait_to_be_paired(self, seconds: float):
        def seated(text: str):
            status = PAIRING_STATUS.search(text)
            return MATCH_URL_RE.search(text) if status and status.group(1) == "seated" else None

        found = await self.listen("/ws/pairing/", max(0.1, seconds), seated)
        if found is None:
            await self.web.post("/lobby/pairing/cancel/", {})
        return found

    async def play_shared(self) -> None:
        """At a shared table: wait for the start, play a while, then move on (the seat stays
        theirs, played by a stand-in while they are away) or, now and then, leave for good."""
        tab = self.tab
        while tab.screen is None and tab.refused_code is None and self.time_left() > 0:
            if not await tab.next_change(40, after=tab.shown):
                raise Confused("the shared table never started")
        outcome = await self.play(self.rng.uniform(60, 240), shared=True)
        if outcome == "over":
            self.world.tally["shared matches seen to their end"] += 1
            if self.rng.random() < 0.6:
                await self.rematch_same_seats()
        elif outcome == "time" and self.time_left() > 0 and self.rng.random() < 0.15:
            await self.leave_for_good()

    async def rematch_same_seats(self) -> None:
        """At a shared table's end: "Rematch, same seats", or "Go to the rematch" when the other
        person was first; then play it."""
        html = self.tab.screen.html
        link, form = REMATCH_LINK.search(html), PLAY_AGAIN_RE.search(html)
        if link:
            match_id = int(link.group(1))
        elif form:
            answer = await self.web.post(form.group(1), {}, htmx=True)
            found = MATCH_URL_RE.search(answer.headers.get("HX-Redirect", ""))
            if found is None:
                raise Confused(f"Rematch answered {answer.status}")
            match_id = int(found.group(1))
        else:
            return
        self.world.tally["rematches at a shared table"] += 1
        await self.open_table(match_id)
        await self.play_shared()

    # --- Replays ---------------------------------------------------------------------------------

    async def a_finished_deal(self) -> tuple[int, int, str] | None:
        """One of the person's finished deals, found as a person finds it: History, a match,
        its Replay links (and the Review link of that deal, if any)."""
        history = await self.web.get("/history/")
        matches = HISTORY_MATCH.findall(history.text)
        if not matches:
            return None
        match_id = int(self.rng.choice(matches[:12]))
        page = await self.web.get(f"/history/matches/{match_id}/")
        deals = [int(n) for m, n in REPLAY_LINK.findall(page.text) if int(m) == match_id]
        if not deals:
            return None
        number = self.rng.choice(deals)
        reviews = re.findall(
            r'href="(/coach/deals/\d+/review/)" data-review-deal="' + str(number) + '"', page.text
        )
        return match_id, number, reviews[0] if reviews else ""

    async def a_finished_replay(self) -> tuple[int, int, int] | None:
        """A finished deal of the person's, opened in the replay: (match, deal number, its last
        step); None if they have none yet."""
        found = await self.a_finished_deal()
        if found is None:
            return None
        match_id, number, _ = found
        first = await self.web.get(f"/replay/matches/{match_id}/{number}/0/")
        last = REPLAY_LAST.search(first.text)
        if first.status != 200 or last is None:
            raise Confused(f"the replay answered {first.status}")
        return match_id, number, int(last.group(1))

    async def play_from_here(self) -> None:
        found = await self.a_finished_replay()
        if found is None:
            return await self.play_against_bots()
        match_id, number, last = found
        if last < 1:
            raise Confused("a finished deal's replay has no step to play from")
        step = self.rng.randrange(0, last)
        page = await self.web.get(f"/replay/matches/{match_id}/{number}/{step}/")
        if "data-practice-start" not in page.text:
            raise Confused("no Play from here on the step")
        answer = await self.web.post(
            f"/replay/matches/{match_id}/{number}/{step}/practice/",
            {"bot_level": self.rng.choice(LEVELS)},
        )
        found = MATCH_URL_RE.search(answer.url)
        if answer.status != 200 or not found:
            raise Confused(f"Play from here answered {answer.status}")
        self.world.tally["practice deals started"] += 1
        await self.open_table(int(found.group(1)), answer.text)
        if await self.play(self.time_left()) == "over":
            self.world.tally["practice deals played to their end"] += 1
            back = PRACTICE_BACK.search(self.tab.screen.html) if self.tab else None
            if back:
                await self.web.get(back.group(1))

    async def face_up_analysis(self) -> None:
        """An impatient person: many steps' face-up analysis at once, by clicking through the
        replay (each step asks as it loads) or by opening several steps side by side."""
        found = await self.a_finished_replay()
        if found is None:
            return await self.play_against_bots()
        match_id, number, last = found
        base = f"/replay/matches/{match_id}/{number}"
        if self.rng.random() < 0.5:
            start = self.rng.randrange(0, max(1, last - 4))
            steps = list(range(start, min(last, start + self.rng.randint(4, 14)) + 1))
            for step in steps[:-1]:  # clicking Next quickly: each step asks as it shows
                page = await self.web.get(f"{base}/{step}/", htmx=True)
                if faceup_next(page.text):
                    self.world.tally["face-up steps asked"] += 1
                    await self.web.post(f"{base}/{step}/faceup/", {}, htmx=True)
                await asyncio.sleep(self.rng.uniform(0.1, 0.4))
            await self.follow_faceup(base, steps[-1])
        else:
            steps = self.rng.sample(range(last + 1), min(last + 1, self.rng.randint(3, 6)))
            await asyncio.gather(*(self.follow_faceup(base, step) for step in steps))

    async def follow_faceup(self, base: str, step: int, patience: float = 60) -> None:
        """One step's page and its face-up panel, asked and looked at again as htmx does, until
        it is answered or the person's patience runs out."""
        page = await self.web.get(f"{base}/{step}/")
        if faceup_next(page.text) is None:
            return
        started, html, asked = time.monotonic(), page.text, False
        deadline = started + min(patience, max(0.0, self.time_left()))
        while (what := faceup_next(html)) is not None:
            method, delay = what
            if time.monotonic() + delay > deadline:
                if self.time_left() - delay <= 0:
                    self.world.tally["face-up steps still being solved when the run ended"] += 1
                else:
                    self.world.tally[f"face-up steps given up on after {patience:.0f} s"] += 1
                return
            await asyncio.sleep(delay)
            if method == "POST":
                if not asked:
                    self.world.tally["face-up steps asked"] += 1
                    asked = True
                answer = await self.web.post(f"{base}/{step}/faceup/", {}, htmx=True)
            else:
                answer = await self.web.get(f"{base}/{step}/faceup/", htmx=True)
            if answer.status != 200:
                raise Confused(f"the face-up panel answered {answer.status}")
            html = answer.text
        outcome = faceup_answer(html) or "answered otherwise"
        self.world.tally[f"face-up steps {outcome}"] += 1
        self.world.faceup_seconds.setdefault(outcome, []).append(time.monotonic() - started)

    # --- The coach -------------------------------------------------------------------------------

    async def coach_review(self) -> None:
        found = await self.a_finished_deal()
        if found is None or not found[2]:
            return await self.browse()
        review_url = found[2]
        page = await self.web.get(review_url)
        if "Review this deal" in page.text:
            page = await self.web.post(review_url, {})
            self.world.tally["reviews asked"] += 1
        deadline = time.monotonic() + min(60, max(0.0, self.time_left()))
        while 'hx-trigger="every 2s"' in page.text and time.monotonic() + 2 < deadline:
            await asyncio.sleep(2)
            page = await self.web.get(review_url, htmx=True)
        self.world.tally[
            "reviews read" if "coach-accuracy" in page.text else "reviews waited on"
        ] += 1

    async def exercise(self) -> None:
        page = await self.web.get("/coach/exercises/")
        links = EXERCISE_LINK.findall(page.text)
        if not links:
            return await self.browse()
        url = self.rng.choice(links)
        page = await self.web.get(url)
        choices = CHOICE.findall(page.text)
        if not choices:
            raise Confused(f"the exercise answered {page.status} with nothing to choose")
        await self.think()
        answer = await self.web.post(url, {"choice": self.rng.choice(choices)})
        self.world.tally[f"exercises answered ({answer.status})"] += 1

    # --- Looking around ----------------------------------------------------------------------------

    async def browse(self) -> None:
        for _ in range(self.rng.randint(1, 4)):
            other = self.rng.choice(self.world.names)
            path = self.rng.choice(
                (
                    "/",
                    "/history/",
                    "/history/?page=2",
                    "/stats/",
                    "/leaderboard/",
                    "/lobby/",
                    "/coach/exercises/",
                    "/accounts/",
                    f"/players/{other}/",
                    f"/players/{self.name}/",
                )
            )
            answer = await self.look_at(path)
            self.world.tally[f"pages looked at ({answer.status})"] += 1

    async def look_at(self, path: str, low: float = THINK[0], high: float = THINK[1]):
        """A page, read for a while; the lobby with its live list (its socket) open meanwhile."""
        answer = await self.web.get(path)
        if not (path == "/lobby/" and answer.status == 200):
            await self.think(low, high)
            return answer

        def counted(_text: str) -> None:
            self.world.tally["lobby lists received"] += 1

        await self.listen("/ws/lobby/", self.rng.uniform(low, high), counted)
        return answer


async def run(base: str, names: list[str], password: str, seconds: float, seed: int, limit: float):
    """Every person's life for `seconds`, watched: (world, elapsed seconds)."""
    watch = TableWatch(limit)
    world = World(base, password, names, time.monotonic() + 10**6, watch, RequestLog())
    people = [Person(name, world, seed * 1000 + n) for n, name in enumerate(names, start=1)]
    gate = asyncio.Semaphore(4)  # logins hash passwords, slowly on purpose

    async def log_in(person):
        async with gate:
            await person.web.log_in(person.name, password)

    try:
        await asyncio.gather(*(log_in(p) for p in people))
        started = time.monotonic()
        world.started_at = time.strftime("%H:%M:%S")  # to find the run's moments in the server log
        world.stop_at = started + seconds
        world.log.started = started

        async def check_stalls():
            while True:
                watch.check()
                await asyncio.sleep(1)

        checker = asyncio.create_task(check_stalls())
        lives = [asyncio.create_task(p.live()) for p in people]
        done, _ = await asyncio.wait(lives, timeout=seconds + 90)
        for life in lives:
            if life not in done:
                world.confusions["still busy when the time was up"] += 1
                life.cancel()
            elif life.exception() is not None:
                error = life.exception()
                world.confusions[f"stopped by {type(error).__name__}: {error}"] += 1
        await asyncio.gather(*lives, return_exceptions=True)
        checker.cancel()
        elapsed = time.monotonic() - started
    finally:
        await asyncio.gather(*(p.close() for p in people), return_exceptions=True)
    watch.finish()
    return world, elapsed
