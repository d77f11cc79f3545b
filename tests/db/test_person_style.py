"""The coach models a person by the style of their own recorded play (issue 47): someone who
has played two matches casually is played casually in the coach's search at their next table, as of
the deal being advised, so the live coach and a later review of one moment model them alike."""

import pytest

from games.coach import selectors as coach_selectors
from games.core import selectors, services
from games.engine.bots import choose
from games.engine.bots.seats import PERSON_MODEL
from games.engine.coach import outsider
from games.models import Match

from .play import play_until

pytestmark = pytest.mark.django_db


def casual_move(match, seat):
    """What a casual player does (the outside greedy player of the calibration)."""
    state = selectors.deal_state(selectors.current_deal(match))
    return outsider.choose(state.observation(seat))


def test_a_person_who_plays_casually_is_modelled_casually_at_their_next_table(user, bob):
    match = services.do_start_match(user, rules_spec="house", bot_level="easy")
    first = selectors.current_deal(match)
    assert coach_selectors.person_style(user.pk, first) == PERSON_MODEL  # nothing played yet
    assert play_until(match, person=casual_move).status == Match.Status.FINISHED
    again = services.do_start_match(user, rules_spec="house", bot_level="easy")
    assert play_until(again, person=casual_move).status == Match.Status.FINISHED

    # At bob's table, the coach of bob's seat plays that person casually, the bots by level.
    shared = services.do_start_match(bob, rules_spec="house", bot_level="medium")
    shared.seats.filter(position="W").update(user=user, bot_level="")
    models = coach_selectors.seat_models(shared, "S", selectors.current_deal(shared))
    assert models == {"S": "hard", "W": "casual", "N": "medium", "E": "medium"}
    # A review of the first deal models them as they were known then: not at all.
    assert coach_selectors.person_style(user.pk, first) == PERSON_MODEL


def test_a_person_who_thinks_about_their_cards_is_modelled_as_the_strong_bots_are(user):
    def thinking_move(match, seat):  # the medium bot's search stands in for a thinking person
        state = selectors.deal_state(selectors.current_deal(match))
        return choose(state.observation(seat), "medium", seed=1)

    match = services.do_start_match(user, rules_spec="house", bot_level="easy")
    play_until(match, person=thinking_move)
    later = services.do_start_match(user, rules_spec="house", bot_level="easy")
    assert coach_selectors.person_style(user.pk, selectors.current_deal(later)) == "hard"
