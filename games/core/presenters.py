"""What templates show: a seat's view of its table, cards, seat geometry, scores, a forming
table and its chat.

A seat's view is built from the engine's observation for that seat, so another seat's unplayed
cards are never in it.
"""

import math
from dataclasses import dataclass, field

from django.utils import timezone

from games import engine
from games.core import selectors, turns
from games.core.forms import last_choices
from games.engine import refusals
from games.engine.actions import PASS, PITCH, Action, parse_discard_token, pitch_token
from games.engine.display import (
    going_out_note,
    in_hand_order,
    point_cards,
    points_text,
    screen_places,
    status_line,
)
from games.engine.observation import Observation
from games.engine.spoken import recent_moves, turn_cue
from games.engine.wording import (
    POINT_NAMES,
    SUIT_NAMES,
    SUIT_SYMBOLS,
    bid_label,
    call_label,
    card_name,
    rank_label,
    short_card,
    trick_taken,
)
from games.models import DEFAULT_BOT_LEVEL, BotLevel, Deal, Match, PersonalBlock, seat_name


@dataclass(frozen=True)
class CardView:
    code: str
    rank: str
    suit: str
    legal: bool = False
    action: str = ""  # the token a click on this card sends, when it is not the card itself
    why: str = ""  # why it may not be played now (refusals.unplayable_card), for the owner only

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


def card_view(code: str, legal: bool = False, action: str = "", why: str = "") -> CardView:
    return CardView(code=code, rank=code[0], suit=code[1], legal=legal, action=action, why=why)


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
    led: bool = False  # this seat led the trick being played
    revealed: list = field(default_factory=list)  # the dealt hand, shown once the deal is over
    # A person's turn at a shared table: whole seconds before a stand-in plays it.
    turn_left: int | None = None

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
    step: int | None  # (set on every practice match)
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
    led_suit: str  # the suit led to the trick being played ("" before a card is led)
    led_symbol: str
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
    # One deal and over (a daily deal): no match result, no next deal, no rematch; its own
    # panel (hooks.table_panels) says where to go next.
    single_deal: bool = False
    # A table of one deal (a daily or practice deal): no deal number, target or match score.
    one_deal: bool = False
    # A round of a Setback night (games/events): no rematch; the event's panel says where next.
    event_round: bool = False
    # Its deals (the header says so instead of the match's target).
    round_deals: int | None = None
    # The viewer leads a trick after trump is named: "Claim the rest" is offered (the engine
    # decides on the click whether every remaining trick is surely theirs).
    may_claim: bool = False
    # Once a deal a claim ended is over: "South claimed the last 3 tricks."
    claim_note: str = ""
    # The latest moves in words, each with its step, for the page's live region (a screen
    # reader speaks those it has not spoken yet), and what the viewer's turn asks of them.
    spoken: list = field(default_factory=list)
    turn_cue: str = ""
    # What stand-in bots did for the viewer since their own last move in this deal (issue 44).
    away_notice: str = ""


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


@dataclass(frozen=True)
class _Seen:
    """One read of a table for one viewer, shared by the steps that build its view."""

    match: Match
    deal_row: Deal
    rules: engine.Rules
    state: engine.Deal
    seats: dict  # position -> Seat
    observer: str | None  # the viewer's seat, or None for a spectator
    observation: Observation | None  # None for a spectator
    places: dict
    my_turn: bool
    legal: frozenset
    # The deal's moves at people's seats (shared tables only): (sequence, seat, kind, token, user)
    person_moves: tuple = ()

    @property
    def stand_ins(self) -> frozenset:
        """The sequences of the moves a bot made at a person's seat."""
        return frozenset(seq for seq, _, _, _, user_id in self.person_moves if user_id is None)

    @property
    def over(self) -> bool:
        return self.state.phase == engine.OVER

    def name(self, position: str) -> str:
        """A seat as the viewer reads it: "You", or the seat's name."""
        return "You" if position == self.observer else self.seats[position].display_name

    def mover(self, position: str, sequence: int) -> str:
        """Who made a move: the seat's name, or its stand-in bot's ("Your bot", "Ann's bot"):
        the page never says "You bid 2" for a bot's call."""
        if sequence not in self.stand_ins:
            return self.name(position)
        return "Your bot" if position == self.observer else f"{self.name(position)}'s bot"

    def side(self, side: str) -> str:
        return side_label(self.rules, side, self.seats, self.observer)


