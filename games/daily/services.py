"""Every write of the daily deals: making a day's set, starting a play, keeping its result, par.

A play is an ordinary one-deal match (`services.begin_single_deal`): its moves go through the
same locked, versioned `do_act` as every table. Once a play of a deal exists it is the one:
asking again (a reload, a second tab, a double click) gives the same match.
"""

import datetime
import hashlib
import hmac
from functools import partial

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from games import engine
from games.core import dispatch, searches
from games.core import services as game_services
from games.core.errors import GameError, NotFound
from games.core.mail import normalised
from games.engine.par import par_line
from games.engine.worth import deal_net
from games.models import Action, Deal, Match

from . import deals
from .models import DailyDeal, DailyLeaver, DailyPlay, DailySet

PAR_LEVEL = "hard"


def today() -> datetime.date:
    """The day whose deals count now: the date in UTC (a new set at midnight UTC)."""
    return timezone.now().astimezone(datetime.UTC).date()


def ensure_day(day: datetime.date) -> DailySet:
    """The set of `day`, made once: processes racing at midnight deal the same cards (the seed
    is the date's), and the unique day lets one of them store it; the others read it."""
    found = DailySet.objects.filter(day=day).first()
    if found is not None:
        return found
    dealt = deals.deal_the_day(settings.SECRET_KEY, day)
    try:
        with transaction.atomic():
            daily_set = DailySet.objects.create(day=day, rules=deals.RULES)
            DailyDeal.objects.bulk_create(
                DailyDeal(
                    daily_set=daily_set,
                    number=deal.number,
                    dealer=deal.dealer,
                    hands=deal.hands,
                    stock=deal.stock,
                    bot_seed=deal.bot_seed,
                )
                for deal in dealt
            )
    except IntegrityError:
        return DailySet.objects.get(day=day)
    return daily_set


def end_of_day(day: datetime.date) -> datetime.datetime:
    """When `day`'s counted plays close: the midnight (UTC) that ends it."""
    return datetime.datetime.combine(
        day + datetime.timedelta(days=1), datetime.time.min, datetime.UTC
    )


def make_todays_set() -> None:
    """The sweeper's tick (`hooks.sweeping`): today's set exists soon after midnight, made by
    whichever process ticks first; yesterday's unfinished counted plays are closed, and the
    names of yesterday's leavers forgotten."""
    ensure_day(today())
    close_overdue_plays()
    DailyLeaver.objects.filter(day__lt=today()).delete()


def close_overdue_plays(user=None) -> int:
    """Close every counted play (of `user`, or everyone's) whose day is over and which is not
    finished: its match is finished where it stands (no more moves), the play is kept as closed
    and ranks 0 % (docs/daily.md). Returns how many were closed. Idempotent."""
    overdue = DailyPlay.objects.filter(
        counted=True, finished_at__isnull=True, closed=False, deal__daily_set__day__lt=today()
    )
    if user is not None:
        overdue = overdue.filter(user=user)
    closed = 0
    for play_id, match_id in overdue.values_list("pk", "match_id"):
        with transaction.atomic():
            Match.objects.select_for_update().filter(pk=match_id).first()  # after any last move
            play = DailyPlay.objects.select_related("deal__daily_set").get(pk=play_id)
            if play.finished_at is not None or play.closed:
                continue  # its last move ended it meanwhile
            closes_at = end_of_day(play.deal.daily_set.day)
            Match.objects.filter(pk=match_id, status=Match.Status.PLAYING).update(
                status=Match.Status.FINISHED, finished_at=timezone.now(), closes_at=closes_at
            )
            play.closed = True
            play.save(update_fields=["closed"])
            closed += 1
    return closed


def leaver_hash(name: str) -> str:
    """A keyed hash of a user name as people tell names apart (case, look-alike letters)."""
    key = settings.SECRET_KEY.encode()
    return hmac.new(key, normalised(name).encode(), hashlib.sha256).hexdigest()


def note_leaver(user) -> None:
    """An account being deleted (accounts.services): if it played any of today's deals, its
    name may not play them again today under a new account."""
    day = today()
    if DailyPlay.objects.filter(user=user, counted=True, deal__daily_set__day=day).exists():
        DailyLeaver.objects.get_or_create(day=day, name_hash=leaver_hash(user.username))


