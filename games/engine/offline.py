"""A match against bots played wherever the engine runs, and the envelope its deals come home in.

The offline page runs this module in the browser (the engine's wheel in Pyodide); the site runs
it again to check what comes back. Everything random is named by seeds, so the server can redo
it: the match's seed names its first dealer and the seed of each deal, a deal's seed shuffles
its cards, and each bot decision's seed is the deal's seed and the step. A bot's choice is a
function of its seat's observation, its level's settings and that seed
(``bots.choose``), so the server, given the same record, must reach every bot move again.

An uploaded deal is an envelope (``FORMAT``) around the deal record of docs/rules.md section 4:

    {"format": "setback-offline-deal/1", "id": "<made in the browser>", "match": "<the match's
     id>", "match_seed": 1234, "number": 2, "seat": "S", "bots": {"N": "hard", ...},
     "budgets": {"hard": {"budget": 1400, "bid_budget": 3200}}, "engine": "<wheel hash>",
     "totals_before": {"NS": 3, "EW": -2}, "score": {"NS": 2, "EW": 1},
     "record": {"format": "setback-deal/1", ...}}

``check_deal`` does the cheap part (shape, seeds, legality, score) and ``redecide_bots`` the
costly one (every bot move searched again); nothing in the envelope is taken on trust.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

# The server's content keys only: the browser's Python (Pyodide) has no hashlib, and the
# offline page's worker never asks for a content key.
with contextlib.suppress(ModuleNotFoundError):
    import hashlib

from . import bots
from .claim import CLAIM, claim_moves, claim_refusal
from .deal import Deal
from .errors import IllegalAction, RecordError
from .match import MatchState
from .observation import Observation
from .phases import PLAY
from .records import DEAL_FORMAT, DEAL_KEYS, deal_from_record, deal_to_record
from .rules import Rules

FORMAT = "setback-offline-deal/1"
SAVED_FORMAT = "setback-offline-match/1"
# Seeds are whole numbers a browser's JavaScript can hold exactly (below 2**53).
MAX_SEED = 2**53 - 1
# An id made in the browser: a UUID, or anything as plain and short.
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{8,64}")
ENVELOPE_KEYS = (
    "format",
    "id",
    "match",
    "match_seed",
    "number",
    "seat",
    "bots",
    "budgets",
    "engine",
    "totals_before",
    "score",
    "record",
)

# What the page's record holds (``deal_to_record``): a record's free ``meta`` has no place in an
# upload (62,000 bytes of junk in it were once accepted and kept for ever, issue 45).
RECORD_KEYS = tuple(key for key in DEAL_KEYS if key != "meta")
# The shape's bounds: nothing the page sends is deeper, longer or wider (a six-player deal's
# record is about 5 KB). 800 levels of nesting once passed the request and broke the check.
MAX_DEPTH = 4
MAX_STRING = 64
MAX_ITEMS = 64


class OfflineRecordError(RecordError):
    """An offline deal that cannot be what it says it is; the message names the first reason."""


def deal_seed(match_seed: int, number: int) -> int:
    """The seed that shuffles deal ``number`` (1 for the first) of the match."""
    return random.Random(match_seed * 1009 + number).getrandbits(52)


def bot_seed(seed_of_deal: int, step: int) -> int:
    """The seed of the search for the decision taken at ``step`` of a deal (actions before it):
    the bots' and the coach's, so the coach's first choice is the hard bot's move."""
    return seed_of_deal * 1_000_003 + step


def first_dealer(rules: Rules, match_seed: int) -> str:
    return random.Random(match_seed).choice(rules.seats)


def dealer_of(rules: Rules, match_seed: int, number: int) -> str:
    """Who deals deal ``number``: the first dealer, then the deal passes to the left."""
    seats = rules.seats
    return seats[(seats.index(first_dealer(rules, match_seed)) + number - 1) % len(seats)]


def shuffled(rules: Rules, match_seed: int, number: int) -> Deal:
    """Deal ``number`` of the match as dealt, before anyone acts."""
    dealer = dealer_of(rules, match_seed, number)
    return Deal.new(rules, dealer, random.Random(deal_seed(match_seed, number)))


def budgets(levels: Iterable[str]) -> dict[str, dict[str, int]]:
    """The search budgets of the levels that search (what the envelope records)."""
    return {
        level: {
            "budget": bots.CONFIGS[level].budget,
            "bid_budget": bots.CONFIGS[level].bid_budget,
        }
        for level in sorted(set(levels))
        if level in bots.CONFIGS
    }


def person_seat(rules: Rules) -> str:
    """Where the one person sits against bots: S at a partnership table, else the first seat
    (as on the site's own tables)."""
    return "S" if "S" in rules.seats else rules.seats[0]


class OfflineMatch:
    """One person against bots of one level: the match, its current deal, and who decided what.

    ``saved()`` is all it takes to rebuild it (``restore``): the rules, the seed, the levels and
    every action; bots' moves are kept, not searched again, so a reload is quick.
    """

    def __init__(
        self,
        rules: Rules | str | dict[str, Any],
        level: str,
        match_seed: int,
        key: str,
        engine: str = "",
    ) -> None:
        self.rules = Rules.from_spec(rules)
        if level not in bots.SITE_LEVELS:
            raise ValueError(f"unknown bot level {level!r}")
        if not 0 <= match_seed <= MAX_SEED:
            raise ValueError("the match's seed is out of range")
        self.level = level
        self.match_seed = match_seed
        self.key = key
        self.engine = engine
        self.seat = person_seat(self.rules)
        self.bots = {seat: level for seat in self.rules.seats if seat != self.seat}
        self.state = MatchState(self.rules, first_dealer(self.rules, match_seed))
        self.number = 1
        self.totals_before = dict(self.state.totals)
        self.deal = shuffled(self.rules, match_seed, 1)
        self.finished: list[list[str]] = []  # the tokens of each finished deal

    # --- Whose turn ------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.state.over

    @property
    def seed(self) -> int:
        """The current deal's seed."""
        return deal_seed(self.match_seed, self.number)

    @property
    def bot_to_act(self) -> str | None:
        """The bot seat whose turn it is, or None (the person's turn, or the deal is over)."""
        to_act = self.deal.to_act
        return to_act if to_act is not None and to_act != self.seat else None

    def observation(self, seat: str) -> Observation:
        return self.deal.observation(seat, match_totals=self.totals_before)

    # --- Moves -----------------------------------------------------------------------------
    def act(self, token: str) -> None:
        """The person's move (IllegalAction if it is not theirs or not legal)."""
        self.deal.apply(token, self.seat)
        self._after_move()

    def claim(self) -> None:
        """The person claims the rest (IllegalAction, with the reason in their own words, if
        not every remaining trick is surely theirs): every card it stands for is played."""
        refusal = claim_refusal(self.observation(self.seat))
        if refusal is not None:
            raise IllegalAction(CLAIM, self.seat, refusal)
        self._play_claim(self.seat)

    def _play_claim(self, seat: str) -> None:
        for mover, card in claim_moves(self.deal, seat):
            self.deal.apply(card, mover)
        self._after_move()

    def play_bot(self) -> str:
        """The bot to act decides, from its own seat's observation, and moves. A bot on lead
        whose remaining tricks are all surely its own claims them, as at the site's tables."""
        seat = self.bot_to_act
        if seat is None:
            raise ValueError("it is not a bot's turn")
        if claim_refusal(self.observation(seat)) is None:
            self._play_claim(seat)
            return CLAIM
        token = bots.choose(
            self.observation(seat), self.bots[seat], seed=bot_seed(self.seed, self.deal.version)
        )
        self.deal.apply(token, seat)
        self._after_move()
        return token

    def _after_move(self) -> None:
        if self.deal.is_over:
            self.state.add(self.deal)

    def next_deal(self) -> None:
        if not self.deal.is_over:
            raise ValueError("this deal is not over yet")
        if self.over:
            raise ValueError("the match is over")
        self.finished.append([token for _, token in self.deal.history])
        self.number += 1
        self.totals_before = dict(self.state.totals)
        self.deal = shuffled(self.rules, self.match_seed, self.number)

    # --- Coming home -----------------------------------------------------------------------
    def envelope(self, upload_id: str) -> dict[str, Any]:
        """The finished current deal, as the site takes it back."""
        if not self.deal.is_over:
            raise ValueError("only a finished deal comes home")
        return {
            "format": FORMAT,
            "id": upload_id,
            "match": self.key,
            "match_seed": self.match_seed,
            "number": self.number,
            "seat": self.seat,
            "bots": dict(self.bots),
            "budgets": budgets(self.bots.values()),
            "engine": self.engine,
            "totals_before": dict(self.totals_before),
            "score": dict(self.deal.result().score),
            "record": deal_to_record(self.deal),
        }

    # --- Keeping it ------------------------------------------------------------------------
    def saved(self) -> dict[str, Any]:
        return {
            "format": SAVED_FORMAT,
            "key": self.key,
            "rules": self.rules.to_spec(),
            "level": self.level,
            "match_seed": self.match_seed,
            "engine": self.engine,
            "deals": [*self.finished, [token for _, token in self.deal.history]],
        }

    @classmethod
    def restore(cls, saved: Mapping[str, Any], engine: str = "") -> OfflineMatch:
        """The match ``saved()`` described, its moves applied again (no search)."""
        if saved.get("format") != SAVED_FORMAT:
            raise ValueError("not a saved offline match")
        match = cls(saved["rules"], saved["level"], saved["match_seed"], saved["key"], engine)
        deals = saved["deals"]
        for number, tokens in enumerate(deals, start=1):
            for token in tokens:
                match.deal.apply(token)
                match._after_move()
            if number < len(deals):
                match.next_deal()
        return match


# --- Checking what comes home -----------------------------------------------------------------


@dataclass(frozen=True)
class Checked:
    """An envelope whose record the engine accepted: the deal replayed, and what it claims."""

    envelope: dict[str, Any]
    rules: Rules
    deal: Deal
    bots: dict[str, str]  # seat -> level
    seat: str  # the person's


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise OfflineRecordError(message)


def _whole(value: Any, name: str, low: int, high: int) -> int:
    _require(
        isinstance(value, int) and not isinstance(value, bool) and low <= value <= high,
        f"{name}: a whole number from {low} to {high} expected",
    )
    whole: int = value
    return whole


def _sides(value: Any, name: str, rules: Rules) -> dict[str, int]:
    _require(isinstance(value, dict), f"{name}: an object of each side's points expected")
    _require(
        sorted(value) == sorted(rules.sides),
        f"{name}: the sides of this table are {', '.join(rules.sides)}",
    )
    return {side: _whole(value[side], f"{name}.{side}", -10_000, 10_000) for side in rules.sides}


def check_bounds(value: Any, name: str = "the upload", depth: int = 0) -> None:
    """No deeper than ``MAX_DEPTH``, no string longer than ``MAX_STRING``, no list or object with
    more than ``MAX_ITEMS``: what the page sends, whatever the fields are."""
    if isinstance(value, str):
        _require(len(value) <= MAX_STRING, f"{name}: a text longer than {MAX_STRING} characters")
        return
    if not isinstance(value, dict | list):
        return
    _require(depth < MAX_DEPTH, f"{name}: nested deeper than an offline deal is")
    _require(len(value) <= MAX_ITEMS, f"{name}: more than {MAX_ITEMS} items")
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in items:
        _require(isinstance(key, int) or len(key) <= MAX_STRING, f"{name}: a key that is too long")
        check_bounds(item, f"{name}.{key}" if depth else str(key), depth + 1)


def check_shape(envelope: Any) -> None:
    """The envelope's fields have the right kinds (nothing about the deal yet)."""
    _require(isinstance(envelope, dict), "an offline deal is a JSON object")
    check_bounds(envelope)
    _require(envelope.get("format") == FORMAT, f"format: {FORMAT!r} expected")
    unknown = sorted(set(envelope) - set(ENVELOPE_KEYS))
    _require(not unknown, f"unknown field {unknown[0]!r}" if unknown else "")
    missing = [key for key in ENVELOPE_KEYS if key not in envelope]
    _require(not missing, f"missing field {missing[0]!r}" if missing else "")
    for key in ("id", "match"):
        value = envelope[key]
        _require(
            isinstance(value, str) and ID_PATTERN.fullmatch(value) is not None,
            f"{key}: 8 to 64 letters, digits, - or _ expected",
        )
    _whole(envelope["match_seed"], "match_seed", 0, MAX_SEED)
    _whole(envelope["number"], "number", 1, 1000)
    _require(isinstance(envelope["engine"], str) and len(envelope["engine"]) <= 64, "engine")
    _require(isinstance(envelope["record"], dict), "record: a deal record object expected")
    _require(envelope["record"].get("format") == DEAL_FORMAT, f"record: {DEAL_FORMAT!r} expected")
    extra = sorted(set(envelope["record"]) - set(RECORD_KEYS))
    _require(not extra, f"record: unknown field {extra[0]!r}" if extra else "")


def check_deal(envelope: Any) -> Checked:
    """Everything that is cheap to check: the shape, the rules and seats, the cards the seeds
    deal, every action's legality, that the deal is over, and the score it claims. Raises
    ``OfflineRecordError`` (a ``ValueError``) naming the first problem."""
    check_shape(envelope)
    record = envelope["record"]
    try:
        deal = deal_from_record(record)
    except RecordError as error:
        raise OfflineRecordError(f"record: {error}") from None
    rules = deal.rules
    seat = envelope["seat"]
    _require(seat == person_seat(rules), f"seat: the person sits at {person_seat(rules)}")
    levels = envelope["bots"]
    _require(
        isinstance(levels, dict) and sorted(levels) == sorted(s for s in rules.seats if s != seat),
        "bots: every seat but the person's holds a bot",
    )
    for bot_seat, level in levels.items():
        _require(
            level in bots.SITE_LEVELS,
            f"bots.{bot_seat}: one of {', '.join(bots.SITE_LEVELS)} expected",
        )
    # The page seats bots of one level (``OfflineMatch``): a mix is not a match it made.
    _require(len(set(levels.values())) == 1, "bots: the offline page's bots are all of one level")
    _require(
        envelope["budgets"] == budgets(levels.values()),
        "budgets: the bots searched with other budgets than this site's "
        f"({_budget_words(budgets(levels.values()))})",
    )
    match_seed, number = envelope["match_seed"], envelope["number"]
    dealt = shuffled(rules, match_seed, number)
    _require(
        deal.dealer == dealt.dealer,
        f"record.dealer: {dealt.dealer} deals deal {number} of this match",
    )
    _require(
        deal.dealt_hands == dealt.dealt_hands and list(deal.stock) == list(dealt.stock),
        f"record.hands: not the cards the match's seed deals for deal {number}",
    )
    _require(deal.is_over, "record: the deal is not finished")
    _sides(envelope["totals_before"], "totals_before", rules)
    claimed = _sides(envelope["score"], "score", rules)
    score = dict(deal.result().score)
    _require(
        claimed == score,
        "score: "
        + ", ".join(f"{side} {claimed[side]:+d} claimed" for side in rules.sides)
        + "; the engine scores the deal "
        + ", ".join(f"{side} {score[side]:+d}" for side in rules.sides),
    )
    return Checked(envelope, rules, deal, dict(levels), seat)


def _budget_words(expected: Mapping[str, Mapping[str, int]]) -> str:
    return (
        ", ".join(f"{lvl} {b['budget']}/{b['bid_budget']}" for lvl, b in expected.items()) or "none"
    )


@dataclass(frozen=True)
class Mismatch:
    step: int
    seat: str
    level: str
    recorded: str
    expected: str

    def __str__(self) -> str:
        return (
            f"step {self.step}: the {self.level} bot at {self.seat} plays {self.expected} "
            f"from that position and seed, but the record has {self.recorded}"
        )


# CPU seconds of one bot decision decided again, by level (the dearest deals measured on this
# machine: hard 0.11 s a decision at four players, 0.17 s at seven with draw; medium 0.03 s).
DECISION_SECONDS = {"easy": 0.002, "medium": 0.03, "hard": 0.17}
CHECK_BASE_SECONDS = 0.05


def check_cost(checked: Checked) -> float:
    """The CPU seconds ``redecide_bots`` should take for a checked envelope: its bots'
    decisions (more players, a draw: more of them) at their level's cost."""
    decisions = sum(1 for seat, _ in checked.deal.history if seat in checked.bots)
    per_decision = max(DECISION_SECONDS.get(level, 0.17) for level in checked.bots.values())
    return round(CHECK_BASE_SECONDS + decisions * per_decision, 3)


def content_key(checked: Checked) -> str:
    """What the bots' check depends on, and nothing else (not the browser's ids): the same key,
    the same outcome, so a deal already checked is never checked again."""
    envelope = checked.envelope
    content = {
        "record": deal_to_record(checked.deal),
        "bots": checked.bots,
        "totals_before": envelope["totals_before"],
        "seed": deal_seed(envelope["match_seed"], envelope["number"]),
    }
    text = json.dumps(content, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def redecide_bots(envelope: dict[str, Any]) -> list[Mismatch]:
    """Every bot decision of the deal searched again from its seat's observation, its recorded
    seed and its level's budget. Returns the decisions that differ (none for a true record).
    The envelope must have passed ``check_deal``."""
    checked = check_deal(envelope)
    deal, levels = checked.deal, checked.bots
    seed_of_deal = deal_seed(envelope["match_seed"], envelope["number"])
    totals = dict(envelope["totals_before"])
    replay = Deal(checked.rules, deal.dealer, deal.dealt_hands, deal.stock)
    mismatches = []
    for step, (seat, token) in enumerate(deal.history):
        claim = _claim_from(replay, seat)
        if claim is not None:
            # A claim: the rest of the moves are its own (a bot must claim when it can).
            if claim == list(deal.history[step:]):
                break
            if seat in levels:
                mismatches.append(Mismatch(step, seat, levels[seat], token, "a claim"))
                break
        if seat in levels:
            expected = bots.choose(
                replay.observation(seat, match_totals=totals),
                levels[seat],
                seed=bot_seed(seed_of_deal, step),
            )
            if expected != token:
                mismatches.append(Mismatch(step, seat, levels[seat], token, expected))
                break  # after one wrong move the positions differ: nothing more to learn
        replay.apply(token, seat)
    return mismatches


def _claim_from(replay: Deal, seat: str) -> list[tuple[str, str]] | None:
    """The moves of `seat`'s claim at this moment, if it may claim (a bot then must)."""
    if replay.phase != PLAY or claim_refusal(replay.observation(seat)) is not None:
        return None
    return claim_moves(replay, seat)


def redecide_report(envelope: dict[str, Any]) -> tuple[list[str], float]:
    """``redecide_bots`` in words, with the CPU seconds it took: what the server's background
    check runs in a search process (plain values in and out, nothing of Django's)."""
    started = time.process_time()
    mismatches = redecide_bots(envelope)
    return [str(m) for m in mismatches], time.process_time() - started
