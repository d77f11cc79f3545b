"""Hand-worked deals: the four points and the deal's score under each preset and option."""

import pytest

from games.engine import deal_to_record

from .helpers import deal_from, play

# Deal A: the ace of spades is the only trump in play (dealer W; N bids and pitches it).
HANDS_A = {
    "N": "AS KH QH 2D 3D 4D",
    "E": "AH 5H 6D 7D 8C 9C",
    "S": "JH TH 9D TD 2C 3C",
    "W": "2H 3H 4C 5C 6C 7C",
}
PLAYS_A = "AS 8C 2C 4C  KH AH JH 2H  6D 9D 5C 2D  TH 3H QH 5H  3D 7D TD 6C  3C 7C 4D 9C"

# Deal C: N pitches the ace of hearts; E is dealt the two of hearts (the lowest trump) and
# must play it under the ace, so N-S take it; the jack of hearts is not in play.
HANDS_C = {
    "N": "AH KH 2S 3S 4S 5S",
    "E": "2H 6S 7S 8S 9S 2C",
    "S": "3C 4C 5C 6C 7C 8C",
    "W": "2D 3D 4D 5D 6D 7D",
}
PLAYS_C = "AH 2H 3C 2D  KH 6S 4C 3D  2S 7S 5C 4D  8S 6C 5D 3S  9S 7C 6D 4S  2C 8C 7D 5S"

# Deal E: N holds six hearts and takes every trick.
HANDS_E = {
    "N": "AH KH QH JH TH 9H",
    "E": "2S 3S 4S 5S 6S 7S",
    "S": "2C 3C 4C 5C 6C 7C",
    "W": "2D 3D 4D 5D 6D 7D",
}
PLAYS_E = "AH 2S 2C 2D  KH 3S 3C 3D  QH 4S 4C 4D  JH 5S 5C 5D  TH 6S 6C 6D  9H 7S 7C 7D"


def test_only_one_trump_in_play_is_high_and_low():
    deal = play(deal_from("house", "W", HANDS_A), "2 pass pass pass " + PLAYS_A)
    result = deal.result()
    assert [t.winner for t in result.tricks] == ["N", "E", "S", "N", "S", "E"]
    assert result.trump == "S" and result.pitcher == "N" and result.bid == 2
    assert result.points == {"high": "NS", "low": "NS", "jack": None, "game": "NS"}
    assert result.game_points == {"NS": 26, "EW": 8}
    assert result.made and result.score == {"NS": 3, "EW": 0}


def test_score_json_has_the_fields_rules_md_names():
    deal = play(deal_from("house", "W", HANDS_A), "2 pass pass pass " + PLAYS_A)
    data = deal.result().to_json()
    assert list(data) == [
        "thrown_in",
        "trump",
        "pitcher",
        "bid",
        "made",
        "points",
        "game_points",
        "tricks",
        "score",
    ]
    assert data["tricks"][0] == {"leader": "N", "cards": ["AS", "8C", "2C", "4C"], "winner": "N"}


def test_low_to_taker():
    deal = play(deal_from("house", "W", HANDS_C), "2 pass pass pass " + PLAYS_C)
    result = deal.result()
    assert result.points == {"high": "NS", "low": "NS", "jack": None, "game": "NS"}
    assert result.game_points == {"NS": 7, "EW": 0}
    assert result.score == {"NS": 3, "EW": 0}


def test_low_to_holder():
    deal = play(
        deal_from({"preset": "house", "low_to": "holder"}, "W", HANDS_C),
        "2 pass pass pass " + PLAYS_C,
    )
    result = deal.result()
    assert result.points == {"high": "NS", "low": "EW", "jack": None, "game": "NS"}
    assert result.made and result.score == {"NS": 2, "EW": 1}


def test_jack_not_in_play_makes_a_bid_of_four_impossible():
    deal = play(deal_from("house", "W", HANDS_C), "4 " + PLAYS_C)
    result = deal.result()
    assert result.points["jack"] is None
    assert not result.made and result.score == {"NS": -4, "EW": 0}


