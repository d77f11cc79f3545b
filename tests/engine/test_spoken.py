"""The table in words (games/engine/spoken.py): each move, each trick's taker and the deal's end
as the viewer reads the seats, and what the viewer's turn asks of them; never a hidden card."""

from games.engine.claim import claim_moves
from games.engine.spoken import RECENT, move_sentence, recent_moves, turn_cue

from .helpers import deal_from, play
from .test_claim import CERTAIN
from .test_scoring import HANDS_A, PLAYS_A

NAMES = {"N": "North", "E": "East", "S": "You", "W": "West"}


def test_the_latest_moves_are_said_with_each_trick_and_the_end():
    deal = play(deal_from("house", "W", HANDS_A), "2 pass pass pass " + PLAYS_A)
    said = recent_moves(deal, NAMES)
    assert len(said) == RECENT and said[-1][0] == deal.version
    assert said[3] == (16, "North plays the 2 of diamonds. You take the trick.")
    assert said[-1] == (28, "East plays the 9 of clubs. East takes the trick. The deal is over.")


def test_the_auction_and_the_first_lead_in_words():
    deal = play(deal_from("house", "W", HANDS_A), "2 pass pass pass AS")
    assert [words for _, words in recent_moves(deal, NAMES)] == [
        "North bids 2.",
        "East passes.",
        "You pass.",
        "West passes.",
        "North plays the ace of trump.",
    ]


def test_others_discards_are_counted_never_named():
    assert move_sentence("discard:2H,3C", "West", "S") == "West discards 2 cards."


def test_what_a_turn_asks():
    start = deal_from("house", "W", HANDS_A)
    assert turn_cue(start.observation("N")) == "Your turn: bid or pass."
    assert turn_cue(start.observation("E")) == ""  # not East's turn
    led = play(deal_from("house", "W", HANDS_A), "2 pass pass pass AS 8C")
    assert turn_cue(led.observation("S")) == "Your turn: trump was led; you may play any card."
    hearts = play(deal_from("house", "W", HANDS_A), "2 pass pass pass AS 8C 2C 4C KH")
    assert turn_cue(hearts.observation("E")) == "Your turn: you must follow hearts."
    lead = play(deal_from("house", "W", HANDS_A), "2 pass pass pass AS 8C 2C 4C")
    assert turn_cue(lead.observation("N")) == "Your lead."


def test_a_claim_is_said_before_its_first_card():
    deal = play(deal_from("house", "W", CERTAIN), "2 pass pass pass AS 2S 2C 2D")
    for seat, card in claim_moves(deal, "N"):
        deal.apply(card, seat)
    said = dict(recent_moves(deal, NAMES, recent=len(deal.history)))
    assert said[9] == "North claims the rest. North plays the king of trump."
