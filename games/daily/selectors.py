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
from django.utils import timezone

from games import engine
from games.core.errors import NotFound
from games.engine.display import seat_name
from games.engine.wording import move_label
from games.engine.worth import signed
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
    """Counted plays played to their end (not those closed unfinished at the end of their day)."""
    return DailyPlay.objects.filter(
        counted=True, finished_at__isnull=False, closed=False, **filters
    )


def _open_counted(day: datetime.date, user):
    """The user's counted plays of `day` that can still be played: unfinished, not closed, and
    their match not past its closing time (a play older than closing times stays open until
    the sweeper closes it)."""
    now = timezone.now()
    return DailyPlay.objects.filter(
        counted=True, finished_at__isnull=True, closed=False, deal__daily_set__day=day, user=user
    ).filter(Q(match__closes_at__isnull=True) | Q(match__closes_at__gt=now))


def visible_numbers(day: datetime.date, user) -> set[int]:
    """The deals of `day` whose field (results, others' replays, par) `user` may see: once the
    day is over, all but one whose counted play of theirs is still open; on the day, those the
    user has finished (issue 45: an open play finished with par's line in view)."""
    everything = set(range(1, deals.DEALS_A_DAY + 1))
    if day < today():
        if not user.is_authenticated:
            return everything
        still_open = _open_counted(day, user).values_list("deal__number", flat=True)
        return everything - set(still_open)
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
    state: str  # "done", "playing", "closed", "next", "later" (counted), "practice" (a past day)
    match_id: int | None = None
    net: int | None = None  # the side's points less the other side's (what is compared)
    made: bool = False  # the deal went the person's side's way: its bid made, or theirs set
    contract: bool = False  # someone bid (a thrown-in deal had no contract to make or set)
    percent: float | None = None
    field_size: int = 0  # the other results compared with
    result: str = ""  # "made 3", "set: South's 4", "thrown in"

    @property
    def net_text(self) -> str:
        return points_words(self.net)


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
    if play.closed:
        return DealLine(number, "closed", match_id=play.match_id, percent=0.0)
    if play.finished_at is None:
        return DealLine(number, "playing", match_id=play.match_id)
    deal_field = fields.get(number)
    return DealLine(
        number,
        "done",
        match_id=play.match_id,
        net=play.net,
        made=went_our_way(play),
        contract=bool(play.pitcher),
        percent=deal_field.percent(play.net) if deal_field else None,
        field_size=len(deal_field) - 1 if deal_field else 0,
        result=outcome_words(play.pitcher, play.bid, play.made),
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
    for number, net in rows.values_list("deal__number", "net"):
        scores[number].append(net)
    return {number: Field(values) for number, values in scores.items()}


def day_table(
    daily_set: DailySet, numbers, user, size: int = TABLE_SIZE
) -> tuple[list[TableRow], TableRow | None, int]:
    """The day's table ranked on the deals `numbers`: its first `size` rows, the viewer's own
    row, and how many people it ranks. Rank by percentage (equal percentages share a rank)."""
    rows = list(
        _counted_finished(deal__daily_set=daily_set, deal__number__in=list(numbers)).values_list(
            "user_id", "deal__number", "net"
        )
    )
    fields = defaultdict(list)
    for _, number, score in rows:
        fields[number].append(score)
    fields = {number: Field(scores) for number, scores in fields.items()}
    percents = defaultdict(list)
    for user_id, number, score in rows:
        percents[user_id].append(fields[number].percent(score))
    # A play closed unfinished at the end of its day counts as a deal played, at 0 %.
    closed = DailyPlay.objects.filter(
        deal__daily_set=daily_set, deal__number__in=list(numbers), counted=True, closed=True
    )
    for user_id in closed.values_list("user_id", flat=True):
        percents[user_id].append(0.0)
    standing = sorted(
        ((day_percent(p), len(p), user_id) for user_id, p in percents.items()),
        key=lambda row: (-row[0], -row[1], row[2]),
    )
    me = user.pk if user.is_authenticated else None
    ranked = list(_ranked(standing))
    top = ranked[:size]
    mine = next(((rank, row) for rank, row in ranked if row[2] == me), None)
    wanted = {row[2] for _, row in top} | ({me} if mine else set())
    # A deleted account's placeholder name ("former player 3") is never shown: its id is no one's.
    people = get_user_model().objects.filter(pk__in=wanted, left_at__isnull=True)
    names = dict(people.values_list("pk", "username"))
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
    """A result line to share, without spoilers: of the deals with a contract, how many went
    the person's side's way (its bid made or theirs set), and the average percentage. Deals
    everyone passed had nothing to make: they are not counted as made or not."""
    done = [line for line in lines if line.state == "done"]
    if not done:
        return ""
    contracts = [line for line in done if line.contract]
    made = sum(1 for line in contracts if line.made)
    percents = [line.percent for line in done if line.percent is not None]
    parts = [f"{made}/{len(contracts)} made"] if contracts else []
    parts.append(f"{round(day_percent(percents))}%")
    return f"Setback daily {day.isoformat()}: " + ", ".join(parts)


# --- Words -----------------------------------------------------------------------------------


def points_words(n: int | None) -> str:
    """Net points as the pages write them: "+4 points", "1 point", "−1 point" (the table's minus)."""
    if n is None:
        return ""
    return f"{signed(n)} point{'' if abs(n) == 1 else 's'}"


def outcome_words(pitcher: str, bid: int | None, made: bool | None) -> str:
    """A deal's end from the viewer's seat (S): "you made 3", "West's 4 set", "thrown in"."""
    if not pitcher or bid is None:
        return "thrown in: everyone passed"
    who = {"S": "your", "N": "your partner's"}.get(pitcher, f"{seat_name(pitcher)}'s")
    return f"{who} {bid} {'made' if made else 'set'}"


def contract_words(pitcher: str, bid: int | None) -> str:
    """A contract from no one's seat in particular ("4 by West", "3 by South")."""
    if not pitcher or bid is None:
        return "thrown in"
    return f"{bid} by {seat_name(pitcher)}"


def play_words(name: str, pitcher: str, bid: int | None, made: bool | None, net: int) -> str:
    """Another person's result worded from their seat (they sat South, as everyone does):
    "ann bid 4 and made it, +4"; "East bid 3 and ann's side set it, +3"."""
    if not pitcher or bid is None:
        text = "everyone passed: thrown in"
    elif pitcher == "S":
        text = f"{name} bid {bid} and {'made it' if made else 'was set'}"
    elif pitcher == "N":
        text = f"{name}'s partner (North) bid {bid} and {'made it' if made else 'was set'}"
    else:
        text = f"{seat_name(pitcher)} bid {bid} and " + (
            "made it" if made else f"{name}'s side set it"
        )
    return f"{text}, {signed(net)}"


def auction_words(auction: str, dealer: str | None = None, rules=None) -> str:
    """The calls with their callers ("West 3, North Pass, East Pass, South 4"): one call each,
    from the dealer's left (the house rules' auction goes round once)."""
    calls = auction.split()
    if not calls:
        return "(no calls)"
    if dealer and rules is not None:
        seats = rules.seats_from_left_of(dealer)
        if len(calls) <= len(seats):
            return ", ".join(
                f"{seat_name(seat)} {call.capitalize()}"
                for seat, call in zip(seats, calls, strict=False)
            )
    return ", ".join(call.capitalize() for call in calls)


def match_labels(match_ids) -> dict[int, str]:
    """History's name of each daily play among `match_ids` (``hooks.match_labels``)."""
    plays = DailyPlay.objects.filter(match_id__in=list(match_ids)).values_list(
        "match_id", "deal__daily_set__day", "deal__number", "counted"
    )
    return {
        match_id: f"Daily {day.isoformat()} · deal {number}" + ("" if counted else " (practice)")
        for match_id, day, number, counted in plays
    }


# --- A deal against the field -----------------------------------------------------------------


@dataclass(frozen=True)
class ResultLine:
    """One result of the field on a deal: a contract, made or set, the net points, how many."""

    contract: str
    outcome: str  # "made", "set", or "everyone passed" (thrown in)
    net: int
    count: int
    percent: float  # the matchpoint percentage of this result against the others
    mine: bool

    @property
    def net_text(self) -> str:
        return signed(self.net)


@dataclass(frozen=True)
class FieldPlay:
    name: str
    words: str  # "ann bid 4 and made it, +4"
    net: int
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
    others: int = 0  # the results the viewer's is compared with (not their own)
    par_net: int | None = None
    par_auction: str = ""
    par_contract: str = ""
    # Your play and the par line, move by move: (step, your move, par's move, differ).
    side_by_side: list[tuple[int, str, str, bool]] = field(default_factory=list)

    @property
    def my_result(self) -> str:
        play = self.my_play
        if play is None:
            return ""
        return f"{points_words(play.net)} net ({outcome_words(play.pitcher, play.bid, play.made)})"

    @property
    def par_text(self) -> str:
        return points_words(self.par_net)


# The house rules' calls (the set's rules): the par line's auction is its tokens up to the first card.
CALLS = frozenset({"pass", "1", "2", "3", "4", "smudge"})


def _outcome(made) -> str:
    return "everyone passed" if made is None else ("made" if made else "set")


def deal_comparison(day: datetime.date, number: int, user) -> Comparison:
    """Deal `number` of `day` against the field, for a viewer who may see it (`visible_numbers`):
    the results, the most common auctions, others' replays and par, all by net points."""
    if number not in visible_numbers(day, user):
        raise NotFound("Finish this deal to see how the others played it.")
    deal_row = (
        DailyDeal.objects.select_related("daily_set")
        .filter(daily_set__day=day, number=number)
        .first()
    )
    if deal_row is None:
        raise NotFound("Nobody has played this deal.")
    rules = engine.Rules.from_spec(deal_row.daily_set.rules)
    counted = _counted_finished(deal=deal_row)
    my_play = _my_finished_play(deal_row, user)
    nets = Counter(dict(_grouped(counted, "net")))
    deal_field = Field(nets.elements())
    comparison = Comparison(
        day=day,
        number=number,
        size=len(deal_field),
        results=_results(counted, deal_field, my_play),
        auctions=[
            (auction_words(auction, deal_row.dealer, rules), count)
            for auction, count in _grouped(counted, "auction")[:5]
        ],
        plays=_field_plays(counted, user),
        my_play=my_play,
        par_net=deal_row.par_net,
    )
    if my_play is not None:
        comparison.my_percent = deal_field.percent(my_play.net, own=my_play.counted)
        comparison.others = len(deal_field) - (1 if my_play.counted else 0)
    if deal_row.par_tokens is not None:
        calls = takewhile(lambda token: token in CALLS, deal_row.par_tokens)
        comparison.par_auction = auction_words(" ".join(calls), deal_row.dealer, rules)
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
    groups = _grouped(counted, "pitcher", "bid", "made", "net")
    mine = (my_play.pitcher, my_play.bid, my_play.made, my_play.net) if my_play else None
    lines = [
        ResultLine(
            contract=contract_words(pitcher, bid),
            outcome=_outcome(made),
            net=net,
            count=count,
            percent=deal_field.percent(net, own=True),
            mine=(pitcher, bid, made, net) == mine,
        )
        for pitcher, bid, made, net, count in groups
    ]
    return sorted(lines, key=lambda line: (-line.net, -line.count, line.contract))


def _field_plays(counted, user) -> list[FieldPlay]:
    """Others' plays whose history is public (the viewer's own is linked apart), best first."""
    others = counted.filter(user__history_public=True)
    if user.is_authenticated:
        others = others.exclude(user=user)
    rows = others.order_by("-net", "finished_at").values_list(
        "pk", "user__username", "pitcher", "bid", "made", "net"
    )[:FIELD_PLAYS_SHOWN]
    return [
        FieldPlay(name=name, words=play_words(name, pitcher, bid, made, net), net=net, play_id=pk)
        for pk, name, pitcher, bid, made, net in rows
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
            "deal_id", "deal__daily_set__day", "net"
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
    rows = _counted_finished(deal_id__in=list(deal_ids)).order_by().values("deal_id", "net")
    for deal_id, score, count in rows.annotate(count=Count("pk")).values_list(
        "deal_id", "net", "count"
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
