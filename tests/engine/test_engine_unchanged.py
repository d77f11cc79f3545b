"""The engine answers what it answered when the golden file was recorded, word for word.

Beside the bots (test_bots_unchanged.py): the messages of records, rules and illegal moves (for
records damaged in many ways, a grid of rules specs, every call and card at every step of
random deals), scores and match winners, the match value table, the auction model's likelihoods,
the sampled worlds, the easy bot, the discard candidates, a small arena and a calibration run,
and the offline page's table views. Most groups are kept as fingerprints (golden.digest): what
changed is then found by running the same code on the commit the file was recorded from.
Recording: see golden.py.
"""

from __future__ import annotations

import copy
import json
import random
from io import StringIO

import pytest

from games.engine import Deal, MatchState, Rules, match_record_json, solver
from games.engine.auction import Auction
from games.engine.bots import easy
from games.engine.bots.arena import run_arena
from games.engine.bots.auction_model import AuctionState, call_log_likelihood
from games.engine.bots.estimate import OptionEstimate
from games.engine.bots.matchvalue import two_side_table
from games.engine.bots.search import Search
from games.engine.bots.worlds import Info
from games.engine.cards import CODES, INDEX
from games.engine.coach import calibration, reasons
from games.engine.errors import RecordError, RulesError
from games.engine.fast import PITCH, kernel_for
from games.engine.match import decide_winner
from games.engine.phases import AUCTION, DISCARD, PLAY
from games.engine.play import play_problem
from games.engine.records import deal_from_record, deal_to_record, match_from_record
from games.engine.rules import spec_from_choices
from games.offline import worker

from .golden import check, digest
from .helpers import ALL_SPECS, random_game

GOLDEN = "engine_unchanged"


def spec_id(spec) -> str:
    if isinstance(spec, str):
        return spec
    return "-".join(f"{k}={v}" for k, v in spec.items())


def outcome_of(read, *args) -> str:
    """What reading gives: the error's message, or a short account of what was read."""
    try:
        value = read(*args)
    except (RecordError, RulesError) as error:
        return f"{type(error).__name__}: {error}"
    if isinstance(value, Deal):
        return f"deal {value.phase} {value.version} {value.plays}"
    if isinstance(value, MatchState):
        return f"match {value.totals} {value.winner} {len(value.deals)}"
    return repr(value)


# --------------------------------------------------------------------------- records
def damaged_deal_records(record: dict, rng: random.Random):
    """``record`` damaged the ways a hand-written or forged record is: fields left out, of the
    wrong kind, with a call, card or discard changed, cut short or run on."""
    yield record
    yield "a deal"
    yield [record]
    for key in list(record):
        without = dict(record)
        del without[key]
        yield without
        for wrong in (None, 5, "x", [], {}, True):
            yield {**record, key: wrong}
    yield {**record, "extra": 1}
    yield {**record, "format": "setback-deal/2"}
    yield {**record, "rules": {"preset": "house", "players": 3}}
    yield {**record, "dealer": "Q"}
    hands = record["hands"]
    seats = list(hands)
    for seat in seats[:2]:
        yield {**record, "hands": {**hands, seat: hands[seat][1:]}}
        yield {**record, "hands": {**hands, seat: [*hands[seat][:-1], "ZZ"]}}
        yield {**record, "hands": {**hands, seat: [*hands[seat][:-1], hands[seats[-1]][0]]}}
        yield {**record, "hands": {s: h for s, h in hands.items() if s != seat}}
        yield {**record, "hands": {**hands, seat: "AS"}}
    if record["stock"]:
        yield {**record, "stock": record["stock"][1:]}
        yield {**record, "stock": list(reversed(record["stock"]))}
        yield {**record, "stock": [*record["stock"][:-1], hands[seats[0]][0]]}
    for field in ("auction", "plays"):
        items = record.get(field, [])
        for i in range(len(items) + 1):
            yield {**record, field: items[:i]}
        for i in range(len(items)):
            for other in ("pass", "1", "2", "3", "4", "smudge", "pitch:AS", "pitch:ZZ", 7):
                if field == "auction":
                    yield {**record, field: [*items[:i], other, *items[i + 1 :]]}
            changed = rng.choice(CODES)
            yield {**record, field: [*items[:i], changed, *items[i + 1 :]]}
            yield {**record, field: [*items[:i], 7, *items[i + 1 :]]}
        yield {**record, field: [*items, "pass"]}
        yield {**record, field: [*items, rng.choice(CODES)]}
    for suit in ("S", "H", "D", "C", "X"):
        yield {**record, "trump": suit}
    yield {k: v for k, v in record.items() if k != "trump"} | {"auction": record["auction"][:1]}
    discards = record.get("discards")
    if discards:
        for seat in list(discards):
            yield {**record, "discards": {s: c for s, c in discards.items() if s != seat}}
            yield {**record, "discards": {**discards, seat: [*discards[seat], hands[seat][0]]}}
            yield {**record, "discards": {**discards, seat: "x"}}
            yield {**record, "discards": {**discards, seat: []}}
        yield {**record, "discards": {**discards, "Q": []}}
        yield {**record, "discards": {}, "plays": []}


