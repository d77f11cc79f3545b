"""Every replay step agrees with the engine, for deals played under every preset and option.

Matches are played through the real services (bots, and a person choosing random legal moves so
that pitches, steals and discards happen); then each step of each finished deal is compared with
the engine's own state rebuilt from the rows (`selectors.deal_state(deal_row, upto=step)`).
"""

import pytest
from django.urls import reverse

from games.core import presenters, selectors
from games.engine import wording
from games.engine.cards import game_points
from games.replay import selectors as replay_selectors
from games.replay.frames import side_name

from .replays import play_deals

pytestmark = pytest.mark.django_db

RULES = {
    "house": "house",
    "classic": "classic",
    "auction": "auction",
    "family": "family",
    "six_players": {"preset": "house", "six_players": True},
    "draw": {"preset": "classic", "draw": True},
    "pitch_to_bid": {"preset": "house", "pitch_to_bid": True},
    "no_trump_first_trick": {"preset": "house", "no_trump_first_trick": True},
    "low_to_holder": {"preset": "house", "low_to": "holder"},
    "cutthroat_3": {"preset": "house", "cutthroat": True, "players": 3},
    "cutthroat_7": {"preset": "auction", "players": 7},
}


def check_frame_against_engine(match, deal_row, step, frame):
    rules = selectors.rules_of(match)
    state = selectors.deal_state(deal_row, upto=step)
    final = selectors.deal_state(deal_row)
    names = replay_selectors.seat_names(match)
    label = {side: side_name(rules, side, names) for side in rules.sides}

    assert frame.step == step and frame.last == final.version
    assert frame.phase == state.phase
    # Every hand face up, exactly as the engine holds it at this step.
    for seat in frame.seats:
        assert [c.code for c in seat.hand] == state.hand(seat.position)
        assert seat.is_next == (seat.position == state.to_act)
    # The trick on the table; right after a trick's last card, that trick and who took it.
    shown = [t.card.code for t in frame.trick]
    if state.current_trick:
        assert shown == [card for _, card in state.current_trick]
        assert not frame.trick_taken_by
    elif (
        step
        and state.tricks
        and final.history[step - 1][1] in {c for _, c in state.tricks[-1].cards}
    ):
        last = state.tricks[-1]
        assert shown == [card for _, card in last.cards]
        assert frame.trick_taken_by == names[last.winner]
        assert [t.won for t in frame.trick] == [seat == last.winner for seat, _ in last.cards]
    else:
        assert shown == []
    # Tricks taken and game points captured so far, side by side.
    taken = {label[s]: 0 for s in rules.sides}
    captured = {label[s]: 0 for s in rules.sides}
    for trick in state.tricks:
        taken[label[rules.side_of(trick.winner)]] += 1
        captured[label[rules.side_of(trick.winner)]] += sum(game_points(c) for _, c in trick.cards)
    assert {line.label: line.value for line in frame.tricks_taken} == taken
    assert {line.label: line.value for line in frame.game_points} == captured
    assert [call for _, call in frame.auction] == [wording.call_label(t) for _, t in state.calls]
    assert frame.trump == (state.trump or "")

    # Points: only what the engine's result gives, and never before the deciding card fell.
    result = final.result()
    if result.thrown_in:
        assert frame.points == [] and frame.thrown_in
        return
    played = set(state.plays)
    captured_cards = {card for trick in state.tricks for _, card in trick.cards}
    for point in frame.points:
        key = point.name.lower()
        side = result.points[key]
        if not point.settled:
            assert step < final.version
            continue
        assert point.taker == (label[side] if side else "nobody")
        if point.card is not None:
            needed = played if key == "low" and rules.low_to == "holder" else captured_cards
            assert point.card.code in needed
    if step == final.version:
        assert all(point.settled for point in frame.points)
        assert {line.label: line.value for line in frame.score} == {
            label[s]: v for s, v in result.score.items()
        }
        assert {line.label: line.value for line in frame.game_points} == {
            label[s]: v for s, v in result.game_points.items()
        }
        assert frame.made == result.made
    else:
        assert frame.score == [] and frame.made is None


