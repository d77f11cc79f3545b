"""A person's style, learned from the cards they played (games/engine/bots/styles.py): a player
who follows a rule is modelled by it, one who thinks by the playout policy, and nobody by a few
plays; the casual rule in the playouts plays a casual player's card."""

import random

from games.engine import OVER, PLAY, Deal, Rules
from games.engine.bots import choose, evaluate
from games.engine.bots.seats import PERSON_MODEL, casual_card
from games.engine.bots.styles import MIN_MOVES, Tally
from games.engine.cards import INDEX
from games.engine.coach import outsider
from games.engine.fast import Position, legal_mask


def _deals(player, count: int, seed: int = 1, seat: str = "N"):
    """Finished deals where `player(obs, rng)` sits at `seat` and easy bots at the others."""
    rng = random.Random(seed)
    rules = Rules()
    for number in range(count):
        deal = Deal.new(rules, rules.seats[number % 4], rng)
        while not deal.is_over:
            obs = deal.observation(deal.to_act)
            mover = player if deal.to_act == seat else _bot("easy")
            deal.apply(mover(obs, rng))
        yield deal


def _bot(level):
    return lambda obs, rng: choose(obs, level, seed=rng.getrandbits(16))


def _greedy(obs, rng):
    return outsider.choose(obs)


def _style(player, deals: int) -> Tally:
    tally = Tally()
    for deal in _deals(player, deals):
        tally.add_deal(deal, "N")
    return tally


def test_a_rule_bound_player_is_modelled_by_its_rule_and_a_thinking_one_by_the_policy():
    assert _style(_greedy, 12).style() == "casual"
    assert _style(_bot("easy"), 12).style() == "easy"
    assert _style(_bot("medium"), 12).style() == "hard"


def test_a_few_plays_say_nothing_yet():
    tally = _style(_greedy, 1)
    assert 0 < tally.moves < MIN_MOVES
    assert tally.style() == PERSON_MODEL


def test_only_the_persons_own_plays_count():
    deal = next(_deals(_greedy, 1))
    everything, none = Tally(), Tally()
    everything.add_deal(deal, "N")
    none.add_deal(deal, "N", steps=())  # a stand-in played all of them
    assert everything.moves > 0 and none.moves == 0


def test_the_casual_rule_plays_the_casual_players_card():
    agree = total = 0
    rng = random.Random(5)
    while total < 300:
        deal = Deal.new(Rules(), dealer="W", rng=rng)
        while deal.phase != OVER:
            obs = deal.observation(deal.to_act)
            if deal.phase == PLAY and len(obs.legal_actions()) > 1 and deal.trump is not None:
                pos = Position.from_deal(deal)
                total += 1
                agree += casual_card(pos, legal_mask(pos)) == INDEX[outsider.choose(obs)]
            deal.apply(choose(obs, "easy", seed=rng.getrandbits(16)))
    # Written apart from the outside player, from the same description of casual play.
    assert agree / total >= 0.95, (agree, total)


def test_a_casual_table_changes_the_coachs_figures():
    deal = Deal.new(Rules(), dealer="W", rng=random.Random(3))
    obs = deal.observation(deal.to_act)
    others = {seat: "casual" for seat in "NESW" if seat != obs.seat}
    easy = {seat: "easy" for seat in others}
    casual_margins = [
        e.expected_margin for e in evaluate(obs, seed=4, budget=60, seat_models=others)
    ]
    easy_margins = [e.expected_margin for e in evaluate(obs, seed=4, budget=60, seat_models=easy)]
    assert casual_margins != easy_margins