def table_view(
    match: Match, me: str | None, *, seats: list | None = None, deal_row: Deal | None = None
) -> TableView:
    """The table as the seat `me` may see it (None: a spectator, who sees only public cards).
    `seats` and `deal_row` save reading them again when the caller already has them; a
    `deal_row` must come with its `match` from one read (`selectors.match_and_current_deal`)."""
    seen = _seen(match, me, seats, deal_row)
    match, state, rules, observer = seen.match, seen.state, seen.rules, seen.observer
    seat_views = _seat_views(seen)
    hand, bids, discard_choices = _hand_and_choices(seen)
    last_trick, last_trick_winner = _last_trick(seen)
    totals = _totals(seen)
    result = seen.deal_row.result if seen.over else None
    winner_label, winner_verb = _winner(seen)
    return TableView(
        match_id=match.pk,
        version=match.version,
        rules_text=rules.describe(),
        me=observer,
        me_seat=next((s for s in seat_views if s.is_me), None),
        deal_number=seen.deal_row.number,
        step=state.version,
        phase=state.phase,
        seats=seat_views,
        hand=hand,
        bids=bids,
        discard_choices=discard_choices,
        discard_label="Discard two cards" if rules.six_players else "Discard the chosen cards",
        discard_exact=2 if rules.six_players else None,
        auction=[(seen.mover(s, n), call_label(t)) for n, (s, t) in enumerate(state.calls)],
        trump=state.trump,
        trump_symbol=SUIT_SYMBOLS.get(state.trump or "", ""),
        led_suit=_led_suit(state),
        led_symbol=SUIT_SYMBOLS.get(_led_suit(state), ""),
        pitcher=_pitcher(seen),
        bid_label=bid_label(state.bid),
        totals=totals,
        target=rules.target,
        last_trick=last_trick,
        last_trick_winner=last_trick_winner,
        tricks_done=len(state.tricks),
        tricks_per_deal=rules.tricks_per_deal,
        trick_just_done=bool(state.tricks) and not state.current_trick,
        tricks_taken=_tricks_taken(seen),
        to_act=state.to_act,
        my_turn=seen.my_turn,
        result=_result_view(rules, result, seen.seats, observer, state, _pitcher(seen))
        if result
        else None,
        match_over=match.status == Match.Status.FINISHED,
        winner_label=winner_label,
        winner_verb=winner_verb,
        thrown_in=bool(result and result.get("thrown_in")),
        status=_status_line(state, observer, seen.seats, seen.my_turn),
        going_out_note=_going_out_note(rules, match, totals),
        shared=match.invite_code is not None,
        spectator=observer is None,
        rematch_id=getattr(selectors.rematch_of(match), "pk", None)
        if match.status == Match.Status.FINISHED
        else None,
        invite_code=match.invite_code or "",
        practice=_practice_note(match, rules, seen.seats, observer, seen.over),
        single_deal=match.single_deal,
        one_deal=match.single_deal or match.is_practice,
        event_round=match.deals_limit is not None,
        round_deals=match.deals_limit,
        may_claim=_may_claim(seen),
        claim_note=_claim_note(seen),
        **_words(seen),
        away_notice=_away_notice(seen),
    )


