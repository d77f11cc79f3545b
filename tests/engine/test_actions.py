"""Action tokens: every legal action of every phase parses to its kind and prints back as written."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import AUCTION, DISCARD, PLAY, TRUMP, Action, Deal, Rules, actions

from .helpers import ALL_SPECS

KIND_BY_PHASE = {
    TRUMP: {actions.TRUMP},
    DISCARD: {actions.DISCARD},
    PLAY: {actions.CARD},
    AUCTION: {actions.CALL, actions.PITCH},
}


@settings(max_examples=60, deadline=None)
@given(spec=st.sampled_from(ALL_SPECS), seed=st.integers(0, 2**32 - 1))
def test_every_legal_token_parses_to_its_phase_and_prints_back(spec, seed):
    rng = random.Random(seed)
    deal = Deal.new(Rules.from_spec(spec), rng.choice(Rules.from_spec(spec).seats), rng)
    while deal.to_act is not None:
        legal = deal.legal_actions()
        for token in legal:
            action = Action.parse(token)
            assert str(action) == token
            assert action.kind in KIND_BY_PHASE[deal.phase], (token, deal.phase)
        deal.apply(rng.choice(legal))


def test_a_discard_prints_its_cards_in_the_order_given():
    """The table's form posts the cards in the order the page lists them; the engine sorts."""
    assert str(Action.discard(["5C", "7D"])) == "discard:5C,7D"
    assert Action.parse("discard:5C,7D").cards == ("5C", "7D")
    assert actions.discard_token(["5C", "7D"]) == "discard:7D,5C"  # display order: diamonds first
    assert str(Action.discard([])) == "discard:" and Action.parse("discard:").cards == ()


def test_a_pitch_and_a_pass():
    assert Action.parse("pitch:KS") == Action.pitch("KS") and Action.pitch("KS").card == "KS"
    assert Action.parse("pass").is_pass and not Action.parse("3").is_pass
