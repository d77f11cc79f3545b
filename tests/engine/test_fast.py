"""The fast kernel agrees with the readable Deal: legal sets, trick winners, points, scores."""

from __future__ import annotations

import random

import pytest

from games.engine import Deal, Rules, fast
from games.engine.cards import CODES, INDEX

from .helpers import ALL_SPECS, PRESETS, over_the_preset, random_game


def _codes(mask: int) -> set[str]:
    return {CODES[i] for i in range(52) if mask >> i & 1}


def _side_name(rules: Rules, index: int) -> str | None:
    return None if index < 0 else rules.sides[index]


@pytest.mark.parametrize("preset", PRESETS)
def test_kernel_agrees_with_deal_step_by_step(preset):
    """Over STATES_PER_PRESET random states of play of the preset (each option in turn): the
    same legal cards, trick winners, points and scores."""
    over_the_preset(preset, _play_against_the_deal)


def _play_against_the_deal(rules: Rules, rng: random.Random) -> int:
    """One random deal stepped in the Deal and the kernel side by side; the states compared."""
    deal = Deal.new(rules, rng.choice(rules.seats), rng)
    while not deal.is_over and deal.phase != "play":
        deal.apply(rng.choice(deal.legal_actions()))
    if deal.is_over:
        return 0  # thrown in
    pos = fast.Position.from_deal(deal)
    states = 0
    while not deal.is_over:
        # The same legal set at every step, from a position rebuilt from the deal and from
        # the position stepped along by the kernel.
        legal = set(deal.legal_actions())
        assert _codes(fast.legal_mask(fast.Position.from_deal(deal))) == legal
        assert _codes(fast.legal_mask(pos)) == legal
        card = rng.choice(sorted(legal))
        tricks_before = len(deal.tricks)
        deal.apply(card)
        winner = fast.play_card(pos, INDEX[card])
        if len(deal.tricks) > tricks_before:
            assert winner == rules.seats.index(deal.tricks[-1].winner)
        else:
            assert winner is None
        states += 1
    result = deal.result()
    score, points = fast.outcome(pos)
    assert {s: score[i] for i, s in enumerate(rules.sides)} == result.score
    names = ("high", "low", "jack", "game")
    assert {n: _side_name(rules, p) for n, p in zip(names, points, strict=True)} == result.points
    for i, side in enumerate(rules.sides):
        assert fast.game_points(pos.taken[i]) == result.game_points[side]
    return states


@pytest.mark.parametrize("spec", ALL_SPECS, ids=str)
def test_fast_playout_equals_stepwise_random_play(spec):
    """The generated playout makes the same random draws as stepping with ``pick``."""
    rules = Rules.from_spec(spec)
    kernel = fast.kernel_for(rules)
    rng = random.Random(7)
    checked = 0
    for seed in range(80):
        # Start from the beginning of play and from a random point inside it.
        deal = random_game(rules, rng, upto=rng.randrange(4, 40))
        if deal.phase != "play":
            continue
        pos = fast.Position.from_deal(deal)
        before = (list(pos.hands), list(pos.trick), list(pos.taken), pos.leader)
        fast_result = fast.playout(pos, random.Random(seed))
        assert (pos.hands, pos.trick, pos.taken, pos.leader) == before  # pos is not changed
        slow_result = fast.playout(pos, random.Random(seed), policy=fast.random_policy)
        assert fast_result == slow_result
        checked += 1
    assert checked > 10
    assert kernel.n == len(rules.seats)


@pytest.mark.parametrize("spec", ALL_SPECS, ids=str)
def test_random_deals_of_the_kernel_replay_in_the_deal(spec):
    """random_start's deals, bids, trump and discards are legal for the Deal, and a random
    playout of them scores as the Deal scores the same cards."""
    rules = Rules.from_spec(spec)
    kernel = fast.kernel_for(rules)
    for seed in range(60):
        record: dict = {}
        dealer = seed % kernel.n
        pos = fast.random_start(kernel, random.Random(seed), dealer, record=record)
        hands = {rules.seats[i]: sorted(_codes(m)) for i, m in enumerate(record["hands"])}
        stock = [CODES[c] for c in record["stock"]]
        deal = Deal(rules, rules.seats[dealer], hands, stock if rules.draw else None)
        for call in record["calls"]:
            token = (
                "pass"
                if call == 0
                else "smudge"
                if call == 5
                else f"pitch:{CODES[call - fast.PITCH]}"
                if call >= fast.PITCH
                else str(call)
            )
            assert token in deal.legal_actions()
            deal.apply(token)
        if pos is None:
            assert deal.thrown_in
            continue
        if rules.names_trump:
            deal.apply("SHDC"[record["trump"]])
        for seat in rules.seats_from_left_of(deal.dealer):
            if rules.discard_kind:
                chosen = sorted(_codes(record["discards"][rules.seats.index(seat)]))
                deal.discard(seat, chosen)
        mirror = fast.Position.from_deal(deal)
        assert (
            mirror.hands,
            mirror.trump,
            mirror.leader,
            mirror.trick,
            mirror.pitcher,
            mirror.bid,
        ) == (pos.hands, pos.trump, pos.leader, pos.trick, pos.pitcher, pos.bid)
        # Play the kernel's random playout into the deal through the stepwise policy.
        chosen_cards: list[int] = []

        def recording(p, legal, rng, chosen_cards=chosen_cards):
            card = fast.random_policy(p, legal, rng)
            chosen_cards.append(card)
            return card

        score, points = fast.playout(pos, random.Random(seed), policy=recording)
        for card in chosen_cards:
            deal.apply(CODES[card])
        result = deal.result()
        assert {s: score[i] for i, s in enumerate(rules.sides)} == result.score