def test_a_set_back_side_loses_its_bid_and_the_others_still_score():
    deal = play(
        deal_from({"preset": "house", "low_to": "holder"}, "W", HANDS_C),
        "3 pass pass pass " + PLAYS_C,
    )
    result = deal.result()
    assert not result.made and result.score == {"NS": -3, "EW": 1}


def test_bid_of_four_scores_at_most_four():
    deal = play(deal_from("house", "W", HANDS_E), "4 " + PLAYS_E)
    result = deal.result()
    assert result.points == {"high": "NS", "low": "NS", "jack": "NS", "game": "NS"}
    assert result.made and result.score == {"NS": 4, "EW": 0}


def test_made_smudge_scores_five():
    deal = play(deal_from("classic", "W", HANDS_E), "smudge pass pass pass " + PLAYS_E)
    result = deal.result()
    assert result.bid == 5 and result.made and result.score == {"NS": 5, "EW": 0}
    assert deal_to_record(deal)["auction"][0] == "smudge"


def test_smudge_lost_on_the_first_lost_trick_but_the_deal_is_played_out():
    deal = deal_from({"preset": "classic", "low_to": "holder"}, "W", HANDS_C)
    play(deal, "smudge pass pass pass")
    play(deal, PLAYS_C.split("  ")[0] + " " + PLAYS_C.split("  ")[1] + " " + PLAYS_C.split("  ")[2])
    assert deal.tricks[2].winner == "E"  # N-S lost a trick: the smudge has failed ...
    assert deal.phase == "play"  # ... but the deal goes on so the others can score
    play(deal, " ".join(PLAYS_C.split("  ")[3:]))
    result = deal.result()
    assert len(result.tricks) == 6
    assert not result.made and result.score == {"NS": -5, "EW": 1}


def test_game_tie_gives_game_to_nobody():
    # Two players, each for themselves: P1 takes AS (4 game points), P2 takes AH (4).
    hands = {"P1": "AS 2H 3H 4H 5H 6H", "P2": "AH 2C 3C 4C 5C 6C"}
    deal = deal_from({"preset": "family", "players": 2}, "P2", hands)
    play(deal, "1 pass AS 2C 2H AH 3C 3H 4C 4H 5C 5H 6C 6H")
    result = deal.result()
    assert [t.winner for t in result.tricks] == ["P1", "P2", "P2", "P2", "P2", "P2"]
    assert result.game_points == {"P1": 4, "P2": 4}
    assert result.points == {"high": "P1", "low": "P1", "jack": None, "game": None}
    assert result.made and result.score == {"P1": 2, "P2": 0}


def test_game_goes_to_the_side_with_the_most():
    hands = {
        "N": "AS 2S 3S 4S 5S 6S",
        "E": "AH 2H 3H 4H 5H 6H",
        "S": "2D 3D 4D 5D 6D 7D",
        "W": "2C 3C 4C 5C 6C 7C",
    }
    # Nobody else holds a spade, so N takes every trick.
    deal = deal_from("house", "W", hands)
    play(
        deal,
        "2 pass pass pass AS AH 2D 2C 2S 2H 3D 3C 3S 3H 4D 4C 4S 4H 5D 5C 5S 5H 6D 6C 6S 6H 7D 7C",
    )
    result = deal.result()
    assert result.game_points == {"NS": 8, "EW": 0} and result.points["game"] == "NS"


@pytest.mark.parametrize("preset", ["auction", "family"])
def test_cutthroat_low_to_holder_by_default(preset):
    rules = {"preset": preset}
    hands = {"P1": HANDS_C["N"], "P2": HANDS_C["E"], "P3": HANDS_C["S"], "P4": HANDS_C["W"]}
    deal = deal_from(rules, "P4", hands)
    play(deal, "2 pass pass pass " + PLAYS_C)
    result = deal.result()
    assert result.points == {"high": "P1", "low": "P2", "jack": None, "game": "P1"}
    assert result.score == {"P1": 2, "P2": 1, "P3": 0, "P4": 0}
