"""What one seat may know: the information-state view a player (or a bot) decides from.

An :class:`Observation` holds the seat's own hand and discards, the public record of the deal
(the auction, the trump, every card played and by whom, each seat's card count, the stock's
size, how many cards each seat discarded) and what the play has proven about voids. It never
holds another seat's unplayed card, except a pitch taken over in the auction, which every
player saw (it is part of the auction). It can list the seat's legal actions by itself, which
always equal ``deal.legal_actions()`` when it is that seat's turn.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .auction import Auction
from .cards import DISPLAY_ORDER, SUITS, sort_cards
from .discards import discard_tokens
from .phases import AUCTION, DISCARD, PLAY, TRUMP
from .play import playable
from .rules import Rules
from .scoring import Trick

if TYPE_CHECKING:
    from .deal import Deal  # noqa: F401


def _frozen(mapping: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class Observation:
    rules: Rules
    seat: str
    dealer: str
    phase: str
    to_act: str | None
    hand: tuple[str, ...]  # display order
    calls: tuple[tuple[str, str], ...]  # the auction, (seat, token) in order
    pitcher: str | None
    bid: int | None
    trump: str | None
    tricks: tuple[Trick, ...]  # completed tricks
    current_trick: tuple[tuple[str, str], ...]
    hand_sizes: Mapping[str, int]
    voids: Mapping[str, frozenset[str]]
    discards: tuple[str, ...]  # this seat's own discards
    discard_counts: Mapping[str, int]  # how many each seat discarded (public)
    stock_size: int
    match_totals: Mapping[str, int] | None = None

    def __reduce__(self) -> tuple[Callable[[dict[str, Any]], Observation], tuple[dict[str, Any]]]:
        # Read-only mappings do not pickle; an observation sent to another process (the web
        # process's search pool, games/core/dispatch.py) is rebuilt from plain dicts.
        values = {name: getattr(self, name) for name in self.__dataclass_fields__}
        for name in _MAPPING_FIELDS:
            if values[name] is not None:
                values[name] = dict(values[name])
        return _rebuilt_observation, (values,)

    @classmethod
    def of(
        cls, deal: Deal, seat: str, match_totals: Mapping[str, int] | None = None
    ) -> Observation:
        if seat not in deal.rules.seats:
            raise ValueError(f"{seat!r} is not a seat at this table")
        return cls(
            rules=deal.rules,
            seat=seat,
            dealer=deal.dealer,
            phase=deal.phase,
            to_act=deal.to_act,
            hand=tuple(deal.hand(seat)),
            calls=tuple(deal.auction.calls),
            pitcher=deal.pitcher,
            bid=deal.bid,
            trump=deal.trump,
            tricks=tuple(deal.tricks),
            current_trick=tuple(deal.current_trick),
            hand_sizes=_frozen({s: len(deal.hand(s)) for s in deal.rules.seats}),
            voids=_frozen(deal.voids()),
            discards=tuple(deal.discards.get(seat, ())),
            discard_counts=_frozen({s: len(cards) for s, cards in deal.discards.items()}),
            stock_size=len(deal.stock_remaining),
            match_totals=None if match_totals is None else _frozen(match_totals),
        )

    # ------------------------------------------------------------------ derived knowledge
    @property
    def side(self) -> str:
        return self.rules.side_of(self.seat)

    @property
    def is_my_turn(self) -> bool:
        return self.to_act == self.seat

    @property
    def played(self) -> list[str]:
        """Every card played so far, in order."""
        return [card for t in self.tricks for _, card in t.cards] + [
            card for _, card in self.current_trick
        ]

    @property
    def trick_number(self) -> int:
        return len(self.tricks)

    @property
    def unseen(self) -> list[str]:
        """The cards this seat has not seen (display order): the other hands, the stock and
        the others' discards are among them; a determinization deals from these."""
        seen = set(self.hand) | set(self.discards) | set(self.played)
        return [card for card in DISPLAY_ORDER if card not in seen]

    def legal_actions(self) -> list[str]:
        """This seat's legal actions now ([] when it is not its turn)."""
        if not self.is_my_turn:
            return []
        rules = self.rules
        if self.phase == AUCTION:
            return Auction.replay(rules, self.dealer, self.calls).legal_calls(self.hand)
        if self.phase == TRUMP:
            return list(SUITS)
        if self.phase == DISCARD:
            assert rules.discard_kind is not None  # only rules with discards come here
            return discard_tokens(rules.discard_kind, self.hand, self.trump, self.stock_size)
        if self.phase == PLAY:
            return playable(rules, self.hand, self.current_trick, self.trump, len(self.tricks))
        return []

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_spec(),
            "seat": self.seat,
            "dealer": self.dealer,
            "phase": self.phase,
            "to_act": self.to_act,
            "hand": list(self.hand),
            "auction": [token for _, token in self.calls],
            "pitcher": self.pitcher,
            "bid": self.bid,
            "trump": self.trump,
            "tricks": [t.to_json() for t in self.tricks],
            "current_trick": [[s, c] for s, c in self.current_trick],
            "hand_sizes": dict(self.hand_sizes),
            "voids": {s: sort_suits(v) for s, v in self.voids.items()},
            "discards": list(self.discards),
            "discard_counts": dict(self.discard_counts),
            "stock_size": self.stock_size,
            "match_totals": None if self.match_totals is None else dict(self.match_totals),
        }


def sort_suits(suits: Collection[str]) -> list[str]:
    return [s for s in SUITS if s in suits]


__all__ = ["Observation", "sort_cards"]


_MAPPING_FIELDS = ("hand_sizes", "voids", "discard_counts", "match_totals")


def _rebuilt_observation(values: dict[str, Any]) -> Observation:
    for name in _MAPPING_FIELDS:
        if values[name] is not None:
            values[name] = _frozen(values[name])
    return Observation(**values)
