"""How honest the coach's chances are: calibration on self-play deals at the hard level.

Every seat is the hard bot, and at every decision with a choice the coach's advice is asked
for; its first option is the move played (it is the hard bot's move), and that option's stated
chances are kept beside what then happened:

- ``make``: the chance of making the bid, stated when a seat made the bid that became the
  contract (the chance is conditional on holding the contract, so only then is it tested);
- ``high``, ``low``, ``jack``, ``game``: the chance that the seat's side takes each point, at
  every decision.

Chances are grouped by tenths (0-0.1, ..., 0.9-1); per tenth the mean stated chance beside the
frequency that happened; the expected calibration error (ECE) is the mean gap weighted by the
share of decisions in each tenth. Each decision is also checked for a contradiction: a higher
bid planning the same trump said to be more likely made than a lower one.

The stated chances are the coach's, mapped by ``chances`` (honest chances); with ``raw`` they
are the search's own, and ``fit_knots`` fits that map on them. ``ece_interval`` resamples whole
deals to show how much of an ECE is sampling noise.

Pure Python (no Django): the management command ``coach_calibration`` prints it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import AUCTION, Deal, Rules, bots
from ..bots import seats as seat_models_
from ..bots import styles
from . import outsider
from .advice import Option, advise
from .chances import honest

# Who the coach's side plays against: "self" (every seat is the coach: self-play), an outside
# greedy rule-based player ("greedy", coach/outsider.py), or the site's bots by level.
OPPONENTS = ("self", "greedy", "easy", "medium", "hard")

KINDS = ("make", "high", "low", "jack", "game")
POINTS = ("high", "low", "jack", "game")
BINS = 10
# A tenth's frequency is pulled toward its stated mean by this many decisions when a map is
# fitted, so a thin tenth barely moves the map.
PRIOR = 20


@dataclass
class Bin:
    count: int = 0
    stated: float = 0.0  # sum of the stated chances
    happened: int = 0

    def row(self, low: float) -> dict[str, Any]:
        return {
            "tenth": f"{low:.1f}-{low + 1 / BINS:.1f}",
            "n": self.count,
            "stated": round(self.stated / self.count, 3) if self.count else None,
            "happened": round(self.happened / self.count, 3) if self.count else None,
        }


@dataclass
class Calibration:
    bins: dict[str, list[Bin]] = field(
        default_factory=lambda: {kind: [Bin() for _ in range(BINS)] for kind in KINDS}
    )
    decisions: int = 0
    bid_decisions: int = 0
    contradictions: list[dict[str, Any]] = field(default_factory=list)
    deals: int = 0
    records: list[tuple[int, str, float, bool]] = field(
        default_factory=list
    )  # (deal, kind, stated, happened)
    raw: bool = False  # the search's own chances, not the coach's (set by from_saved)

    def add(self, kind: str, stated: float, happened: bool) -> None:
        self.records.append((self.deals, kind, stated, bool(happened)))
        _put(self.bins[kind], stated, happened)

    @classmethod
    def from_saved(cls, saved: Iterable[dict[str, Any]]) -> Calibration:
        """The measure of deals saved by ``run(save=...)``, maybe by several runs. A deal saved
        twice (the same seed and number) is refused, not counted twice; so are raw and coach
        chances mixed, and anything that is not a saved deal."""
        cal = cls()
        seen: set[tuple[int, int]] = set()
        kinds_of_chance: set[bool] = set()
        for item in saved:
            try:
                key = (int(item["seed"]), int(item["deal"]))
                kinds_of_chance.add(bool(item["raw"]))
                records = [(str(k), float(s), bool(h)) for k, s, h in item["records"]]
                decisions, bid_decisions = int(item["decisions"]), int(item["bid_decisions"])
                found = list(item["contradictions"])
            except (KeyError, TypeError, ValueError) as error:
                raise ValueError(f"not a saved deal: {error!r}") from error
            if key in seen:
                raise ValueError(f"deal {key[1]} of seed {key[0]} is saved twice")
            if len(kinds_of_chance) > 1:
                raise ValueError("raw and coach chances are mixed")
            if any(k not in KINDS or not 0.0 <= s <= 1.0 for k, s, _ in records):
                raise ValueError(f"deal {key[1]} of seed {key[0]}: a record is out of range")
            seen.add(key)
            cal.decisions += decisions
            cal.bid_decisions += bid_decisions
            cal.contradictions += found
            for kind, stated, happened in records:
                cal.add(kind, stated, happened)
            cal.deals += 1
        cal.raw = kinds_of_chance == {True}
        return cal

    def mapped(self, knots: Mapping[str, tuple[tuple[float, float], ...]]) -> Calibration:
        """These deals' chances as a map through ``knots`` (per kind; a kind without knots kept)
        would have stated them: a map changes no move, so it is what a coach with that map
        said in the same deals."""
        cal = Calibration(
            decisions=self.decisions,
            bid_decisions=self.bid_decisions,
            contradictions=list(self.contradictions),
            deals=self.deals,
            raw=self.raw,
        )
        for deal, kind, stated, happened in self.records:
            if knots.get(kind):
                stated = honest(kind, stated, knots)
            cal.records.append((deal, kind, stated, happened))
            _put(cal.bins[kind], stated, happened)
        return cal

    def ece(self, kind: str) -> float | None:
        return _ece(self.bins[kind])

    def ece_interval(
        self, kind: str, draws: int = 200, seed: int = 0
    ) -> tuple[float, float] | None:
        """A 90% interval of the ECE over resampled deals (each deal drawn whole, since the
        chances of one deal's decisions rise and fall together)."""
        by_deal: dict[int, list[tuple[float, bool]]] = {}
        for deal, k, stated, happened in self.records:
            if k == kind:
                by_deal.setdefault(deal, []).append((stated, happened))
        groups = list(by_deal.values())
        if not groups:
            return None
        rng = random.Random(seed)
        values = []
        for _ in range(draws):
            bins = [Bin() for _ in range(BINS)]
            for _ in groups:
                for stated, happened in rng.choice(groups):
                    _put(bins, stated, happened)
            value = _ece(bins)
            assert value is not None  # every deal drawn holds decisions of this kind
            values.append(value)
        values.sort()
        return values[int(0.05 * draws)], values[min(draws - 1, math.ceil(0.95 * draws))]

    def noise_floor(self, kind: str, draws: int = 200, seed: int = 0) -> float | None:
        """The mean ECE if every stated chance were exactly right: what this sample's size alone
        gives."""
        stated = [s for _, k, s, _ in self.records if k == kind]
        if not stated:
            return None
        rng = random.Random(seed)
        total = 0.0
        for _ in range(draws):
            bins = [Bin() for _ in range(BINS)]
            for s in stated:
                _put(bins, s, rng.random() < s)
            value = _ece(bins)
            assert value is not None  # every stated chance is put in a tenth
            total += value
        return total / draws

    def fit_knots(self, kind: str) -> tuple[tuple[float, float], ...]:
        """Knots (stated, happened) of a non-decreasing map, for ``chances.KNOTS``: per tenth
        of the stated chances strictly between 0 and 1 (0 and 1 stay put), the frequency pulled
        toward the stated mean by ``PRIOR`` decisions, then adjacent tenths that fall pooled."""
        bins = [Bin() for _ in range(BINS)]
        for _, k, stated, happened in self.records:
            if k == kind and 0.0 < stated < 1.0:
                _put(bins, stated, happened)
        blocks: list[list[float]] = []  # [count, sum of stated, sum of shrunk frequency * count]
        for b in bins:
            if not b.count:
                continue
            mean = b.stated / b.count
            shrunk = (b.happened + PRIOR * mean) / (b.count + PRIOR)
            blocks.append([b.count, b.stated, shrunk * b.count])
            while len(blocks) > 1 and blocks[-2][2] / blocks[-2][0] > blocks[-1][2] / blocks[-1][0]:
                count, stated_sum, happened_sum = blocks.pop()
                blocks[-1][0] += count
                blocks[-1][1] += stated_sum
                blocks[-1][2] += happened_sum
        return tuple((round(s / n, 3), round(h / n, 3)) for n, s, h in blocks)

    def report(self) -> dict[str, Any]:
        return {
            "deals": self.deals,
            "decisions": self.decisions,
            "bid_decisions": self.bid_decisions,
            "contradictions": self.contradictions,
            "kinds": {
                kind: {
                    "n": sum(b.count for b in self.bins[kind]),
                    "ece": _rounded(self.ece(kind)),
                    "ece_90": _rounded(self.ece_interval(kind)),
                    "noise_floor": _rounded(self.noise_floor(kind)),
                    "tenths": [b.row(i / BINS) for i, b in enumerate(self.bins[kind])],
                }
                for kind in KINDS
            },
        }


def _put(bins: list[Bin], stated: float, happened: bool) -> None:
    b = bins[min(BINS - 1, int(stated * BINS))]
    b.count += 1
    b.stated += stated
    b.happened += int(happened)


def _ece(bins: list[Bin]) -> float | None:
    total = sum(b.count for b in bins)
    if not total:
        return None
    return sum(abs(b.stated - b.happened) for b in bins if b.count) / total


def _rounded(
    value: float | tuple[float, ...] | None,
) -> float | tuple[float, ...] | None:
    if value is None:
        return None
    if isinstance(value, tuple):
        return tuple(round(v, 4) for v in value)
    return round(value, 4)


def contradictions(options: Sequence[Option]) -> list[tuple[str, str]]:
    """Pairs (lower bid, higher bid) planning the same trump where the higher bid is said to be
    more likely made."""
    bids = []
    for option in options:
        figures = option.figures
        if option.action.isdigit() and figures.get("p_make") is not None:
            bids.append((int(option.action), figures.get("suit"), figures["p_make"], option.action))
    found = []
    for low_bid, suit, p_low, low_action in bids:
        for high_bid, other_suit, p_high, high_action in bids:
            if high_bid > low_bid and suit == other_suit and p_high > p_low + 1e-9:
                found.append((low_action, high_action))
    return found


def run(
    rules: Rules | str,
    deals: int,
    seed: int = 1,
    budget: int | None = None,
    progress: Callable[[int], None] | None = None,
    raw: bool = False,
    save: Callable[[dict[str, Any]], None] | None = None,
    opponents: str = "self",
    seated: bool = False,
) -> Calibration:
    """Play ``deals`` deals and measure. ``opponents``: "self" (every seat takes the coach's
    first option), or one side (alternating by deal) is the coach and the other is played by
    ``opponents``: the outside greedy player or a bot level; only the coach's side's chances
    are measured. ``seated``: the coach is told who sits at the table (``bots.seats``), as the
    site's coach is; without it every seat is played in its worlds by the playout policy.
    ``save``, if given, receives each deal's figures as it ends (a dict that
    ``Calibration.from_saved`` reads back), so a long run split over processes, or stopped
    early, still counts every deal it finished."""
    if opponents not in OPPONENTS:
        raise ValueError(f"opponents: one of {', '.join(OPPONENTS)}")
    rules = Rules.from_spec(rules)
    rng = random.Random(seed)
    cal = Calibration()
    # The outside player's cards so far, per seat: the coach learns its style as it would a
    # person's at the site, from the deals before (bots/styles.py).
    learned = {seat: styles.Tally() for seat in rules.seats}
    while cal.deals < deals:
        before = (cal.decisions, cal.bid_decisions, len(cal.contradictions), len(cal.records))
        deal = Deal.new(rules, rules.seats[cal.deals % len(rules.seats)], rng)
        coached = (
            set(rules.seats)
            if opponents == "self"
            else set(rules.seats_of(rules.side_of(rules.seats[cal.deals % 2])))
        )
        models = table_models(rules, coached, opponents, learned) if seated else None
        stated = _play_advised(cal, deal, rng, budget, raw, coached, opponents, models)
        cal.deals += 1
        if opponents == "greedy":
            for seat in set(rules.seats) - coached:
                learned[seat].add_deal(deal, seat)
        _count_what_happened(cal, deal, stated)
        if save is not None:
            save(
                {
                    "seed": seed,
                    "deal": cal.deals - 1,
                    "raw": raw,
                    "opponents": opponents,
                    "seated": seated,
                    "decisions": cal.decisions - before[0],
                    "bid_decisions": cal.bid_decisions - before[1],
                    "contradictions": cal.contradictions[before[2] :],
                    "records": [[k, s, h] for _, k, s, h in cal.records[before[3] :]],
                }
            )
        if progress is not None:
            progress(cal.deals)
    return cal


def table_models(
    rules: Rules,
    coached: set[str],
    opponents: str,
    learned: dict[str, styles.Tally] | None = None,
) -> dict[str, str]:
    """What the coach is told sits at each seat: its own side the hard level (the coach plays
    it), the others their level, the outside player as a person of the style ``learned`` from
    its play so far (``seats.PERSON_MODEL`` before enough of it)."""
    models = {}
    for seat in rules.seats:
        if seat in coached or opponents == "self":
            models[seat] = "hard"
        elif opponents == "greedy":
            style = learned[seat].style() if learned else ""
            models[seat] = seat_models_.model_of_seat("person", style)
        else:
            models[seat] = seat_models_.model_of_seat("bot", opponents)
    return models


def _play_advised(
    cal: Calibration,
    deal: Deal,
    rng: random.Random,
    budget: int | None,
    raw: bool,
    coached: set[str] | None = None,
    opponents: str = "self",
    models: dict[str, str] | None = None,
) -> list[tuple[str, str, float, str]]:
    """Play ``deal`` to its end with every coached seat taking the coach's first option (the
    others by ``opponents``; the coach told ``models``, who sits where), counting the decisions
    and the contradictions; returns the chances stated on the way, as (seat, kind, chance, the
    action it was stated for)."""
    coached = set(deal.rules.seats) if coached is None else coached
    stated = []
    while not deal.is_over:
        seat = deal.to_act
        assert seat is not None  # a deal not over has a seat to act
        obs = deal.observation(seat)
        legal = obs.legal_actions()
        if len(legal) == 1:
            deal.apply(legal[0], seat)
            continue
        if seat not in coached:
            if opponents == "greedy":
                deal.apply(outsider.choose(obs), seat)
            else:
                deal.apply(bots.choose(obs, opponents, seed=rng.getrandbits(32)), seat)
            continue
        options = advise(obs, seed=rng.getrandbits(32), budget=budget, raw=raw, seat_models=models)
        chosen = options[0]
        cal.decisions += 1
        if obs.phase == AUCTION:
            cal.bid_decisions += 1
            cal.contradictions += [
                {"deal": cal.deals, "seat": seat, "lower": low, "higher": high}
                for low, high in contradictions(options)
            ]
            if chosen.action != "pass" and chosen.figures.get("p_make") is not None:
                stated.append((seat, "make", chosen.figures["p_make"], chosen.action))
        for point in POINTS:
            stated.append((seat, point, chosen.figures[f"p_{point}"], chosen.action))
        deal.apply(chosen.action, seat)
    return stated


def _count_what_happened(
    cal: Calibration, deal: Deal, stated: list[tuple[str, str, float, str]]
) -> None:
    """Each stated chance beside what happened in the finished deal."""
    result = deal.result()
    for seat, kind, chance, action in stated:
        if kind == "make":
            # Tested only for the bid that became the contract (never in a thrown-in deal).
            if (
                not result.thrown_in
                and seat == result.pitcher
                and _is_winning_call(deal, seat, action)
            ):
                cal.add(kind, chance, bool(result.made))
        else:
            taker = None if result.thrown_in else result.points[kind]
            cal.add(kind, chance, taker is not None and taker == deal.rules.side_of(seat))


def _is_winning_call(deal: Deal, seat: str, action: str) -> bool:
    """The seat's call ``action`` is the last call it made (so the one that won the auction)."""
    mine = [token for who, token in deal.calls if who == seat]
    return bool(mine) and mine[-1] == action
