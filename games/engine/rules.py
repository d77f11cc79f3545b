"""Rules as a value: the four presets of docs/rules.md section 2 and the options of section 3.

``Rules.from_spec("classic")`` or ``Rules.from_spec({"preset": "auction", "players": 3})``
builds an immutable, hashable rules object; ``rules.to_spec()`` gives back the shortest spec.
Everything the engine needs to know about a table (seats, sides, which calls exist, how a suit
must be followed, how a match ends) is read from here, so no other module tests preset names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .errors import RulesError

PRESET_NAMES = ("house", "classic", "auction", "family")
OPTION_NAMES = (
    "low_to",
    "target",
    "players",
    "cutthroat",
    "draw",
    "pitch_to_bid",
    "no_trump_first_trick",
    "six_players",
)
TARGETS = (7, 11, 21)
LOW_TO = ("taker", "holder")

# How a suit must be followed (docs/rules.md section 2, "when a suit is led, you may").
FOLLOW_OR_TRUMP = "follow_or_trump"  # follow or trump; if void, anything
FOLLOW_ELSE_TRUMP = "follow_else_trump"  # follow if you can; else trump if you can; else anything

# How a match ends (see match.py).
END_HOUSE = "house"  # pitcher's side out at target by making its bid; target+4 wins; -6 loses
END_PITCHER_OUT = "pitcher_out"  # only the pitcher's side can win, by making its bid
END_COUNT_OUT = "count_out"  # anyone who reaches the target; ties counted out H, L, J, G

BID_VALUES = {"1": 1, "2": 2, "3": 3, "4": 4, "smudge": 5}
SMUDGE = 5


@dataclass(frozen=True)
class Preset:
    """The fixed character of a preset (the table in docs/rules.md section 2)."""

    name: str
    title: str
    calls: tuple[str, ...]
    four_ends_auction: bool
    dealer_steal: bool
    dealer_must_bid: bool  # all pass -> the dealer must bid (else the deal is thrown in)
    follow: str
    low_to: str
    target: int
    cutthroat: bool
    pitcher_only_wins: bool


PRESETS: dict[str, Preset] = {
    "house": Preset(
        name="house",
        title="House rules",
        calls=("pass", "2", "3", "4"),
        four_ends_auction=True,
        # (decided by docs/rules.md: seed 000 says every bid must be higher, so no steal)
        dealer_steal=False,
        dealer_must_bid=False,
        follow=FOLLOW_OR_TRUMP,
        low_to="taker",
        target=11,
        cutthroat=False,
        pitcher_only_wins=True,
    ),
    "classic": Preset(
        name="classic",
        title="Classic Setback",
        calls=("pass", "2", "3", "4", "smudge"),
        four_ends_auction=False,
        dealer_steal=True,
        dealer_must_bid=True,
        follow=FOLLOW_OR_TRUMP,
        low_to="taker",
        target=21,
        cutthroat=False,
        pitcher_only_wins=True,
    ),
    "auction": Preset(
        name="auction",
        title="Auction Pitch",
        calls=("pass", "2", "3", "4"),
        four_ends_auction=False,
        dealer_steal=True,
        dealer_must_bid=False,
        follow=FOLLOW_OR_TRUMP,
        low_to="holder",
        target=11,
        cutthroat=True,
        pitcher_only_wins=False,
    ),
    "family": Preset(
        name="family",
        title="Family Auction Pitch",
        calls=("pass", "1", "2", "3", "4"),
        four_ends_auction=False,
        dealer_steal=True,
        dealer_must_bid=False,
        follow=FOLLOW_ELSE_TRUMP,
        low_to="holder",
        target=7,
        cutthroat=True,
        pitcher_only_wins=False,
    ),
}

DEFAULT_PRESET = "house"
DEFAULT_CUTTHROAT_PLAYERS = 4
PARTNERSHIP_SEATS = ("N", "E", "S", "W")


def _check_bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise RulesError(f"option {name} must be true or false, not {value!r}")
    return value


def _spec_options(spec: Any) -> dict[str, Any]:
    """A spec as a dict of options (with its preset): None is house, a name is that preset."""
    if spec is None:
        spec = DEFAULT_PRESET
    if isinstance(spec, str):
        spec = {"preset": spec}
    if not isinstance(spec, dict):
        raise RulesError(f"rules must be a preset name or an object, not {spec!r}")
    return dict(spec)


def _seating(preset: Preset, options: dict[str, Any], six: bool) -> tuple[bool, Any]:
    """``(cutthroat, players)`` from a spec's options: the preset's seating unless they say."""
    if "cutthroat" in options:
        cutthroat = _check_bool("cutthroat", options["cutthroat"])
    else:
        # six_players asks for three partnerships, which overrides a cutthroat preset's
        # default (decided; an explicit "cutthroat": true with it is an error).
        cutthroat = preset.cutthroat and not six
    if "players" not in options:
        return cutthroat, 6 if six and not cutthroat else DEFAULT_CUTTHROAT_PLAYERS
    if not cutthroat:
        raise RulesError(
            "option players needs cutthroat (partnership tables have 4 seats; "
            "use six_players for three partnerships)"
        )
    if six:
        raise RulesError("six_players cannot be combined with players")
    return cutthroat, options["players"]


@dataclass(frozen=True)
class Rules:
    """One table's rules. Build it with :meth:`from_spec`; it is immutable and hashable.

    The fields are the preset's name and every option of docs/rules.md by its name; ``players`` is
    the number of seats at the table (4 or 6 in partnerships, 2..7 in cutthroat).
    """

    preset: str = DEFAULT_PRESET
    low_to: str = "taker"
    target: int = 11
    cutthroat: bool = False
    players: int = 4
    draw: bool = False
    pitch_to_bid: bool = False
    no_trump_first_trick: bool = False
    six_players: bool = False
    _preset: Preset = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        if self.preset not in PRESETS:
            raise RulesError(f"unknown preset {self.preset!r} (one of {', '.join(PRESET_NAMES)})")
        object.__setattr__(self, "_preset", PRESETS[self.preset])
        self._check_values()
        self._check_combinations()

    def _check_values(self) -> None:
        """Each option on its own: of its kind and in its range."""
        if self.low_to not in LOW_TO:
            raise RulesError(f"option low_to must be 'taker' or 'holder', not {self.low_to!r}")
        if isinstance(self.target, bool) or self.target not in TARGETS:
            raise RulesError(f"option target must be 7, 11 or 21, not {self.target!r}")
        for name in ("cutthroat", "draw", "pitch_to_bid", "no_trump_first_trick", "six_players"):
            _check_bool(name, getattr(self, name))
        if isinstance(self.players, bool) or not isinstance(self.players, int):
            raise RulesError(f"option players must be a whole number, not {self.players!r}")

    def _check_combinations(self) -> None:
        """Options that cannot be combined (docs/rules-decisions.md "Option combinations"), and
        the number of players each seating allows."""
        if self.pitch_to_bid:
            for other in ("draw", "six_players", "no_trump_first_trick"):
                if getattr(self, other):
                    raise RulesError(
                        f"pitch_to_bid cannot be combined with {other}: there the pitcher "
                        "names trump instead of pitching it"
                    )
        if self.six_players:
            self._check_six_players()
        elif self.cutthroat:
            if not 2 <= self.players <= 7:
                raise RulesError(f"option players must be 2 to 7, not {self.players}")
        elif self.players != 4:
            raise RulesError("option players needs cutthroat (partnership tables have 4 seats)")

    def _check_six_players(self) -> None:
        if self.cutthroat:
            raise RulesError("six_players (three partnerships) cannot be combined with cutthroat")
        if self.draw:
            raise RulesError("six_players cannot be combined with draw")
        if self.players != 6:
            raise RulesError("six_players is a table of 6: players must be 6")

    # ----------------------------------------------------------------- building and spec
    @classmethod
    def from_spec(cls, spec: Any = None) -> Rules:
        """A preset name, a dict ``{"preset": ..., option: value}``, a Rules, or None (house)."""
        if isinstance(spec, Rules):
            return spec
        options = _spec_options(spec)
        name = options.pop("preset", DEFAULT_PRESET)
        if not isinstance(name, str) or name not in PRESETS:
            raise RulesError(f"unknown preset {name!r} (one of {', '.join(PRESET_NAMES)})")
        for key in options:
            if key not in OPTION_NAMES:
                raise RulesError(f"unknown option {key!r} (options: {', '.join(OPTION_NAMES)})")
        preset = PRESETS[name]
        six = _check_bool("six_players", options.get("six_players", False))
        cutthroat, players = _seating(preset, options, six)
        return cls(
            preset=name,
            low_to=options.get("low_to", preset.low_to),
            target=options.get("target", preset.target),
            cutthroat=cutthroat,
            players=players,
            draw=options.get("draw", False),
            pitch_to_bid=options.get("pitch_to_bid", False),
            no_trump_first_trick=options.get("no_trump_first_trick", False),
            six_players=six,
        )

    def to_spec(self) -> str | dict[str, Any]:
        """The shortest spec that builds these rules: the preset name if nothing differs."""
        preset = self._preset
        spec: dict[str, Any] = {"preset": self.preset}
        if self.low_to != preset.low_to:
            spec["low_to"] = self.low_to
        if self.target != preset.target:
            spec["target"] = self.target
        if self.cutthroat != (preset.cutthroat and not self.six_players):
            spec["cutthroat"] = self.cutthroat
        if self.cutthroat and self.players != DEFAULT_CUTTHROAT_PLAYERS:
            spec["players"] = self.players
        for name in ("draw", "pitch_to_bid", "no_trump_first_trick", "six_players"):
            if getattr(self, name):
                spec[name] = True
        return self.preset if len(spec) == 1 else spec

    # ----------------------------------------------------------------- the preset's character
    @property
    def calls(self) -> tuple[str, ...]:
        """The auction calls this preset allows (``pitch:XX`` comes on top with pitch_to_bid)."""
        return self._preset.calls

    @property
    def four_ends_auction(self) -> bool:
        return self._preset.four_ends_auction

    @property
    def dealer_steal(self) -> bool:
        return self._preset.dealer_steal

    @property
    def dealer_must_bid(self) -> bool:
        return self._preset.dealer_must_bid

    @property
    def smudge(self) -> bool:
        return "smudge" in self._preset.calls

    @property
    def follow(self) -> str:
        return self._preset.follow

    @property
    def pitcher_only_wins(self) -> bool:
        return self._preset.pitcher_only_wins

    @property
    def names_trump(self) -> bool:
        """The pitcher names trump after the auction instead of leading it."""
        return self.draw or self.six_players or self.no_trump_first_trick

    @property
    def discard_kind(self) -> str | None:
        """``"draw"`` (any number of non-trumps, refilled), ``"two"`` (six players), or None."""
        if self.draw:
            return "draw"
        if self.six_players:
            return "two"
        return None

    @property
    def hand_size(self) -> int:
        return 8 if self.six_players else 6

    @property
    def tricks_per_deal(self) -> int:
        return 6

    @property
    def end_rule(self) -> str:
        """How a match ends: see match.py. House's 15 and -6 apply to partnerships only."""
        if self.preset == "house" and not self.cutthroat:
            return END_HOUSE
        if self.pitcher_only_wins:
            return END_PITCHER_OUT
        return END_COUNT_OUT

    @property
    def win_regardless_at(self) -> int | None:
        """House: a side with this many wins whoever bid (15 at target 11; decided: target + 4
        for other targets, while -6 stays -6)."""
        return self.target + 4 if self.end_rule == END_HOUSE else None

    @property
    def lose_at(self) -> int | None:
        """House: a side at or below this loses at once."""
        return -6 if self.end_rule == END_HOUSE else None

    # ----------------------------------------------------------------- seats and sides
    @cached_property
    def seats(self) -> tuple[str, ...]:
        if not self.cutthroat and not self.six_players:
            return PARTNERSHIP_SEATS
        return tuple(f"P{i}" for i in range(1, self.players + 1))

    @cached_property
    def sides(self) -> tuple[str, ...]:
        if self.cutthroat:
            return self.seats
        if self.six_players:
            return ("P1P4", "P2P5", "P3P6")
        return ("NS", "EW")

    @cached_property
    def _side_by_seat(self) -> dict[str, str]:
        if self.cutthroat:
            return {seat: seat for seat in self.seats}
        n_sides = len(self.sides)
        return {seat: self.sides[i % n_sides] for i, seat in enumerate(self.seats)}

    def side_of(self, seat: str) -> str:
        try:
            return self._side_by_seat[seat]
        except KeyError:
            raise ValueError(
                f"{seat!r} is not a seat at this table ({' '.join(self.seats)})"
            ) from None

    def seats_of(self, side: str) -> tuple[str, ...]:
        return tuple(seat for seat in self.seats if self._side_by_seat[seat] == side)

    def partner_seats(self, seat: str) -> tuple[str, ...]:
        """The other seats on ``seat``'s side (empty in cutthroat)."""
        side = self.side_of(seat)
        return tuple(s for s in self.seats_of(side) if s != seat)

    def seat_index(self, seat: str) -> int:
        return self.seats.index(seat)

    def next_seat(self, seat: str) -> str:
        """The seat to ``seat``'s left: the next one clockwise."""
        return self.seats[(self.seats.index(seat) + 1) % len(self.seats)]

    def seats_from_left_of(self, dealer: str) -> tuple[str, ...]:
        """Every seat once, starting at the dealer's left and ending with the dealer."""
        i = self.seats.index(dealer)
        n = len(self.seats)
        return tuple(self.seats[(i + 1 + k) % n] for k in range(n))

    # ----------------------------------------------------------------- words
    def describe(self) -> str:
        """One line of English for the UI."""
        preset = self._preset
        if self.six_players:
            table = "6 players in three partnerships"
        elif self.cutthroat:
            table = f"{self.players} players, each for themselves"
        else:
            table = "4 players in two partnerships"
        bids = [c for c in self.calls if c != "pass"]
        parts = [f"{preset.title}: {table}", "bids " + ", ".join(bids)]
        if self.four_ends_auction:
            parts.append("a bid of 4 ends the auction")
        if self.dealer_steal:
            parts.append("the dealer may steal")
        parts.append(
            "the dealer must bid if the others pass"
            if self.dealer_must_bid
            else "all pass: thrown in"
        )
        parts.append(
            "follow suit, else trump"
            if self.follow == FOLLOW_ELSE_TRUMP
            else "follow suit or trump"
        )
        parts.append(f"Low to the {self.low_to}")
        if self.draw:
            parts.append("discard and draw")
        if self.pitch_to_bid:
            parts.append("pitching bids 4")
        if self.no_trump_first_trick:
            parts.append("no trumping the first trick")
        if self.six_players:
            parts.append("8 cards, discard 2")
        end = f"game to {self.target}"
        if self.end_rule == END_HOUSE:
            end += f" by making a bid ({self.target + 4} wins regardless, -6 loses)"
        elif self.end_rule == END_PITCHER_OUT:
            end += " by making a bid"
        parts.append(end)
        return "; ".join(parts)


# The seatings a person chooses between on the new-match form (and on the offline page): the
# preset's own, or one of these, each a setting of `cutthroat` and `six_players`.
SEATINGS = ("partnerships", "cutthroat", "six")


def spec_from_choices(
    preset: str,
    seating: str = "",
    players: int | None = None,
    target: int | None = None,
    low_to: str = "",
    switches: tuple[str, ...] | list[str] = (),
) -> dict[str, Any]:
    """The rules spec that a new-match form's choices name: a preset, a seating (``""`` for the
    preset's own), the options with choices (None or ``""`` for the preset's own) and the yes/no
    options switched on. Not checked here: ``Rules.from_spec`` says what cannot be combined."""
    spec: dict[str, Any] = {"preset": preset}
    if seating == "partnerships":
        spec["cutthroat"] = False
    elif seating == "cutthroat":
        spec["cutthroat"] = True
    elif seating == "six":
        spec["six_players"] = True
    elif seating:
        raise RulesError(f"unknown seating {seating!r}; expected one of {', '.join(SEATINGS)}")
    if players is not None:
        spec["players"] = players
    if target is not None:
        spec["target"] = target
    if low_to:
        spec["low_to"] = low_to
    for option in switches:
        spec[option] = True
    return spec