@pytest.mark.parametrize("spec", ALL_SPECS, ids=spec_id)
def test_deal_records_read_as_recorded(spec):
    rng = random.Random(31)
    answers = []
    for upto in (None, None, 3, 9, 14):
        deal = random_game(spec, rng, upto=upto)
        for damaged in damaged_deal_records(deal_to_record(deal), rng):
            answers.append(outcome_of(deal_from_record, damaged))
    check(GOLDEN, f"deal records {spec_id(spec)}", digest(answers))
    assert len(set(answers)) > 40  # the damage reaches many different checks


def played_match(spec, rng: random.Random, deals: int) -> list[Deal]:
    rules = Rules.from_spec(spec)
    state = MatchState(rules, rng.choice(rules.seats))
    played = []
    while len(played) < deals and not state.over:
        deal = random_game(rules, rng, dealer=state.dealer)
        played.append(deal)
        state.add(deal)
    return played


def damaged_match_records(record: dict, rng: random.Random):
    yield record
    yield "a match"
    for key in list(record):
        without = dict(record)
        del without[key]
        yield without
        for wrong in (None, 5, "x", [], {}):
            yield {**record, key: wrong}
    yield {**record, "extra": 1}
    yield {**record, "format": "setback-match/0"}
    yield {**record, "rules": "nope"}
    deals = record["deals"]
    for i in range(len(deals) + 1):
        yield {**record, "deals": deals[:i]}
    # The first deals and the last ones (a long match's middle adds nothing but time).
    for i in sorted({0, 1, 2, len(deals) - 2, len(deals) - 1} & set(range(len(deals)))):
        deal = deals[i]
        yield {**record, "deals": [*deals[:i], deals[(i + 1) % len(deals)], *deals[i + 1 :]]}
        for damaged in list(damaged_deal_records(deal, rng))[1:40:3]:
            yield {**record, "deals": [*deals[:i], damaged, *deals[i + 1 :]]}
        without_dealer = {k: v for k, v in deal.items() if k != "dealer"}
        yield {**record, "deals": [*deals[:i], without_dealer, *deals[i + 1 :]]}
        cut = {**deal, "plays": deal.get("plays", [])[:3]}
        yield {**record, "deals": [*deals[:i], cut, *deals[i + 1 :]]}
        yield {**record, "deals": [*deals[:i], "deal", *deals[i + 1 :]]}
        for rules in (record["rules"], "family", {"preset": "house", "target": 21}):
            with_rules = {"format": "setback-deal/1", "rules": rules, **deal}
            yield {**record, "deals": [*deals[:i], with_rules, *deals[i + 1 :]]}
    yield {**record, "deals": [*deals, deals[-1]]}


@pytest.mark.parametrize("spec", ALL_SPECS[::2], ids=spec_id)
def test_match_records_read_as_recorded(spec):
    rng = random.Random(32)
    answers = []
    for deals in (3, 40):
        record = match_record_json(spec, played_match(spec, rng, deals))
        for damaged in damaged_match_records(copy.deepcopy(record), rng):
            answers.append(outcome_of(match_from_record, damaged))
    check(GOLDEN, f"match records {spec_id(spec)}", digest(answers))


