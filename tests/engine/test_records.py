"""Deal and match records: round trips, and errors that name the first offending item."""

import copy
import json
import random

import pytest

from games.engine import (
    Deal,
    MatchState,
    RecordError,
    Rules,
    deal_from_record,
    deal_to_record,
    match_from_record,
    match_record_json,
)
from games.engine.cards import DISPLAY_ORDER

from .helpers import ALL_SPECS, deal_from, play, random_game
from .test_scoring import HANDS_A, PLAYS_A


def record_a(**changes):
    deal = play(deal_from("house", "W", HANDS_A), "2 pass pass pass " + PLAYS_A)
    record = deal_to_record(deal)
    record.update(changes)
    return record


@pytest.mark.parametrize("spec", ALL_SPECS, ids=str)
def test_round_trip_at_every_stage(spec):
    rng = random.Random(5)
    for _ in range(25):
        deal = random_game(spec, rng, upto=rng.choice([0, 3, 8, 20, 40, None]))
        record = json.loads(json.dumps(deal_to_record(deal)))
        again = deal_from_record(record)
        assert deal_to_record(again) == record
        assert (
            again.phase == deal.phase
            and again.to_act == deal.to_act
            and again.history == deal.history
        )
        if deal.is_over:
            assert again.result() == deal.result()


def test_record_shape():
    record = record_a()
    assert list(record) == ["format", "rules", "dealer", "hands", "stock", "auction", "plays"]
    assert record["format"] == "setback-deal/1" and record["rules"] == "house"
    assert record["auction"] == ["2", "pass", "pass", "pass"] and len(record["plays"]) == 24
    assert len(record["stock"]) == 28


def test_stock_is_optional_but_must_be_exact():
    record = record_a()
    del record["stock"]
    assert deal_from_record(record).result().score == {"NS": 3, "EW": 0}
    with pytest.raises(RecordError, match=r"^stock: 27 cards, expected 28 \(every undealt card\)$"):
        deal_from_record(record_a(stock=record_a()["stock"][1:]))
    with pytest.raises(RecordError, match=r"^stock\[0\] AS: also dealt \(hands.N\)$"):
        deal_from_record(record_a(stock=["AS"] + record_a()["stock"][1:]))


def _error(record) -> str:
    with pytest.raises(RecordError) as info:
        deal_from_record(record)
    return str(info.value)


def test_errors_name_the_first_offending_item():
    base = record_a()
    hands = copy.deepcopy(base["hands"])
    hands["E"][0] = "AS"
    assert _error(record_a(hands=hands)) == "hands.E[0] AS: dealt twice (also in hands.N)"
    hands = copy.deepcopy(base["hands"])
    hands["E"] = hands["E"][:5]
    assert (
        _error(record_a(hands=hands, stock=None)) == "hands.E: 5 cards, expected 6"
    )  # null: absent
    assert _error(record_a(hands=hands)) == "hands.E: 5 cards, expected 6"
    hands = copy.deepcopy(base["hands"])
    hands["N"][2] = "1H"
    assert _error(record_a(hands=hands)) == "hands.N[2] 1H: unknown card"
    hands = copy.deepcopy(base["hands"])
    hands["X"] = []
    assert _error(record_a(hands=hands)) == "hands.X: not a seat at this table (N E S W)"
    assert (
        _error(record_a(auction=["pass", "3", "2"])) == "auction[2] 2 by S: must bid higher than 3"
    )
    assert _error(record_a(auction=["pass", "7"])).startswith("auction[1] 7 by E: unknown call")
    assert _error(record_a(auction=["4", "pass"])) == "auction[1] pass: the auction is over"
    plays = list(base["plays"])
    plays[9] = "TH"
    assert _error(record_a(plays=plays)) == "plays[9] TH by S: must follow diamonds or trump"
    plays = list(base["plays"])
    plays[1] = "2C"
    assert (
        _error(record_a(plays=plays))
        == "plays[1] 2C by E: not in E's hand (S holds it; E is to play)"
    )
    plays = list(base["plays"])
    plays[0] = "ZZ"
    assert _error(record_a(plays=plays)) == "plays[0] ZZ by N: unknown card"
    assert (
        _error(record_a(plays=base["plays"] + ["2S"]))
        == "plays[24] 2S: too many plays (the deal is over after 24 cards)"
    )
    assert (
        _error(record_a(auction=["2", "pass"]))
        == "plays[0] AS: the auction is not over (S is to call)"
    )
    assert _error(record_a(auction=["pass"] * 4)) == "plays[0] AS: the deal was thrown in"
    assert _error(record_a(trump="H")) == "trump H: the opening lead AS makes S trump"
    assert _error(record_a(rules="poker")).startswith("rules: unknown preset 'poker'")
    assert _error(record_a(format="setback/0")) == "format: 'setback/0', expected 'setback-deal/1'"
    assert _error(record_a(extra=1)).startswith("extra: unknown field")
    assert _error(record_a(plays="AS")) == "plays: expected a list of cards"
    assert (
        _error(record_a(discards={"N": ["2D"]})) == "discards: there are no discards in these rules"
    )
    for field in ("format", "rules", "dealer", "hands"):
        record = record_a()
        del record[field]
        assert _error(record) == f"{field}: missing"
    assert _error(record_a(dealer="X")) == "dealer: 'X' is not a seat at this table (N E S W)"
    assert _error([1, 2]) == "expected a deal record (a JSON object)"


