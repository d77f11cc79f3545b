"""The coach's advice: positions built from seed 000's tips, the same choice as the hard bot,
and the same advice whatever the cards the seat cannot see."""

import math
import random

import pytest
from django.template.loader import render_to_string

from games.coach.selectors import CoachPanel, bid_grid, option_view
from games.engine import Deal, Rules, deal_from_record
from games.engine.bots import choose
from games.engine.coach.advice import advise
from tests.engine.bots.helpers import other_deal_with_same_view, random_positions

SEED = 11


def deal_from(dealer, hands, auction, plays=(), rules="house"):
    return deal_from_record(
        {
            "format": "setback-deal/1",
            "rules": rules,
            "dealer": dealer,
            "hands": {seat: cards.split() for seat, cards in hands.items()},
            "auction": list(auction),
            "plays": list(plays),
        }
    )


def by_action(options):
    return {option.action: option for option in options}


# --- Seed 000's tips, each as a position -----------------------------------------------------


def test_a_long_suit_headed_by_the_ace_and_king_is_worth_a_bid():
    # "A hand with the ace (or king) of a long suit is worth a bid."
    deal = deal_from(
        "E",
        {
            "S": "AS KS 9S 5S 3D 7C",
            "W": "QH 8H 4D 6C TC 2D",
            "N": "JD 9D 5H 4C 8S 3H",
            "E": "TD 7H 6D QC 2C KH",
        },
        [],
    )
    options = advise(deal.observation("S"), SEED)
    best = options[0]
    assert best.action != "pass"
    assert best.reason.startswith(f"Bid {best.action} with spades as trump: made ")
    assert by_action(options)["pass"].figures["expected_points"] < best.figures["expected_points"]


def test_the_two_of_trump_goes_on_partners_winning_trick():
    # "The two of trump is precious: ... Throw it onto a trick your partner is winning."
    deal = deal_from(
        "W",
        {
            "N": "AS KD 5C 7D 8D 4H",
            "E": "5S 8H 7H 6D 9C 3C",
            "S": "2S 7S QH 3H 9H 4D",
            "W": "TS 8S JS 6H AC KC",
        },
        ["2", "pass", "pass", "pass"],
        ["AS", "5S"],
    )
    options = advise(deal.observation("S"), SEED)
    assert [o.action for o in options] == ["2S", "7S"]
    assert options[0].reason == "Throw the 2 of trump on partner's winning trick: Low is yours"
    assert options[0].figures["p_low"] == pytest.approx(1.0)
    assert options[1].reason.startswith(
        "Throw the 7 of trump on partner's winning trick: Low falls to "
    )


def test_the_jack_of_trump_is_played_when_the_trick_is_sure_and_guarded_otherwise():
    # "Guard the jack of trump. Play it only when your side is sure to take the trick."
    sure = deal_from(
        "W",
        {
            "N": "AS KD 5C 7D 8D 4H",
            "E": "5S 8H 7H 6D 9C 3C",
            "S": "JS 7S QH 3H 9H 4D",
            "W": "TS 8S 2S 6H AC KC",
        },
        ["2", "pass", "pass", "pass"],
        ["AS", "5S"],
    )
    best = advise(sure.observation("S"), SEED)[0]
    assert best.action == "JS"
    assert best.reason.startswith(
        "Throw the jack of trump on partner's winning trick: Jack is yours"
    )

    # S won a trick with the queen of hearts (trump); the ace and king are still out.
    unsure = deal_from(
        "N",
        {
            "E": "AH KH 9H TD 9D 3C",
            "S": "QH JH 4D 4C 5C 6S",
            "W": "3H 8S 7S 7D 8D 2C",
            "N": "4H AS KS KD QD 9C",
        },
        ["3", "pass", "pass", "pass"],
        ["9H", "QH", "3H", "4H"],
    )
    options = by_action(advise(unsure.observation("S"), SEED))
    assert max(options.values(), key=lambda o: o.figures["value"]).action != "JH"
    assert options["JH"].reason.startswith("Lead the jack of trump: Jack falls to ")