# --------------------------------------------------------------------------- rules
OPTION_VALUES = {
    "preset": ["house", "classic", "auction", "family", "nope", 3],
    "low_to": ["taker", "holder", "x"],
    "target": [7, 11, 21, 8, True, "11"],
    "cutthroat": [True, False, 1],
    "players": [2, 3, 4, 5, 6, 7, 8, True, "4", 4.0],
    "draw": [True, False, "yes"],
    "pitch_to_bid": [True, False],
    "no_trump_first_trick": [True, False],
    "six_players": [True, False, 0],
    "colour": ["red"],
}


def rules_answer(spec) -> str:
    try:
        rules = Rules.from_spec(spec)
    except RulesError as error:
        return f"RulesError: {error}"
    return f"{rules.to_spec()} | {rules.describe()} | {rules.seats} {rules.sides}"


def test_rules_specs_answer_as_recorded():
    rng = random.Random(33)
    specs = ["house", "classic", "auction", "family", "nope", None, 5, ["house"]]
    for name, values in OPTION_VALUES.items():
        specs += [{name: value} for value in values]
        for preset in OPTION_VALUES["preset"][:4]:
            specs += [{"preset": preset, name: value} for value in values]
    for _ in range(3000):
        names = rng.sample(sorted(OPTION_VALUES), rng.randint(1, 5))
        specs.append({name: rng.choice(OPTION_VALUES[name]) for name in names})
    answers = [rules_answer(spec) for spec in specs]
    check(GOLDEN, "rules specs", digest(answers))
    # The dataclass's own checks, without a preset's defaults.
    direct = []
    for _ in range(2000):
        names = rng.sample(sorted(set(OPTION_VALUES) - {"colour"}), rng.randint(1, 6))
        options = {name: rng.choice(OPTION_VALUES[name]) for name in names}
        try:
            direct.append(repr(Rules(**options)))
        except RulesError as error:
            direct.append(f"RulesError: {error}")
    check(GOLDEN, "rules constructor", digest(direct))
    choices = []
    for seating in ("", "partnerships", "cutthroat", "six", "ring"):
        for players in (None, 3, 6):
            for switches in ((), ("draw",), ("pitch_to_bid", "six_players")):
                spec = outcome_of(spec_from_choices, "auction", seating, players, 21, "", switches)
                choices.append(spec)
    check(GOLDEN, "spec from choices", choices)


# --------------------------------------------------------------------------- moves
TOKENS = [
    "pass",
    "1",
    "2",
    "3",
    "4",
    "5",
    "smudge",
    "pitch:AS",
    "pitch:2C",
    "pitch:ZZ",
    "pitch:",
    "S",
    "H",
    "x",
    "",
    7,
    None,
]


@pytest.mark.parametrize("spec", ALL_SPECS, ids=spec_id)
def test_moves_are_judged_as_recorded(spec):
    """Every call of the auction judged by every seat at every step (Auction.problem), and
    every card of the hand at every step of play (play_problem), of random deals; with the
    deals' results and the match ends they lead to."""
    rng = random.Random(34)
    rules = Rules.from_spec(spec)
    problems, results = [], []
    for _ in range(12):
        deal = Deal.new(rules, rng.choice(rules.seats), rng)
        while not deal.is_over:
            if deal.phase == AUCTION:
                auction: Auction = deal.auction
                for seat in rules.seats:
                    hand = deal.hand(seat)
                    pitches = [f"pitch:{card}" for card in hand[:2]]
                    for token in TOKENS + pitches:
                        problems.append(auction.problem(seat, token, hand))
            elif deal.phase == PLAY:
                seat = deal.to_act
                hand = deal.hand(seat)
                for card in hand:
                    problems.append(
                        play_problem(
                            rules, hand, card, deal.current_trick, deal.trump, len(deal.tricks) + 1
                        )
                    )
            deal.apply(rng.choice(deal.legal_actions()))
        problems.append(deal.auction.problem(rules.seats[0], "pass", []))
        results.append(deal.result().to_json())
    check(GOLDEN, f"move problems {spec_id(spec)}", digest(problems))
    check(GOLDEN, f"deal results {spec_id(spec)}", digest(results))


