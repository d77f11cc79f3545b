"""Parts of the search: the fast playout plays exactly as the policy, sampled worlds respect
what the seat has seen, the exact endgame agrees with the kernel."""

from __future__ import annotations

import random

import pytest

from games.engine import Deal, Rules, fast
from games.engine.bots.core import play_out, play_out_reference
from games.engine.bots.endgame import solve_options
from games.engine.bots.worlds import Info
from games.engine.cards import INDEX, SUITS

from .helpers import SPECS, random_positions, spec_id


@pytest.mark.parametrize("spec", SPECS[::3], ids=spec_id)
def test_fast_playout_plays_like_the_policy(spec):
    kernel = fast.kernel_for(Rules.from_spec(spec))
    rng = random.Random(4)
    checked = 0
    while checked < 60:
        pos = fast.random_start(kernel, rng)
        if pos is None:
            continue
        for _ in range(rng.randrange(0, 10)):
            if pos.is_over:
                break
            fast.play_card(pos, fast.pick(fast.legal_mask(pos), rng.random).bit_length() - 1)
        a = play_out(pos.copy())
        b = play_out_reference(pos.copy())
        assert (a.taken, a.played, a.leader, a.trump, a.hands) == (
            b.taken,
            b.played,
            b.leader,
            b.trump,
            b.hands,
        )
        assert a.is_over
        checked += 1


@pytest.mark.parametrize(
    "spec",
    [
        "house",
        {"preset": "family", "players": 5},
        {"preset": "house", "draw": True},
        {"preset": "classic", "six_players": True},
        {"preset": "classic", "pitch_to_bid": True},
        {"preset": "house", "no_trump_first_trick": True},
    ],
    ids=spec_id,
)
def test_sampled_worlds_respect_what_the_seat_has_seen(spec):
    rng = random.Random(6)
    for _deal, obs in random_positions(spec, rng, 12, with_totals=False):
        info = Info(obs)
        rules = obs.rules
        for _ in range(20):
            world = info.sample(rng)
            me = rules.seats.index(obs.seat)
            assert world.hands[me] == info.hand
            everything = world.out
            for i, seat in enumerate(rules.seats):
                h = world.hands[i]
                assert h.bit_count() == obs.hand_sizes[seat]
                assert not everything & h
                everything |= h
                for suit in obs.voids.get(seat, ()):
                    assert not h & fast.SUIT_MASK[SUITS.index(suit)], (seat, suit)
                assert info.known[i] & h == info.known[i]
            assert everything | info.played | info.my_discards == (1 << 52) - 1
            assert not everything & (info.played | info.my_discards)
            assert len(world.stock) == obs.stock_size or not info.stock_order


def test_exact_endgame_plays_out_every_option():
    rng = random.Random(2)
    done = 0
    while done < 20:
        deal = Deal.new("house", "W", rng)
        while not deal.is_over and (deal.phase != "play" or len(deal.tricks) < 4):
            deal.apply(rng.choice(deal.legal_actions()))
        if deal.is_over:
            continue
        pos = fast.Position.from_deal(deal)
        cards = [INDEX[c] for c in deal.legal_actions()]
        me = pos.to_act
        results = solve_options(pos, cards, pos.kernel.side_of[me])
        assert set(results) == set(cards)
        for final in results.values():
            assert final.is_over
            fast.outcome(final)
        done += 1