def _pitcher(seen: _Seen) -> str | None:
    """Who holds the contract, as the viewer reads it: their stand-in's bid is "Your bot"'s."""
    state = seen.state
    if not state.pitcher:
        return None
    winning = [
        n for n, (s, token) in enumerate(state.calls) if s == state.pitcher and token != PASS
    ]
    return seen.mover(state.pitcher, winning[-1]) if winning else seen.name(state.pitcher)


def _away_notice(seen: _Seen) -> str:
    """ "While you were away a bot bid 2 and played the 7♥ for you.": the stand-in's moves at
    the viewer's seat since their own last move in this deal."""
    if not seen.observer:
        return ""
    mine = [m for m in seen.person_moves if m[1] == seen.observer]
    own = [n for n, m in enumerate(mine) if m[4] is not None]
    since = mine[own[-1] + 1 :] if own else mine
    done = [_move_words(kind, token) for _, _, kind, token, _ in since]
    if not done:
        return ""
    listed = done[0] if len(done) == 1 else ", ".join(done[:-1]) + " and " + done[-1]
    return f"While you were away a bot {listed} for you."


def _move_words(kind: str, token: str) -> str:
    if kind == "bid":
        return "passed" if token == PASS else f"bid {call_label(token)}"
    if kind == "trump":
        return f"named {SUIT_NAMES.get(token, token)} trump"
    if kind == "discard":
        cards = parse_discard_token(token) or []
        return "discarded " + (" ".join(short_card(c) for c in cards) or "nothing")
    return f"played the {short_card(token)}"


def _turn_left(seen: _Seen, position: str) -> int | None:
    """Whole seconds before a stand-in plays this person's turn (turns.stand_in_left)."""
    seat, match = seen.seats[position], seen.match
    if (
        seen.over
        or position != seen.state.to_act
        or not seat.user_id
        or match.invite_code is None
        or match.status != Match.Status.PLAYING
    ):
        return None
    now = timezone.now()
    connected = seat.connections > 0 or position == seen.observer  # the viewer is looking
    left = turns.stand_in_left(
        match.turn_timeout_seconds,
        (now - match.updated_at).total_seconds(),
        connected,
        turns.away_for(connected, seat.last_seen_at, now),
    )
    return None if left is None else max(0, math.ceil(left))


def _seen(match: Match, me: str | None, seats: list | None, deal_row: Deal | None) -> _Seen:
    if deal_row is None:
        # The match again, with its deal in the same query: a version read before the deal
        # (a bot may move in between) would name a moment before the position shown, and the
        # person's move made on it would be refused as stale.
        match, deal_row = selectors.match_and_current_deal(match.pk)
    assert deal_row is not None  # a dealt table's (a forming one has a view of its own)
    rules = selectors.rules_of(match)
    state = selectors.current_state(deal_row)
    by_position = {
        seat.position: seat for seat in (seats if seats is not None else selectors.seats_of(match))
    }
    observer = me if me in by_position else None
    observation = state.observation(observer) if observer else None
    my_turn = (
        observer is not None and state.to_act == observer and match.status == Match.Status.PLAYING
    )
    return _Seen(
        match=match,
        deal_row=deal_row,
        rules=rules,
        state=state,
        seats=by_position,
        observer=observer,
        observation=observation,
        places=screen_places(rules.seats, observer),
        my_turn=my_turn,
        legal=frozenset(observation.legal_actions())
        if my_turn and observation is not None
        else frozenset(),
        person_moves=tuple(
            selectors.moves_at_seats(
                deal_row, [p for p, seat in by_position.items() if seat.user_id]
            )
        )
        if match.invite_code is not None
        else (),
    )


def _led_suit(state: engine.Deal) -> str:
    return state.current_trick[0][1][1] if state.current_trick else ""