@pytest.mark.parametrize("name", RULES)
def test_every_step_agrees_with_the_engine(user, name):
    match = play_deals(user, RULES[name], played=1, seed=sum(map(ord, name)))
    viewer = match.seats.get(user=user).position
    finished = list(match.deals.filter(phase="over").order_by("number"))
    assert any(not d.result["thrown_in"] for d in finished)
    for deal_row in finished:
        steps = deal_row.actions.count()
        for step in range(steps + 1):
            frame = replay_selectors.match_deal_frame(match, deal_row, step, viewer, str)
            check_frame_against_engine(match, deal_row, step, frame)
        # The move list holds every action once, each linking to the step right after it.
        frame = replay_selectors.match_deal_frame(match, deal_row, 0, viewer, str)
        assert [m.step for m in frame.moves] == list(range(1, steps + 1))
        actions = list(deal_row.actions.order_by("sequence"))
        assert [m.seat for m in frame.moves] == [a.seat for a in actions]
        # Discards (draw, six players) are in the move list, card by card.
        for move, action in zip(frame.moves, actions, strict=True):
            if action.kind == "discard":
                assert (
                    move.label
                    == " ".join(
                        f"{presenters.card_view(c).rank_label}{presenters.card_view(c).symbol}"
                        for c in action.token.removeprefix("discard:").split(",")
                        if c
                    )
                    or "none"
                )


def test_a_step_page_shows_that_moment(logged_in_client, user):
    match = play_deals(user, "house", played=1, seed=7)
    deal_row = next(d for d in match.deals.filter(phase="over") if not d.result["thrown_in"])
    state = selectors.deal_state(deal_row, upto=deal_row.actions.count() - 2)
    step = state.version
    page = logged_in_client.get(reverse("replay:deal_step", args=[match.pk, deal_row.number, step]))
    html = page.content.decode()
    assert page.status_code == 200
    assert f'data-step="{step}"' in html
    for seat in state.rules.seats:
        for card in state.hand(seat):
            assert presenters.card_view(card).name in html  # every hand face up
    assert (
        f'href="/replay/matches/{match.pk}/{deal_row.number}/{step + 1}/" data-replay="next"'
        in html
    )
    assert (
        f'href="/replay/matches/{match.pk}/{deal_row.number}/{step - 1}/" data-replay="previous"'
        in html
    )


def test_htmx_gets_only_the_frame_and_history_restores_get_the_page(logged_in_client, user):
    match = play_deals(user, "house", played=1, seed=3)
    deal_row = next(d for d in match.deals.filter(phase="over") if not d.result["thrown_in"])
    url = reverse("replay:deal_step", args=[match.pk, deal_row.number, 1])
    fragment = logged_in_client.get(url, HTTP_HX_REQUEST="true")
    assert fragment.content.decode().lstrip().startswith("{#") is False
    assert "<html" not in fragment.content.decode() and 'id="replay"' in fragment.content.decode()
    assert "HX-Request" in fragment["Vary"]
    restored = logged_in_client.get(
        url, HTTP_HX_REQUEST="true", HTTP_HX_HISTORY_RESTORE_REQUEST="true"
    )
    assert "<html" in restored.content.decode()


def test_a_step_past_the_end_is_not_found(logged_in_client, user):
    match = play_deals(user, "house", played=1, seed=5)
    deal_row = match.deals.filter(phase="over").first()
    last = deal_row.actions.count()
    assert (
        logged_in_client.get(
            reverse("replay:deal_step", args=[match.pk, deal_row.number, last])
        ).status_code
        == 200
    )
    assert (
        logged_in_client.get(
            reverse("replay:deal_step", args=[match.pk, deal_row.number, last + 1])
        ).status_code
        == 404
    )
    start = logged_in_client.get(reverse("replay:deal", args=[match.pk, deal_row.number]))
    assert start.status_code == 302 and start["Location"].endswith(f"/{deal_row.number}/0/")
