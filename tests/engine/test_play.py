"""Trick play: follow rules, no trump on the first trick, draw, six players, voids."""

import pytest

from games.engine import Deal, IllegalAction, Rules, deal_to_record
from games.engine.cards import DISPLAY_ORDER
from games.engine.play import proven_voids

from .helpers import deal_from, play
from .test_scoring import HANDS_A, HANDS_C, PLAYS_A


def test_follow_or_trump_message_and_legal_set():
    deal = play(deal_from("house", "W", HANDS_A), "2 pass pass pass AS 8C 2C 4C KH AH JH 2H 6D")
    assert deal.to_act == "S" and deal.legal_actions() == ["TD", "9D"]
    with pytest.raises(IllegalAction, match=r"^TH by S: must follow diamonds or trump$"):
        deal.apply("TH")


def test_follow_or_trump_may_trump_while_holding_the_suit():
    hands = {
        "N": "AS 2H 3H 4H 5H 6H",
        "E": "KS 7H 8H 9H TH JH",
        "S": "2C 3C 4C 5C 6C 7C",
        "W": "2D 3D 4D 5D 6D 7D",
    }
    deal = play(deal_from("house", "W", hands), "2 pass pass pass AS KS 2C 2D 2H")
    assert deal.legal_actions() == ["JH", "TH", "9H", "8H", "7H"]  # E has no trump left
    hands["E"] = "KS QS 8H 9H TH JH"
    deal = play(deal_from("house", "W", hands), "2 pass pass pass AS KS 2C 2D 2H")
    assert deal.legal_actions() == ["QS", "JH", "TH", "9H", "8H"]  # follow, or trump instead


def test_trump_led_must_be_followed_with_trump():
    deal = play(deal_from("house", "W", HANDS_C), "2 pass pass pass AH")
    assert deal.legal_actions() == ["2H"]
    with pytest.raises(IllegalAction, match=r"^6S by E: must follow hearts \(trump\)$"):
        deal.apply("6S")


FAMILY_HANDS = {
    "P1": "AS KH 2D 3D 4D 5D",
    "P2": "2S 3S 4H 6C 7C 8C",
    "P3": "5S 6H 7H 8H 9C TC",
    "P4": "9S AH JH 9D TD 2C",
}


def test_family_follow_else_trump():
    deal = deal_from("family", "P4", FAMILY_HANDS)
    play(deal, "1 pass pass pass AS 2S 5S 9S KH")
    assert deal.legal_actions() == ["4H"]  # must follow: trumping is not allowed
    with pytest.raises(IllegalAction, match="must follow hearts"):
        deal.apply("3S")
    play(deal, "4H 6H AH 9D 2D")
    assert deal.to_act == "P2" and deal.legal_actions() == ["3S"]  # void in diamonds: must trump
    with pytest.raises(
        IllegalAction, match=r"^6C by P2: must trump: no diamonds, and a trump in hand$"
    ):
        deal.apply("6C")
    play(deal, "3S")
    assert deal.legal_actions() == ["8H", "7H", "TC", "9C"]  # neither diamonds nor trump: anything
    play(deal, "9C")
    voids = deal.observation("P1").voids
    assert voids["P3"] == frozenset({"D", "S"})  # a non-trump off-suit card proves no trump either
    assert voids["P2"] == frozenset({"D"})  # a trump proves only the void in the suit led


NTFT_HANDS = {
    "P1": "AH KH 2C 3C 4C 5C",
    "P2": "QH 2S 3D 4D 5D 6D",
    "P3": "3S 4S 7D 8D 9D TD",
    "P4": "5S 6S 7S 8S 9S TS",
}


def test_no_trump_on_the_first_trick():
    deal = deal_from({"preset": "family", "no_trump_first_trick": True}, "P4", NTFT_HANDS)
    play(deal, "2 pass pass pass")
    assert (
        deal.phase == "trump"
        and deal.to_act == "P1"
        and deal.legal_actions() == ["S", "H", "D", "C"]
    )
    play(deal, "S")
    assert deal.trump == "S" and deal.to_act == "P1"
    assert deal.legal_actions() == ["AH", "KH", "5C", "4C", "3C", "2C"]
    play(deal, "AH")
    with pytest.raises(IllegalAction, match="must follow hearts"):
        deal.apply("2S")
    play(deal, "QH")
    assert deal.legal_actions() == ["TD", "9D", "8D", "7D"]  # void in hearts, holds non-trumps
    with pytest.raises(
        IllegalAction, match="may not trump the first trick while holding a non-trump"
    ):
        deal.apply("3S")
    play(deal, "7D")
    assert deal.legal_actions() == ["TS", "9S", "8S", "7S", "6S", "5S"]  # only trumps: may trump
    play(deal, "5S")
    assert deal.tricks[0].winner == "P4"
    voids = deal.observation("P2").voids
    assert voids["P3"] == frozenset({"H"})
    assert voids["P4"] == frozenset({"H", "D", "C"})  # it held nothing but trumps
    # From the second trick on the preset's own rule (follow, else trump) applies.
    play(deal, "6S")
    assert deal.legal_actions() == ["KH", "5C", "4C", "3C", "2C"]  # no spade, no trump: anything