def _seat_views(seen: _Seen) -> list[SeatView]:
    state = seen.state
    calls = {seat: token for seat, token in state.calls}
    current = dict(state.current_trick)
    leader = state.current_trick[0][0] if state.current_trick else None
    # Played-out deals show every hand; a thrown-in one was never played, so never shown.
    reveal = seen.over and not state.thrown_in
    views = []
    for position in seen.rules.seats:
        seat, place = seen.seats[position], seen.places[position]
        views.append(
            SeatView(
                position=position,
                name=seat.display_name,
                is_bot=seat.is_bot,
                is_me=position == seen.observer,
                side=seen.rules.side_of(position),
                card_count=len(state.hand(position)),
                is_dealer=position == state.dealer,
                is_turn=position == state.to_act and not seen.over,
                is_pitcher=position == state.pitcher,
                place=place.name,
                x=place.x,
                y=place.y,
                trick_x=place.trick_x,
                trick_y=place.trick_y,
                # The viewer is here: they are looking at this page.
                connected=seat.is_bot or seat.connections > 0 or position == seen.observer,
                is_person=bool(seat.user_id),
                bot_level=seat.get_bot_level_display().lower() if seat.is_bot else "",
                call=call_label(calls[position]) if position in calls else "",
                turn_left=_turn_left(seen, position),
                trick_card=card_view(current[position]) if position in current else None,
                led=position == leader,
                revealed=[
                    card_view(c) for c in in_hand_order(state.dealt_hands[position], state.trump)
                ]
                if reveal
                else [],
            )
        )
    return views


def _hand_and_choices(seen: _Seen) -> tuple[list, list, list]:
    """The viewer's hand (its playable cards marked), the calls or suits they may choose, and
    the cards they may discard: what their turn offers, in its phase."""
    if not seen.observer:
        return [], [], []
    observation = _own_observation(seen)
    state, legal = seen.state, seen.legal
    playable = legal if state.phase == engine.PLAY else set()
    in_order = in_hand_order(observation.hand, state.trump)
    hand = [_hand_card(seen, code, code in playable) for code in in_order]
    if not seen.my_turn:
        return hand, [], []
    if state.phase == engine.AUCTION:
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
        return hand, bids, []
    if state.phase == engine.TRUMP:
        suits = [
            ActionButton(token, f"{SUIT_SYMBOLS[token]} {SUIT_NAMES[token].title()}")
            for token in observation.legal_actions()
        ]
        return hand, suits, []
    if state.phase == engine.DISCARD:
        discardable = set(state.discardable(seen.observer))
        return hand, [], [card_view(code, code in discardable) for code in in_order]
    return hand, [], []


def _words(seen: _Seen) -> dict:
    """The table in words (games/engine/spoken.py): the latest moves, and the turn's cue."""
    names = {position: seen.name(position) for position in seen.rules.seats}
    return {
        "spoken": recent_moves(seen.state, names),
        "turn_cue": turn_cue(seen.observation) if seen.observation else "",
    }


def _may_claim(seen: _Seen) -> bool:
    state = seen.state
    return (
        seen.my_turn
        and state.phase == engine.PLAY
        and state.trump is not None
        and not state.current_trick
    )


def _claim_note(seen: _Seen) -> str:
    """Who claimed the deal's last tricks, once it is over (one read, at the deal's end only)."""
    if not seen.over:
        return ""
    claimed = list(
        seen.deal_row.actions.filter(claimed=True)
        .order_by("sequence")
        .values_list("seat", flat=True)
    )
    if not claimed:
        return ""
    tricks = len(claimed) // len(seen.rules.seats)
    who = seen.name(claimed[0])
    last = "the last trick" if tricks == 1 else f"the last {tricks} tricks"
    return f"{who} claimed {last}."


def _own_observation(seen: _Seen) -> Observation:
    """What the viewer's own seat sees: only a seated viewer is shown a hand."""
    assert seen.observation is not None
    return seen.observation


def _hand_card(seen: _Seen, code: str, playable: bool) -> CardView:
    """A card of the viewer's hand; one that may not be played carries why (issue 44)."""
    observation = _own_observation(seen)
    why = "" if playable or seen.over else refusals.unplayable_card(observation, code)
    return card_view(code, playable, why=why)


