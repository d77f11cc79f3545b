"""Every read of the daily deals: the day's page, a deal's comparison with the field, the day's
table and a person's record. Everything is computed from the stored play rows (one small row
per play: its score, contract and auction), never from an unfinished deal's cards.

What a person may see: a deal's field (results, auctions, others' replays) once they have
finished their own play of it, or once its day is over; the day's table ranks people only on
the deals the viewer may see.
"""

import datetime
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from itertools import takewhile

from django.contrib.auth import get_user_model
from django.db.models import Count, Q

from games import engine
from games.engine.display import seat_name
from games.engine.wording import move_label
from games.errors import NotFound
from games.replay.frames import Timeline, build_frame

from . import deals
from .matchpoints import Field, day_percent
from .models import DailyDeal, DailyPlay, DailySet
from .services import today

TABLE_SIZE = 50  # rows of the day's table shown (and the viewer's own row)
FIELD_PLAYS_SHOWN = 50  # other players' replays linked from a deal's comparison


def parse_day(text: str) -> datetime.date:
    try:
        day = datetime.date.fromisoformat(text)
    except ValueError:
        raise NotFound("There is no such day.") from None
    if day > today():
        raise NotFound("That day's deals are not dealt yet.")
    return day


def _counted_finished(**filters):
    return DailyPlay.objects.filter(counted=True, finished_at__isnull=False, **filters)


def visible_numbers(day: datetime.date, user) -> set[int]:
    """The deals of `day` whose field `user` may see: all once the day is over, else those the
    user has finished."""
    if day < today():
        return set(range(1, deals.DEALS_A_DAY + 1))
    if not user.is_authenticated:
        return set()
    return set(
        _counted_finished(deal__daily_set__day=day, user=user).values_list(
            "deal__number", flat=True
        )
    )


# --- The day's page ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DealLine:
    """One deal on the day's page, for the viewer."""

    number: int
    state: str  # "done", "playing", "next", "later" (counted), or "practice" (a past day)
    match_id: int | None = None
    score: int | None = None
    made: bool = False  # the deal went the person's side's way: its bid made, or theirs set
    percent: float | None = None
    field_size: int = 0


@dataclass(frozen=True)
class TableRow:
    rank: int
    name: str
    percent: float
    played: int
    me: bool


@dataclass
class DayPage:
    day: datetime.date
    is_today: bool
    rules: str
    deals: list[DealLine]
    table: list[TableRow]
    my_row: TableRow | None
    people: int
    table_deals: list[int] = field(default_factory=list)  # the deals the table is ranked on
    share_line: str = ""


def day_page(day: datetime.date, user) -> DayPage:
    """The day's deals as the viewer stands on them, and the day's table."""
    daily_set = DailySet.objects.filter(day=day).first()
    is_today = day == today()
    visible = visible_numbers(day, user)
    fields = _fields(daily_set, visible) if daily_set else {}
    mine = _my_plays(daily_set, user) if daily_set and user.is_authenticated else {}
    lines = mark_next(
        [_deal_line(number, mine.get(number), fields, is_today) for number in _numbers()]
    )
    if daily_set is None and not is_today:
        lines = []  # no deals were dealt that day
    # The day's table: on the deals the viewer may see (all of them once the day is over).
    table, my_row, people = day_table(daily_set, visible, user) if daily_set else ([], None, 0)
    page = DayPage(
        day=day,
        is_today=is_today,
        rules=str(daily_set.rules if daily_set else deals.RULES),
        deals=lines,
        table=table,
        my_row=my_row,
        people=people,
        table_deals=sorted(visible),
    )
    page.share_line = share_line(day, lines)
    return page


def _numbers():
    return range(1, deals.DEALS_A_DAY + 1)


def _my_plays(daily_set: DailySet, user) -> dict[int, DailyPlay]:
    """The viewer's counted play of each deal (on a past day, their latest practice)."""
    plays = DailyPlay.objects.filter(deal__daily_set=daily_set, user=user).select_related("deal")
    mine: dict[int, DailyPlay] = {}
    for play in plays.order_by("counted", "started_at"):
        mine[play.deal.number] = play  # a counted play, sorted last, wins
    return mine


def _deal_line(number: int, play, fields: dict, is_today: bool) -> DealLine:
    if play is None or not play.counted:
        if not is_today:
            return DealLine(number, "practice", match_id=play.match_id if play else None)
        return DealLine(number, "later")
    if play.finished_at is None:
        return DealLine(number, "playing", match_id=play.match_id)
    deal_field = fields.get(number)
    return DealLine(
        number,
        "done",
        match_id=play.match_id,
        score=play.score,
        made=went_our_way(play),
        percent=deal_field.percent(play.score) if deal_field else None,
        field_size=len(deal_field) if deal_field else 0,
    )


