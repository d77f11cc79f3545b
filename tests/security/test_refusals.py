"""Refusals in the site's words: a card is named, never who holds it; a huge move is not echoed."""

import random

import pytest
from django.urls import reverse

from games import engine
from games.core import services
from games.engine import refusals
from tests.security.twins import Position

from .twins import materialize


def play_position(rules="house", seed=3):
    """A deal at the seat S's first card of play, with the cards as dealt."""
    rng = random.Random(seed)
    while True:
        deal = engine.Deal.new(rules, rng.choice(["N", "E", "S", "W"]), rng)
        tokens = []
        while deal.phase != "over" and not (deal.phase == "play" and deal.to_act == "S"):
            token = rng.choice(deal.legal_actions())
            deal.apply(token)
            tokens.append(token)
        if deal.phase == "play":
            return deal, tokens


def test_a_card_someone_else_holds_is_refused_without_saying_who_holds_it():
    deal, _ = play_position()
    theirs = deal.hand("E")[0]
    undealt = deal.stock[0]
    obs = deal.observation("S")
    assert refusals.refusal(obs, theirs) == f"You don't hold {refusals.card_name(theirs)}."
    assert refusals.refusal(obs, undealt) == f"You don't hold {refusals.card_name(undealt)}."
    assert refusals.card_name("TS") == "the 10 of spades"
    with pytest.raises(services.IllegalMove) as refused:
        services.apply_move(deal, "S", theirs)
    assert "holds" not in str(refused.value) and " E" not in str(refused.value)


def test_refusals_never_echo_what_was_typed():
    deal, _ = play_position()
    obs = deal.observation("S")
    for token in ("X" * 1_000_000, "<script>", "pitch:" + "Z" * 5000, "discard:" + "Q" * 5000):
        answer = refusals.refusal(obs, token)
        assert len(answer) < 80 and "X" * 10 not in answer and "<" not in answer


@pytest.mark.django_db
def test_a_refused_one_megabyte_move_gets_a_short_answer(user, client, monkeypatch):
    monkeypatch.setattr("games.core.dispatch.enqueue", lambda *args, **kwargs: None)
    deal, tokens = play_position()

    position = Position(
        deal.rules, deal.dealer, dict(deal.dealt_hands), list(deal.stock), tokens, "S"
    )
    match = materialize(position, {"S": user})
    client.force_login(user)
    response = client.post(
        reverse("act", args=[match.pk]),
        {"action": "X" * 1_000_000, "version": match.version},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 400
    assert b"That is not a card." in response.content
    assert len(response.content) < 50_000 and b"X" * 100 not in response.content
    match.refresh_from_db()
    assert match.version == len(tokens)  # refused: nothing changed
