"""Every read the coach makes: the position a piece of advice is for, the panel a seat sees, and
the reviews (also for the replay and the statistics: ``decision_marks``, ``deal_accuracy``,
``accuracy_by_deal``).

A panel is built for one seat from its own observation and its own advice, so it never holds
another seat's unplayed cards; during a deal it names only the seat's own cards and cards played.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.core.cache import cache
from django.db.models import Exists, OuterRef, Q
from django.urls import reverse

from games import engine
from games.core import presenters
from games.core import selectors as game_selectors
from games.core.marks import Mark
from games.engine import worth
from games.engine.bots import seats as seats_model
from games.engine.bots import styles
from games.engine.coach import panel as panel_figures
from games.engine.coach import reasons
from games.engine.coach.advice import Option
from games.engine.display import in_hand_order
from games.engine.wording import SUIT_NAMES, SUIT_SYMBOLS, bid_label, call_label
from games.models import Action, Deal, Match, Seat, seat_name

from .models import Advice, ExerciseAttempt, Review, Work


def replay_url(match_id: int, deal_number: int, step: int) -> str:
    """The replay of a deal at the moment a decision was made: `step` actions applied."""
    return reverse("replay:deal_step", args=[match_id, deal_number, step])


# About what one decision costs a review when it must be searched afresh (no advice stored for
# it): `bench_coach` CPU p95 0.41 s a decision, unseated (docs/coach.md).
REVIEW_DECISION_SECONDS = 0.5


def review_cost(deal_row: Deal, seat: str) -> float:
    """The estimated CPU seconds of reviewing the seat's decisions in the deal: a search for each
    of the person's decisions with no advice ready (an upper bound: a decision with one legal
    choice is skipped by the review). A deal played with the coach on costs about nothing."""
    decided = set(
        deal_row.actions.filter(seat=seat, user__isnull=False).values_list("sequence", flat=True)
    )
    advised = set(
        Advice.objects.filter(deal=deal_row, seat=seat, status=Work.READY).values_list(
            "step", flat=True
        )
    )
    return len(decided - advised) * REVIEW_DECISION_SECONDS


# --- The position a piece of advice is for ---------------------------------------------------


def totals_before(deal_row: Deal) -> dict:
    """The match totals as they stood when the deal was dealt (what its seats decided with)."""
    if deal_row.result is None:
        return dict(deal_row.match.totals)
    return game_selectors.match_standing(deal_row.match, before=deal_row.number).totals


def version_at(deal_row: Deal, step: int) -> int:
    """The match's version at a moment of a deal: one per action, and one per new deal.

    Used only for decisions that had no live advice (whose row keeps the version it saw)."""
    earlier = Action.objects.filter(
        deal__match_id=deal_row.match_id, deal__number__lt=deal_row.number
    ).count()
    return earlier + (deal_row.number - 1) + step


def observation_at(deal_row: Deal, step: int, seat: str, totals: dict | None = None):
    state = game_selectors.deal_state(deal_row, upto=step)
    return state.observation(
        seat, match_totals=totals if totals is not None else totals_before(deal_row)
    )


def advice_for(deal_row: Deal, step: int, seat: str) -> Advice | None:
    return Advice.objects.filter(deal=deal_row, step=step, seat=seat).first()


def seat_models(match: Match, coached: str, deal_row: Deal) -> dict[str, str]:
    """Who sits at each seat of `match`, for the coach's search in `deal_row`
    (``engine.bots.seats``): a bot by its level, a person by the style of their play before this
    deal (``person_style``); the coached seat itself as the coach plays."""
    models = {}
    for seat in match.seats.all():
        if seat.position == coached:
            models[seat.position] = "hard"
        elif seat.is_bot:
            models[seat.position] = seats_model.model_of_seat("bot", seat.bot_level)
        else:
            style = person_style(seat.user_id, deal_row) if seat.user_id else ""
            models[seat.position] = seats_model.model_of_seat("person", style)
    return models


def person_style(user_id: int, deal_row: Deal) -> str:
    """How the person played the cards they chose in their latest deals finished before
    `deal_row` was dealt (``engine.bots.styles``). Only those deals count, so the live coach, a
    review and an exercise of one moment model the person alike, whenever they are asked."""
    key = f"coach-person-style:{user_id}:{deal_row.pk}:{deal_row.started_at.timestamp()}"
    found = cache.get(key)
    if found is None:
        found = _learned_style(user_id, deal_row)
        cache.set(key, found, STYLE_CACHE_SECONDS)
    return found


# A person's style before a deal never changes (only finished deals count): kept while the deal
# is likely in play or reviewed, so each piece of advice does not replay a dozen deals again.
STYLE_CACHE_SECONDS = 6 * 3600


def _learned_style(user_id: int, deal_row: Deal) -> str:
    own_cards = Action.objects.filter(
        user_id=user_id,
        kind=Action.Kind.PLAY,
        claimed=False,  # a claim's cards follow the claim's order, not the person's choice
        deal__finished_at__lt=deal_row.started_at,
    )
    recent = list(
        own_cards.values_list("deal_id", flat=True)
        .distinct()
        .order_by("-deal_id")[: styles.RECENT_DEALS]
    )
    steps: dict[int, set[int]] = {deal_id: set() for deal_id in recent}
    seat_in: dict[int, str] = {}
    for deal_id, sequence, seat in own_cards.filter(deal_id__in=recent).values_list(
        "deal_id", "sequence", "seat"
    ):
        steps[deal_id].add(sequence)
        seat_in[deal_id] = seat
    tally = styles.Tally()
    for row in Deal.objects.filter(pk__in=recent).select_related("match"):
        tally.add_deal(game_selectors.deal_state(row), seat_in[row.pk], steps[row.pk])
    return tally.style()


def first_choice(deal_row: Deal, step: int, seat: str) -> str | None:
    """The coach's stored first choice for a decision (``games.core.marks`` choice provider)."""
    advice = advice_for(deal_row, step, seat)
    if advice is None or advice.status != Work.READY or not advice.options:
        return None
    return advice.options[0]["action"]


