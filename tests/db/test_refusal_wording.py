"""A refused move reads as a sentence for the player, in place on the table, and never says
who holds a card."""

import random

import pytest
from django.urls import reverse

from games import engine
from games.core import selectors, services, turns
from games.core.turns import WaitingFor
from games.engine import refusals
from games.models import Action

from .play import play_until
from .test_table_views import counts, post_move

pytestmark = pytest.mark.django_db


def refusal(state: engine.Deal, token: str) -> str:
    assert token not in state.legal_actions(), f"{token} is allowed"
    return refusals.refusal(state.observation(state.to_act), token)


def test_a_card_held_by_another_player_is_refused_without_naming_them():
    state = engine.Deal.new(engine.Rules.from_spec("house"), "N", random.Random(3))
    while state.phase == "auction":
        state.apply("2" if "2" in state.legal_actions() else "pass")
    someone_else = next(s for s in state.rules.seats if s != state.to_act)
    card = sorted(state.hand(someone_else))[0]
    text = refusal(state, card)
    assert text == f"You don't hold {refusals.card_name(card)}."
    for seat in ("North", "East", "South", "West", someone_else):
        assert seat not in text


def test_a_discard_with_nothing_chosen_is_refused_in_the_sites_words(logged_in_client, user):
    match = services.do_start_match(
        user, rules_spec={"preset": "house", "six_players": True}, bot_level="easy"
    )
    match = play_until(
        match,
        stop=lambda m: (
            turns.waiting_on(m.pk).kind != WaitingFor.BOT
            and selectors.current_deal(m).phase == "discard"
        ),
    )
    assert selectors.current_deal(match).phase == "discard"
    before = counts(match)
    response = logged_in_client.post(
        reverse("act", args=[match.pk]),
        {"discard": "1", "version": match.version},
        HTTP_HX_REQUEST="true",
    )
    body = response.content.decode()
    assert response.status_code == 400
    assert "Choose exactly two cards to discard (you chose 0)." in body
    assert "discard:" not in body and 'id="table"' in body
    assert counts(match) == before


def test_a_refused_move_without_htmx_returns_to_the_whole_table_with_the_reason(
    logged_in_client, user
):
    match = services.do_start_match(user, rules_spec="house", bot_level="easy")
    match = play_until(match, stop=lambda m: turns.waiting_on(m.pk).kind != WaitingFor.BOT)
    response = post_move(logged_in_client, match, "pass", version=match.version + 5, htmx=False)
    assert response.status_code == 302 and response["Location"] == reverse("table", args=[match.pk])
    page = logged_in_client.get(response["Location"]).content.decode()
    assert "The table moved on before your move arrived" in page and "<header" in page
    assert not Action.objects.filter(deal__match=match, user=user).exists()


def test_a_card_that_may_not_be_played_says_why_from_the_engine_on_the_seats_own_table(user):
    # Issue 44: greyed-out cards gave no reason. Each says what a click would be refused with,
    # and which of the seat's own cards it must play instead (nothing of another hand).
    for seed in range(200):
        state = engine.Deal.new(engine.Rules.from_spec("house"), "N", random.Random(seed))
        while state.phase == "auction":
            state.apply("2" if "2" in state.legal_actions() else "pass")
        state.apply(state.legal_actions()[0])  # the lead
        seat = state.to_act
        unplayable = [c for c in state.hand(seat) if c not in state.legal_actions()]
        if unplayable:
            break
    led = state.current_trick[0][1][1]
    obs = state.observation(seat)
    why = refusals.unplayable_card(obs, unplayable[0])
    suit = engine.wording.SUIT_NAMES[led]
    held = [engine.wording.short_card(c) for c in state.hand(seat) if c[1] == led]
    assert why.startswith(f"You must follow {suit}") and held[0] in why
    assert why.startswith(refusals.refusal(obs, unplayable[0]).rstrip("."))  # one source
    others = {c for s in state.rules.seats if s != seat for c in state.hand(s)}
    assert not any(engine.wording.short_card(c) in why for c in others)
