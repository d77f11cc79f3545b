"""What templates show: a seat's view of its table, cards, seat geometry, scores, a forming
table and its chat.

A seat's view is built from the engine's observation for that seat, so another seat's unplayed
cards are never in it.
"""

from dataclasses import dataclass, field

from . import engine, selectors
from .engine.actions import PITCH, Action, pitch_token
from .engine.display import (
    going_out_note,
    in_hand_order,
    point_cards,
    points_text,
    screen_places,
    status_line,
)
from .engine.wording import (
    POINT_NAMES,
    SUIT_NAMES,
    SUIT_SYMBOLS,
    bid_label,
    call_label,
    card_name,
    rank_label,
    trick_taken,
)
from .models import DEFAULT_BOT_LEVEL, BotLevel, Deal, Match, PersonalBlock, seat_name


@dataclass(frozen=True)
class CardView:
    code: str
    rank: str
    suit: str
    legal: bool = False
    action: str = ""  # the token a click on this card sends, when it is not the card itself

    @property
    def symbol(self) -> str:
        return SUIT_SYMBOLS[self.suit]

    @property
    def red(self) -> bool:
        return self.suit in "HD"

    @property
    def rank_label(self) -> str:
        return rank_label(self.rank)

    @property
    def name(self) -> str:
        return card_name(self.code)


def card_view(code: str, legal: bool = False, action: str = "") -> CardView:
    return CardView(code=code, rank=code[0], suit=code[1], legal=legal, action=action)


@dataclass
class SeatView:
    position: str
    name: str
    is_bot: bool
    is_me: bool
    side: str
    card_count: int
    is_dealer: bool
    is_turn: bool
    is_pitcher: bool
    place: str  # where it sits on the screen: "bottom", "left", "top", "right" or "around"
    x: int
    y: int
    trick_x: int
    trick_y: int
    connected: bool = True
    is_person: bool = False
    bot_level: str = ""  # a bot's level, shown beside its name
    call: str = ""  # this seat's call in the auction, once made
    trick_card: CardView | None = None
    revealed: list = field(default_factory=list)  # the dealt hand, shown once the deal is over

    @property
    def back_range(self) -> range:
        return range(self.card_count)


@dataclass(frozen=True)
class TrickCard:
    card: CardView
    seat_name: str
    won: bool
    x: int
    y: int


@dataclass
class ActionButton:
    token: str
    label: str
    hint: str = ""


@dataclass(frozen=True)
class PracticeNote:
    """Where a practice deal comes from, and, once it is over, what really happened."""

    source_match_id: int | None
    source_number: int | None
    step: int
    really: dict | None  # _result_view of the original deal, only once the practice deal is over


@dataclass
class TableView:
    match_id: int
    version: int
    rules_text: str
    me: str | None
    me_seat: SeatView | None
    deal_number: int
    step: int  # actions taken in this deal
    phase: str
    seats: list
    hand: list
    bids: list  # ActionButton: calls, suits to name, or discard choices
    discard_choices: list
    discard_label: str
    discard_exact: int | None  # how many cards must be discarded, where the rules fix it
    auction: list  # (seat name, call label)
    trump: str | None
    trump_symbol: str
    pitcher: str | None
    bid_label: str
    totals: list  # (side label, points, is_mine)
    target: int
    last_trick: list  # TrickCard: the last completed trick, where each card lay on the felt
    last_trick_winner: str  # "East takes the trick", "You take the trick"
    tricks_done: int  # completed tricks in this deal
    tricks_per_deal: int
    trick_just_done: bool  # the last trick is complete and no card of the next one is down yet
    tricks_taken: list  # (side label, tricks)
    to_act: str | None
    my_turn: bool
    result: dict | None
    match_over: bool
    winner_label: str
    winner_verb: str
    thrown_in: bool
    status: str
    # A side at or past the target that has not won: the rule that it must make a bid of its own.
    going_out_note: str = ""
    # Shared tables (people with bots filling in).
    shared: bool = False
    spectator: bool = False
    rematch_id: int | None = None
    invite_code: str = ""
    practice: PracticeNote | None = None  # a practice deal ("play from here")


def side_label(
    rules: engine.Rules, side: str, seats_by_position: dict, me: str | None = None
) -> str:
    """A side as people read it: "You & North", "East & West", or a cutthroat player's name."""
    members = [position for position in rules.seats if rules.side_of(position) == side]
    names = [
        "You" if p == me else seats_by_position[p].display_name
        for p in members
        if p in seats_by_position
    ]
    return " & ".join(names) if names else side