def _house_draw_deal(dealer="W"):
    hands = {seat: h.split() for seat, h in HANDS_A.items()}
    dealt = {c for h in hands.values() for c in h}
    stock = [c for c in DISPLAY_ORDER if c not in dealt]
    return Deal(Rules.from_spec({"preset": "house", "draw": True}), dealer, hands, stock), stock


def test_draw_names_trump_discards_and_refills_from_the_stock_front():
    deal, stock = _house_draw_deal()
    play(deal, "2 pass pass pass")
    assert deal.phase == "trump"
    play(deal, "H")
    assert deal.phase == "discard" and deal.to_act == "N"
    assert deal.discardable("N") == ["AS", "4D", "3D", "2D"]
    assert len(deal.legal_actions()) == 16  # every subset of the four non-trumps
    with pytest.raises(IllegalAction, match="KH is a trump: only non-trumps may be discarded"):
        deal.apply("discard:KH")
    play(deal, "discard:3D,2D")
    assert deal.discards["N"] == ["3D", "2D"]
    assert set(deal.hand("N")) == {"AS", "KH", "QH", "4D", stock[0], stock[1]}
    assert deal.to_act == "E"
    play(deal, "discard: discard:2C discard:")
    assert set(deal.hand("S")) - set(HANDS_A["S"].split()) == {stock[2]}
    assert deal.phase == "play" and deal.to_act == "N" and deal.trump == "H"
    obs = deal.observation("E")
    assert obs.discards == () and obs.discard_counts == {"N": 2, "E": 0, "S": 1, "W": 0}
    assert obs.stock_size == len(stock) - 3
    record = deal_to_record(deal)
    assert record["trump"] == "H" and record["discards"] == {
        "N": ["3D", "2D"],
        "E": [],
        "S": ["2C"],
        "W": [],
    }


def test_draw_discards_only_what_the_stock_can_replace():
    rules = Rules.from_spec({"preset": "auction", "players": 7, "draw": True})
    cards = list(DISPLAY_ORDER)
    hands = {f"P{i + 1}": cards[6 * i : 6 * i + 6] for i in range(7)}
    stock = cards[42:]  # ten clubs
    deal = Deal(rules, "P7", hands, stock)
    play(deal, "2 pass pass pass pass pass pass C")
    play(deal, "discard:AS,KS,QS,JS,TS,9S")  # P1: six, leaving four in the stock
    assert deal.discardable("P2") == ["8S", "7S", "6S", "5S", "4S", "3S"]
    assert max(len(t.split(",")) for t in deal.legal_actions()) == 4
    with pytest.raises(IllegalAction, match="5 cards, but the stock can replace only 4"):
        deal.apply("discard:8S,7S,6S,5S,4S")
    play(deal, "discard:8S,7S,6S,5S")
    assert deal.discardable("P3") == [] and deal.legal_actions() == ["discard:"]
    assert all(len(deal.hand(seat)) == 6 for seat in rules.seats)


def test_six_players_discard_two_and_discards_are_not_in_play():
    rules = Rules.from_spec({"preset": "classic", "six_players": True})
    cards = list(DISPLAY_ORDER)
    hands = {f"P{i + 1}": cards[8 * i : 8 * i + 8] for i in range(6)}
    deal = Deal(rules, "P6", hands)
    assert len(deal.stock) == 4
    play(deal, "2 pass pass pass pass pass S")
    assert deal.to_act == "P1" and len(deal.legal_actions()) == 28
    assert deal.discardable("P1") == hands["P1"]  # any cards, trumps too
    with pytest.raises(IllegalAction, match="must discard exactly 2 cards, not 1"):
        deal.apply("discard:AS")
    play(deal, "discard:KS,AS")
    assert deal.discards["P1"] == ["AS", "KS"] and len(deal.hand("P1")) == 6
    assert deal.history[-1] == ("P1", "discard:AS,KS")  # written in hand order
    assert deal.to_act == "P2"


def test_six_players_low_ignores_discarded_trumps():
    rules = Rules.from_spec({"preset": "classic", "six_players": True})
    cards = list(DISPLAY_ORDER)
    hands = {f"P{i + 1}": cards[8 * i : 8 * i + 8] for i in range(6)}
    assert hands["P2"][2:5] == ["4S", "3S", "2S"]
    deal = Deal(rules, "P6", hands)
    play(deal, "2 pass pass pass pass pass S")
    for seat in rules.seats:
        if seat == "P2":
            deal.apply("discard:3S,2S")
        else:
            deal.apply(deal.legal_actions()[0])
    assert "2S" not in deal.hand("P2") and len(deal.hand("P2")) == 6
    while not deal.is_over:
        deal.apply(deal.legal_actions()[0])
    result = deal.result()
    assert "2S" not in deal.plays and "3S" not in deal.plays
    low_trick = next(t for t in result.tricks if any(c == "4S" for _, c in t.cards))
    assert result.points["low"] == rules.side_of(low_trick.winner)