@pytest.mark.parametrize("spec", ALL_SPECS, ids=spec_id)
def test_matches_end_as_recorded(spec):
    rng = random.Random(35)
    rules = Rules.from_spec(spec)
    ends = []
    for _ in range(3):
        played = played_match(rules, rng, 200)
        state = MatchState(rules, played[0].dealer)
        for deal in played:
            state.add(deal)
        ends.append(state.to_json())
    # Every result against totals around the ends of a match (win, win regardless, lose).
    results = [deal.result() for deal in played_match(rules, rng, 30)]
    results = [result for result in results if not result.thrown_in] + results[:1]
    # Totals a match can have before a deal: above the losing line, below the winning ones.
    low = (rules.lose_at or -8) + 1
    high = (rules.win_regardless_at or rules.target) - 1
    winners = []
    for result in results:
        for first in range(low, high + 1, 2):
            for second in range(low, high + 1, 3):
                before = {
                    side: max(low, first - i if i % 2 else second - i)
                    for i, side in enumerate(rules.sides)
                }
                after = {side: before[side] + result.score[side] for side in rules.sides}
                winners.append(decide_winner(rules, before, after, result))
    check(GOLDEN, f"match ends {spec_id(spec)}", digest([ends, winners]))


# --------------------------------------------------------------------------- the bots' parts
@pytest.mark.parametrize("spec", ["house", "classic", {"preset": "family", "players": 2}])
def test_match_value_table_as_recorded(spec):
    value, low, high = two_side_table(Rules.from_spec(spec))
    check(GOLDEN, f"match value {spec_id(spec)}", digest([low, high, sorted(value.items())]))


def observations(spec, rng: random.Random, deals: int):
    """Every observation of the seat to act (with match totals) in random deals."""
    rules = Rules.from_spec(spec)
    for _ in range(deals):
        deal = Deal.new(rules, rng.choice(rules.seats), rng)
        totals = {side: rng.randint(-5, rules.target + 2) for side in rules.sides}
        if rng.random() < 0.5:
            totals = None
        while not deal.is_over:
            yield deal.observation(deal.to_act, match_totals=totals)
            deal.apply(rng.choice(deal.legal_actions()))


def info_fields(info: Info) -> list:
    return [
        info.me,
        info.dealer,
        info.phase,
        info.trump,
        info.pitcher,
        info.bid,
        info.hand,
        info.my_discards,
        info.played_by,
        info.known,
        info.forbid,
        info.hand_sizes,
        info.stock_size,
        info.others_discarded,
        info.unseen,
        info.need,
        info.calls,
        info.stock_order,
        info.discard_forbid,
    ]


def call_token(code: int) -> str:
    if code >= PITCH:
        return f"pitch:{CODES[code - PITCH]}"
    return {0: "pass", 5: "smudge"}.get(code, str(code))


def model_auction_likelihoods(kernel, rng: random.Random) -> list[float]:
    """The likelihood of every call open to each seat of random auctions on the kernel's codes
    (a dealer forced to bid, a pitch answered), for the hand dealt and for a random one."""
    found = []
    for number in range(30):
        hands, _ = kernel.deal_masks(rng.getrandbits)
        state = AuctionState(kernel, number % kernel.n)
        while not state.over:
            seat = state.order[state.turn]
            calls, pitch_ok = state.options(seat)
            codes = list(calls)
            if pitch_ok:
                codes += [PITCH + card for card in range(52) if hands[seat] >> card & 1]
            for code in codes:
                for hand in (hands[seat], rng.getrandbits(52)):
                    trump = rng.choice((-1, -1, 2))
                    found.append(call_log_likelihood(state, seat, hand, call_token(code), trump))
            state.apply(seat, codes[0] if rng.random() < 0.6 else rng.choice(codes))
    return found


