"""The auction: bids, the dealer's steal, the forced dealer, four ending it, pitching."""

import pytest

from games.engine import Deal, IllegalAction, Rules, deal_to_record

from .helpers import deal_from, play

HANDS = {
    "N": "AS TS 2H 9D QC 5C",
    "E": "KS 3S 4H 5H 6D 7D",
    "S": "QS 4S 6H 7H 8D 9C",
    "W": "JS 5S 8H 9H TD JD",
}


def new(rules="house", dealer="W"):
    return deal_from(rules, dealer, HANDS)


def test_auction_starts_at_the_dealers_left_and_ends_with_the_dealer():
    deal = new(dealer="E")
    assert deal.phase == "auction" and deal.to_act == "S"
    play(deal, "2 pass 3")  # S, W, N
    assert deal.to_act == "E"
    play(deal, "pass")
    assert deal.phase == "play" and deal.pitcher == "N" and deal.bid == 3 and deal.to_act == "N"


def test_a_bid_must_be_higher():
    deal = play(new(), "pass 3")
    assert deal.legal_actions() == ["pass", "4"]
    with pytest.raises(IllegalAction, match=r"^2 by S: must bid higher than 3$"):
        deal.apply("2")


def test_house_dealer_gets_no_steal():
    deal = play(new(), "2 3 pass")
    assert deal.to_act == "W" and deal.legal_actions() == ["pass", "4"]
    with pytest.raises(IllegalAction, match="must bid higher than 3"):
        deal.apply("3")


def test_house_four_ends_the_auction():
    deal = play(new(), "2 4")
    assert deal.phase == "play" and deal.pitcher == "E" and deal.bid == 4
    assert [token for _, token in deal.calls] == ["2", "4"]
    with pytest.raises(IllegalAction):
        deal.apply("pass")  # E must lead now, there is no call left


def test_house_all_pass_is_thrown_in():
    deal = play(new(), "pass pass pass pass")
    assert deal.thrown_in and deal.phase == "over" and deal.to_act is None
    result = deal.result()
    assert result.thrown_in and result.score == {"NS": 0, "EW": 0}
    assert result.to_json()["thrown_in"] is True


def test_classic_dealer_steals_by_equalling():
    deal = play(new("classic"), "2 3 pass")
    assert deal.legal_actions() == ["pass", "3", "4", "smudge"]
    play(deal, "3")
    assert deal.pitcher == "W" and deal.bid == 3


def test_classic_four_does_not_end_the_auction_and_smudge_outbids_it():
    deal = play(new("classic"), "4")
    assert deal.phase == "auction" and deal.legal_actions() == ["pass", "smudge"]
    play(deal, "smudge pass")
    assert deal.to_act == "W" and deal.legal_actions() == ["pass", "smudge"]  # steal a smudge
    play(deal, "pass")
    assert deal.pitcher == "E" and deal.bid == 5


def test_classic_dealer_forced_to_bid():
    deal = play(new("classic"), "pass pass pass")
    assert deal.to_act == "W" and deal.legal_actions() == ["2", "3", "4", "smudge"]
    with pytest.raises(IllegalAction, match="the dealer must bid when everyone else passed"):
        deal.apply("pass")
    play(deal, "2")
    assert deal.pitcher == "W" and not deal.thrown_in


def test_auction_and_family_all_pass_thrown_in():
    for preset in ("auction", "family"):
        rules = Rules.from_spec(preset)
        deal = Deal(rules, "P4", {f"P{i + 1}": h.split() for i, h in enumerate(HANDS.values())})
        for _ in range(4):
            deal.apply("pass")
        assert deal.thrown_in


def test_family_bids_from_one_and_the_dealer_steals():
    rules = Rules.from_spec("family")
    deal = Deal(rules, "P4", {f"P{i + 1}": h.split() for i, h in enumerate(HANDS.values())})
    assert deal.legal_actions() == ["pass", "1", "2", "3", "4"]
    play(deal, "1 pass 2")
    assert deal.to_act == "P4" and deal.legal_actions() == ["pass", "2", "3", "4"]
    play(deal, "2")
    assert deal.pitcher == "P4" and deal.bid == 2


def test_unknown_and_foreign_calls():
    deal = new()
    with pytest.raises(IllegalAction, match="unknown call"):
        deal.apply("7")
    with pytest.raises(IllegalAction, match="not a call in these rules"):
        deal.apply("smudge")
    with pytest.raises(IllegalAction, match="pitch_to_bid is off"):
        deal.apply("pitch:AS")
    with pytest.raises(IllegalAction, match="not your turn"):
        deal.apply("2", seat="E")
    assert deal.version == 0  # nothing changed


# -------------------------------------------------------------------------- pitch_to_bid
def test_house_pitch_ends_the_auction_and_is_the_opening_lead():
    deal = new({"preset": "house", "pitch_to_bid": True})
    assert "pitch:AS" in deal.legal_actions() and len(deal.legal_actions()) == 4 + 6
    play(deal, "pass pitch:KS")
    assert deal.phase == "play" and deal.pitcher == "E" and deal.bid == 4 and deal.trump == "S"
    assert deal.current_trick == [("E", "KS")] and deal.to_act == "S"
    assert deal.plays == ["KS"] and "KS" not in deal.hand("E")
    assert deal_to_record(deal)["plays"] == ["KS"]


def test_classic_pitch_passes_the_turn_to_the_dealer_who_may_accept():
    deal = new({"preset": "classic", "pitch_to_bid": True})
    play(deal, "2 pitch:KS")
    assert deal.phase == "auction" and deal.to_act == "W"  # S is skipped
    legal = deal.legal_actions()
    assert legal[:2] == ["pass", "smudge"] and all(t.startswith("pitch:") for t in legal[2:])
    with pytest.raises(
        IllegalAction, match="after a pitch the dealer may only pass, pitch or smudge"
    ):
        deal.apply("4")
    play(deal, "pass")
    assert deal.pitcher == "E" and deal.current_trick == [("E", "KS")] and deal.trump == "S"


def test_classic_dealer_takes_over_a_pitch_which_goes_back():
    deal = new({"preset": "classic", "pitch_to_bid": True})
    play(deal, "pass pitch:KS pitch:8H")
    assert deal.pitcher == "W" and deal.bid == 4 and deal.trump == "H"
    assert deal.current_trick == [("W", "8H")] and "KS" in deal.hand("E")
    assert deal.to_act == "N"


def test_classic_dealer_smudges_over_a_pitch_and_leads_anything():
    deal = new({"preset": "classic", "pitch_to_bid": True})
    play(deal, "pitch:AS smudge")
    assert deal.pitcher == "W" and deal.bid == 5 and deal.trump is None
    assert deal.current_trick == [] and deal.to_act == "W" and "AS" in deal.hand("N")


def test_a_pitch_must_outbid_a_four_except_for_the_dealer():
    deal = new({"preset": "classic", "pitch_to_bid": True})
    play(deal, "4")
    assert not any(t.startswith("pitch:") for t in deal.legal_actions())
    play(deal, "pass pass")
    assert "pitch:8H" in deal.legal_actions()  # the dealer may steal the 4 with a pitch