def test_pitch_record():
    deal = play(
        deal_from({"preset": "classic", "pitch_to_bid": True}, "W", HANDS_A), "pass pitch:AH pass"
    )
    record = deal_to_record(deal)
    assert record["auction"] == ["pass", "pitch:AH", "pass"] and record["plays"] == ["AH"]
    assert deal_to_record(deal_from_record(record)) == record
    record["plays"] = []  # the pitch is the opening lead whether or not it is written
    assert deal_from_record(record).current_trick == [("E", "AH")]
    record["plays"] = ["KH"]
    assert _error(record) == "plays[0] KH: the winning pitch AH is the opening lead"
    taken_over = play(
        deal_from({"preset": "classic", "pitch_to_bid": True}, "W", HANDS_A),
        "pass pitch:AH pitch:2H",
    )
    assert deal_to_record(taken_over)["plays"] == ["2H"] and "AH" in taken_over.hand("E")


def draw_record():
    hands = {seat: h.split() for seat, h in HANDS_A.items()}
    dealt = {c for h in hands.values() for c in h}
    stock = [c for c in DISPLAY_ORDER if c not in dealt]
    deal = Deal(Rules.from_spec({"preset": "house", "draw": True}), "W", hands, stock)
    play(deal, "2 pass pass pass H discard:3D,2D discard: discard:2C")
    return deal


def test_draw_records():
    deal = draw_record()
    record = deal_to_record(deal)
    assert record["trump"] == "H" and record["discards"] == {
        "N": ["3D", "2D"],
        "E": [],
        "S": ["2C"],
    }
    assert deal_to_record(deal_from_record(record)) == record
    # A seat left out before later discards discarded nothing.
    record2 = dict(record, discards={"N": ["3D", "2D"], "S": ["2C"]})
    assert deal_to_record(deal_from_record(record2)) == record
    bad = dict(record, discards={"N": ["KH"]})
    assert _error(bad) == "discards.N: KH is a trump: only non-trumps may be discarded"
    no_stock = dict(record)
    del no_stock["stock"]
    assert _error(no_stock) == "stock: missing (draw refills hands from the stock in its order)"
    no_trump = dict(record, plays=["AS"])
    del no_trump["trump"]
    del no_trump["discards"]
    assert _error(no_trump) == "trump: missing (the pitcher names trump in these rules)"
    early = dict(record, auction=["2", "pass"])
    assert _error(early) == "trump H: the auction is not over (S is to call)"


