"""The offline driver and the check of what comes home (games/engine/offline.py), natively."""

import copy
import json

import pytest

from games.engine import IllegalAction, bots
from games.engine.offline import (
    OfflineMatch,
    OfflineRecordError,
    bot_seed,
    check_deal,
    redecide_bots,
    shuffled,
)
from games.offline import worker

from .offline_helpers import (
    offline_match,
    play_deal,
    played_envelope,
    with_bot_move_changed,
    with_score_changed,
)


def test_a_deal_played_offline_passes_its_checks_and_every_bot_move_is_found_again():
    envelope = played_envelope("classic", level="medium", seed=3)
    checked = check_deal(envelope)
    assert checked.deal.is_over
    assert redecide_bots(envelope) == []


def test_the_envelope_names_what_the_server_needs_to_redo_the_deal():
    envelope = played_envelope("house", level="easy", seed=5)
    assert envelope["seat"] == "S"
    assert envelope["bots"] == {"N": "easy", "E": "easy", "W": "easy"}
    assert envelope["totals_before"] == {"NS": 0, "EW": 0}
    # Survives the trip through JSON (the browser stores and sends it as text).
    assert redecide_bots(json.loads(json.dumps(envelope))) == []


def test_a_bot_card_changed_is_found_when_its_move_is_decided_again():
    forged = with_bot_move_changed(played_envelope("house", level="easy", seed=7))
    check_deal(forged)  # legal, and the score is right for its own cards
    [mismatch] = redecide_bots(forged)
    assert mismatch.level == "easy"
    assert f"but the record has {mismatch.recorded}" in str(mismatch)


def test_a_changed_score_is_refused_naming_what_the_engine_scores():
    envelope = played_envelope("house", seed=9)
    with pytest.raises(OfflineRecordError, match=r"^score: .* claimed; the engine scores the deal"):
        check_deal(with_score_changed(envelope))


def test_cards_the_seed_does_not_deal_are_refused():
    envelope = played_envelope("house", seed=13)
    other = copy.deepcopy(envelope)
    other["match_seed"] += 1
    with pytest.raises(OfflineRecordError, match="record.(hands|dealer)"):
        check_deal(other)


def test_bots_that_searched_with_other_budgets_are_refused():
    envelope = played_envelope("house", level="medium", seed=17)
    envelope["budgets"]["medium"]["budget"] = 1
    with pytest.raises(OfflineRecordError, match="budgets: .*medium 300/400"):
        check_deal(envelope)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda e: e.pop("score"), "missing field 'score'"),
        (lambda e: e.update(extra=1), "unknown field 'extra'"),
        (lambda e: e.update(id="x"), "id: 8 to 64"),
        (lambda e: e.update(number=0), "number: a whole number"),
        (lambda e: e.update(seat="N"), "seat: the person sits at S"),
        (lambda e: e["bots"].update(N="expert"), "bots.N: one of easy, medium, hard"),
        (lambda e: e["record"]["plays"].pop(), "record: the deal is not finished"),
        (lambda e: e["record"]["plays"].reverse(), "record: plays"),
    ],
)
def test_a_malformed_envelope_is_refused_naming_the_first_problem(change, message):
    envelope = played_envelope("house", seed=19)
    change(envelope)
    with pytest.raises(OfflineRecordError, match=message):
        check_deal(envelope)


def test_a_saved_match_restored_mid_deal_is_the_same_match():
    match = offline_match("auction", level="easy", seed=23)
    play_deal(match)
    match.next_deal()
    for _ in range(5):
        if match.bot_to_act:
            match.play_bot()
        else:
            match.act(match.deal.legal_actions()[0])
    restored = OfflineMatch.restore(json.loads(json.dumps(match.saved())))
    assert restored.number == 2
    assert restored.deal.history == match.deal.history
    assert restored.state.totals == match.state.totals
    assert restored.deal.dealt_hands == shuffled(match.rules, 23, 2).dealt_hands


def test_the_person_cannot_move_for_a_bot():
    match = offline_match("house", seed=29)
    while not match.bot_to_act:
        match.act(match.deal.legal_actions()[0])
    with pytest.raises(IllegalAction, match="not your turn"):
        match.act(match.deal.legal_actions()[0])


def test_the_offline_coach_ranks_the_hard_bots_move_first_with_its_chances():
    worker.start(
        json.dumps(
            {
                "choices": {"preset": "house"},
                "level": "easy",
                "seed": 31,
                "key": "k1234567",
                "engine": "",
            }
        )
    )
    match = worker._current()
    while match.bot_to_act:
        match.play_bot()
    panel = json.loads(worker.coach())
    obs = match.observation(match.seat)
    assert panel["state"] == "advice"
    assert panel["options"][0]["action"] == bots.choose(
        obs, "hard", seed=bot_seed(match.seed, match.deal.version)
    )
    assert all(len(option["chances"]) == 4 for option in panel["options"])
    assert {row["label"] for row in panel["bid_grid"]} == {
        option["label"] for option in panel["options"] if option["action"] != "pass"
    }


def test_the_offline_table_shows_the_person_only_their_own_cards():
    answer = json.loads(
        worker.start(
            json.dumps(
                {
                    "choices": {"preset": "house"},
                    "level": "easy",
                    "seed": 37,
                    "key": "k7654321",
                    "engine": "",
                }
            )
        )
    )
    view = answer["table"]
    match = worker._current()
    mine = set(match.deal.hand("S"))
    shown = {card["code"] for card in view["hand"]}
    others = {c for seat in "NEW" for c in match.deal.hand(seat)}
    assert shown == mine
    assert not others & set(json.dumps(view).split('"'))
