"""One definition of a move's worth (games/engine/worth.py) on hand-made positions."""

import random

from games.engine import OVER, PLAY, Deal, Rules
from games.engine.bots import choose
from games.engine.bots.estimate import Acc
from games.engine.cards import INDEX
from games.engine.coach.advice import advise
from games.engine.coach.judging import judge
from games.engine.solver import analyse
from games.engine.worth import MATCH, NET, deal_net, net_text, position_seed, signed, worth


def test_net_is_yours_minus_theirs():
    assert deal_net([4, -3], 0) == 7  # you made 4 and set nobody: they lost 3
    assert deal_net([-4, 2], 0) == -6  # set: your 4 back, and they took 2
    assert deal_net({"NS": 0, "EW": 4}, "NS") == -4
    assert deal_net([0, 0], 1) == 0  # thrown in
    assert deal_net([3, 1, -1], 0) == 3  # cutthroat: minus the others' mean


def test_search_margin_is_deal_net():
    acc = Acc()
    acc.add(1.0, [2, -4], (0, 1, 0, 0), 1, 0)
    assert acc.mean_margin() == deal_net([2, -4], 0)


def test_signed_uses_the_tables_minus():
    assert signed(-4) == "\u22124"
    assert signed(4) == "+4"
    assert signed(0.001, 2) == "0.00"
    assert net_text({"expected_margin": -1.1}) == "\u22121.10"


def test_worth_is_the_match_chance_only_where_the_coach_ranked_by_it():
    deal = {"expected_margin": 1.5, "margin_stderr": 0.1, "ranking": "margin", "p_win_match": 0.4}
    assert worth(deal).unit == NET and worth(deal).value == 1.5
    match = {**deal, "ranking": "match", "p_win_match": 0.7}
    assert worth(match).unit == MATCH and worth(match).value == 0.7


def test_match_value_and_deal_value_can_disagree():
    """Near the end a safe option worth less net can be the better one: judged in the match's
    unit, the bolder option is the loss."""
    safe = {
        "action": "2",
        "expected_margin": 1.0,
        "margin_stderr": 0.01,
        "ranking": "match",
        "p_win_match": 0.9,
        "samples": 2000,
    }
    bold = {
        "action": "4",
        "expected_margin": 2.0,
        "margin_stderr": 0.01,
        "ranking": "match",
        "p_win_match": 0.6,
        "samples": 2000,
    }
    assert worth(bold).net > worth(safe).net
    verdict = judge(safe, bold)
    assert verdict.unit == MATCH and verdict.mark == "blunder"
    # On the deal alone the bold call would have been the better one.
    deal_only = judge({**bold, "ranking": "margin"}, {**safe, "ranking": "margin"})
    assert deal_only.unit == NET and deal_only.mark == "blunder"


def test_position_seed_is_the_positions():
    deal = Deal.new(Rules(), dealer="W", rng=random.Random(3))
    a = position_seed(deal.observation("N"))
    assert a == position_seed(Deal.new(Rules(), dealer="W", rng=random.Random(3)).observation("N"))
    assert a != position_seed(deal.observation("E"))


def test_solver_best_is_by_net():
    """A certain make and a certain set: the face-up analysis values them in net points."""
    solved = 0
    for seed in range(30):
        deal = Deal.new(Rules(), dealer="W", rng=random.Random(seed))
        while deal.phase != OVER and not (deal.phase == PLAY and len(deal.tricks) >= 3):
            deal.apply(choose(deal.observation(deal.to_act), "easy", seed=seed))
        if deal.phase != PLAY:
            continue
        analysis = analyse(deal)
        side = Rules().side_of(analysis.seat)
        nets = {line.card: deal_net(line.score, side) for line in analysis.lines}
        top = max(nets.values())
        assert {line.card for line in analysis.lines if line.best} == {
            c for c, v in nets.items() if v == top
        }
        solved += 1
    assert solved >= 20


def _position(hands, moves):
    """A hand-made deal of house rules (West deals, so North speaks first), moves applied."""
    dealt = {card for hand in hands.values() for card in hand}
    deal = Deal(Rules(), "W", hands, [card for card in INDEX if card not in dealt])
    for token in moves:
        deal.apply(token)
    return deal


OTHERS = {"S": ["3H", "4H", "9H", "TH", "JH", "QH"], "W": ["3D", "4D", "5D", "6D", "7D", "TD"]}


def test_the_coach_is_certain_of_a_certain_make_and_a_certain_set():
    # North holds every trump and bid 4: whatever is played, North takes every trick, all four
    # points, and +4 net.
    make = _position(
        {"N": ["AS", "KS", "QS", "JS", "3S", "2S"], "E": ["AC", "KC", "3C", "4C", "5C", "6C"]}
        | OTHERS,
        ["4", "AS", "KC", "3H", "3D"],
    )
    options = advise(make.observation("N"), budget=60)
    assert len(options) == 5
    assert all(o.figures["p_make"] == 1.0 and worth(o.figures).net == 4 for o in options)

    # North bid 4 and led the two of trump; East took it with the ace: Low and High are East and
    # West's, so the bid of 4 is set whatever South plays now.
    sett = _position(
        {"N": ["2S", "5H", "6H", "7H", "8D", "9D"], "E": ["AS", "KC", "3C", "4C", "5C", "6C"]}
        | OTHERS,
        ["4", "2S", "AS", "3H", "3D", "KC"],
    )
    options = advise(sett.observation("S"), budget=60)
    assert len(options) == 5
    assert all(o.figures["p_make"] == 0.0 and worth(o.figures).net < -4 for o in options)