@pytest.mark.parametrize(
    "spec",
    [
        "house",
        "classic",
        "auction",
        "family",
        {"preset": "house", "low_to": "holder"},
        {"preset": "family", "players": 3},
    ],
)
def test_random_deal_matches_random_start_then_playout(spec):
    kernel = fast.kernel_for(Rules.from_spec(spec))
    for seed in range(200):
        pos = fast.random_start(kernel, rng := random.Random(seed), seed % kernel.n)
        expected = None if pos is None else fast.playout(pos, rng)
        assert fast.random_deal(kernel, random.Random(seed), seed % kernel.n) == expected


def test_random_bids_make_the_same_draws_as_the_full_auction():
    for spec in ("house", "classic", "auction", "family", {"preset": "family", "players": 7}):
        kernel = fast.kernel_for(Rules.from_spec(spec))
        for seed in range(300):
            hands = [0] * kernel.n
            a = fast._random_auction(kernel, hands, seed % kernel.n, random.Random(seed).random)
            b = fast._random_bids(kernel, seed % kernel.n, random.Random(seed).random)
            assert (a[0], a[1]) == b


def test_position_from_observation_matches_position_from_deal():
    rng = random.Random(3)
    for spec in ("house", "auction", {"preset": "classic", "six_players": True}):
        for _ in range(30):
            deal = random_game(spec, rng, upto=rng.randrange(6, 30))
            if deal.phase != "play":
                continue
            seat = deal.to_act
            obs = deal.observation(seat)
            hands = {s: deal.hand(s) for s in deal.rules.seats}
            a = fast.Position.from_observation(obs, hands)
            b = fast.Position.from_deal(deal)
            assert (
                a.hands,
                a.trump,
                a.leader,
                a.trick,
                a.tricks_played,
                a.taken,
                a.played,
                a.pitcher,
                a.bid,
            ) == (
                b.hands,
                b.trump,
                b.leader,
                b.trick,
                b.tricks_played,
                b.taken,
                b.played,
                b.pitcher,
                b.bid,
            )


def test_play_card_refuses_an_illegal_card():
    deal = random_game("house", random.Random(1), upto=6)
    while deal.phase != "play":
        deal = random_game("house", random.Random(2), upto=6)
    pos = fast.Position.from_deal(deal)
    illegal = next(c for c in range(52) if not (fast.legal_mask(pos) >> c) & 1)
    with pytest.raises(ValueError, match="is not legal"):
        fast.play_card(pos, illegal)


def test_generated_source_is_readable_python():
    kernel = fast.kernel_for(Rules.from_spec("house"))
    assert "def play_tricks(" in kernel.source and "def deal_masks(" in kernel.source
    compile(kernel.source, "<check>", "exec")


@pytest.mark.parametrize("spec", ["house", "family", {"preset": "classic", "six_players": True}])
def test_a_heuristic_policy_plays_legal_cards_to_the_same_score_as_the_deal(spec):
    rules = Rules.from_spec(spec)
    rng = random.Random(9)
    for _ in range(30):
        deal = random_game(rules, rng, upto=rng.randrange(4, 30))
        if deal.phase != "play":
            continue
        chosen: list[int] = []

        def recording(p, legal, r, chosen=chosen):
            card = fast.greedy_policy(p, legal, r)
            assert legal >> card & 1
            chosen.append(card)
            return card

        score, _ = fast.playout(fast.Position.from_deal(deal), random.Random(1), policy=recording)
        for card in chosen:
            deal.apply(CODES[card])
        assert {s: score[i] for i, s in enumerate(rules.sides)} == deal.result().score
