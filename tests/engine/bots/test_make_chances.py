"""The chances of making one decision's bids never contradict: in the same planned suit, a
higher bid is never said to be likelier made than a lower one."""

import random

from games.engine import Deal, Rules
from games.engine.bots import evaluate
from games.engine.bots.estimate import Acc
from games.engine.bots.search import monotone_make_chances


def _acc(made: float, mine: float) -> Acc:
    acc = Acc()
    acc.made, acc.mine = made, mine
    return acc


def test_pooling_keeps_agreeing_chances_and_pools_a_violation_by_weight():
    two, three, four = _acc(6, 10), _acc(14, 20), _acc(1, 10)  # 0.6 < 0.7: a contradiction
    monotone_make_chances([(2, two, 0), (3, three, 0), (4, four, 0)])
    pooled = (6 + 14) / (10 + 20)
    assert abs(two.made / two.mine - pooled) < 1e-12
    assert abs(three.made / three.mine - pooled) < 1e-12
    assert four.made / four.mine == 0.1  # already lower: untouched
    other_suit = _acc(9, 10)
    monotone_make_chances([(2, _acc(1, 10), 0), (3, other_suit, 1)])
    assert other_suit.made == 9  # different suits are not compared


def test_no_auction_decision_says_a_higher_bid_is_likelier_made():
    rules = Rules.from_spec("classic")  # bids 2, 3, 4 and smudge, the dealer may steal
    rng = random.Random(11)
    checked = 0
    while checked < 25:
        deal = Deal.new(rules, rng.choice(rules.seats), rng)
        for _ in range(rng.randrange(4)):
            if deal.phase != "auction":
                break
            deal.apply(rng.choice(deal.legal_actions()))
        if deal.phase != "auction":
            continue
        options = evaluate(deal.observation(deal.to_act), seed=rng.getrandbits(32), budget=80)
        bids = [
            (int(o.action), o.detail.get("suit"), o.p_make)
            for o in options
            if o.action.isdigit() and o.p_make is not None
        ]
        for bid, suit, chance in bids:
            for other, other_suit, other_chance in bids:
                if other > bid and other_suit == suit:
                    assert other_chance <= chance + 1e-9, (bid, other, suit)
        checked += 1
