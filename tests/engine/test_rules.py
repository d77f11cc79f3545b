"""Rules as a value: presets, options, validation, spec round trips, seats and sides."""

import pytest

from games.engine import Rules, RulesError
from games.engine.rules import END_COUNT_OUT, END_HOUSE, END_PITCHER_OUT

from .helpers import ALL_SPECS


def test_house_is_the_default_preset():
    assert Rules.from_spec(None) == Rules.from_spec("house") == Rules.from_spec({})
    house = Rules.from_spec("house")
    assert house.calls == ("pass", "2", "3", "4")
    assert house.four_ends_auction and not house.dealer_steal and not house.dealer_must_bid
    assert house.low_to == "taker" and house.target == 11 and not house.cutthroat
    assert house.seats == ("N", "E", "S", "W") and house.sides == ("NS", "EW")
    assert house.end_rule == END_HOUSE and house.win_regardless_at == 15 and house.lose_at == -6


def test_preset_characters():
    classic = Rules.from_spec("classic")
    assert classic.calls == ("pass", "2", "3", "4", "smudge") and classic.smudge
    assert classic.dealer_steal and classic.dealer_must_bid and not classic.four_ends_auction
    assert classic.target == 21 and classic.end_rule == END_PITCHER_OUT
    auction = Rules.from_spec("auction")
    assert auction.cutthroat and auction.players == 4 and auction.seats == ("P1", "P2", "P3", "P4")
    assert auction.sides == auction.seats and auction.low_to == "holder" and auction.target == 11
    assert (
        auction.end_rule == END_COUNT_OUT and auction.dealer_steal and not auction.dealer_must_bid
    )
    family = Rules.from_spec("family")
    assert family.calls == ("pass", "1", "2", "3", "4") and family.follow == "follow_else_trump"
    assert family.target == 7 and family.low_to == "holder"


def test_six_players_partnerships():
    rules = Rules.from_spec({"preset": "classic", "six_players": True})
    assert rules.seats == ("P1", "P2", "P3", "P4", "P5", "P6")
    assert rules.sides == ("P1P4", "P2P5", "P3P6")
    assert rules.side_of("P5") == "P2P5" and rules.partner_seats("P3") == ("P6",)
    assert rules.hand_size == 8 and rules.names_trump and rules.discard_kind == "two"
    # A cutthroat preset's default gives way to six_players' partnerships.
    assert not Rules.from_spec({"preset": "auction", "six_players": True}).cutthroat


def test_partners_and_seat_order():
    house = Rules.from_spec("house")
    assert house.partner_seats("N") == ("S",) and house.partner_seats("E") == ("W",)
    assert house.side_of("W") == "EW" and house.next_seat("W") == "N"
    assert house.seats_from_left_of("W") == ("N", "E", "S", "W")
    cut = Rules.from_spec({"preset": "family", "players": 3})
    assert cut.partner_seats("P2") == () and cut.side_of("P2") == "P2"


def test_cutthroat_switch():
    assert Rules.from_spec({"preset": "auction", "cutthroat": False}).seats == ("N", "E", "S", "W")
    house3 = Rules.from_spec({"preset": "house", "cutthroat": True, "players": 3})
    assert house3.seats == ("P1", "P2", "P3") and house3.end_rule == END_PITCHER_OUT
    assert house3.win_regardless_at is None and house3.lose_at is None


@pytest.mark.parametrize("spec", ALL_SPECS, ids=str)
def test_spec_round_trip(spec):
    rules = Rules.from_spec(spec)
    assert Rules.from_spec(rules.to_spec()) == rules
    assert hash(rules) == hash(Rules.from_spec(rules.to_spec()))
    assert isinstance(rules.describe(), str) and rules.describe()


def test_to_spec_is_shortest():
    assert Rules.from_spec({"preset": "classic", "target": 21}).to_spec() == "classic"
    assert Rules.from_spec({"preset": "auction", "players": 3}).to_spec() == {
        "preset": "auction",
        "players": 3,
    }


def test_rules_are_immutable():
    rules = Rules.from_spec("house")
    with pytest.raises(AttributeError):
        rules.target = 21


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("poker", "unknown preset"),
        ({"preset": "house", "jokers": True}, "unknown option"),
        ({"preset": "house", "target": 15}, "target must be 7, 11 or 21"),
        ({"preset": "house", "low_to": "nobody"}, "low_to"),
        ({"preset": "auction", "players": 8}, "players must be 2 to 7"),
        ({"preset": "auction", "players": 1}, "players must be 2 to 7"),
        ({"preset": "auction", "players": "3"}, "whole number"),
        ({"preset": "house", "draw": "yes"}, "true or false"),
        ({"preset": "house", "players": 3}, "needs cutthroat"),
        ({"preset": "auction", "cutthroat": False, "players": 4}, "needs cutthroat"),
        (
            {"preset": "house", "pitch_to_bid": True, "draw": True},
            "pitch_to_bid cannot be combined with draw",
        ),
        (
            {"preset": "house", "pitch_to_bid": True, "six_players": True},
            "pitch_to_bid cannot be combined",
        ),
        (
            {"preset": "house", "pitch_to_bid": True, "no_trump_first_trick": True},
            "pitch_to_bid cannot be combined",
        ),
        (
            {"preset": "house", "six_players": True, "cutthroat": True},
            "cannot be combined with cutthroat",
        ),
        (
            {"preset": "house", "six_players": True, "draw": True},
            "six_players cannot be combined with draw",
        ),
        ({"preset": "auction", "six_players": True, "players": 6}, "needs cutthroat"),
        (42, "preset name or an object"),
    ],
)
def test_bad_specs_are_clear_errors(spec, words):
    with pytest.raises(RulesError, match=words):
        Rules.from_spec(spec)


def test_rules_error_is_a_value_error():
    assert issubclass(RulesError, ValueError)