@pytest.mark.parametrize("spec", ALL_SPECS, ids=spec_id)
def test_the_bots_parts_answer_as_recorded(spec):
    """What a seat knows (Info), the worlds sampled from it and how the auction weighs them,
    the auction model's likelihood of each legal call, the easy bot's choice and the search's
    discard candidates, at every step of random deals."""
    rng = random.Random(36)
    kernel = kernel_for(Rules.from_spec(spec))
    knowledge, worlds, likelihoods, easy_choices, candidates = [], [], [], [], []
    for obs in observations(spec, rng, 6):
        info = Info(obs)
        knowledge.append(info_fields(info))
        sampler = random.Random(len(worlds))
        for _ in range(3):
            world = info.sample(sampler)
            weight = info.auction_weight(world)
            worlds.append([world.hands, world.stock, world.out, weight])
        if obs.phase == AUCTION:
            state = AuctionState(kernel, info.dealer)
            for seat, token in info.calls:
                state.apply_token(seat, token)
            for token in obs.legal_actions():
                for trump in (-1, 0, 3):
                    hand = info.hand | (1 << INDEX[CODES[rng.randrange(52)]])
                    likelihoods.append(call_log_likelihood(state, info.me, hand, token, trump))
        easy_choices.append(easy.choose(obs, random.Random(len(easy_choices))))
        if obs.phase == DISCARD:
            legal = obs.legal_actions()
            candidates.append(Search(obs, seed=1)._discard_candidates(legal))
    likelihoods += model_auction_likelihoods(kernel, rng)
    check(GOLDEN, f"info {spec_id(spec)}", digest(knowledge))
    check(GOLDEN, f"worlds {spec_id(spec)}", digest(worlds))
    check(GOLDEN, f"likelihoods {spec_id(spec)}", digest(likelihoods))
    check(GOLDEN, f"easy {spec_id(spec)}", digest(easy_choices))
    check(GOLDEN, f"discard candidates {spec_id(spec)}", digest(candidates))


def made_up_estimate(rng: random.Random, action: str) -> OptionEstimate:
    """An option with figures drawn at random, often at the edges where the words change."""

    def chance() -> float:
        return rng.choice((0.0, 0.02, 0.04, 0.5, 0.55, 0.96, 0.98, 1.0, rng.random()))

    points = rng.uniform(-3, 3)
    margin = points - rng.uniform(-1, 2)
    return OptionEstimate(
        action=action,
        value=margin,
        ranking="margin",
        expected_points=points,
        stderr=rng.uniform(0, 0.3),
        expected_margin=margin,
        margin_stderr=rng.choice((0.0, 0.01, rng.uniform(0, 0.5))),
        p_make=rng.choice((None, chance())),
        p_set=rng.choice((None, chance())),
        p_contract=chance(),
        p_high=chance(),
        p_low=chance(),
        p_jack=chance(),
        p_game=chance(),
        p_thrown_in=chance(),
        p_win_match=rng.choice((None, chance())),
        samples=100,
        detail={"suit": rng.choice("SHDC")} if rng.random() < 0.8 else {},
    )


@pytest.mark.parametrize("spec", ALL_SPECS[::2], ids=spec_id)
def test_the_coachs_words_as_recorded(spec):
    """The coach's line for every option, from figures made up at random (near the thresholds
    where the words change), at every step of random deals, with and without match totals."""
    rng = random.Random(37)
    lines = []
    for obs in observations(spec, rng, 8):
        legal = obs.legal_actions()
        for _ in range(4):
            options = [made_up_estimate(rng, action) for action in rng.sample(legal, len(legal))]
            lines.append(reasons.reasons(obs, options))
            lines.append([reasons.action_label(obs, option.action) for option in options])
    check(GOLDEN, f"coach words {spec_id(spec)}", digest(lines))