def went_our_way(play: DailyPlay) -> bool:
    """Whether the person's side made its bid, or set the other side's (a thrown-in deal: no)."""
    if not play.pitcher or play.made is None:
        return False
    ours = play.pitcher in PARTNERS
    return play.made == ours


# The person sits at S (services.human_seat); their side is North and South.
PARTNERS = ("N", "S")


def mark_next(lines: list[DealLine]) -> list[DealLine]:
    """The first deal not yet started, after every one before it is done, is the next to play."""
    marked = []
    waiting = True
    for line in lines:
        if waiting and line.state == "later":
            line = DealLine(line.number, "next")
            waiting = False
        elif line.state != "done":
            waiting = False
        marked.append(line)
    return marked


def _fields(daily_set: DailySet, numbers) -> dict[int, Field]:
    """The counted results of each deal of `numbers`, one query."""
    scores = defaultdict(list)
    rows = _counted_finished(deal__daily_set=daily_set, deal__number__in=list(numbers))
    for number, score in rows.values_list("deal__number", "score"):
        scores[number].append(score)
    return {number: Field(values) for number, values in scores.items()}


def day_table(
    daily_set: DailySet, numbers, user, size: int = TABLE_SIZE
) -> tuple[list[TableRow], TableRow | None, int]:
    """The day's table ranked on the deals `numbers`: its first `size` rows, the viewer's own
    row, and how many people it ranks. Rank by percentage (equal percentages share a rank)."""
    rows = list(
        _counted_finished(deal__daily_set=daily_set, deal__number__in=list(numbers)).values_list(
            "user_id", "deal__number", "score"
        )
    )
    fields = defaultdict(list)
    for _, number, score in rows:
        fields[number].append(score)
    fields = {number: Field(scores) for number, scores in fields.items()}
    percents = defaultdict(list)
    for user_id, number, score in rows:
        percents[user_id].append(fields[number].percent(score))
    standing = sorted(
        ((day_percent(p), len(p), user_id) for user_id, p in percents.items()),
        key=lambda row: (-row[0], -row[1], row[2]),
    )
    me = user.pk if user.is_authenticated else None
    ranked = list(_ranked(standing))
    top = ranked[:size]
    mine = next(((rank, row) for rank, row in ranked if row[2] == me), None)
    wanted = {row[2] for _, row in top} | ({me} if mine else set())
    names = dict(get_user_model().objects.filter(pk__in=wanted).values_list("pk", "username"))
    table = [_table_row(rank, row, names, me) for rank, row in top]
    my_row = _table_row(*mine, names, me) if mine else None
    return table, my_row, len(standing)


def _ranked(standing):
    rank = 0
    previous = None
    for index, row in enumerate(standing, start=1):
        if row[0] != previous:
            rank, previous = index, row[0]
        yield rank, row


def _table_row(rank, row, names, me) -> TableRow:
    percent, played, user_id = row
    return TableRow(rank, names.get(user_id, "a former player"), percent, played, user_id == me)


def share_line(day: datetime.date, lines: list[DealLine]) -> str:
    """A result line to share, without spoilers: deals made, and the average percentage."""
    done = [line for line in lines if line.state == "done"]
    if not done:
        return ""
    made = sum(1 for line in done if line.made)
    percents = [line.percent for line in done if line.percent is not None]
    return (
        f"Setback daily {day.isoformat()}: {made}/{len(done)} made, {round(day_percent(percents))}%"
    )


# --- A deal against the field -----------------------------------------------------------------


@dataclass(frozen=True)
class ResultLine:
    """One result of the field on a deal: a contract, made or set, the score, how many had it."""

    contract: str
    outcome: str  # "made", "set", or "" (thrown in)
    score: int
    count: int
    percent: float  # the matchpoint percentage of this score against the field
    mine: bool


@dataclass(frozen=True)
class FieldPlay:
    name: str
    contract: str
    score: int
    play_id: int


@dataclass
class Comparison:
    day: datetime.date
    number: int
    size: int
    results: list[ResultLine]
    auctions: list[tuple[str, int]]
    plays: list[FieldPlay]
    my_play: DailyPlay | None = None
    my_percent: float | None = None
    par_score: int | None = None
    par_auction: str = ""
    par_contract: str = ""
    # Your play and the par line, move by move: (step, your move, par's move, differ).
    side_by_side: list[tuple[int, str, str, bool]] = field(default_factory=list)