@dataclass(frozen=True)
class Turn:
    """A person's decision the coach may advise on: the current one at a table."""

    deal: Deal
    step: int
    version: int
    seat: str
    choices: int  # legal actions


def coached_turn(match: Match) -> Turn | None:
    """The current decision if a person with the coach on has it, else None."""
    if match.status != Match.Status.PLAYING or not match.coach_may_advise:
        return None
    deal_row = game_selectors.current_deal(match)
    assert deal_row is not None  # a match being played has a deal
    if deal_row.is_over or not deal_row.to_act:
        return None
    seat = match.seats.select_related("user").get(position=deal_row.to_act)
    if seat.user is None or not seat.user.coach_enabled:
        return None
    state = game_selectors.current_state(deal_row)
    return Turn(
        deal_row,
        state.version,
        match.version,
        seat.position,
        len(state.observation(seat.position).legal_actions()),
    )


def coached_seats(match: Match) -> list[str]:
    """The seats of people who have the coach on (none where it may not advise)."""
    if not match.coach_may_advise:
        return []
    return [
        seat.position
        for seat in match.seats.select_related("user")
        if seat.user is not None and seat.user.coach_enabled
    ]


# --- The panel ----------------------------------------------------------------------------------


@dataclass
class OptionView:
    rank: int
    action: str
    label: str
    reason: str
    card: object | None  # a CardView for a card to play
    points: float  # expected points of the seat's side
    stderr: float
    theirs: float  # the other side's expected points (the others' mean in cutthroat)
    contract: tuple | None  # ("Make", percent) or ("Set", percent)
    chances: list  # (point name, percent)
    win_match: int | None  # percent, when the ranking is by the chance of winning the match
    best: bool

    @property
    def points_text(self) -> str:
        return f"{self.points:+.2f}"

    @property
    def theirs_text(self) -> str:
        return f"{self.theirs:+.2f}"

    @property
    def net_text(self) -> str:
        """Yours minus theirs: what the coach ranks by, and what a review's cost is counted in
        (an option can expect more points for you and still be worse, giving them more)."""
        return worth.signed(self.points - self.theirs, 2)


@dataclass
class BidRow:
    label: str
    suit: str  # planned trump, "" when none
    symbol: str
    make: int | None  # percent


