"""The coach's plain words: what an option is ("Bid 3", "the 2 of trump") and one line on why.

Pure Python over the engine (no Django). Everything here reads the seat's observation and the
search's figures only, so a reason can name the seat's own cards and cards already played, and
never a card the seat has not seen.
"""

from __future__ import annotations

from .. import AUCTION, DISCARD, TRUMP
from ..actions import PITCH, Action
from ..bots import OptionEstimate
from ..cards import game_points, suit_of
from ..observation import Observation
from ..play import trick_winner
from ..wording import SUIT_NAMES, SUIT_SYMBOLS, card_words, short_card

# One point's change between two options: (the gain in chance, its name, the chance with this
# option, with the other).
PointDelta = tuple[float, str, float, float]

POINTS = (("High", "p_high"), ("Low", "p_low"), ("Jack", "p_jack"), ("Game", "p_game"))
# A change of chance smaller than this is not worth a word.
NOTABLE = 0.1
NOTABLE_POINTS = 0.15
# A chance at least this high is a sure thing in plain words.
SURE = 0.97
# A side this close to its target makes the contract worth taking from it.
DANGER_MARGIN = 4


def action_label(obs: Observation, token: str) -> str:
    """What the option is, in a few words: "Pass", "Bid 3", "Name spades", "Throw 5♣ 7♦", or
    the card in words."""
    phase = obs.phase
    action = Action.parse(token)
    if phase == AUCTION:
        if action.is_pass:
            return "Pass"
        if token == "smudge":
            return "Smudge"
        if action.kind == PITCH:
            return f"Pitch {card_words(action.word)}"
        return f"Bid {token}"
    if phase == TRUMP:
        return f"Name {SUIT_NAMES[token]} {SUIT_SYMBOLS[token]}"
    if phase == DISCARD:
        cards = action.cards
        return "Keep every card" if not cards else "Throw " + " ".join(short_card(c) for c in cards)
    return card_words(token, obs.trump)


# --------------------------------------------------------------------------- reasons


def reasons(obs: Observation, estimates: list[OptionEstimate]) -> list[str]:
    """One plain line per option (best first, as ``evaluate`` returns them)."""
    best = estimates[0]
    second = estimates[1] if len(estimates) > 1 else None
    lines = []
    for est in estimates:
        is_best = est is best
        ref = second if is_best else best
        lines.append(_reason(obs, est, ref, is_best))
    return lines


def _reason(
    obs: Observation, est: OptionEstimate, ref: OptionEstimate | None, is_best: bool
) -> str:
    if obs.phase == AUCTION:
        act, effect = _call_words(obs, est, ref, is_best)
    elif obs.phase == TRUMP:
        act = f"Name {SUIT_NAMES[est.action]} trump"
        effect = _effect(est, ref, is_best) or _likely_points(est)
    elif obs.phase == DISCARD:
        cards = Action.parse(est.action).cards
        act = (
            "Keep every card"
            if not cards
            else "Throw " + _and([card_words(c, obs.trump) for c in cards])
        )
        effect = _effect(est, ref, is_best)
    else:
        act = _play_words(obs, est.action)
        effect = _gift_words(obs, est, ref, is_best) or _effect(est, ref, is_best)
    return f"{act}: {effect}" if effect else act


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _play_words(obs: Observation, card: str) -> str:
    """What playing ``card`` does to the trick in front of the seat."""
    trump = obs.trump
    rules = obs.rules
    if trump is None:  # the opening lead names trump
        return f"Lead {card_words(card)}, making {SUIT_NAMES[suit_of(card)]} trump"
    trick = list(obs.current_trick)
    words = card_words(card, trump)
    if not trick:
        return f"Lead {words}"
    winner = trick_winner(trick, trump)
    winning_card = dict(trick)[winner]
    after = trick_winner(trick + [(obs.seat, card)], trump)
    partner = winner != obs.seat and rules.side_of(winner) == obs.side
    takes = after == obs.seat
    valuable = suit_of(card) == trump or game_points(card) > 0
    if partner:
        if takes:
            return f"Overtake partner's {card_words(winning_card, trump, article='')} with {words}"
        if valuable:
            return f"Throw {words} on partner's winning trick"
        return f"Play {words} under partner's winning {card_words(winning_card, trump, article='')}"
    if takes:
        led = suit_of(trick[0][1])
        verb = "Trump" if suit_of(card) == trump and led != trump else "Beat"
        return f"{verb} {card_words(winning_card, trump)} with {words}"
    if suit_of(card) not in (suit_of(trick[0][1]), trump):
        return f"Discard {words}"
    return f"Play {words}"