# The house rules' calls (the set's rules): the par line's auction is its tokens up to the first card.
CALLS = frozenset({"pass", "1", "2", "3", "4", "smudge"})


def contract_words(pitcher: str, bid: int | None) -> str:
    """A contract as the person who sat at S reads it ("3 by you", "2 by East")."""
    if not pitcher or bid is None:
        return "thrown in"
    who = {"S": "you", "N": "your partner"}.get(pitcher, seat_name(pitcher))
    return f"{bid} by {who}"


def auction_words(auction: str) -> str:
    return ", ".join(call.capitalize() for call in auction.split()) or "(no calls)"


def _outcome(made) -> str:
    return "" if made is None else ("made" if made else "set")


def deal_comparison(day: datetime.date, number: int, user) -> Comparison:
    """Deal `number` of `day` against the field, for a viewer who may see it (`visible_numbers`):
    the results, the most common auctions, others' replays and par."""
    if number not in visible_numbers(day, user):
        raise NotFound("Finish this deal to see how the others played it.")
    deal_row = (
        DailyDeal.objects.select_related("daily_set")
        .filter(daily_set__day=day, number=number)
        .first()
    )
    if deal_row is None:
        raise NotFound("Nobody has played this deal.")
    counted = _counted_finished(deal=deal_row)
    my_play = _my_finished_play(deal_row, user)
    scores = Counter(dict(_grouped(counted, "score")))
    deal_field = Field(scores.elements())
    comparison = Comparison(
        day=day,
        number=number,
        size=len(deal_field),
        results=_results(counted, deal_field, my_play),
        auctions=[
            (auction_words(auction), count) for auction, count in _grouped(counted, "auction")[:5]
        ],
        plays=_field_plays(counted, user),
        my_play=my_play,
        par_score=deal_row.par_score,
    )
    if my_play is not None:
        comparison.my_percent = deal_field.percent(my_play.score, own=my_play.counted)
    if deal_row.par_tokens is not None:
        calls = takewhile(lambda token: token in CALLS, deal_row.par_tokens)
        comparison.par_auction = auction_words(" ".join(calls))
        if my_play is not None:
            comparison.side_by_side = side_by_side(deal_row, my_play)
    return comparison


def _par_state(deal_row: DailyDeal) -> engine.Deal:
    state = engine.Deal(
        engine.Rules.from_spec(deal_row.daily_set.rules),
        deal_row.dealer,
        deal_row.hands,
        deal_row.stock,
    )
    for token in deal_row.par_tokens:
        state.apply(token)
    return state


def side_by_side(deal_row: DailyDeal, play: DailyPlay) -> list[tuple[int, str, str, bool]]:
    """Your play's moves beside the par line's, step by step ("S 3", "E 7♥"): where they part
    is where your result and par's began to differ."""
    par = [f"{seat} {move_label(token)}" for seat, token in _par_state(deal_row).history]
    mine = [
        f"{seat} {move_label(token)}"
        for seat, token in play.match.deals.get(number=1)
        .actions.order_by("sequence")
        .values_list("seat", "token")
    ]
    length = max(len(par), len(mine))
    par += [""] * (length - len(par))
    mine += [""] * (length - len(mine))
    return [(step + 1, m, p, m != p) for step, (m, p) in enumerate(zip(mine, par, strict=True))]


def _grouped(queryset, *fields):
    """(fields..., how many) for each distinct value of `fields`, the most common first."""
    return (
        queryset.order_by()
        .values(*fields)
        .annotate(count=Count("pk"))
        .order_by("-count", *fields)
        .values_list(*fields, "count")
    )


def _my_finished_play(deal_row: DailyDeal, user) -> DailyPlay | None:
    if not user.is_authenticated:
        return None
    plays = DailyPlay.objects.filter(deal=deal_row, user=user, finished_at__isnull=False)
    return plays.order_by("-counted", "-finished_at").first()


def _results(counted, deal_field: Field, my_play) -> list[ResultLine]:
    groups = _grouped(counted, "pitcher", "bid", "made", "score")
    mine = (my_play.pitcher, my_play.bid, my_play.made, my_play.score) if my_play else None
    lines = [
        ResultLine(
            contract=contract_words(pitcher, bid),
            outcome=_outcome(made),
            score=score,
            count=count,
            percent=deal_field.percent(score, own=True),
            mine=(pitcher, bid, made, score) == mine,
        )
        for pitcher, bid, made, score, count in groups
    ]
    return sorted(lines, key=lambda line: (-line.score, -line.count, line.contract))