@dataclass
class CoachPanel:
    match_id: int
    deal_id: int
    deal_number: int
    step: int
    version: int
    enabled: bool
    # "off", "waiting", "forced", "thinking", "advice", "reviewing", "review", "unreviewed"
    state: str
    phase: str = ""
    forced_label: str = ""
    options: list = field(default_factory=list)
    bid_grid: list = field(default_factory=list)
    samples: int = 0
    ranking: str = "margin"
    review: ReviewView | None = None


def option_view(rank: int, option: Option, obs) -> OptionView:
    f = option.figures
    return OptionView(
        rank=rank,
        action=option.action,
        label=option.label,
        reason=option.reason,
        card=presenters.card_view(option.action) if obs.phase == engine.PLAY else None,
        points=f["expected_points"],
        stderr=f["stderr"],
        theirs=f["expected_points"] - f["expected_margin"],
        contract=panel_figures.contract_chance(obs, f),
        chances=panel_figures.point_chances(f),
        win_match=panel_figures.match_chance(f),
        best=rank == 1,
    )


def bid_grid(options: list[Option], obs) -> list[BidRow]:
    """Each call (and the trump it plans) against the chance of making it, in the auction's order."""
    return [
        BidRow(label, SUIT_NAMES.get(suit, ""), SUIT_SYMBOLS.get(suit, ""), make)
        for label, suit, make in panel_figures.bid_rows(options, obs)
    ]


def coach_panel(
    match: Match, position: str, *, seats: list | None = None, deal_row: Deal | None = None
) -> CoachPanel:
    """What the coach shows the seat `position` now (`seats`, `deal_row`: already read)."""
    if seats is not None:
        seat = next(s for s in seats if s.position == position)
    else:
        seat = match.seats.select_related("user").get(position=position)
    deal_row = deal_row or game_selectors.current_deal(match)
    assert deal_row is not None  # a seat's panel is drawn at a dealt table
    panel = CoachPanel(
        match_id=match.pk,
        deal_id=deal_row.pk,
        deal_number=deal_row.number,
        step=deal_row.steps,
        version=match.version,
        enabled=bool(seat.user and seat.user.coach_enabled),
        state="off",
        phase=deal_row.phase,
    )
    if deal_row.is_over:
        _show_review(panel, deal_row, position)
    elif not panel.enabled:
        pass  # the panel says the coach is off
    elif not match.coach_may_advise:
        panel.state = "quiet"
    elif deal_row.to_act != position or match.status != Match.Status.PLAYING:
        panel.state = "waiting"
    else:
        _show_advice(panel, match, deal_row, position)
    return panel


def _show_review(panel: CoachPanel, deal_row: Deal, position: str) -> None:
    """A finished deal: its review, or that it is on its way (or can be asked for)."""
    review = Review.objects.filter(deal=deal_row, seat=position).first()
    if review is not None and review.status == Work.READY:
        panel.state, panel.review = "review", review_view(review)
    elif review is not None or panel.enabled:
        panel.state = "reviewing"
    else:
        panel.state = "unreviewed"


def _show_advice(panel: CoachPanel, match: Match, deal_row: Deal, position: str) -> None:
    """The seat's turn: its one legal move, the coach still thinking, or its ranked options."""
    state = game_selectors.current_state(deal_row)
    obs = state.observation(position, match_totals=dict(match.totals))
    legal = obs.legal_actions()
    if len(legal) == 1:
        panel.state, panel.forced_label = "forced", reasons.action_label(obs, legal[0])
        return
    advice = Advice.objects.filter(
        deal=deal_row, step=panel.step, seat=position, status=Work.READY
    ).first()
    if advice is None:
        panel.state = "thinking"
        return
    options = [Option.from_json(o) for o in advice.options]
    panel.state = "advice"
    panel.options = [option_view(i, o, obs) for i, o in enumerate(options, start=1)]
    panel.samples = options[0].figures["samples"]
    panel.ranking = options[0].figures["ranking"]
    if obs.phase == engine.AUCTION:
        panel.bid_grid = bid_grid(options, obs)