def _last_trick(seen: _Seen) -> tuple[list, str]:
    """The last completed trick, each card where it lay on the felt, and who took it."""
    if not seen.state.tricks:
        return [], ""
    trick = seen.state.tricks[-1]
    cards = [
        TrickCard(
            card_view(c),
            seen.name(s),
            s == trick.winner,
            seen.places[s].trick_x,
            seen.places[s].trick_y,
        )
        for s, c in trick.cards
    ]
    return cards, trick_taken(seen.name(trick.winner))


def _tricks_taken(seen: _Seen) -> list:
    taken: dict[str, int] = {}
    for trick in seen.state.tricks:
        side = seen.rules.side_of(trick.winner)
        taken[side] = taken.get(side, 0) + 1
    return [(seen.side(side), n) for side, n in taken.items()]


def _winner(seen: _Seen) -> tuple[str, str]:
    """Who won the match, as the viewer reads it, and its verb ("You win", "East wins")."""
    if not seen.match.winner:
        return "", "wins"
    label = seen.side(seen.match.winner)
    return label, "win" if " & " in label or label == "You" else "wins"


def _totals(seen: _Seen) -> list:
    my_side = seen.rules.side_of(seen.observer) if seen.observer else None
    return [
        (seen.side(side), seen.match.totals.get(side, 0), side == my_side)
        for side in seen.rules.sides
    ]


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
    rules: engine.Rules,
    result: dict,
    seats: dict,
    me: str | None,
    state: engine.Deal,
    pitcher: str | None = None,
) -> dict:
    """The engine's score JSON, with names a person reads, and the cards that won the points."""
    if result.get("thrown_in"):
        return {"thrown_in": True}
    names = {side: side_label(rules, side, seats, me) for side in rules.sides}
    cards = point_cards(state.plays, state.trump)
    return {
        "thrown_in": False,
        "pitcher": pitcher
        or ("You" if result["pitcher"] == me else seats[result["pitcher"]].display_name),
        "bid": bid_label(result["bid"]),
        "made": result["made"],
        "points": [
            (
                kind.title(),
                names.get(result["points"].get(kind)) if result["points"].get(kind) else "nobody",
                card_view(card) if (card := cards.get(kind)) else None,
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


def _forming_seat(rules: engine.Rules, position: str, seat, me: str | None) -> FormingSeat:
    side = rules.side_of(position)
    members = [seat_name(p) for p in rules.seats if rules.side_of(p) == side]
    if seat.user_id:
        player = seat.user.shown_name
    else:
        player = f"Bot ({seat.get_bot_level_display().lower()})" if seat.bot_level else ""
    return FormingSeat(
        position=position,
        name=seat_name(position),
        side=side,
        side_label=" & ".join(members),
        player=player,
        is_empty=seat.is_empty,
        is_bot=seat.is_bot,
        bot_level=seat.bot_level,
        is_me=position == me,
        connected=seat.is_bot or seat.connections > 0 or position == me,
    )


def forming_view(match: Match, user, invited=frozenset()) -> FormingView:
    """A table waiting for players, as `user` sees it: seats by partnership, who sits where."""
    rules = selectors.rules_of(match)
    seats = {seat.position: seat for seat in match.seats.select_related("user")}
    me = next((p for p, s in seats.items() if user.is_authenticated and s.user_id == user.pk), None)
    by_side: dict[str, list] = {}
    for position in rules.seats:
        forming_seat = _forming_seat(rules, position, seats[position], me)
        by_side.setdefault(forming_seat.side, []).append(forming_seat)
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
        default_bot_level=last_choices(user).get("bot_level", DEFAULT_BOT_LEVEL),
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
    shown = list(rows[:limit])
    return [
        ChatLine(
            row.user.shown_name,
            row.text,
            user.is_authenticated and row.user_id == user.pk,
            row.created_at,
        )
        for row in reversed(shown)
    ]