def table_view(
    match: Match, me: str | None, *, seats: list | None = None, deal_row: Deal | None = None
) -> TableView:
    """The table as the seat `me` may see it (None: a spectator, who sees only public cards).
    `seats` and `deal_row` save reading them again when the caller already has them; a
    `deal_row` must come with its `match` from one read (`selectors.match_and_current_deal`)."""
    if deal_row is None:
        # The match again, with its deal in the same query: a version read before the deal
        # (a bot may move in between) would name a moment before the position shown, and the
        # person's move made on it would be refused as stale.
        match, deal_row = selectors.match_and_current_deal(match.pk)
    rules = selectors.rules_of(match)
    state = selectors.current_state(deal_row)
    seats = {
        seat.position: seat for seat in (seats if seats is not None else selectors.seats_of(match))
    }
    over = state.phase == engine.OVER
    observer = me if me in seats else None
    observation = state.observation(observer) if observer else None
    places = screen_places(rules.seats, observer)

    legal = set()
    my_turn = (
        observer is not None and state.to_act == observer and match.status == Match.Status.PLAYING
    )
    if my_turn:
        legal = set(observation.legal_actions())

    hand = []
    if observer:
        playable = legal if state.phase == engine.PLAY else set()
        hand = [
            card_view(code, code in playable)
            for code in in_hand_order(observation.hand, state.trump)
        ]

    calls = {seat: token for seat, token in state.calls}
    current = dict(state.current_trick)
    seat_views = []
    for position in rules.seats:
        seat = seats[position]
        seat_views.append(
            SeatView(
                position=position,
                name=seat.display_name,
                is_bot=seat.is_bot,
                is_me=position == observer,
                side=rules.side_of(position),
                card_count=len(state.hand(position)),
                is_dealer=position == state.dealer,
                is_turn=position == state.to_act and not over,
                is_pitcher=position == state.pitcher,
                place=places[position].name,
                x=places[position].x,
                y=places[position].y,
                trick_x=places[position].trick_x,
                trick_y=places[position].trick_y,
                # The viewer is here: they are looking at this page.
                connected=seat.is_bot or seat.connections > 0 or position == observer,
                is_person=bool(seat.user_id),
                bot_level=seat.get_bot_level_display().lower() if seat.is_bot else "",
                call=call_label(calls[position]) if position in calls else "",
                trick_card=card_view(current[position]) if position in current else None,
                # Played-out deals show every hand; a thrown-in one was never played, so never shown.
                revealed=(
                    [card_view(c) for c in in_hand_order(state.dealt_hands[position], state.trump)]
                    if over and not state.thrown_in
                    else []
                ),
            )
        )

    bids, discard_choices = [], []
    if my_turn and state.phase == engine.AUCTION:
        bids = [
            ActionButton(token, call_label(token))
            for token in observation.legal_actions()
            if Action.parse(token).kind != PITCH
        ]
        if any(Action.parse(t).kind == PITCH for t in legal):
            hand = [
                card_view(c.code, pitch_token(c.code) in legal, action=pitch_token(c.code))
                for c in hand
            ]
    elif my_turn and state.phase == engine.TRUMP:
        bids = [
            ActionButton(token, f"{SUIT_SYMBOLS[token]} {SUIT_NAMES[token].title()}")
            for token in observation.legal_actions()
        ]
    elif my_turn and state.phase == engine.DISCARD:
        discardable = set(state.discardable(observer))
        discard_choices = [
            card_view(code, code in discardable)
            for code in in_hand_order(observation.hand, state.trump)
        ]

    last_trick, last_trick_winner = [], ""
    if state.tricks:
        trick = state.tricks[-1]
        last_trick = [
            TrickCard(
                card_view(c),
                "You" if s == observer else seats[s].display_name,
                s == trick.winner,
                places[s].trick_x,
                places[s].trick_y,
            )
            for s, c in trick.cards
        ]
        last_trick_winner = trick_taken(
            "You" if trick.winner == observer else seats[trick.winner].display_name
        )
    taken = {}
    for trick in state.tricks:
        side = rules.side_of(trick.winner)
        taken[side] = taken.get(side, 0) + 1
    tricks_taken = [(side_label(rules, side, seats, observer), n) for side, n in taken.items()]
    discard_label = "Discard the chosen cards"
    if rules.six_players:
        discard_label = "Discard two cards"

    my_side = rules.side_of(observer) if observer else None
    totals = [
        (side_label(rules, side, seats, observer), match.totals.get(side, 0), side == my_side)
        for side in rules.sides
    ]
    result = deal_row.result if over else None
    status = _status_line(state, observer, seats, my_turn)
    winner_label = side_label(rules, match.winner, seats, observer) if match.winner else ""
    return TableView(
        match_id=match.pk,
        version=match.version,
        rules_text=rules.describe(),
        me=observer,
        me_seat=next((s for s in seat_views if s.is_me), None),
        deal_number=deal_row.number,
        step=state.version,
        phase=state.phase,
        seats=seat_views,
        hand=hand,
        bids=bids,
        discard_choices=discard_choices,
        discard_label=discard_label,
        discard_exact=2 if rules.six_players else None,
        auction=[
            ("You" if s == observer else seats[s].display_name, call_label(t))
            for s, t in state.calls
        ],
        trump=state.trump,
        trump_symbol=SUIT_SYMBOLS.get(state.trump or "", ""),
        pitcher=(
            ("You" if state.pitcher == observer else seats[state.pitcher].display_name)
            if state.pitcher
            else None
        ),
        bid_label=bid_label(state.bid),
        totals=totals,
        target=rules.target,
        last_trick=last_trick,
        last_trick_winner=last_trick_winner,
        tricks_done=len(state.tricks),
        tricks_per_deal=rules.tricks_per_deal,
        trick_just_done=bool(state.tricks) and not state.current_trick,
        tricks_taken=tricks_taken,
        to_act=state.to_act,
        my_turn=my_turn,
        result=_result_view(rules, result, seats, observer, state) if result else None,
        match_over=match.status == Match.Status.FINISHED,
        winner_label=winner_label,
        winner_verb="win" if " & " in winner_label or winner_label == "You" else "wins",
        thrown_in=bool(result and result.get("thrown_in")),
        status=status,
        going_out_note=_going_out_note(rules, match, totals),
        shared=match.invite_code is not None,
        spectator=observer is None,
        rematch_id=(rematch.pk if (rematch := selectors.rematch_of(match)) else None),
        invite_code=match.invite_code or "",
        practice=_practice_note(match, rules, seats, observer, over),
    )


