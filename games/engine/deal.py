"""One deal, readable: the state, its legal actions, applying them, and the result.

Modelled on python-chess's ``Board`` and OpenSpiel's ``State``: a small object with
``phase``/``to_act``, ``legal_actions()``, ``apply(token)`` (which changes nothing when it
raises), ``result()`` and a per-seat ``observation()``. Actions are the record's string tokens
(see docs/engine-api.md). Clarity wins over speed here; ``fast.py`` is the tight kernel.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from .actions import PASS, PITCH_PREFIX, Action, discard_token, parse_discard_token
from .auction import Auction, call_value
from .cards import CODES, DISPLAY_ORDER, SUITS, is_card, sort_cards, suit_of
from .discards import discard_tokens, discardable
from .errors import IllegalAction, RecordError
from .observation import Observation
from .phases import AUCTION, DISCARD, OVER, PHASES, PLAY, TRUMP
from .play import play_problem, playable, proven_voids, trick_winner
from .rules import Rules
from .scoring import DealResult, Trick, score_deal, thrown_in_result


class Deal:
    """A deal of Setback from the cards as dealt to the end of the sixth trick.

    ``Deal(rules, dealer, hands, stock=None)`` builds it from dealt hands (seat -> list of card
    codes) and the stock (the undealt cards; their order matters for ``draw``, and if left out
    they are taken in display order). Bad input raises :class:`RecordError` naming the field,
    e.g. ``hands.E: 5 cards, expected 6``. ``Deal.new(rules, dealer, rng)`` shuffles and deals.
    """

    def __init__(
        self,
        rules: Rules | str | dict[str, Any],
        dealer: str,
        hands: Mapping[str, Sequence[str]],
        stock: Sequence[str] | None = None,
    ) -> None:
        rules = Rules.from_spec(rules)
        self.rules = rules
        if dealer not in rules.seats:
            raise RecordError(
                f"dealer: {dealer!r} is not a seat at this table ({' '.join(rules.seats)})"
            )
        self.dealer = dealer
        self.dealt_hands = _check_hands(rules, hands)
        self.stock = _check_stock(rules, self.dealt_hands, stock)
        self._hands: dict[str, set[str]] = {
            seat: set(cards) for seat, cards in self.dealt_hands.items()
        }
        self.auction = Auction(rules, dealer)
        self.trump: str | None = None
        self._phase = AUCTION
        self.discards: dict[str, list[str]] = {}
        self._discard_order = rules.seats_from_left_of(dealer) if rules.discard_kind else ()
        self._discard_turn = 0
        self._stock_next = 0  # the next stock card a draw takes
        self.tricks: list[Trick] = []
        self.current_trick: list[tuple[str, str]] = []
        self._leader: str | None = None
        self.history: list[tuple[str, str]] = []

    @classmethod
    def new(
        cls, rules: Rules | str | dict[str, Any], dealer: str, rng: random.Random | None = None
    ) -> Deal:
        """Shuffle with ``rng`` and deal from the dealer's left; the rest is the stock."""
        rules = Rules.from_spec(rules)
        rng = rng or random.Random()
        deck = list(DISPLAY_ORDER)
        rng.shuffle(deck)
        size = rules.hand_size
        hands = {}
        for i, seat in enumerate(rules.seats_from_left_of(dealer)):
            hands[seat] = deck[i * size : (i + 1) * size]
        return cls(rules, dealer, hands, deck[len(rules.seats) * size :])

    def as_dealt(self) -> Deal:
        """A fresh deal of the same cards, as dealt, before any action: replay ``history`` on it
        to see any earlier moment."""
        return Deal(self.rules, self.dealer, self.dealt_hands, self.stock)

    def copy(self) -> Deal:
        other = Deal.__new__(Deal)
        other.__dict__.update(self.__dict__)
        other._hands = {seat: set(cards) for seat, cards in self._hands.items()}
        other.auction = self.auction.copy()
        other.discards = {seat: list(cards) for seat, cards in self.discards.items()}
        other.tricks = list(self.tricks)
        other.current_trick = list(self.current_trick)
        other.history = list(self.history)
        return other

    # ------------------------------------------------------------------ public state
    @property
    def phase(self) -> str:
        return self._phase

    @property
    def version(self) -> int:
        return len(self.history)

    @property
    def calls(self) -> list[tuple[str, str]]:
        return list(self.auction.calls)

    @property
    def thrown_in(self) -> bool:
        return self.auction.all_passed

    @property
    def pitcher(self) -> str | None:
        return self.auction.high_seat if self.auction.over else None

    @property
    def bid(self) -> int | None:
        return self.auction.high if self.auction.over and self.auction.high_seat else None

    @property
    def trump_named(self) -> bool:
        """True where the pitcher names trump (draw, six players, no trump on the first trick)."""
        return self.rules.names_trump

    @property
    def to_act(self) -> str | None:
        if self._phase == AUCTION:
            return self.auction.to_act
        if self._phase == TRUMP:
            return self.pitcher
        if self._phase == DISCARD:
            return self._discard_order[self._discard_turn]
        if self._phase == PLAY:
            if self.current_trick:
                return self.rules.next_seat(self.current_trick[-1][0])
            return self._leader
        return None

    @property
    def is_over(self) -> bool:
        return self._phase == OVER

    def hand(self, seat: str) -> list[str]:
        """``seat``'s current holding, in display order."""
        return sort_cards(self._hands[seat])

    @property
    def plays(self) -> list[str]:
        """Every card played so far, in order (a winning pitch is the first)."""
        cards = [card for trick in self.tricks for _, card in trick.cards]
        return cards + [card for _, card in self.current_trick]

    @property
    def stock_remaining(self) -> list[str]:
        return list(self.stock[self._stock_next :])

    @property
    def leader(self) -> str | None:
        """Who leads (or led) the current trick."""
        if self.current_trick:
            return self.current_trick[0][0]
        return self._leader

    def holder_of(self, card: str) -> str | None:
        for seat, cards in self._hands.items():
            if card in cards:
                return seat
        return None

    # ------------------------------------------------------------------ legal actions
    def legal_actions(self) -> list[str]:
        """Every legal token for ``to_act`` (auction calls, suits, discard tokens or cards)."""
        seat = self.to_act
        if seat is None:
            return []
        if self._phase == AUCTION:
            return self.auction.legal_calls(self._hands[seat])
        if self._phase == TRUMP:
            return list(SUITS)
        if self._phase == DISCARD:
            return self._discard_tokens(seat)
        return playable(
            self.rules, self._hands[seat], self.current_trick, self.trump, len(self.tricks)
        )

    def discardable(self, seat: str) -> list[str]:
        """The cards ``seat`` may discard now (docs/rules.md: the ``legal`` command's discard list)."""
        if self._phase != DISCARD or seat in self.discards:
            return []
        assert self.rules.discard_kind is not None  # only rules with discards have the phase
        return discardable(
            self.rules.discard_kind, self._hands[seat], self.trump, self._draw_limit()
        )

    def _draw_limit(self) -> int:
        # Decided: a player may discard only as many as the stock can still replace, so every
        # hand stays at six (this bites with many cutthroat players).
        return len(self.stock) - self._stock_next

    def _discard_tokens(self, seat: str) -> list[str]:
        assert self.rules.discard_kind is not None  # only rules with discards have the phase
        return discard_tokens(
            self.rules.discard_kind, self._hands[seat], self.trump, self._draw_limit()
        )

    # ------------------------------------------------------------------ applying actions
    def apply(self, token: str, seat: str | None = None) -> None:
        """Play ``token`` for the seat to act (or check that ``seat`` is that seat).

        Raises :class:`IllegalAction` saying why, and then nothing has changed.
        """
        actor = self.to_act
        if not isinstance(token, str):
            raise IllegalAction(repr(token), seat or actor, "an action is a string token")
        if actor is None:
            why = "the deal was thrown in" if self.thrown_in else "the deal is over"
            raise IllegalAction(token, seat, why)
        if seat is not None and seat != actor:
            raise IllegalAction(token, seat, f"not your turn ({actor} is to act)")
        if self._phase == AUCTION:
            self._apply_call(actor, token)
        elif self._phase == TRUMP:
            self._apply_trump(actor, token)
        elif self._phase == DISCARD:
            cards = parse_discard_token(token)
            if cards is None:
                raise IllegalAction(
                    token, actor, "expected a discard: discard:<cards, comma-joined>"
                )
            self.discard(actor, cards, token=token)
        else:
            self._apply_play(actor, token)

    def _apply_call(self, seat: str, token: str) -> None:
        problem = self.auction.problem(seat, token, self._hands[seat])
        if problem:
            raise IllegalAction(token, seat, problem)
        self.auction.apply(seat, token)
        self.history.append((seat, token))
        if self.auction.over:
            self._start_after_auction()

    def _start_after_auction(self) -> None:
        auction = self.auction
        if auction.all_passed:
            self._phase = OVER  # thrown in: the next dealer deals
            return
        pitcher = auction.high_seat
        assert pitcher is not None  # someone bid: the deal was not thrown in
        card = auction.winning_pitch
        if card is not None:
            # The winning pitch is the opening lead (and plays[0] in the record).
            self._hands[pitcher].discard(card)
            self.trump = suit_of(card)
            self._leader = pitcher
            self.current_trick = [(pitcher, card)]
            self._phase = PLAY
        elif self.rules.names_trump:
            self._phase = TRUMP
        else:
            self._leader = pitcher
            self._phase = PLAY

    def _apply_trump(self, seat: str, token: str) -> None:
        if token not in SUITS:
            raise IllegalAction(token, seat, "name a suit: S, H, D or C")
        self.trump = token
        self.history.append((seat, token))
        self._leader = self.pitcher
        self._phase = DISCARD if self.rules.discard_kind else PLAY

    def discard(self, seat: str, cards: Sequence[str], token: str | None = None) -> None:
        """Discard ``cards`` for ``seat`` (the seat to act); ``apply("discard:...")`` calls this."""
        token = token if token is not None else str(Action.discard(cards))
        if self._phase != DISCARD or seat != self.to_act:
            raise IllegalAction(token, seat, f"not your turn ({self.to_act} is to act)")
        problem = self._discard_problem(seat, cards)
        if problem:
            raise IllegalAction(token, seat, problem)
        hand = self._hands[seat]
        hand.difference_update(cards)
        self.discards[seat] = sort_cards(cards)
        if self.rules.discard_kind == "draw":
            # The dealer refills this hand to six from the front of the stock at once, before
            # the next player discards (decided).
            drawn = self.stock[self._stock_next : self._stock_next + len(cards)]
            self._stock_next += len(cards)
            hand.update(drawn)
        self.history.append((seat, discard_token(cards)))
        self._discard_turn += 1
        if self._discard_turn == len(self._discard_order):
            self._phase = PLAY

    def _discard_problem(self, seat: str, cards: Sequence[str]) -> str | None:
        hand = self._hands[seat]
        seen: set[str] = set()
        for card in cards:
            if not is_card(card):
                return f"unknown card {card!r}"
            if card in seen:
                return f"{card} is discarded twice"
            seen.add(card)
            if card not in hand:
                return f"{card} is not in {seat}'s hand"
            if self.rules.discard_kind == "draw" and suit_of(card) == self.trump:
                return f"{card} is a trump: only non-trumps may be discarded"
        if self.rules.discard_kind == "two":
            # Six players: exactly two cards, any cards, trumps too (decided).
            if len(cards) != 2:
                return f"must discard exactly 2 cards, not {len(cards)}"
        elif len(cards) > self._draw_limit():
            return f"{len(cards)} cards, but the stock can replace only {self._draw_limit()}"
        return None

    def _apply_play(self, seat: str, card: str) -> None:
        problem = self._play_problem(seat, card)
        if problem:
            raise IllegalAction(card, seat, problem)
        if self.trump is None:
            self.trump = suit_of(card)  # the pitcher's opening lead sets trump
        self._hands[seat].discard(card)
        self.current_trick.append((seat, card))
        self.history.append((seat, card))
        if len(self.current_trick) == len(self.rules.seats):
            winner = trick_winner(self.current_trick, self.trump)
            self.tricks.append(Trick(self.current_trick[0][0], tuple(self.current_trick), winner))
            self.current_trick = []
            self._leader = winner
            if len(self.tricks) == self.rules.tricks_per_deal:
                self._phase = OVER

    def _play_problem(self, seat: str, card: str) -> str | None:
        if not is_card(card):
            if card.startswith(PITCH_PREFIX) or card == PASS:
                return "the auction is over"
            return "unknown card"
        if card not in self._hands[seat]:
            if card in self.plays:
                return "already played"
            holder = self.holder_of(card)
            if holder is not None:
                return f"not in {seat}'s hand ({holder} holds it; {seat} is to play)"
            if card in self.discards.get(seat, ()):
                return f"not in {seat}'s hand (discarded)"
            return f"not in {seat}'s hand"
        return play_problem(
            self.rules, self._hands[seat], card, self.current_trick, self.trump, len(self.tricks)
        )

    # ------------------------------------------------------------------ results and views
    def result(self) -> DealResult:
        """The finished deal's result; raises ValueError while the deal is in progress."""
        if self._phase != OVER:
            raise ValueError("the deal is not over")
        if self.thrown_in:
            return thrown_in_result(self.rules, self.dealer)
        assert self.pitcher is not None and self.bid is not None and self.trump is not None
        return score_deal(self.rules, self.dealer, self.pitcher, self.bid, self.trump, self.tricks)

    def voids(self) -> dict[str, frozenset[str]]:
        """The voids every seat's plays have proven so far (public knowledge)."""
        tricks = [t.cards for t in self.tricks] + [tuple(self.current_trick)]
        found = proven_voids(self.rules, tricks, self.trump)
        return {seat: frozenset(found.get(seat, ())) for seat in self.rules.seats}

    def observation(self, seat: str, match_totals: Mapping[str, int] | None = None) -> Observation:
        """What ``seat`` may know now, and nothing else (see observation.py)."""
        return Observation.of(self, seat, match_totals)

    def __repr__(self) -> str:
        return f"<Deal {self.rules.preset} dealer={self.dealer} phase={self._phase} to_act={self.to_act} v{self.version}>"