def test_a_ten_goes_to_partners_winning_trick_and_never_to_theirs():
    # "Tens are worth 10 game points. Feed them to your partner's winning tricks; never throw
    # one away to an opponent if you can help it."
    partner_wins = deal_from(
        "E",
        {
            "W": "AS 5D 9H 8C 2H 3C",
            "N": "3S KS 4H 6C 7H 8H",
            "E": "4S 7D 9C TC JH 2C",
            "S": "5S TD 3D QH 4C 6H",
        },
        ["pass", "2", "pass", "pass"],
        ["AS", "3S", "4S", "5S", "5D", "KS", "7D"],
    )
    best = advise(partner_wins.observation("S"), SEED)[0]
    assert best.action == "TD"
    assert best.reason.startswith("Throw the 10 of diamonds on partner's winning trick: Game ")

    they_win = deal_from(
        "N",
        {
            "E": "5D KH 9H 3S 9S 3C",
            "S": "TD 3D JH 4C 5C 6H",
            "W": "AD 3H 7S 8D 2D 2C",
            "N": "4D 4H AH KC QD 9C",
        },
        ["pass", "pass", "2", "pass"],
        ["7S", "4H", "3S", "6H", "AD", "4D", "5D"],
    )
    options = advise(they_win.observation("S"), SEED)
    assert [o.action for o in options] == ["3D", "TD"]
    assert options[0].reason == "Play the 3 of diamonds: keeps the 10 of diamonds from them"
    assert options[1].reason == "Play the 10 of diamonds: hands them 10 game points"


def test_with_the_opponents_close_to_eleven_the_coach_bids_to_keep_the_contract():
    # "When the opponents are close to 11, bid to keep them from getting the contract."
    deal = deal_from(
        "W",
        {
            "N": "AS 9S 5C 7D 8D 4S",
            "E": "TH 8S 6H TD 9D 3C",
            "S": "QH 8H 4H 9C 5D 2S",
            "W": "KS QS TS 6C 5H AC",
        },
        ["pass", "pass"],
    )
    options = advise(deal.observation("S", match_totals={"NS": 3, "EW": 10}), SEED)
    best = options[0]
    assert best.action != "pass"
    assert best.figures["ranking"] == "match"  # ranked by the chance of winning the match
    assert "keeps the contract from them at 10 points" in best.reason
    assert "leaves the contract to them at 10 points" in by_action(options)["pass"].reason


# --- Figures, and the same worlds for every option ----------------------------------------------


def test_every_option_has_its_figures_from_the_same_worlds():
    rng = random.Random(3)
    for _, obs in random_positions("house", rng, 6):
        if len(obs.legal_actions()) < 2:
            continue
        options = advise(obs, SEED, budget=200)
        assert len({o.figures["samples"] for o in options}) == 1
        for option in options:
            f = option.figures
            assert option.reason and option.label
            for name in ("p_high", "p_low", "p_jack", "p_game", "p_contract"):
                assert 0 <= f[name] <= 1
            # The panel's "±": nought only when every sampled world scored the same (whole) points.
            for stderr, mean in (
                ("stderr", "expected_points"),
                ("margin_stderr", "expected_margin"),
            ):
                assert f[stderr] > 0 or math.isclose(f[mean], round(f[mean])), (option.action, f)
            assert f["p_make"] is not None or f["p_set"] is not None or f["p_thrown_in"] > 0


def test_the_coachs_first_choice_is_the_hard_bots_choice():
    rng = random.Random(5)
    checked = 0
    for _, obs in random_positions("house", rng, 12):
        if len(obs.legal_actions()) < 2:
            continue
        seed = rng.randrange(10**9)
        assert advise(obs, seed, budget=300)[0].action == choose(obs, "hard", seed=seed, budget=300)
        checked += 1
    assert checked >= 6


# --- The same advice whatever the hidden cards -------------------------------------------------


