"""Reading statistics: a user's figures from the summary rows, in a fixed number of queries.

Every figure is an aggregate over `DealSummary` (one row per seat per finished deal) or
`MatchRecord` (one row per rated player per finished match), so the page costs the same
handful of queries whether the user has played ten deals or ten thousand.
"""

from dataclasses import dataclass, field
from datetime import date, datetime, time

from django.db.models import Aggregate, Avg, Count, Exists, OuterRef, Q, Sum
from django.db.models.functions import TruncDate
from django.utils import timezone

from games.engine import PRESET_NAMES
from games.engine.wording import bid_label
from games.models import BotLevel, Match, Seat, preset_name

from .models import DealSummary, MatchRecord, Opponents, Rating, shown_rating

POINT_KINDS = (("high", "High"), ("low", "Low"), ("jack", "Jack"), ("game", "Game"))
LEVEL_ORDER = {level: n for n, level in enumerate(BotLevel.values)}
# The most points a history chart draws; longer histories keep every n-th match and the last.
CHART_POINTS = 200


@dataclass(frozen=True)
class Filters:
    preset: str = ""
    since: date | None = None
    until: date | None = None

    @property
    def active(self) -> bool:
        return bool(self.preset or self.since or self.until)

    def time_range(self) -> Q:
        """finished_at within [since, until], whole days in the site's time zone."""
        condition = Q()
        if self.since:
            condition &= Q(
                finished_at__gte=timezone.make_aware(datetime.combine(self.since, time.min))
            )
        if self.until:
            # The day's last instant, not the next day's first: 9999-12-31 has no next day.
            end = datetime.combine(self.until, time.max)
            condition &= Q(finished_at__lte=timezone.make_aware(end))
        return condition

    def rows(self) -> Q:
        return self.time_range() & (Q(preset=self.preset) if self.preset else Q())


def rate(part: int, whole: int) -> float | None:
    return part / whole if whole else None


@dataclass(frozen=True)
class Record:
    """Matches played and won under one heading (a preset, a kind of opponents, or all)."""

    label: str
    played: int
    won: int

    @property
    def win_rate(self) -> float | None:
        return rate(self.won, self.played)


@dataclass(frozen=True)
class BidLine:
    bid: int | None  # (set on every pitcher's row)
    count: int
    made: int
    average_points: float

    @property
    def label(self) -> str:
        return bid_label(self.bid)

    @property
    def made_rate(self) -> float:
        return self.made / self.count


@dataclass(frozen=True)
class PointLine:
    """How often the user's side took one of the four points, out of the deals it was there."""

    label: str
    taken: int
    out_of: int

    @property
    def rate(self) -> float | None:
        return rate(self.taken, self.out_of)


@dataclass(frozen=True)
class ChartPoint:
    label: str
    value: float


@dataclass(frozen=True)
class RatingView:
    shown: int
    matches: int
    history: list[ChartPoint]
    last_change: int | None


class BiddingRates:
    """The share of pitches made and of defences that set the pitcher, for figures that count
    `pitched`, `pitched_made`, `defended` and `sets`."""

    pitched: int
    pitched_made: int
    defended: int
    sets: int

    @property
    def pitched_made_rate(self) -> float | None:
        return rate(self.pitched_made, self.pitched)

    @property
    def set_rate(self) -> float | None:
        return rate(self.sets, self.defended)


@dataclass(frozen=True)
class OfflineFigures(BiddingRates):
    """The deals a person played in their browser and brought home (games/offline): counted
    apart from the site's own deals, and in no rating."""

    deals: int
    thrown_in: int
    average_points: float | None
    pitched: int
    pitched_made: int
    defended: int
    sets: int
    points: list[PointLine]


@dataclass
class PlayerStats(BiddingRates):
    filters: Filters
    matches: Record
    by_preset: list[Record]
    by_opponents: list[Record]
    by_company: list[
        Record
    ]  # with other people at the table (as opponents or partners), or only bots
    unfinished_matches: int
    deals: int
    thrown_in: int
    average_points: float | None
    bids: list[BidLine]
    pitched: int
    pitched_made: int
    defended: int
    sets: int
    points: list[PointLine]
    rating: RatingView | None
    bot_ratings: list[tuple[str, int]] = field(default_factory=list)
    coach_accuracy: list[ChartPoint] = field(default_factory=list)
    offline: OfflineFigures | None = None

    @property
    def scored_deals(self) -> int:
        return self.deals - self.thrown_in

    @property
    def empty(self) -> bool:
        return not self.deals and not self.matches.played and self.offline is None


