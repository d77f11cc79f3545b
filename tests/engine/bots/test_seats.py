"""Who sits at the table (games/engine/bots/seats.py): an easy seat in the coach's playouts plays
the easy bot's cards, and a search without seat models is the bots' own, unchanged."""

import random

from games.engine import OVER, PLAY, Deal, Rules
from games.engine.bots import choose, easy, evaluate
from games.engine.bots.seats import easy_card, model_of_seat
from games.engine.cards import INDEX
from games.engine.fast import Position, legal_mask


def _play_positions(count: int):
    rng = random.Random(7)
    found = 0
    while found < count:
        deal = Deal.new(Rules(), dealer="W", rng=rng)
        while deal.phase != OVER:
            obs = deal.observation(deal.to_act)
            if deal.phase == PLAY and len(obs.legal_actions()) > 1 and deal.trump is not None:
                found += 1
                yield deal, obs
            deal.apply(choose(obs, "easy", seed=rng.getrandbits(16)))


def test_an_easy_seat_plays_the_easy_bots_card():
    agree = total = 0
    for deal, obs in _play_positions(300):
        pos = Position.from_deal(deal)
        twin = easy_card(pos, legal_mask(pos))
        mine = INDEX[easy.choose(obs, random.Random(0))]
        total += 1
        agree += twin == mine
    # The same rules on bitmasks; ties between equal cards may be broken otherwise.
    assert agree / total >= 0.95, (agree, total)


def test_a_person_and_a_bot_are_modelled_by_what_they_are():
    assert model_of_seat("bot", "medium") == "medium"
    assert model_of_seat("bot", "easy") == "easy"
    assert model_of_seat("person") in ("easy", "medium", "hard")


def test_without_seat_models_the_search_is_the_bots_own():
    deal = Deal.new(Rules(), dealer="W", rng=random.Random(3))
    obs = deal.observation(deal.to_act)
    plain = evaluate(obs, seed=4, budget=60)
    hard_everywhere = evaluate(obs, seed=4, budget=60, seat_models=dict.fromkeys("NESW", "hard"))
    assert plain == hard_everywhere
    easy_others = evaluate(
        obs, seed=4, budget=60, seat_models={"N": "easy", "E": "easy", "S": "easy", "W": "easy"}
    )
    assert [e.expected_margin for e in easy_others] != [e.expected_margin for e in plain]