def do_play(user, *, day: datetime.date, number: int):
    """The match in which `user` plays deal `number` of `day`: the one already started, or a new
    one. On the day itself the play counts, once per deal and in order; a past day's deals
    are practice, played as often as one likes (an unfinished practice is resumed)."""
    if day > today():
        raise NotFound("That day's deals are not dealt yet.")
    if not 1 <= number <= deals.DEALS_A_DAY:
        raise NotFound("There is no such deal.")
    counted = day == today()
    if not counted:
        close_overdue_plays(user)  # a practice copy never beside an open counted play
    elif DailyLeaver.objects.filter(day=day, name_hash=leaver_hash(user.username)).exists():
        raise GameError(
            "This name played today's deals with an account that was deleted: today's deals "
            "are not played again under it. Everything else is open, and tomorrow's deals too."
        )
    # Today's set is made if need be; a past day is practised only if its set was made then
    # (the sweeper makes every day's), so no request can fill the table with sets of old dates.
    daily_set = ensure_day(day) if counted else DailySet.objects.filter(day=day).first()
    if daily_set is None:
        raise NotFound("No deals were dealt that day.")
    deal_row = daily_set.deals.get(number=number)
    mine = DailyPlay.objects.filter(deal=deal_row, user=user, counted=counted)
    existing = mine.filter(finished_at__isnull=True).first() if not counted else mine.first()
    if existing is not None:
        return existing.match
    if counted and number > 1 and not _finished_before(user, daily_set, number):
        raise GameError("Play the day's deals in order: finish the one before first.")
    try:
        with transaction.atomic():
            return _start(user, deal_row, daily_set.rules, counted).match
    except IntegrityError:
        # Another tab started this deal first: that play is the one.
        return DailyPlay.objects.get(deal=deal_row, user=user, counted=True).match


def _finished_before(user, daily_set: DailySet, number: int) -> bool:
    return DailyPlay.objects.filter(
        deal__daily_set=daily_set,
        deal__number=number - 1,
        user=user,
        counted=True,
        finished_at__isnull=False,
    ).exists()


def _start(user, deal_row: DailyDeal, rules_spec, counted: bool) -> DailyPlay:
    if deal_row.par_score is None and not deal_row.plays.exists():
        # Par is worked out when a deal is first played (a day nobody plays costs no search),
        # and is ready long before the first person finishes the deal.
        transaction.on_commit(partial(_enqueue_par, deal_row.pk), robust=True)
    match = game_services.begin_single_deal(
        engine.Rules.from_spec(rules_spec),
        user,
        hands=deal_row.hands,
        stock=deal_row.stock,
        dealer=deal_row.dealer,
        bot_seed=deal_row.bot_seed,
    )
    if counted:
        # A counted play ends with its day: after midnight (UTC) the par line and the others'
        # plays are open, so no move may follow (games.core.services.do_act refuses it).
        match.closes_at = end_of_day(deal_row.daily_set.day)
        Match.objects.filter(pk=match.pk).update(closes_at=match.closes_at)
    return DailyPlay.objects.create(deal=deal_row, user=user, match=match, counted=counted)


def _enqueue_par(deal_id: int) -> None:
    dispatch.enqueue(dispatch.task_named("games.daily.tasks.compute_par"), deal_id)


def record_result(deal_row: Deal, result: dict) -> None:
    """The end of a deal (`hooks.after_deal`, in the move's transaction): if it is a daily play,
    its result is kept on the play's row for the comparisons."""
    if not deal_row.match.single_deal:
        return
    play = DailyPlay.objects.filter(match_id=deal_row.match_id).first()
    if play is None:
        return
    rules = engine.Rules.from_spec(deal_row.match.rules)
    my_side = rules.side_of(game_services.human_seat(rules))
    play.finished_at = timezone.now()
    play.score = result["score"].get(my_side, 0)
    play.net = round(deal_net(result["score"], my_side))
    play.pitcher = result.get("pitcher") or ""
    play.bid = result.get("bid")
    play.made = result.get("made")
    play.auction = " ".join(
        deal_row.actions.filter(kind=Action.Kind.BID)
        .order_by("sequence")
        .values_list("token", flat=True)
    )
    play.save()


def do_compute_par(deal_id: int, *, level: str = PAR_LEVEL) -> int | None:
    """Play deal `deal_id` out with bots of `level` in every seat and keep par (the person's
    side's score, and its net points) and its line. Idempotent: a par already kept is left as it is."""
    deal_row = DailyDeal.objects.select_related("daily_set").filter(pk=deal_id).first()
    if deal_row is None or deal_row.par_score is not None:
        return None if deal_row is None else deal_row.par_score
    arguments = (deal_row.daily_set.rules, deal_row.dealer, deal_row.hands, deal_row.stock)
    # A whole deal of searches: in the analysis lane, below every table's bots.
    state = searches.compute(
        par_line, *arguments, deal_row.bot_seed, level, lane=searches.Lane.ANALYSIS
    )
    rules = state.rules
    side = rules.side_of(game_services.human_seat(rules))
    final = state.result().score
    score = final.get(side, 0)
    DailyDeal.objects.filter(pk=deal_id, par_score__isnull=True).update(
        par_score=score,
        par_net=round(deal_net(final, side)),
        par_tokens=[token for _, token in state.history],
    )
    return score