def _field_plays(counted, user) -> list[FieldPlay]:
    """Others' plays whose history is public (the viewer's own is linked apart), best first."""
    others = counted.filter(user__history_public=True)
    if user.is_authenticated:
        others = others.exclude(user=user)
    rows = others.order_by("-score", "finished_at").values_list(
        "pk", "user__username", "pitcher", "bid", "score"
    )[:FIELD_PLAYS_SHOWN]
    return [
        FieldPlay(name=name, contract=contract_words(pitcher, bid), score=score, play_id=pk)
        for pk, name, pitcher, bid, score in rows
    ]


def field_play(day: datetime.date, number: int, play_id: int, user) -> DailyPlay:
    """Another person's finished play of a deal, for a replay: only if the viewer may see the
    deal's field and that person's history is public (one's own play is always one's own)."""
    if number not in visible_numbers(day, user):
        raise NotFound("Finish this deal to see how the others played it.")
    play = (
        _counted_finished(deal__daily_set__day=day, deal__number=number, pk=play_id)
        .filter(Q(user__history_public=True) | Q(user=user if user.is_authenticated else None))
        .select_related("match", "user")
        .first()
    )
    if play is None:
        raise NotFound("There is no such play to replay.")
    return play


# --- A person's record, on their player page --------------------------------------------------

RECORD_DAYS = 30


@dataclass(frozen=True)
class DayResult:
    day: datetime.date
    played: int
    percent: float


@dataclass(frozen=True)
class PlayerRecord:
    days: list[DayResult]  # the last 30 days that are over, newest first
    streak: int  # days in a row with a deal played, up to today (or yesterday)
    average: float | None


def player_record(player) -> PlayerRecord:
    """The player's last 30 finished days (a day still going shows nothing of its deals), their
    streak and their average percentage. The fields come grouped by score from the database:
    a few rows a deal, however many played it."""
    now = today()
    since = now - datetime.timedelta(days=RECORD_DAYS)
    mine = list(
        _counted_finished(user=player, deal__daily_set__day__gte=since).values_list(
            "deal_id", "deal__daily_set__day", "score"
        )
    )
    past = [(deal_id, day, score) for deal_id, day, score in mine if day < now]
    fields = _grouped_fields({deal_id for deal_id, _, _ in past})
    percents = defaultdict(list)
    for deal_id, day, score in past:
        percents[day].append(fields[deal_id].percent(score))
    days = [DayResult(day, len(p), day_percent(p)) for day, p in sorted(percents.items())][::-1]
    every = [p for day in days for p in percents[day.day]]
    return PlayerRecord(
        days=days,
        streak=_streak({day for _, day, _ in mine}, now),
        average=day_percent(every) if every else None,
    )


def _grouped_fields(deal_ids) -> dict[int, Field]:
    counts = defaultdict(list)
    rows = _counted_finished(deal_id__in=list(deal_ids)).order_by().values("deal_id", "score")
    for deal_id, score, count in rows.annotate(count=Count("pk")).values_list(
        "deal_id", "score", "count"
    ):
        counts[deal_id].extend([score] * count)
    return {deal_id: Field(scores) for deal_id, scores in counts.items()}


def _streak(days_played: set, now: datetime.date) -> int:
    """Days in a row with a deal played, ending today, or yesterday if today is not played yet."""
    day = now if now in days_played else now - datetime.timedelta(days=1)
    streak = 0
    while day in days_played:
        streak += 1
        day -= datetime.timedelta(days=1)
    return streak


def par_frame(day: datetime.date, number: int, user, step: int, url_of):
    """A step of deal `number`'s par line (the hard bots in every seat), for a viewer who may see
    the deal's field; every hand face up, as in any replay of a finished deal."""
    if number not in visible_numbers(day, user):
        raise NotFound("Finish this deal to see how the others played it.")
    deal_row = DailyDeal.objects.select_related("daily_set").filter(
        daily_set__day=day, number=number
    )
    deal_row = deal_row.first()
    if deal_row is None or deal_row.par_tokens is None:
        raise NotFound("Par is being worked out.")
    state = _par_state(deal_row)
    names = {seat: seat_name(seat) for seat in state.rules.seats}
    return build_frame(Timeline(state), step, number=number, names=names, url_of=url_of)
