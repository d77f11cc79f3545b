"""Properties of random legal deals (hypothesis): conservation, the point limits, secrecy."""

import contextlib
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import (
    Deal,
    IllegalAction,
    RecordError,
    Rules,
    deal_from_record,
    deal_to_record,
    match_from_record,
)
from games.engine.cards import game_points

from .helpers import ALL_SPECS

RULES = [Rules.from_spec(spec) for spec in ALL_SPECS]
common = settings(max_examples=120)


def _play_random(rules: Rules, seed: int, on_step=None) -> Deal:
    rng = random.Random(seed)
    deal = Deal.new(rules, rng.choice(rules.seats), rng)
    while not deal.is_over:
        legal = deal.legal_actions()
        assert legal, (deal.phase, deal.to_act)
        if on_step:
            on_step(deal)
        deal.apply(rng.choice(legal))
    return deal


@common
@given(rules=st.sampled_from(RULES), seed=st.integers(0, 2**32))
def test_every_card_once_six_tricks_and_the_point_limits(rules, seed):
    deal = _play_random(rules, seed)
    result = deal.result()
    if result.thrown_in:
        assert deal.plays == [] and set(result.score.values()) == {0}
        return
    plays = deal.plays
    assert len(plays) == len(set(plays)) == 6 * len(rules.seats)
    assert len(result.tricks) == 6 and all(len(t.cards) == len(rules.seats) for t in result.tricks)
    # Every card held after the auction and discards was played, and nothing else.
    held = set()
    for seat in rules.seats:
        held |= set(deal.dealt_hands[seat]) - set(deal.discards.get(seat, ()))
    if rules.draw:
        held |= set(deal.stock[: len(deal.stock) - len(deal.stock_remaining)])
    assert set(plays) == held
    taken = [side for side in result.points.values() if side is not None]
    assert len(taken) <= 4
    for side in rules.sides:
        points = taken.count(side)
        score = result.score[side]
        if side == result.pitcher_side:
            if result.made:
                assert score == (5 if result.bid == 5 else points)
            else:
                assert score == -result.bid
        else:
            assert score == points
        assert score <= (5 if result.bid == 5 and result.made else 4)
    # Game points are exactly the cards each side took.
    for side in rules.sides:
        cards = [c for t in result.tricks if rules.side_of(t.winner) == side for _, c in t.cards]
        assert result.game_points[side] == sum(game_points(c) for c in cards)
    # High and Jack always go to the side that took the card.
    if result.points["jack"] is not None:
        jack_trick = next(
            t for t in result.tricks if any(c == "J" + result.trump for _, c in t.cards)
        )
        assert result.points["jack"] == rules.side_of(jack_trick.winner)


@common
@given(rules=st.sampled_from(RULES), seed=st.integers(0, 2**32))
def test_observations_hold_no_other_seats_unplayed_card(rules, seed):
    def check(deal: Deal) -> None:
        played = set(deal.plays)
        for seat in rules.seats:
            obs = deal.observation(seat)
            others = {c for s in rules.seats if s != seat for c in deal.hand(s)}
            seen = set(obs.hand) | set(obs.discards) | set(obs.played)
            assert not (seen & others)
            assert set(obs.hand) == set(deal.hand(seat))
            assert set(obs.played) == played
            assert sum(obs.hand_sizes.values()) == sum(len(deal.hand(s)) for s in rules.seats)
            # Nothing in the observation's other fields names a hidden card, except a pitch
            # taken over in the auction, which every player saw.
            text = repr(obs.to_json())
            pitched = {token.split(":")[1] for _, token in obs.calls if token.startswith("pitch:")}
            for card in others - pitched:
                assert f"'{card}'" not in text
            for s, suits in obs.voids.items():
                assert not any(c[1] in suits for c in deal.hand(s))  # a proven void is true
        to_act = deal.to_act
        assert deal.observation(to_act).legal_actions() == deal.legal_actions()

    _play_random(rules, seed, on_step=check)


@settings(max_examples=60)
@given(
    rules=st.sampled_from(RULES),
    seed=st.integers(0, 2**32),
    junk=st.sampled_from(["ZZ", "pass", "9", "S", "discard:AS", "AS", "pitch:2C"]),
)
def test_illegal_actions_change_nothing(rules, seed, junk):
    def poke(deal: Deal) -> None:
        if junk in deal.legal_actions():
            return
        before = (deal_to_record(deal), deal.version, deal.to_act, deal.phase)
        try:
            deal.apply(junk)
        except IllegalAction:
            pass
        else:
            raise AssertionError(f"{junk} was accepted but is not legal")
        assert (deal_to_record(deal), deal.version, deal.to_act, deal.phase) == before

    _play_random(rules, seed, on_step=poke)


@settings(max_examples=60)
@given(rules=st.sampled_from(RULES), seed=st.integers(0, 2**32), stop=st.integers(0, 60))
def test_record_round_trip_anywhere(rules, seed, stop):
    rng = random.Random(seed)
    deal = Deal.new(rules, rng.choice(rules.seats), rng)
    while not deal.is_over and deal.version < stop:
        deal.apply(rng.choice(deal.legal_actions()))
    record = deal_to_record(deal)
    again = deal_from_record(record)
    assert deal_to_record(again) == record
    assert again.legal_actions() == deal.legal_actions()


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 60)
    | st.sampled_from(["AS", "2C", "pass", "4", "N", "P1", "S", "x", ""]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["N", "E", "P1", "preset", "x"]), inner, max_size=3)
    ),
    max_leaves=8,
)
FIELDS = [
    "format",
    "rules",
    "dealer",
    "hands",
    "stock",
    "auction",
    "trump",
    "discards",
    "plays",
    "junk",
]


@settings(max_examples=300)
@given(
    rules=st.sampled_from(RULES),
    seed=st.integers(0, 2**32),
    field=st.sampled_from(FIELDS),
    value=json_values,
    index=st.integers(0, 30),
)
def test_damaged_records_raise_record_error_only(rules, seed, field, value, index):
    """Whatever is damaged, reading a record either works or raises RecordError."""

    rng = random.Random(seed)
    deal = Deal.new(rules, rng.choice(rules.seats), rng)
    while not deal.is_over and deal.version < rng.randrange(0, 40):
        deal.apply(rng.choice(deal.legal_actions()))
    record = deal_to_record(deal)
    target = record.get(field)
    if isinstance(target, list) and target and index < len(target):
        target[index] = value  # damage one item
    elif isinstance(target, dict) and target:
        key = sorted(target)[index % len(target)]
        target[key] = value
    else:
        record[field] = value
    for reader, data in (
        (deal_from_record, record),
        (
            match_from_record,
            {"format": "setback-match/1", "rules": rules.to_spec(), "deals": [record]},
        ),
    ):
        with contextlib.suppress(RecordError):
            reader(data)