# ---------------------------------------------------------------------- checking the cards
def _check_hands(rules: Rules, hands: Mapping[str, Sequence[str]]) -> dict[str, tuple[str, ...]]:
    if not isinstance(hands, Mapping):
        raise RecordError("hands: expected an object of seat -> list of cards")
    for key in hands:
        if key not in rules.seats:
            raise RecordError(f"hands.{key}: not a seat at this table ({' '.join(rules.seats)})")
    seen: dict[str, str] = {}
    checked = {}
    for seat in rules.seats:
        if seat not in hands:
            raise RecordError(f"hands.{seat}: missing")
        cards = hands[seat]
        if not isinstance(cards, (list, tuple)):
            raise RecordError(f"hands.{seat}: expected a list of cards")
        for i, card in enumerate(cards):
            if not is_card(card):
                raise RecordError(
                    f"hands.{seat}[{i}] {card if isinstance(card, str) else repr(card)}: unknown card"
                )
            if card in seen:
                raise RecordError(
                    f"hands.{seat}[{i}] {card}: dealt twice (also in hands.{seen[card]})"
                )
            seen[card] = seat
        if len(cards) != rules.hand_size:
            raise RecordError(f"hands.{seat}: {len(cards)} cards, expected {rules.hand_size}")
        checked[seat] = tuple(cards)
    return checked