# --- Reviews ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DecisionMark:
    """One decision of a seat in a deal, judged against the coach's choice (for the replay)."""

    deal_id: int
    match_id: int
    deal_number: int
    step: int  # actions applied before it: the replay's moment
    moment: str  # "Auction", "Trump", "Discard", "Trick 3"
    action: str  # the engine token taken
    action_label: str
    mark: str  # "", "inaccuracy", "mistake", "blunder"
    better: str | None  # the coach's choice when it differs
    better_label: str
    loss: float  # in `unit`: net points, or the chance of winning the match (0..1)
    unit: str  # "points" or "match"
    reason: str  # the coach's line on the option taken
    better_reason: str
    origin: str = "shown"  # "shown" (the figures the coach showed) or "computed" (after the deal)

    @property
    def replay_url(self) -> str:
        return replay_url(self.match_id, self.deal_number, self.step)

    @property
    def loss_text(self) -> str:
        if self.unit == "match":
            return f"{100 * self.loss:.0f}% of the chance to win the match"
        return f"{self.loss:.1f} net points"


@dataclass
class ReviewView:
    deal_id: int
    deal_number: int
    match_id: int
    seat: str
    accuracy: float | None
    decisions: list  # DecisionMark, in order
    costly: list  # the marked ones, costliest first
    counts: list  # "1 blunder", "2 inaccuracies": the marks that occur


def _mark(deal_row: Deal, entry: dict) -> DecisionMark:
    return DecisionMark(
        deal_id=deal_row.pk,
        match_id=deal_row.match_id,
        deal_number=deal_row.number,
        step=entry["step"],
        moment=entry["moment"],
        action=entry["action"],
        action_label=entry["action_label"],
        mark=entry["mark"],
        better=entry["best"] if entry["best"] != entry["action"] else None,
        better_label=entry["best_label"] if entry["best"] != entry["action"] else "",
        loss=entry["loss"],
        unit=entry["unit"],
        reason=entry["reason"],
        better_reason=entry["best_reason"],
        origin=entry.get("origin", "shown"),
    )


def review_view(review: Review) -> ReviewView:
    deal_row = review.deal
    marks = [_mark(deal_row, entry) for entry in review.decisions]
    costly = sorted((m for m in marks if m.mark), key=lambda m: -m.loss)
    counts = [
        f"{n} {name if n == 1 else plural}"
        for name, plural, n in (
            ("blunder", "blunders", review.blunders),
            ("mistake", "mistakes", review.mistakes),
            ("inaccuracy", "inaccuracies", review.inaccuracies),
        )
        if n
    ]
    return ReviewView(
        deal_row.pk,
        deal_row.number,
        deal_row.match_id,
        review.seat,
        review.accuracy,
        marks,
        costly,
        counts,
    )


@dataclass
class ReviewPage:
    status: str  # "none" (never asked for), "pending", "ready"
    review: ReviewView | None


def review_page(deal_row: Deal, seat: str) -> ReviewPage:
    review = Review.objects.filter(deal=deal_row, seat=seat).select_related("deal").first()
    if review is None:
        return ReviewPage("none", None)
    if review.status != Work.READY:
        return ReviewPage("pending", None)
    return ReviewPage("ready", review_view(review))


def _ready_review(deal_row: Deal, seat: str) -> Review | None:
    return Review.objects.filter(deal=deal_row, seat=seat, status=Work.READY).first()


def decision_marks(deal_row: Deal, seat: str) -> list[DecisionMark]:
    """The seat's decisions with a choice in the deal, in order, each judged against the
    coach's choice ([] until the deal has been reviewed). For the replay: show `mark` and
    `better_label` at `step`."""
    review = _ready_review(deal_row, seat)
    return [_mark(deal_row, entry) for entry in review.decisions] if review else []


def replay_marks(deal_row: Deal, seat: str) -> list:
    """The marks the replay shows (games.core.marks): the judged decisions that lost points."""
    return [
        Mark(
            sequence=decision.step,
            severity=decision.mark,
            better=decision.better,
            note=decision.better_reason,
        )
        for decision in decision_marks(deal_row, seat)
        if decision.mark and decision.better
    ]