def _gift(obs: Observation, card: str) -> int:
    """Game points that playing ``card`` surely hands the other side: the seat plays last to a
    trick an opponent is winning, and the card does not take it."""
    trick = list(obs.current_trick)
    if not trick or obs.trump is None or len(trick) != len(obs.rules.seats) - 1:
        return 0
    trump = obs.trump
    winner = trick_winner(trick + [(obs.seat, card)], trump)
    if obs.rules.side_of(winner) == obs.side:
        return 0
    return game_points(card)


def _gift_words(
    obs: Observation, est: OptionEstimate, ref: OptionEstimate | None, is_best: bool
) -> str:
    """Tens are worth 10 game points: say so when a card surely goes to the other side."""
    if ref is None:
        return ""
    if not is_best and _gift(obs, est.action) >= 10 and _gift(obs, ref.action) < 10:
        return f"hands them {_gift(obs, est.action)} game points"
    if is_best and _gift(obs, ref.action) >= 10 and _gift(obs, est.action) < 10:
        return f"keeps {card_words(ref.action, obs.trump)} from them"
    return ""


def _chance_words(name: str, p: float) -> str:
    if p >= SURE:
        return f"{name} is yours"
    if p >= 0.5:
        return f"{name} is likely yours ({p:.0%})"
    return f"the best chance of {name} ({p:.0%})"


def _point_deltas(est: OptionEstimate, ref: OptionEstimate) -> list[PointDelta]:
    return [
        (getattr(est, field) - getattr(ref, field), name, getattr(est, field), getattr(ref, field))
        for name, field in POINTS
    ]


def _contract_words(est: OptionEstimate) -> str:
    if est.p_make is not None and est.p_contract >= 0.5:
        if est.p_make >= SURE:
            return "the bid is safe"
        if est.p_make <= 1 - SURE:
            return "the bid is out of reach"
        return f"the bid is made {est.p_make:.0%} of the time"
    if (
        est.p_set is not None
        and est.p_contract < 0.5
        and est.p_thrown_in < 0.5
        and est.p_set > 1 - SURE
    ):
        if est.p_set >= SURE:
            return "the bidder is sure to be set"
        return f"the bidder is set {est.p_set:.0%} of the time"
    return ""


def _likely_points(est: OptionEstimate) -> str:
    likely = [name for name, field in POINTS if getattr(est, field) >= 0.6]
    contract = _contract_words(est)
    parts = []
    if likely:
        parts.append(f"you likely take {_and(likely)}")
    if contract:
        parts.append(contract)
    return "; ".join(parts)


def _effect(est: OptionEstimate, ref: OptionEstimate | None, is_best: bool) -> str:
    """What this option changes, against the strongest alternative (for the best option) or
    against the coach's choice (for the others)."""
    if ref is None:
        return _likely_points(est)
    if is_best:
        return _gain_over(est, ref)
    return _loss_against(est, ref)


def _gain_over(est: OptionEstimate, ref: OptionEstimate) -> str:
    """What the best option gains over the strongest alternative ``ref``."""
    deltas = _point_deltas(est, ref)
    # A point this option makes sure of says the most; else the largest gain in chance.
    sure = [d for d in deltas if d[2] >= SURE > d[3] and d[0] >= NOTABLE / 2]
    gains = sorted((d for d in deltas if d[0] >= NOTABLE), reverse=True)
    first = max(sure) if sure else (gains[0] if gains else None)
    if first is not None:
        return _gain_words(first, gains)
    contract = _contract_delta(est, ref)
    if contract:
        return contract
    theirs = _their_points(ref) - _their_points(est)
    if theirs >= NOTABLE_POINTS:
        return f"they expect {theirs:.1f} fewer points"
    return _likely_points(est) or "no other choice does better"


def _gain_words(first: PointDelta, gains: list[PointDelta]) -> str:
    """The point gained first, and the next largest gain in chance if there is one."""
    words = _chance_words(first[1], first[2])
    for _, name, p, _ in [d for d in gains if d != first][:1]:
        words += (
            f", and likely {name} ({p:.0%})"
            if p >= 0.5
            else f", and a better chance of {name} ({p:.0%})"
        )
    return words


def _loss_against(est: OptionEstimate, ref: OptionEstimate) -> str:
    """What another option loses against the coach's choice ``ref``."""
    losses = [d for d in _point_deltas(est, ref) if d[0] <= -NOTABLE]
    if losses:
        _, name, p, was = min(losses)
        return f"{name} falls to {p:.0%} (from {was:.0%})"
    contract = _contract_delta(est, ref)
    if contract:
        return contract
    loss = ref.expected_margin - est.expected_margin
    if loss <= _uncertainty(est, ref):
        return "about as good as the first choice"
    theirs = _their_points(est) - _their_points(ref)
    if theirs >= NOTABLE_POINTS:
        return f"gives them {theirs:.1f} more points"
    if loss < 0.05:  # would read "about 0.0 points worse"
        return "very slightly worse than the first choice"
    return f"about {loss:.1f} points worse"