def _check_stock(
    rules: Rules, hands: Mapping[str, Sequence[str]], stock: Sequence[str] | None
) -> tuple[str, ...]:
    dealt = {card: seat for seat, cards in hands.items() for card in cards}
    undealt = [card for card in DISPLAY_ORDER if card not in dealt]
    if stock is None:
        return tuple(undealt)
    if not isinstance(stock, (list, tuple)):
        raise RecordError("stock: expected a list of cards")
    seen: set[str] = set()
    for i, card in enumerate(stock):
        if not is_card(card):
            raise RecordError(
                f"stock[{i}] {card if isinstance(card, str) else repr(card)}: unknown card"
            )
        if card in dealt:
            raise RecordError(f"stock[{i}] {card}: also dealt (hands.{dealt[card]})")
        if card in seen:
            raise RecordError(f"stock[{i}] {card}: twice in the stock")
        seen.add(card)
    if len(stock) != len(undealt):
        raise RecordError(
            f"stock: {len(stock)} cards, expected {len(undealt)} (every undealt card)"
        )
    return tuple(stock)


__all__ = [
    "AUCTION",
    "CODES",
    "DISCARD",
    "Deal",
    "OVER",
    "PHASES",
    "PLAY",
    "TRUMP",
    "call_value",
    "discard_token",
    "parse_discard_token",
]