def deal_accuracy(deal_row: Deal, seat: str) -> float | None:
    """The seat's accuracy in the deal, in percent (None: not reviewed, or no choice to make)."""
    review = _ready_review(deal_row, seat)
    return review.accuracy if review else None


def accuracy_by_deal(user) -> list[dict]:
    """Every reviewed deal the user played, oldest first: for the statistics' accuracy chart."""
    played = Seat.objects.filter(
        match_id=OuterRef("deal__match_id"), position=OuterRef("seat"), user=user
    )
    reviews = (
        Review.objects.filter(Exists(played), status=Work.READY, accuracy__isnull=False)
        .select_related("deal")
        .order_by("deal__finished_at", "deal_id")
    )
    return [
        {
            "deal_id": review.deal_id,
            "match_id": review.deal.match_id,
            "deal_number": review.deal.number,
            "finished_at": review.deal.finished_at,
            "accuracy": review.accuracy,
            "inaccuracies": review.inaccuracies,
            "mistakes": review.mistakes,
            "blunders": review.blunders,
        }
        for review in reviews
    ]


# --- Exercises: practise your mistakes --------------------------------------------------------

EXERCISE_MARKS = ("mistake", "blunder")


@dataclass(frozen=True)
class ExerciseItem:
    deal_id: int
    match_id: int
    deal_number: int
    step: int
    moment: str
    mark: str  # the coach's mark on the original decision
    status: str  # "new", "solved", "missed": the latest try
    tries: int

    @property
    def url(self) -> str:
        return reverse("coach:exercise", args=[self.deal_id, self.step])


@dataclass(frozen=True)
class ExerciseList:
    items: list
    solved: int
    tried: int


def _reviews_of(user):
    played = Seat.objects.filter(
        match_id=OuterRef("deal__match_id"), position=OuterRef("seat"), user=user
    )
    return (
        Review.objects.filter(Exists(played), status=Work.READY)
        .filter(Q(mistakes__gt=0) | Q(blunders__gt=0))
        .select_related("deal")
        .order_by("-deal__finished_at", "-deal_id")
    )


def exercises_of(user) -> ExerciseList:
    """The positions of the user's own reviewed deals where the coach marked a mistake or a
    blunder, newest deal first, with the user's progress on each."""
    attempts: dict[tuple[int, int], list[ExerciseAttempt]] = {}
    for attempt in ExerciseAttempt.objects.filter(user=user).order_by("-created_at", "-id"):
        attempts.setdefault((attempt.deal_id, attempt.step), []).append(attempt)
    items = []
    for review in _reviews_of(user):
        for entry in review.decisions:
            if entry["mark"] not in EXERCISE_MARKS:
                continue
            tries = attempts.get((review.deal_id, entry["step"]), [])
            status = "new" if not tries else ("solved" if tries[0].solved else "missed")
            items.append(
                ExerciseItem(
                    deal_id=review.deal_id,
                    match_id=review.deal.match_id,
                    deal_number=review.deal.number,
                    step=entry["step"],
                    moment=entry["moment"],
                    mark=entry["mark"],
                    status=status,
                    tries=len(tries),
                )
            )
    return ExerciseList(
        items, sum(1 for i in items if i.status == "solved"), sum(1 for i in items if i.tries)
    )


@dataclass(frozen=True)
class Exercise:
    """A position as the seat saw it (its own hand and what was public), and, once answered,
    the coach's ranking beside the choice. Never another seat's unplayed cards."""

    deal_id: int
    match_id: int
    deal_number: int
    step: int
    seat: str
    phase: str
    moment: str
    hand: list  # CardView, legal ones marked
    calls: list  # ActionButton-like (token, label): the legal calls, trump suits or discards
    auction: list  # (who, call label)
    trump_symbol: str
    trump_red: bool
    contract: str  # "East bid 3", or ""
    trick: list  # (who, CardView): the trick on the table
    tricks_taken: list  # (side label, tricks)
    original: str  # the label of what was played then
    original_mark: str
    seat_label: str  # "South": where the person sat
    dealer: str  # who dealt ("You", "West"...)
    score: list  # (side label, points, mine): the match score when the deal was dealt
    attempt: ExerciseAttempt | None
    attempt_label: str
    options: list  # OptionView, best first (only once answered)


