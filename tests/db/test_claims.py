"""Claiming the rest at a table (issue 50): a certain claim stores every card it stands for and
ends the deal, the others see who claimed, a claim that one card still out defeats is refused
with the reason and changes nothing, a double click is one claim, and bots claim too."""

import pytest
from django.urls import reverse

from games.core import selectors, services, turns
from games.core.services import CLAIM
from games.engine import Deal
from games.models import Action, Match
from games.tables import services as tables
from games.web import tasks

pytestmark = pytest.mark.django_db

# Dealer W: N bids first. N holds the six best spades and pitches the ace.
CERTAIN = {
    "N": "AS KS QS JS TS 9S",
    "E": "2S 3H 4H 5H 6H 7H",
    "S": "2C 3C 4C 5C 6C 7C",
    "W": "2D 3D 4D 5D 6D 7D",
}
# The same, but the king of spades is out (E holds it) and N has the eight instead.
DOUBTFUL = dict(CERTAIN, N="AS QS JS TS 9S 8S", E="KS 2S 4H 5H 6H 7H")


def rig(match, hands):
    state = Deal(selectors.rules_of(match), "W", {s: c.split() for s, c in hands.items()})
    deal_row = selectors.current_deal(match)
    deal_row.dealer, deal_row.hands = "W", {s: list(c) for s, c in state.dealt_hands.items()}
    deal_row.stock = list(state.stock)
    deal_row.to_act = state.to_act
    deal_row.save()
    match.first_dealer = "W"
    match.save()


def shared_table(people) -> Match:
    """A shared table with people in N and E (opponents), bots in S and W."""
    alice, bob = people
    seats = [("N", alice.pk, ""), ("E", bob.pk, ""), ("S", None, "easy"), ("W", None, "easy")]
    rules = selectors.rules_of(Match(rules="house"))
    return services.begin_match(rules, alice, seats, invite_code=tables.new_invite_code())


def act(match, seat, token, user=None):
    match.refresh_from_db()
    actor = services.Actor(user=user) if user else services.Actor.bot("easy")
    return services.do_act(match.pk, seat=seat, token=token, version=match.version, actor=actor)


def to_first_trick_over(match, alice, bob, hands):
    """N bids 2 and pitches the ace; the others follow; N is on lead for trick two."""
    rig(match, hands)
    act(match, "N", "2", alice)
    act(match, "E", "pass", bob)
    act(match, "S", "pass")
    act(match, "W", "pass")
    act(match, "N", "AS", alice)
    act(match, "E", "2S", bob)
    act(match, "S", "2C")
    act(match, "W", "2D")


def test_a_certain_claim_plays_out_the_deal_and_the_others_see_who_claimed(
    make_user, client, password
):
    alice, bob = make_user("alice"), make_user("bob")
    match = shared_table([alice, bob])
    to_first_trick_over(match, alice, bob, CERTAIN)
    client.force_login(alice)
    page = client.get(reverse("table", args=[match.pk])).content.decode()
    assert 'value="claim" data-action data-claim' in page

    outcome = act(match, "N", CLAIM, alice)
    assert outcome.applied
    deal_row = selectors.current_deal(match)
    assert deal_row.is_over
    claimed = list(deal_row.actions.filter(claimed=True).order_by("sequence"))
    assert len(claimed) == 20 and claimed[0].seat == "N"
    assert {a.user_id for a in claimed if a.seat == "N"} == {alice.pk}
    assert {a.user_id for a in claimed if a.seat == "E"} == {bob.pk}  # recorded as E's cards
    assert {a.bot_level for a in claimed if a.seat in "SW"} == {"easy"}
    # Replays and statistics read the same moves as ever: the deal rebuilds from its rows.
    state = selectors.deal_state(deal_row)
    assert state.is_over and deal_row.result == state.result().to_json()

    client.force_login(bob)
    page = client.get(reverse("table", args=[match.pk])).content.decode()
    assert "alice claimed the last 5 tricks." in page


def test_a_doubtful_claim_is_refused_with_the_reason_and_changes_nothing(make_user):
    alice, bob = make_user("alice"), make_user("bob")
    match = shared_table([alice, bob])
    to_first_trick_over(match, alice, bob, DOUBTFUL)
    match.refresh_from_db()
    before = (match.version, Action.objects.count())
    with pytest.raises(services.IllegalMove, match="the queen of trump could lose to the king"):
        act(match, "N", CLAIM, alice)
    match.refresh_from_db()
    assert (match.version, Action.objects.count()) == before


def test_a_claim_out_of_turn_or_twice_is_one_claim(make_user):
    alice, bob = make_user("alice"), make_user("bob")
    match = shared_table([alice, bob])
    to_first_trick_over(match, alice, bob, CERTAIN)
    with pytest.raises(services.NotYourTurn):
        act(match, "E", CLAIM, bob)
    match.refresh_from_db()
    version = match.version
    services.do_act(
        match.pk, seat="N", token=CLAIM, version=version, actor=services.Actor(user=alice)
    )
    again = services.do_act(
        match.pk, seat="N", token=CLAIM, version=version, actor=services.Actor(user=alice)
    )
    assert not again.applied
    assert Action.objects.filter(claimed=True).count() == 20


def test_a_bot_on_lead_claims_when_every_trick_is_surely_its_own(make_user):
    alice = make_user("alice")
    match = services.do_start_match(alice, rules_spec="house", bot_level="easy")
    # The bots sit N, E, W; alice sits S. N, a bot, gets the six best spades.
    rig(match, CERTAIN)
    for seat, token in [("N", "2"), ("E", "pass"), ("S", "pass"), ("W", "pass")]:
        act(match, seat, token, alice if seat == "S" else None)
    match.refresh_from_db()
    for seat, token in [("N", "AS"), ("E", "2S"), ("S", "2C"), ("W", "2D")]:
        act(match, seat, token, alice if seat == "S" else None)
    turn = turns.waiting_on(match.pk)
    assert turn.kind == turns.WaitingFor.BOT and turn.seat == "N"
    assert tasks.play_bot_turn(match.pk, turn.version, turn.seat, turn.bot_level) == CLAIM
    assert selectors.current_deal(match).is_over