def best_with_every_card_seen(deal: Deal, seat: str) -> set[str]:
    """The best moves if every hand were known and everyone played perfectly (by the engine's
    own scoring): what a coach that peeked would say."""
    side = deal.rules.side_of(seat)

    def margin(state: Deal) -> int:
        if state.is_over:
            score = state.result().score
            return score[side] - sum(v for s, v in score.items() if s != side)
        values = []
        for action in state.legal_actions():
            after = state.copy()
            after.apply(action)
            values.append(margin(after))
        return max(values) if deal.rules.side_of(state.to_act) == side else min(values)

    outcomes = {}
    for action in deal.legal_actions():
        after = deal.copy()
        after.apply(action)
        outcomes[action] = margin(after)
    top = max(outcomes.values())
    return {action for action, value in outcomes.items() if value == top}


def two_deals_that_look_the_same_but_call_for_different_moves(rng):
    """Two deals that give the seat to act the same observation, where a player who saw every
    card would choose differently."""
    for _ in range(400):
        deal = Deal.new("house", rng.choice("NESW"), rng)
        while not deal.is_over and not (deal.phase == "play" and len(deal.tricks) == 4):
            deal.apply(rng.choice(deal.legal_actions()))
        if deal.is_over or len(deal.legal_actions()) < 2:
            continue
        seat = deal.to_act
        best = best_with_every_card_seen(deal, seat)
        for _ in range(20):
            other = other_deal_with_same_view(deal, seat, rng)
            if not best & best_with_every_card_seen(other, seat):
                return deal, other, seat
    raise AssertionError("no such pair of deals found")


def test_the_advice_is_the_same_whatever_the_hidden_cards_even_when_they_would_change_the_answer():
    rng = random.Random(2024)
    deal, other, seat = two_deals_that_look_the_same_but_call_for_different_moves(rng)
    assert deal.hand(seat) == other.hand(seat)
    assert any(deal.hand(s) != other.hand(s) for s in deal.rules.seats if s != seat)
    seen, seen_other = deal.observation(seat), other.observation(seat)
    assert seen == seen_other
    assert advise(seen, SEED) == advise(seen_other, SEED)


def test_a_bid_is_advised_the_same_whatever_the_others_hold():
    rng = random.Random(9)
    deal = Deal.new("house", "W", rng)
    deal.apply("2")  # N bids; E decides
    other = other_deal_with_same_view(deal, "E", rng)
    assert deal.hand("N") != other.hand("N")
    assert advise(deal.observation("E"), SEED) == advise(other.observation("E"), SEED)


# --- Every kind of decision, under other rules ---------------------------------------------------


@pytest.mark.parametrize(
    "spec",
    [
        {"preset": "house", "draw": True},
        {"preset": "classic", "six_players": True},
        {"preset": "auction", "players": 3},
        {"preset": "family", "pitch_to_bid": True, "players": 4},
    ],
)
def test_the_panel_words_every_kind_of_decision(spec):
    rules = Rules.from_spec(spec)
    wanted = {"auction", "play"} | ({"trump", "discard"} if rules.discard_kind else set())
    rng = random.Random(17)
    phases = set()
    for _ in range(60):
        deal = Deal.new(rules, rng.choice(rules.seats), rng)
        while not deal.is_over:
            obs = deal.observation(deal.to_act)
            if len(obs.legal_actions()) > 1 and (deal.phase not in phases or rng.random() < 0.05):
                options = advise(obs, SEED, budget=60)
                phases.add(deal.phase)
                panel = CoachPanel(
                    1,
                    1,
                    1,
                    deal.version,
                    1,
                    True,
                    "advice",
                    phase=deal.phase,
                    options=[option_view(i, o, obs) for i, o in enumerate(options, 1)],
                    bid_grid=bid_grid(options, obs) if deal.phase == "auction" else [],
                    samples=options[0].figures["samples"],
                )
                html = render_to_string("coach/_panel.html", {"panel": panel})
                for option in options:
                    assert option.reason.split(":")[0] and option.label
                    assert f'data-action="{option.action}"' in html
                if deal.phase == "trump":
                    assert all(o.label.startswith("Name ") and "trump" in o.reason for o in options)
                if deal.phase == "discard":
                    assert all(o.label.startswith(("Throw ", "Keep every card")) for o in options)
            deal.apply(rng.choice(deal.legal_actions()))
        if phases >= wanted:
            break
    assert phases >= wanted