def test_proven_voids_by_rule():
    house = Rules.from_spec("house")
    family = Rules.from_spec("family")
    ntft = Rules.from_spec({"preset": "house", "no_trump_first_trick": True})
    # Hearts led; trump spades. A trump proves nothing under follow-or-trump.
    trick = [("N", "AH"), ("E", "2S"), ("S", "3D"), ("W", "4H")]
    assert proven_voids(
        house, [[("N", "5C"), ("E", "6C"), ("S", "7C"), ("W", "8C")], trick], "S"
    ) == {"S": {"H"}}
    assert proven_voids(
        family, [[("N", "5C"), ("E", "6C"), ("S", "7C"), ("W", "8C")], trick], "S"
    ) == {
        "E": {"H"},
        "S": {"H", "S"},
    }
    # On a no-trump first trick a trump proves a hand of only trumps.
    assert proven_voids(ntft, [trick], "S") == {"E": {"H", "D", "C"}, "S": {"H"}}
    # From the second trick on ntft follows the preset's rule again.
    assert proven_voids(
        ntft, [[("N", "5C"), ("E", "6C"), ("S", "7C"), ("W", "8C")], trick], "S"
    ) == {"S": {"H"}}


def test_apply_changes_nothing_when_it_raises():
    deal = play(deal_from("house", "W", HANDS_A), "2 pass pass pass AS 8C 2C 4C KH AH JH 2H 6D")
    before = (
        deal_to_record(deal),
        deal.version,
        deal.to_act,
        deal.hand("S"),
        list(deal.current_trick),
    )
    for bad in ("TH", "ZZ", "AS", "5C", "pass", "discard:TH", "KH"):
        with pytest.raises(IllegalAction):
            deal.apply(bad)
    assert (
        deal_to_record(deal),
        deal.version,
        deal.to_act,
        deal.hand("S"),
        list(deal.current_trick),
    ) == before


def test_out_of_turn_and_already_played_messages():
    deal = play(deal_from("house", "W", HANDS_A), "2 pass pass pass AS 8C")
    with pytest.raises(
        IllegalAction, match=r"^4C by S: not in S's hand \(W holds it; S is to play\)$"
    ):
        deal.apply("4C")
    with pytest.raises(IllegalAction, match="already played"):
        deal.apply("AS")
    with pytest.raises(IllegalAction, match=r"not your turn \(S is to act\)"):
        deal.apply("4C", seat="W")


def test_history_version_and_copy():
    deal = play(deal_from("house", "W", HANDS_A), "2 pass pass pass AS")
    assert deal.history == [("N", "2"), ("E", "pass"), ("S", "pass"), ("W", "pass"), ("N", "AS")]
    assert deal.version == 5
    twin = deal.copy()
    play(twin, "8C 2C 4C")
    assert deal.version == 5 and twin.version == 8 and deal.current_trick == [("N", "AS")]
    play(deal, " ".join(PLAYS_A.split()[1:]))
    assert deal.is_over and deal.result().score == {"NS": 3, "EW": 0}


def test_observation_holds_what_the_seat_may_know():
    deal = play(deal_from("house", "W", HANDS_A), "2 pass pass pass AS 8C 2C 4C KH AH")
    obs = deal.observation("S", match_totals={"NS": 3, "EW": 5})
    assert obs.seat == "S" and obs.hand == tuple(deal.hand("S")) and obs.to_act == "S"
    assert obs.calls == (("N", "2"), ("E", "pass"), ("S", "pass"), ("W", "pass"))
    assert obs.trump == "S" and obs.pitcher == "N" and obs.bid == 2
    assert obs.current_trick == (("N", "KH"), ("E", "AH")) and len(obs.tricks) == 1
    assert obs.hand_sizes == {"N": 4, "E": 4, "S": 5, "W": 5}
    assert obs.voids == {
        "N": frozenset(),
        "E": frozenset({"S"}),
        "S": frozenset({"S"}),
        "W": frozenset({"S"}),
    }
    assert obs.match_totals == {"NS": 3, "EW": 5} and obs.stock_size == 28
    assert len(obs.unseen) == 52 - 5 - 6 and "AS" not in obs.unseen and "TH" not in obs.unseen
    assert obs.legal_actions() == deal.legal_actions()
    assert deal.observation("N").legal_actions() == []
    data = obs.to_json()
    assert "hands" not in data and data["hand"] == list(deal.hand("S"))
    with pytest.raises(TypeError):
        obs.hand_sizes["N"] = 0  # read-only
    c_hands = play(deal_from("house", "W", HANDS_C), "2 pass pass pass AH 2H 3C 2D KH 6S")
    assert c_hands.observation("N").voids["E"] == frozenset({"H"})