def test_six_player_records_need_every_discard():
    rules = Rules.from_spec({"preset": "classic", "six_players": True})
    cards = list(DISPLAY_ORDER)
    hands = {f"P{i + 1}": cards[8 * i : 8 * i + 8] for i in range(6)}
    deal = play(Deal(rules, "P6", hands), "2 pass pass pass pass pass S discard:AS,KS")
    record = deal_to_record(deal)
    assert record["discards"] == {"P1": ["AS", "KS"]}
    record["discards"] = {"P1": ["AS", "KS"], "P3": ["2H", "AD"]}
    assert _error(record) == "discards.P2: missing (each player discards 2 cards)"


def test_match_record_and_errors():
    rules = Rules.from_spec("house")
    rng = random.Random(4)
    deals = []
    dealer = "W"
    for _ in range(3):
        deal = Deal.new(rules, dealer, rng)
        while not deal.is_over:
            deal.apply(rng.choice(deal.legal_actions()))
        deals.append(deal)
        dealer = rules.next_seat(dealer)
    state = MatchState(rules, "W")
    for deal in deals:
        state.add(deal)
    record = match_record_json(state.rules, state.played_deals)
    assert record["format"] == "setback-match/1" and record["rules"] == "house"
    assert "format" not in record["deals"][0] and "rules" not in record["deals"][0]
    again = match_from_record(json.loads(json.dumps(record)))
    assert again.to_json() == state.to_json()
    # Later deals may leave the dealer out; if given it must follow the rotation.
    del record["deals"][1]["dealer"]
    assert match_from_record(record).totals == state.totals
    record["deals"][2]["dealer"] = "W"
    with pytest.raises(RecordError, match=r"^deals\[2\]\.dealer: W, but the deal passes to E$"):
        match_from_record(record)
    record["deals"][2]["dealer"] = "E"
    record["deals"][1]["plays"] = record["deals"][1]["plays"][:5]
    with pytest.raises(RecordError, match=r"^deals\[1\]: the deal is not over"):
        match_from_record(record)
    # The last deal may be in progress.
    partial = match_from_record(dict(record, deals=record["deals"][:2]))
    assert partial.current is not None and partial.to_json()["deals"][1]["score"] is None
    with pytest.raises(RecordError, match=r"^deals\[0\]\.hands: missing$"):
        match_from_record(
            {"format": "setback-match/1", "rules": "house", "deals": [{"dealer": "W"}]}
        )


def test_a_deal_after_the_match_is_over_is_an_error():
    # In every deal N or S holds six hearts, bids 4 and takes every trick: N-S score 4 a deal
    # and are out with 12 after the third.
    suits = {
        "H": "AH KH QH JH TH 9H",
        "S": "2S 3S 4S 5S 6S 7S",
        "C": "2C 3C 4C 5C 6C 7C",
        "D": "2D 3D 4D 5D 6D 7D",
    }
    rules = Rules.from_spec("house")
    deals = []
    for dealer in ("W", "N", "E", "S"):
        order = rules.seats_from_left_of(dealer)
        pitcher = next(seat for seat in order if seat in "NS")
        start = order.index(pitcher)
        seats = order[start:] + order[:start]
        hands = {seat: suits[suit].split() for seat, suit in zip(seats, "HSCD", strict=True)}
        plays = [hands[seat][t] for t in range(6) for seat in seats]
        deals.append(
            {"dealer": dealer, "hands": hands, "auction": ["pass"] * start + ["4"], "plays": plays}
        )
    record = {"format": "setback-match/1", "rules": "house", "deals": deals}
    with pytest.raises(RecordError, match=r"^deals\[3\]: the match was already over \(NS won\)$"):
        match_from_record(record)
    result = match_from_record(dict(record, deals=deals[:3]))
    assert result.winner == "NS" and result.totals == {"NS": 12, "EW": 0}
    assert result.to_json() == {
        "deals": [
            {"score": {"NS": 4, "EW": 0}, "totals": {"NS": 4, "EW": 0}},
            {"score": {"NS": 4, "EW": 0}, "totals": {"NS": 8, "EW": 0}},
            {"score": {"NS": 4, "EW": 0}, "totals": {"NS": 12, "EW": 0}},
        ],
        "totals": {"NS": 12, "EW": 0},
        "winner": "NS",
    }