def exercise_entry(user, deal_row: Deal, step: int) -> dict | None:
    """The review entry behind an exercise, if the position is one of the user's exercises."""
    seat = Seat.objects.filter(match_id=deal_row.match_id, user=user).first()
    if seat is None:
        return None
    review = Review.objects.filter(deal=deal_row, seat=seat.position, status=Work.READY).first()
    if review is None:
        return None
    return next(
        (e for e in review.decisions if e["step"] == step and e["mark"] in EXERCISE_MARKS), None
    )


def exercise_observation(user, deal_row: Deal, step: int):
    """The seat's observation at the exercise's moment, or None if it is not one of theirs."""
    if exercise_entry(user, deal_row, step) is None:
        return None
    seat = Seat.objects.get(match_id=deal_row.match_id, user=user)
    return observation_at(deal_row, step, seat.position)


def _answer(user, deal_row: Deal, step: int, obs) -> tuple[ExerciseAttempt | None, list]:
    """The person's latest try at an exercise, and the coach's ranking to show beside it."""
    attempt = ExerciseAttempt.objects.filter(user=user, deal=deal_row, step=step).first()
    ready = Advice.objects.filter(deal=deal_row, step=step, seat=obs.seat, status=Work.READY)
    advice = ready.first()
    if advice is None:
        return attempt, []
    options = [
        option_view(i, Option.from_json(o), obs) for i, o in enumerate(advice.options, start=1)
    ]
    return attempt, options


def _exercise_choices(obs) -> tuple[list, list]:
    """The hand as the seat held it (a card to play marked if legal), and the calls, suits or
    discards it could choose from, each with its label."""
    legal = obs.legal_actions()
    playing = obs.phase == engine.PLAY
    hand = [
        presenters.card_view(c, playing and c in legal) for c in in_hand_order(obs.hand, obs.trump)
    ]
    calls = [] if playing else [(t, reasons.action_label(obs, t)) for t in legal]
    return hand, calls


def _tricks_taken(obs, seats: dict) -> list:
    taken: dict[str, int] = {}
    for trick in obs.tricks:
        side = obs.rules.side_of(trick.winner)
        taken[side] = taken.get(side, 0) + 1
    return [
        (presenters.side_label(obs.rules, side, seats, obs.seat), n) for side, n in taken.items()
    ]


def exercise_view(user, deal_row: Deal, step: int, answered: bool) -> Exercise | None:
    entry = exercise_entry(user, deal_row, step)
    if entry is None:
        return None
    seat = Seat.objects.get(match_id=deal_row.match_id, user=user).position
    obs = observation_at(deal_row, step, seat)
    rules = obs.rules
    seats = {s.position: s for s in deal_row.match.seats.select_related("user")}

    def who(position: str) -> str:
        return "You" if position == seat else seats[position].display_name

    hand, calls = _exercise_choices(obs)
    attempt, options = _answer(user, deal_row, step, obs) if answered else (None, [])
    contract = f"{who(obs.pitcher)} bid {bid_label(obs.bid)}" if obs.pitcher else ""
    attempt_label = reasons.action_label(obs, attempt.choice) if attempt else ""
    return Exercise(
        deal_id=deal_row.pk,
        match_id=deal_row.match_id,
        deal_number=deal_row.number,
        step=step,
        seat=seat,
        phase=obs.phase,
        moment=entry["moment"],
        hand=hand,
        calls=calls,
        auction=[(who(s), call_label(t)) for s, t in obs.calls],
        trump_symbol=SUIT_SYMBOLS.get(obs.trump or "", ""),
        trump_red=bool(obs.trump) and obs.trump in "HD",
        contract=contract,
        trick=[(who(s), presenters.card_view(c)) for s, c in obs.current_trick],
        tricks_taken=_tricks_taken(obs, seats),
        original=entry["action_label"],
        original_mark=entry["mark"],
        seat_label=seat_name(seat),
        dealer=who(obs.dealer),
        score=[
            (presenters.side_label(rules, side, seats, seat), points, side == obs.side)
            for side, points in (obs.match_totals or {}).items()
        ],
        attempt=attempt,
        attempt_label=attempt_label,
        options=options,
    )