@pytest.mark.parametrize(
    "spec", ["house", "classic", "auction", {"preset": "classic", "six_players": True}], ids=spec_id
)
def test_the_solver_values_as_recorded(spec):
    """Every step of play from the third trick on of random deals, valued face up: the nodes
    searched and every line (alpha-beta with two sides, max-n with three or more)."""
    rng = random.Random(38)
    rules = Rules.from_spec(spec)
    analyses = []
    while len(analyses) < 40:
        deal = Deal.new(rules, rng.choice(rules.seats), rng)
        while not deal.is_over and (deal.phase != PLAY or len(deal.tricks) < 2):
            deal.apply(rng.choice(deal.legal_actions()))
        while not deal.is_over:
            try:
                analysis = solver.analyse(deal, max_nodes=20_000)
                analyses.append([analysis.nodes, [repr(line) for line in analysis.lines]])
            except solver.TooLarge as error:
                analyses.append(f"too large: {error}")
            deal.apply(rng.choice(deal.legal_actions()))
    check(GOLDEN, f"solver {spec_id(spec)}", digest(analyses))


def test_a_small_arena_reports_as_recorded():
    out = StringIO()
    report = run_arena(
        Rules.from_spec("house"),
        "easy",
        "medium",
        deals=2,
        seed=5,
        matches=1,
        budgets={"medium": 30},
        out=out,
    )
    del report["seconds"], report["cpu_seconds"]
    text = [line for line in out.getvalue().splitlines() if not line.startswith("time:")]
    check(GOLDEN, "arena", [json.loads(json.dumps(report, sort_keys=True)), text])
    same = StringIO()
    report = run_arena(Rules.from_spec("auction"), "easy", "easy", deals=3, seed=6, out=same)
    del report["seconds"], report["cpu_seconds"]
    text = [line for line in same.getvalue().splitlines() if not line.startswith("time:")]
    check(GOLDEN, "arena same level", [json.loads(json.dumps(report, sort_keys=True)), text])


def test_a_small_calibration_measures_as_recorded():
    saved = []
    cal = calibration.run("house", deals=1, seed=3, budget=30, save=saved.append)
    raw = calibration.run({"preset": "auction", "players": 3}, deals=1, seed=4, budget=30, raw=True)
    check(GOLDEN, "calibration", digest([cal.report(), saved, raw.report(), raw.records]))


# --------------------------------------------------------------------------- the offline page
OFFLINE_GAMES = (
    ({"preset": "house"}, "easy", 101, 3),
    ({"preset": "classic", "switches": ["pitch_to_bid"]}, "easy", 202, 3),
    ({"preset": "family"}, "easy", 303, 3),
    ({"preset": "house", "switches": ["draw"]}, "easy", 404, 8),
    ({"preset": "auction", "seating": "six"}, "easy", 505, 2),
    ({"preset": "auction", "seating": "cutthroat", "players": 3}, "medium", 606, 1),
    ({"preset": "house", "switches": ["no_trump_first_trick"]}, "easy", 700, 2),
)


@pytest.mark.parametrize(("choices", "level", "seed", "deals"), OFFLINE_GAMES)
def test_the_offline_table_shows_what_it_showed(choices, level, seed, deals):
    """Every table view of offline matches played through the worker, the person moving as
    an easy bot would (its discards through the page's discard call), and a refused move."""
    options = {"choices": choices, "level": level, "seed": seed, "key": "golden01", "engine": ""}
    views = [json.loads(worker.start(json.dumps(options)))]
    rng = random.Random(seed)
    while True:
        view = views[-1]["table"]
        if view["result"] is not None:
            if view["match_over"] or view["deal_number"] >= deals:
                break
            views.append(json.loads(worker.next_deal()))
        elif view["bot_to_act"]:
            views.append(json.loads(worker.bot()))
        else:
            match = worker._current()
            obs = match.observation(match.seat)
            token = easy.choose(obs, rng)
            if obs.phase == DISCARD:
                cards = [card for card in token.split(":")[1].split(",") if card]
                views.append(json.loads(worker.discard(json.dumps(cards))))
            else:
                views.append(json.loads(worker.act("nonsense")))
                views.append(json.loads(worker.act(token)))
    check(GOLDEN, f"offline {choices} {level} {seed}", digest(views))