def opponents_label(kind: str, levels: str) -> str:
    if kind == Opponents.PEOPLE:
        return "People"
    if kind == Opponents.MIXED:
        return "People and bots"
    names = levels.split(",")
    if len(names) == 1:
        return f"{names[0].title()} bots"
    return f"Bots ({', '.join(names)})"


def _opponents_order(key: tuple[str, str]) -> tuple:
    kind, levels = key
    kinds: list[str] = [Opponents.BOTS, Opponents.PEOPLE, Opponents.MIXED]
    level_rank = tuple(LEVEL_ORDER.get(level, 9) for level in levels.split(",") if level)
    return (kinds.index(kind), len(level_rank), level_rank)


def _match_records(
    user, filters: Filters
) -> tuple[Record, list[Record], list[Record], list[Record]]:
    """Won and played, overall, by preset and by kind of opponents: one grouped query."""
    # Another person at the table (an opponent or a partner) puts a match in the people record.
    other_person = Seat.objects.filter(match=OuterRef("match"), user__isnull=False).exclude(
        user=OuterRef("user")
    )
    groups = (
        MatchRecord.objects.filter(filters.rows(), user=user)
        .annotate(with_people=Exists(other_person))
        .values_list("preset", "opponents", "opponent_levels", "with_people")
        .annotate(played=Count("id"), won=Count("id", filter=Q(won=True)))
        .order_by()
    )
    by_preset: dict[str, list[int]] = {}
    by_opponents: dict[tuple[str, str], list[int]] = {}
    by_company = {True: [0, 0], False: [0, 0]}
    for preset, kind, levels, with_people, played, won in groups:
        for totals in (
            by_preset.setdefault(preset, [0, 0]),
            by_opponents.setdefault((kind, levels), [0, 0]),
            by_company[bool(with_people or kind != Opponents.BOTS)],
        ):
            totals[0] += played
            totals[1] += won
    company = [
        Record("With other people", *by_company[True]),
        Record("Only bots", *by_company[False]),
    ]
    played = sum(p for p, _ in by_preset.values())
    won = sum(w for _, w in by_preset.values())
    presets = sorted(by_preset, key=lambda p: PRESET_NAMES.index(p) if p in PRESET_NAMES else 99)
    return (
        Record("All matches", played, won),
        [Record(preset_name(preset), *by_preset[preset]) for preset in presets],
        [
            Record(opponents_label(*key), *by_opponents[key])
            for key in sorted(by_opponents, key=_opponents_order)
        ],
        [record for record in company if record.played],
    )