def _practice_note(
    match: Match, rules: engine.Rules, seats: dict, me: str | None, over: bool
) -> PracticeNote | None:
    if not match.is_practice:
        return None
    source = match.practice_of
    really = None
    if over and source is not None and source.result:
        # The real result tells about cards nobody saw at that step: only after the deal.
        really = _result_view(rules, source.result, seats, me, selectors.deal_state(source))
    return PracticeNote(
        source_match_id=source.match_id if source else None,
        source_number=source.number if source else None,
        step=match.practice_step,
        really=really,
    )


@dataclass(frozen=True)
class ScoreLine:
    label: str  # "You & North", "East & West", a cutthroat player's name
    points: str
    mine: bool


def score_lines(match: Match, user) -> list[ScoreLine]:
    """A match's running score for lists, each side named by its players (never "NS" or "P1P4")."""
    rules = selectors.rules_of(match)
    seats = {seat.position: seat for seat in match.seats.select_related("user")}
    me = next((p for p, s in seats.items() if user.is_authenticated and s.user_id == user.pk), None)
    my_side = rules.side_of(me) if me else None
    return [
        ScoreLine(
            side_label(rules, side, seats, me),
            points_text(match.totals.get(side, 0)),
            side == my_side,
        )
        for side in rules.sides
    ]


def _going_out_note(rules: engine.Rules, match: Match, totals: list) -> str:
    if match.status != Match.Status.PLAYING:
        return ""
    return going_out_note(rules, totals)


def _status_line(state: engine.Deal, me, seats: dict, my_turn: bool) -> str:
    names = {position: seat.display_name for position, seat in seats.items()}
    return status_line(state.phase, state.to_act, state.current_trick, names, my_turn)