def _contract_delta(est: OptionEstimate, ref: OptionEstimate) -> str:
    if (
        est.p_make is not None
        and ref.p_make is not None
        and est.p_contract >= 0.5
        and abs(est.p_make - ref.p_make) >= NOTABLE
    ):
        return f"the bid is made {est.p_make:.0%} of the time (against {ref.p_make:.0%})"
    if (
        est.p_set is not None
        and ref.p_set is not None
        and est.p_contract < 0.5
        and abs(est.p_set - ref.p_set) >= NOTABLE
    ):
        return f"the bidder is set {est.p_set:.0%} of the time (against {ref.p_set:.0%})"
    return ""


def _their_points(est: OptionEstimate) -> float:
    """The other side's expected points (the mean of the others in cutthroat)."""
    return est.expected_points - est.expected_margin


def _uncertainty(a: OptionEstimate, b: OptionEstimate) -> float:
    """How far apart two estimates may be by chance alone: their standard errors combined."""
    combined: float = (a.margin_stderr**2 + b.margin_stderr**2) ** 0.5
    return combined


def _danger(obs: Observation) -> tuple[str, int] | None:
    """Another side close to winning, whose contract is worth taking away: (its name, points)."""
    if not obs.match_totals:
        return None
    target = obs.rules.target
    mine = obs.side
    close = [
        (points, side)
        for side, points in obs.match_totals.items()
        if side != mine and points >= target - DANGER_MARGIN
    ]
    if not close:
        return None
    points, side = max(close)
    return ("them" if not obs.rules.cutthroat else side), points


def _call_words(
    obs: Observation, est: OptionEstimate, ref: OptionEstimate | None, is_best: bool
) -> tuple[str, str]:
    """A call's words and what it leads to: who likely takes the contract, and whether the bid
    is made or set (or the hand thrown in), with the danger of a side close to winning."""
    danger = _danger(obs)
    action = Action.parse(est.action)
    if action.is_pass:
        act, parts = "Pass", _pass_parts(est, danger)
    else:
        act, parts = _bid_act(est, action), _bid_parts(obs, est, danger)
    if not is_best and ref is not None and not parts:
        parts.append(_effect(est, ref, False))
    return act, "; ".join(parts)


def _pass_parts(est: OptionEstimate, danger: tuple[str, int] | None) -> list[str]:
    parts = []
    others = 1 - est.p_contract - est.p_thrown_in
    if est.p_thrown_in >= 0.5:
        parts.append("the hand is likely thrown in")
    elif est.p_contract >= 0.5 and est.p_make is not None:
        parts.append(f"partner likely takes the contract and makes it {est.p_make:.0%} of the time")
    elif others > 0 and est.p_set is not None:
        parts.append(f"the bidder is set {est.p_set:.0%} of the time")
    if danger and others >= 0.5:
        parts.append(f"leaves the contract to {danger[0]} at {danger[1]} points")
    return parts


def _bid_act(est: OptionEstimate, action: Action) -> str:
    """What the bid is: a pitch and its suit, a smudge, or a bid and the trump it plans."""
    token = est.action
    suit = est.detail.get("suit")
    if action.kind == PITCH:
        return f"Pitch {card_words(action.word)}, a bid of 4 in {SUIT_NAMES[suit_of(action.word)]}"
    if token == "smudge":
        return "Smudge: take all six tricks"
    return f"Bid {token}" + (f" with {SUIT_NAMES[suit]} as trump" if suit else "")


def _bid_parts(obs: Observation, est: OptionEstimate, danger: tuple[str, int] | None) -> list[str]:
    parts = []
    if est.action == "4" and not obs.rules.smudge:
        parts.append("it needs all four points")
    if est.p_contract >= 0.5 and est.p_make is not None:
        parts.append(f"made {est.p_make:.0%} of the time")
    elif est.p_contract < 0.5:
        outbid = "others likely outbid you"
        if est.p_set is not None and est.p_set > 0.03:
            outbid += f", and the bidder is set {est.p_set:.0%} of the time"
        parts.append(outbid)
    if danger and est.p_contract >= 0.5:
        parts.append(f"keeps the contract from {danger[0]} at {danger[1]} points")
    return parts