def _thin(points: list[ChartPoint]) -> list[ChartPoint]:
    if len(points) <= CHART_POINTS:
        return points
    step = -(-len(points) // CHART_POINTS)
    kept = points[::step]
    return kept if kept[-1] is points[-1] else kept + [points[-1]]


def _rating(user, filters: Filters, ratings: list[Rating]) -> RatingView | None:
    mine = next((row for row in ratings if row.user_id == user.pk), None)
    if mine is None:
        return None
    history = MatchRecord.objects.filter(filters.time_range(), user=user).order_by(
        "finished_at", "id"
    )
    # Only the ratings, and one date for the axis: a thousand datetimes cost more than the rest.
    ratings_after = list(history.values_list("mu_before", "mu"))
    if not ratings_after:
        return RatingView(mine.shown, mine.matches, [], None)
    last_day = timezone.localdate(history.values_list("finished_at", flat=True).last()).isoformat()
    points = [ChartPoint("Start", shown_rating(ratings_after[0][0]))]
    points += [
        ChartPoint(f"Match {n}", shown_rating(mu)) for n, (_, mu) in enumerate(ratings_after, 1)
    ]
    points[-1] = ChartPoint(last_day, points[-1].value)
    before, after = ratings_after[-1]
    return RatingView(
        mine.shown, mine.matches, _thin(points), shown_rating(after) - shown_rating(before)
    )


def _unfinished_matches(user, filters: Filters) -> int:
    """The user's matches still being played that have a deal under the filters; starting from
    the user's seats, not from every summary row."""
    deals_here = DealSummary.objects.filter(filters.rows(), user=user, match=OuterRef("pk"))
    return (
        Match.objects.filter(seats__user=user, status=Match.Status.PLAYING)
        .filter(Exists(deals_here))
        .count()
    )


def _deal_counts(group: Q, prefix: str = "") -> dict:
    """The counts every deal figure is made of, over the summary rows in `group`, as
    aggregates named with `prefix` (two groups are counted in one query)."""
    scored = Q(thrown_in=False)
    counts = {
        "deals": Q(),
        "thrown_ins": Q(thrown_in=True),
        "pitched": Q(pitcher=True),
        "pitched_made": Q(pitcher=True, made=True),
        "defended": Q(set_pitcher__isnull=False),
        "sets": Q(set_pitcher=True),
        "high": Q(took_high=True),
        "low": Q(took_low=True),
        "jack": Q(took_jack=True),
        "game": Q(took_game=True),
        "jack_out": scored & Q(jack_in_play=True),
    }
    aggregates: dict[str, Aggregate] = {
        prefix + name: Count("id", filter=group & when) for name, when in counts.items()
    }
    aggregates[prefix + "points"] = Sum("score_change", filter=group & scored)
    return aggregates


def _unprefixed(totals: dict, prefix: str) -> dict:
    return {name[len(prefix) :]: value for name, value in totals.items() if name.startswith(prefix)}


def _point_lines(totals: dict) -> list[PointLine]:
    scored_deals = totals["deals"] - totals["thrown_ins"]
    out_of = {
        "high": scored_deals,
        "low": scored_deals,
        "jack": totals["jack_out"],
        "game": scored_deals,
    }
    return [PointLine(label, totals[kind], out_of[kind]) for kind, label in POINT_KINDS]


def _offline_figures(totals: dict) -> OfflineFigures | None:
    if not totals["deals"]:
        return None
    return OfflineFigures(
        deals=totals["deals"],
        thrown_in=totals["thrown_ins"],
        average_points=rate(totals["points"] or 0, totals["deals"] - totals["thrown_ins"]),
        pitched=totals["pitched"],
        pitched_made=totals["pitched_made"],
        defended=totals["defended"],
        sets=totals["sets"],
        points=_point_lines(totals),
    )


def player_stats(user, filters: Filters = Filters()) -> PlayerStats:
    """Every figure of the statistics page for `user`, under `filters`. Deals played offline
    are a group of their own (`offline`), not in the other figures."""
    mine = DealSummary.objects.filter(filters.rows(), user=user)
    both = mine.aggregate(**_deal_counts(Q(offline=False)), **_deal_counts(Q(offline=True), "off_"))
    totals = {name: value for name, value in both.items() if not name.startswith("off_")}
    deals = mine.filter(offline=False)
    scored_deals = totals["deals"] - totals["thrown_ins"]
    bids = [
        BidLine(row["bid"], row["count"], row["made_count"], row["average"])
        for row in deals.filter(pitcher=True)
        .values("bid")
        .annotate(
            count=Count("id"),
            made_count=Count("id", filter=Q(made=True)),
            average=Avg("score_change"),
        )
        .order_by("bid")
    ]
    points = _point_lines(totals)
    coach = [
        ChartPoint(row["day"].isoformat(), row["accuracy"])
        for row in deals.filter(coach_accuracy__isnull=False)
        .annotate(day=TruncDate("finished_at"))
        .values("day")
        .annotate(accuracy=Avg("coach_accuracy"))
        .order_by("day")
    ]
    matches, by_preset, by_opponents, by_company = _match_records(user, filters)
    ratings = list(Rating.objects.filter(Q(user=user) | Q(user=None)))
    bot_ratings = sorted(
        ((row.get_bot_level_display(), row.shown) for row in ratings if row.user_id is None),
        key=lambda item: LEVEL_ORDER.get(item[0].lower(), 9),
    )
    return PlayerStats(
        filters=filters,
        matches=matches,
        by_preset=by_preset,
        by_opponents=by_opponents,
        by_company=by_company,
        unfinished_matches=_unfinished_matches(user, filters),
        deals=totals["deals"],
        thrown_in=totals["thrown_ins"],
        average_points=rate(totals["points"] or 0, scored_deals),
        bids=bids,
        pitched=totals["pitched"],
        pitched_made=totals["pitched_made"],
        defended=totals["defended"],
        sets=totals["sets"],
        points=points,
        rating=_rating(user, filters, ratings),
        bot_ratings=bot_ratings,
        coach_accuracy=_thin(coach),
        offline=_offline_figures(_unprefixed(both, "off_")),
    )