def _result_view(
    rules: engine.Rules, result: dict, seats: dict, me: str | None, state: engine.Deal
) -> dict:
    """The engine's score JSON, with names a person reads, and the cards that won the points."""
    if result.get("thrown_in"):
        return {"thrown_in": True}
    names = {side: side_label(rules, side, seats, me) for side in rules.sides}
    cards = point_cards(state.plays, state.trump)
    return {
        "thrown_in": False,
        "pitcher": "You" if result["pitcher"] == me else seats[result["pitcher"]].display_name,
        "bid": bid_label(result["bid"]),
        "made": result["made"],
        "points": [
            (
                kind.title(),
                names.get(result["points"].get(kind)) if result["points"].get(kind) else "nobody",
                card_view(cards[kind]) if cards.get(kind) else None,
            )
            for kind in POINT_NAMES
        ],
        "game_points": [(names[side], n) for side, n in result["game_points"].items()],
        "score": [
            (names[side], n, points_text(n) if n < 0 else f"+{n}" if n > 0 else "0")
            for side, n in result["score"].items()
        ],
        "hands": [
            (
                "You" if position == me else seats[position].display_name,
                [card_view(c) for c in in_hand_order(state.dealt_hands[position], state.trump)],
            )
            for position in rules.seats
        ],
    }


@dataclass
class FormingSeat:
    position: str
    name: str
    side: str
    side_label: str
    player: str  # a username, "Bot (easy)", or ""
    is_empty: bool
    is_bot: bool
    bot_level: str
    is_me: bool
    connected: bool


@dataclass
class FormingView:
    match_id: int
    version: int
    rules_text: str
    code: str
    host_name: str
    is_host: bool
    me: str | None
    sides: list  # (side label, [FormingSeat])
    empty_count: int
    first_free: str  # the first free seat (for "Take a seat"), or ""
    allow_spectators: bool
    turn_timeout_seconds: int
    bot_levels: list
    default_bot_level: str = DEFAULT_BOT_LEVEL


def forming_view(match: Match, user, invited=frozenset()) -> FormingView:
    """A table waiting for players, as `user` sees it: seats by partnership, who sits where."""
    rules = selectors.rules_of(match)
    seats = {seat.position: seat for seat in match.seats.select_related("user")}
    me = next((p for p, s in seats.items() if user.is_authenticated and s.user_id == user.pk), None)
    by_side: dict[str, list] = {}
    for position in rules.seats:
        seat = seats[position]
        side = rules.side_of(position)
        members = [seat_name(p) for p in rules.seats if rules.side_of(p) == side]
        by_side.setdefault(side, []).append(
            FormingSeat(
                position=position,
                name=seat_name(position),
                side=side,
                side_label=" & ".join(members),
                player=seat.user.shown_name
                if seat.user_id
                else (f"Bot ({seat.get_bot_level_display().lower()})" if seat.bot_level else ""),
                is_empty=seat.is_empty,
                is_bot=seat.is_bot,
                bot_level=seat.bot_level,
                is_me=position == me,
                connected=seat.is_bot or seat.connections > 0 or position == me,
            )
        )
    return FormingView(
        match_id=match.pk,
        version=match.version,
        rules_text=rules.describe(),
        code=(match.invite_code or "")
        if selectors.came_through_invite(match, user, invited)
        else "",
        host_name=match.host.shown_name,
        is_host=user.is_authenticated and match.host_id == user.pk,
        me=me,
        sides=[(members[0].side_label, members) for members in by_side.values()],
        empty_count=sum(1 for s in seats.values() if s.is_empty),
        first_free=next((p for p in rules.seats if seats[p].is_empty), ""),
        allow_spectators=match.allow_spectators,
        turn_timeout_seconds=match.turn_timeout_seconds,
        bot_levels=list(BotLevel.choices),
    )


@dataclass(frozen=True)
class ChatLine:
    name: str
    text: str
    mine: bool
    at: object


def chat_lines(match: Match, user, limit: int = 30) -> list[ChatLine]:
    """The table's last chat lines, oldest first (escaped by the template that shows them),
    leaving out the people `user` muted."""
    rows = match.chat_messages.select_related("user").order_by("-id")
    muted = selectors.personal_blocks(user)[PersonalBlock.Kind.MUTE]
    if muted:
        rows = rows.exclude(user_id__in=muted)
    rows = list(rows[:limit])
    return [
        ChatLine(
            row.user.shown_name,
            row.text,
            user.is_authenticated and row.user_id == user.pk,
            row.created_at,
        )
        for row in reversed(rows)
    ]
