"""Reading and writing the deal record and the match record (docs/rules.md section 4).

``deal_from_record`` replays a record through a ``Deal``, so a record is legal exactly when the
engine accepts each of its actions; the first item that breaks a rule raises
:class:`RecordError` naming it, e.g. ``plays[6] QH by E: must follow diamonds or trump``.
A record may stop anywhere (a deal in progress).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from .actions import PITCH_PREFIX
from .deal import Deal
from .errors import IllegalAction, RecordError, RulesError
from .match import MatchState
from .phases import AUCTION, DISCARD, OVER, PLAY, TRUMP
from .rules import Rules

DEAL_FORMAT = "setback-deal/1"
MATCH_FORMAT = "setback-match/1"
DEAL_KEYS = (
    "format",
    "rules",
    "dealer",
    "hands",
    "stock",
    "auction",
    "trump",
    "discards",
    "plays",
    "meta",
)
MATCH_KEYS = ("format", "rules", "deals", "meta")


def load_json(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise RecordError(f"invalid JSON: {e}") from None


# ---------------------------------------------------------------------- writing
def deal_to_record(deal: Deal, *, in_match: bool = False) -> dict[str, Any]:
    """The deal record of ``deal`` (``in_match`` leaves out ``format`` and ``rules``)."""
    rules = deal.rules
    record: dict[str, Any] = {}
    if not in_match:
        record["format"] = DEAL_FORMAT
        record["rules"] = rules.to_spec()
    record["dealer"] = deal.dealer
    record["hands"] = {seat: list(deal.dealt_hands[seat]) for seat in rules.seats}
    record["stock"] = list(deal.stock)
    record["auction"] = [token for _, token in deal.auction.calls]
    if rules.names_trump and deal.trump is not None:
        record["trump"] = deal.trump
    if rules.discard_kind:
        order = rules.seats_from_left_of(deal.dealer)
        record["discards"] = {
            seat: list(deal.discards[seat]) for seat in order if seat in deal.discards
        }
    record["plays"] = deal.plays
    return record


def match_record_json(rules: Rules | str | dict[str, Any], deals: Sequence[Deal]) -> dict[str, Any]:
    """The match record of a list of deals (in order; each dealt by the previous one's left)."""
    rules = Rules.from_spec(rules)
    return {
        "format": MATCH_FORMAT,
        "rules": rules.to_spec(),
        "deals": [deal_to_record(deal, in_match=True) for deal in deals],
    }


# ---------------------------------------------------------------------- reading
def _field(
    record: Mapping[str, Any],
    name: str,
    kind: type | tuple[type, ...],
    what: str,
    default: Any = ...,
) -> Any:
    if name not in record:
        if default is ...:
            raise RecordError(f"{name}: missing")
        return default
    value = record[name]
    if value is None and default is not ...:
        return default  # an optional field given as null is left out
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise RecordError(f"{name}: expected {what}")
    return value


def deal_from_record(
    record: Any,
    *,
    rules: Rules | None = None,
    dealer: str | None = None,
) -> Deal:
    """Build the ``Deal`` a record describes, checking every item against the rules.

    ``rules`` and ``dealer`` come from the match when the record is one of its deals: then
    ``format`` and ``rules`` may be left out and ``dealer`` must be the expected one if given.
    The record is read in the order the deal is played, so the first item that breaks a rule
    is the one named.
    """
    _check_fields(record, DEAL_KEYS, "expected a deal record (a JSON object)")
    rules = _read_deal_rules(record, rules)
    dealer = _read_dealer(record, dealer)
    hands = _field(record, "hands", dict, "an object of seat -> list of cards")
    # Decided: the stock is optional except for draw; when given it must be exactly the
    # undealt cards (Deal checks that).
    stock = _field(record, "stock", list, "a list of cards", None)
    if stock is None and rules.draw:
        raise RecordError("stock: missing (draw refills hands from the stock in its order)")
    deal = Deal(rules, dealer, hands, stock)
    auction = _field(record, "auction", list, "a list of calls", [])
    plays = _field(record, "plays", list, "a list of cards", [])
    discards = _field(record, "discards", dict, "an object of seat -> list of cards", {})
    trump = _field(record, "trump", (str, type(None)), "a suit (S, H, D or C)", None)
    _read_auction(deal, auction)
    if rules.names_trump:
        _read_named_trump(deal, trump, later=bool(plays) or bool(discards))
    _check_discards_given(deal, discards)
    if deal.phase == DISCARD:
        _read_discards(deal, discards, bool(plays))
    _read_plays(deal, plays)
    if trump is not None and not rules.names_trump:
        _check_trump_led(deal, trump)
    return deal


def _check_fields(record: Any, keys: tuple[str, ...], not_an_object: str) -> None:
    """The record is a JSON object holding none but ``keys``."""
    if not isinstance(record, Mapping):
        raise RecordError(not_an_object)
    for key in record:
        if key not in keys:
            raise RecordError(f"{key}: unknown field (fields: {', '.join(keys)})")


def _read_deal_rules(record: Mapping[str, Any], match_rules: Rules | None) -> Rules:
    """The deal's rules: its own (then its format is checked too), which in a match must be the
    match's, or the match's when it leaves them out."""
    if match_rules is None or "format" in record:
        fmt = _field(record, "format", str, f'"{DEAL_FORMAT}"')
        if fmt != DEAL_FORMAT:
            raise RecordError(f"format: {fmt!r}, expected {DEAL_FORMAT!r}")
    if match_rules is not None and "rules" not in record:
        return match_rules
    own = _read_rules(record)
    if match_rules is not None and own != match_rules:
        raise RecordError("rules: differ from the match's rules")
    return own


def _read_rules(record: Mapping[str, Any]) -> Rules:
    if "rules" not in record:
        raise RecordError("rules: missing")
    try:
        return Rules.from_spec(record["rules"])
    except RulesError as e:
        raise RecordError(f"rules: {e}") from None


def _read_dealer(record: Mapping[str, Any], expected: str | None) -> str:
    # Decided: in a match, deals after the first may leave the dealer out (it passes to the
    # left); if given it must be the expected one.
    if expected is not None and "dealer" not in record:
        return expected
    given: str = _field(record, "dealer", str, "a seat")
    if expected is not None and given != expected:
        raise RecordError(f"dealer: {given}, but the deal passes to {expected}")
    return given


def _read_auction(deal: Deal, auction: list[Any]) -> None:
    for i, token in enumerate(auction):
        if not isinstance(token, str):
            raise RecordError(f"auction[{i}]: expected a call (a string)")
        if deal.phase != AUCTION:
            raise RecordError(f"auction[{i}] {token}: the auction is over")
        try:
            deal.apply(token)
        except IllegalAction as e:
            raise RecordError(f"auction[{i}] {e}") from None


def _read_named_trump(deal: Deal, trump: str | None, later: bool) -> None:
    """The suit the pitcher names (rules where trump is named, not led); ``later`` says that
    discards or plays follow, so it may not be left out once the auction is over."""
    if trump is not None:
        if deal.phase != TRUMP:
            raise RecordError(f"trump {trump}: {_not_yet(deal)}")
        try:
            deal.apply(trump)
        except IllegalAction as e:
            raise RecordError(f"trump {e}") from None
    elif later and deal.phase == TRUMP:
        raise RecordError("trump: missing (the pitcher names trump in these rules)")


def _check_discards_given(deal: Deal, discards: Mapping[str, Any]) -> None:
    """Discards, when given, are allowed by the rules, by seats at the table, and now."""
    if not discards:
        return
    rules = deal.rules
    if not rules.discard_kind:
        raise RecordError("discards: there are no discards in these rules")
    for seat in discards:
        if seat not in rules.seats:
            raise RecordError(f"discards.{seat}: not a seat at this table")
    if deal.phase != DISCARD:
        raise RecordError(f"discards: {_not_yet(deal)}")


def _read_plays(deal: Deal, plays: list[Any]) -> None:
    pitch = deal.auction.winning_pitch
    for i, card in enumerate(plays):
        if not isinstance(card, str):
            raise RecordError(f"plays[{i}]: expected a card code")
        if i == 0 and pitch is not None:
            if card != pitch:
                raise RecordError(f"plays[0] {card}: the winning pitch {pitch} is the opening lead")
            continue  # already on the table
        if deal.phase != PLAY:
            raise RecordError(f"plays[{i}] {card}: {_no_play_now(deal)}")
        try:
            deal.apply(card)
        except IllegalAction as e:
            raise RecordError(f"plays[{i}] {e}") from None


def _no_play_now(deal: Deal) -> str:
    """Why no card may be played in the deal's phase (which is not play)."""
    if deal.phase == OVER and not deal.thrown_in:
        return f"too many plays (the deal is over after {len(deal.plays)} cards)"
    return _not_yet(deal)


def _check_trump_led(deal: Deal, trump: str) -> None:
    """A record may say which trump the opening lead set (rules where it is led): it must agree."""
    if deal.trump is None:
        raise RecordError(
            f"trump {trump}: no card has been played; in these rules the opening lead sets trump"
        )
    if trump != deal.trump:
        raise RecordError(
            f"trump {trump}: the opening lead {deal.plays[0]} makes {deal.trump} trump"
        )


def _not_yet(deal: Deal) -> str:
    if deal.phase == AUCTION:
        return f"the auction is not over ({deal.to_act} is to call)"
    if deal.phase == TRUMP:
        return f"trump has not been named ({deal.to_act} names it)"
    if deal.phase == DISCARD:
        return f"the discards are not finished ({deal.to_act} is to discard)"
    if deal.phase == OVER:
        return "the deal was thrown in" if deal.thrown_in else "the deal is over"
    return "the deal is in its play"


def _read_discards(deal: Deal, discards: Mapping[str, Any], plays_follow: bool) -> None:
    order = deal.rules.seats_from_left_of(deal.dealer)
    for k, seat in enumerate(order):
        if seat in discards:
            cards = discards[seat]
            if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
                raise RecordError(f"discards.{seat}: expected a list of cards")
        elif plays_follow or any(s in discards for s in order[k + 1 :]):
            # A seat left out before later discards or plays discarded nothing (draw).
            if deal.rules.discard_kind == "two":
                raise RecordError(f"discards.{seat}: missing (each player discards 2 cards)")
            cards = []
        else:
            return  # the record stops here: this seat is to discard
        try:
            deal.discard(seat, cards)
        except IllegalAction as e:
            raise RecordError(f"discards.{seat}: {e.reason}") from None


def match_from_record(record: Any) -> MatchState:
    """Replay a match record. The state's ``current`` is the last deal if it is in progress."""
    _check_fields(record, MATCH_KEYS, "expected a match record (a JSON object)")
    fmt = _field(record, "format", str, f'"{MATCH_FORMAT}"')
    if fmt != MATCH_FORMAT:
        raise RecordError(f"format: {fmt!r}, expected {MATCH_FORMAT!r}")
    rules = _read_rules(record)
    deals = _field(record, "deals", list, "a list of deal records")
    state: MatchState | None = None
    current = None
    for i, item in enumerate(deals):
        if state is not None and state.over:
            raise RecordError(f"deals[{i}]: the match was already over ({state.winner} won)")
        if current is not None:
            raise RecordError(
                f"deals[{i - 1}]: the deal is not over (only the last deal may be in progress)"
            )
        deal = _read_match_deal(i, item, rules, state)
        if state is None:
            state = MatchState(rules, deal.dealer)
        if deal.is_over:
            state.add(deal)
        else:
            current = deal
    if state is None:
        raise RecordError("deals: empty (a match record holds at least one deal)")
    state.current = current
    if current is not None:
        state.history.append({"score": None, "totals": dict(state.totals)})
    return state


def _read_match_deal(i: int, item: Any, rules: Rules, state: MatchState | None) -> Deal:
    """Deal ``i`` of a match (``state`` is None for the first, which must name its dealer); its
    errors are named ``deals[i]``."""
    try:
        if state is None:
            if isinstance(item, Mapping) and "dealer" not in item:
                raise RecordError("dealer: missing (the first deal names its dealer)")
            return deal_from_record(item, rules=rules)
        return deal_from_record(item, rules=rules, dealer=state.dealer)
    except RecordError as e:
        raise RecordError(
            f"deals[{i}].{e}" if not str(e).startswith("expected") else f"deals[{i}]: {e}"
        ) from None


__all__ = [
    "DEAL_FORMAT",
    "MATCH_FORMAT",
    "PITCH_PREFIX",
    "deal_from_record",
    "deal_to_record",
    "load_json",
    "match_from_record",
    "match_record_json",
]
