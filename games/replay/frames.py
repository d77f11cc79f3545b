"""One moment of a deal as the replay shows it, built from the engine.

A deal's replay is its actions in order: step 0 is the deal as dealt, step n the deal after its
first n actions. `Timeline(deal)` applies the actions of an engine `Deal` to a fresh copy of
its dealt cards, once, keeping the engine's state after every step; `build_frame` turns one of
those states into what a page shows. Nothing here decides a rule or a score: hands, tricks,
trump, the auction and the result are the engine's, so a replay agrees with the engine by
construction (tests/db/test_replay_frames.py checks every frame of deals under every preset).

Points "as they fall". A replay shows a finished deal, so the whole deal is known and each point
is shown from the step that settles it: High when the trick holding the highest trump in play is
taken, Jack when the jack of trump's trick is taken, Low when its trick is taken (with Low to
the holder, as soon as it is played), Game at the last step, when every card is captured. A
point nobody takes (no jack in play, a tie for Game) shows at the last step. The side each point
goes to is always the engine's result; only the moment is read from the play.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from games import engine
from games.core.marks import Mark
from games.core.presenters import CardView, card_view
from games.engine.actions import PITCH, Action
from games.engine.cards import game_points
from games.engine.display import screen_places
from games.engine.wording import (
    POINT_NAMES,
    SUIT_NAMES,
    SUIT_SYMBOLS,
    bid_label,
    call_label,
    short_card,
    trick_taken,
)
from games.models import seat_name


class MoveKind(StrEnum):
    """What an action of a deal was, as the move list sorts it."""

    CALL = "call"
    TRUMP = "trump"
    DISCARD = "discard"
    PLAY = "play"


PHASE_KIND = {
    engine.AUCTION: MoveKind.CALL,
    engine.TRUMP: MoveKind.TRUMP,
    engine.DISCARD: MoveKind.DISCARD,
    engine.PLAY: MoveKind.PLAY,
}


class NoSuchStep(LookupError):
    pass


class Timeline:
    """The engine's state after every action of `deal`, and the step that settles each point."""

    def __init__(self, deal: engine.Deal):
        self.rules = deal.rules
        state = deal.as_dealt()
        self.history: list[tuple[str, str]] = list(deal.history)
        self.states: list[engine.Deal] = [state.copy()]
        self.kinds: list[MoveKind] = []  # what each action was
        self.trick_of: list[int] = []  # for each action, the trick it was taken in (1..6)
        self.trick_taken_at: list[int] = []  # step at which each trick was completed
        for step, (seat, token) in enumerate(self.history, start=1):
            self.kinds.append(PHASE_KIND[state.phase])
            self.trick_of.append(len(state.tricks) + 1)
            state.apply(token, seat)
            self.states.append(state.copy())
            if len(state.tricks) > len(self.trick_taken_at):
                self.trick_taken_at.append(step)
        self.final = state
        self.result = state.result() if state.is_over else None
        self.winning_pitch = state.auction.winning_pitch
        self.point_cards, self.settled_at = self._points_settled()

    @property
    def last(self) -> int:
        return len(self.history)

    def state(self, step: int) -> engine.Deal:
        if not 0 <= step <= self.last:
            raise NoSuchStep(step)
        return self.states[step]

    def _points_settled(self) -> tuple[dict, dict]:
        """The card behind High, Low and Jack, and the step from which each point is shown."""
        result = self.result
        if result is None or result.thrown_in:
            return {}, {}
        played_at: dict[str, int] = {}
        taken_at: dict[str, int] = {}
        for step, state in enumerate(self.states):
            for card in state.plays:
                played_at.setdefault(card, step)
            for trick in state.tricks:
                for _, card in trick.cards:
                    taken_at.setdefault(card, step)
        trumps = engine.sort_cards(c for c in self.final.plays if c[1] == result.trump)
        cards: dict[str, str | None] = dict.fromkeys(POINT_NAMES)
        settled = dict.fromkeys(POINT_NAMES, self.last)
        if trumps:  # highest first
            cards["high"], cards["low"] = trumps[0], trumps[-1]
            settled["high"] = taken_at[trumps[0]]
            low_at = played_at if self.rules.low_to == "holder" else taken_at
            settled["low"] = low_at[trumps[-1]]
            jack = "J" + result.trump
            if jack in taken_at:
                cards["jack"] = jack
                settled["jack"] = taken_at[jack]
        return cards, settled


# --- What a page shows --------------------------------------------------------------------


@dataclass(frozen=True)
class Move:
    """One action in the move list; `step` is the frame right after it."""

    step: int
    seat: str
    who: str
    kind: str  # call, trump, discard, play
    label: str  # "Pass", "3", "Pitch K♠", "♥ trump", "5♣ 7♦", "K♠"
    card: CardView | None = None
    mark: Mark | None = None
    better: str = ""  # the coach's better option, as a label
    url: str = ""
    stand_in: bool = False  # made by a bot standing in for the seat's person (issue 44)


@dataclass(frozen=True)
class MoveGroup:
    title: str
    moves: list
    winner: str = ""  # for a trick: who took it


@dataclass(frozen=True)
class TrickCard:
    card: CardView
    who: str
    x: int
    y: int
    won: bool = False


@dataclass(frozen=True)
class ReplaySeat:
    position: str
    name: str
    is_viewer: bool
    place: str
    x: int
    y: int
    hand: list  # CardView: what the seat holds at this step, face up
    is_dealer: bool
    is_pitcher: bool
    is_next: bool  # the seat whose action comes next
    call: str


@dataclass(frozen=True)
class PointView:
    name: str  # High, Low, Jack, Game
    settled: bool
    taker: str = ""  # a side's name, or "nobody"
    card: CardView | None = None
    mine: bool = False


@dataclass(frozen=True)
class SideLine:
    label: str
    value: int
    mine: bool = False


@dataclass(frozen=True)
class StepLinks:
    first: str
    previous: str | None
    next: str | None
    last: str


@dataclass
class Frame:
    """Everything one replay step shows. Built only for a deal that is over (or for an uploaded
    record, which may stop before the end)."""

    number: int
    step: int
    last: int
    phase: str
    rules_text: str
    target: int
    caption: str  # what the last action did
    up_next: str  # who acts next, or how the deal ended
    seats: list
    trick: list  # TrickCard: the trick on the table, or the one just taken
    trick_taken_by: str
    auction: list  # (who, call)
    trump: str
    trump_symbol: str
    pitcher: str
    bid_label: str
    tricks_taken: list  # SideLine
    game_points: list  # SideLine: game points captured so far
    points: list  # PointView
    score: list  # SideLine: the deal's score, at the last step only
    made: bool | None
    thrown_in: bool
    complete: bool  # the deal was played to its end (False: a record that stops early)
    totals_before: list  # SideLine: the match score before this deal (match deals only)
    totals_after: list
    groups: list  # MoveGroup
    marks: list  # Move: the viewer's decision just made, if the coach marked it
    links: StepLinks
    stock_count: int
    viewer: str | None = None
    moves: list = field(default_factory=list)


def side_name(rules: engine.Rules, side: str, names: Mapping[str, str]) -> str:
    return " & ".join(names[seat] for seat in rules.seats_of(side))


def token_label(token: str, kind: str) -> str:
    """An action as the move list writes it."""
    if kind == MoveKind.CALL:
        return call_label(token)
    if kind == MoveKind.TRUMP:
        return f"{SUIT_SYMBOLS[token]} trump"
    if kind == MoveKind.DISCARD:
        cards = Action.parse(token).cards
        return " ".join(short_card(c) for c in cards) if cards else "none"
    return short_card(token)


def _caption(timeline: Timeline, step: int, names: Mapping[str, str]) -> str:
    if step == 0:
        return f"The cards as dealt by {names[timeline.final.dealer]}."
    seat, token = timeline.history[step - 1]
    kind = timeline.kinds[step - 1]
    who = names[seat]
    action = Action.parse(token)
    if kind == MoveKind.CALL:
        if action.is_pass:
            text = f"{who} passes"
        elif action.kind == PITCH:
            text = f"{who} pitches {short_card(action.word)}"
        else:
            text = f"{who} bids {call_label(token).lower()}"
    elif kind == MoveKind.TRUMP:
        text = f"{who} names {SUIT_NAMES[token]} trump"
    elif kind == MoveKind.DISCARD:
        cards = token_label(token, kind)
        text = f"{who} discards {cards}" if cards != "none" else f"{who} discards nothing"
    else:
        text = f"{who} plays {short_card(token)}"
    state = timeline.states[step]
    if step in timeline.trick_taken_at:
        text += "; " + trick_taken(names[state.tricks[-1].winner])
    return text + "."


def _up_next(state: engine.Deal, names: Mapping[str, str]) -> str:
    if state.is_over:
        return "Everyone passed: the hand is thrown in." if state.thrown_in else "The deal is over."
    who = names[state.to_act]
    if state.phase == engine.AUCTION:
        return f"{who} to call."
    if state.phase == engine.TRUMP:
        return f"{who} to name trump."
    if state.phase == engine.DISCARD:
        return f"{who} to discard."
    return f"{who} to {'play' if state.current_trick else 'lead'}."


@dataclass(frozen=True)
class _Step:
    """One step of a timeline, as one viewer sees it, shared by the parts of its frame."""

    timeline: Timeline
    step: int
    state: engine.Deal
    names: dict  # seat -> name
    sides: dict  # side -> name
    viewer: str | None
    my_side: str | None
    places: dict

    @property
    def at_end(self) -> bool:
        return self.timeline.final.is_over and self.step == self.timeline.last

    def lines(self, value_of) -> list[SideLine]:
        """One line per side: its name, `value_of(side)`, and whether it is the viewer's."""
        rules = self.timeline.rules
        return [SideLine(self.sides[s], value_of(s), s == self.my_side) for s in rules.sides]


def build_frame(
    timeline: Timeline,
    step: int,
    *,
    number: int,
    names: Mapping[str, str] | None = None,
    viewer: str | None = None,
    url_of: Callable[[int], str] = str,
    marks: Mapping[int, Mark] | None = None,
    totals_before: Mapping[str, int] | None = None,
    stand_ins: frozenset = frozenset(),
) -> Frame:
    """The replay of `timeline` at `step`, as `viewer` (a seat, or None for a guest) sees it.

    Every hand is face up: replays exist only for deals that are over. `marks` are the coach's
    marks on the viewer's own decisions, by action sequence; `stand_ins` the sequences of the
    moves a stand-in bot made for a person.
    """
    at = _step_of(timeline, step, names, viewer)
    state, rules, result = at.state, timeline.rules, timeline.result
    trick, winner = _trick_shown(at)
    taken, captured = _tricks_and_game_points(at)
    moves = _moves(timeline, at.names, marks or {}, viewer, url_of, stand_ins)
    ended = at.at_end and result is not None
    before, after = _totals_lines(at, totals_before)
    return Frame(
        number=number,
        step=step,
        last=timeline.last,
        phase=state.phase,
        rules_text=rules.describe(),
        target=rules.target,
        caption=_caption(timeline, step, at.names),
        up_next=_up_next_line(at),
        seats=_replay_seats(at),
        trick=trick,
        trick_taken_by=at.names[winner] if winner else "",
        auction=[(at.names[s], call_label(t)) for s, t in state.calls],
        trump=state.trump or "",
        trump_symbol=SUIT_SYMBOLS.get(state.trump or "", ""),
        pitcher=at.names[state.pitcher] if state.pitcher else "",
        bid_label=bid_label(state.bid),
        tricks_taken=at.lines(taken.get),
        game_points=at.lines(captured.get),
        points=_points(at),
        score=at.lines(result.score.get) if ended else [],
        made=result.made if ended else None,
        thrown_in=bool(result and result.thrown_in),
        complete=timeline.final.is_over,
        totals_before=before,
        totals_after=after,
        groups=_groups(timeline, moves, at.names),
        marks=[m for m in moves if m.step == step and m.mark],
        links=_links(timeline, step, url_of),
        stock_count=len(state.stock_remaining),
        viewer=viewer,
        moves=moves,
    )


RECORD_STOPS = "The record stops here, before the end of the deal."


def _up_next_line(at: _Step) -> str:
    if at.timeline.final.is_over or at.step < at.timeline.last:
        return _up_next(at.state, at.names)
    return RECORD_STOPS


def _totals_lines(at: _Step, totals_before: Mapping[str, int] | None) -> tuple[list, list]:
    """The match score before the deal, and, at the deal's last step, after it."""
    if totals_before is None:
        return [], []
    before = at.lines(lambda s: totals_before.get(s, 0))
    result = at.timeline.result
    if not (at.at_end and result is not None):
        return before, []
    return before, at.lines(lambda s: totals_before.get(s, 0) + result.score[s])


def _links(timeline: Timeline, step: int, url_of: Callable[[int], str]) -> StepLinks:
    return StepLinks(
        first=url_of(0),
        previous=url_of(step - 1) if step > 0 else None,
        next=url_of(step + 1) if step < timeline.last else None,
        last=url_of(timeline.last),
    )


def _step_of(
    timeline: Timeline, step: int, names: Mapping[str, str] | None, viewer: str | None
) -> _Step:
    rules = timeline.rules
    names = dict(names or {})
    for seat in rules.seats:
        names.setdefault(seat, seat_name(seat))
    seated = viewer in rules.seats
    bottom = viewer if seated else ("S" if "S" in rules.seats else rules.seats[0])
    return _Step(
        timeline=timeline,
        step=step,
        state=timeline.state(step),
        names=names,
        sides={side: side_name(rules, side, names) for side in rules.sides},
        viewer=viewer,
        my_side=rules.side_of(viewer) if seated else None,
        places=screen_places(rules.seats, bottom),
    )


def _replay_seats(at: _Step) -> list[ReplaySeat]:
    state, places = at.state, at.places
    calls = dict(state.calls)
    return [
        ReplaySeat(
            position=seat,
            name=at.names[seat],
            is_viewer=seat == at.viewer,
            place=places[seat].name,
            x=places[seat].x,
            y=places[seat].y,
            hand=[card_view(c) for c in state.hand(seat)],
            is_dealer=seat == state.dealer,
            is_pitcher=seat == state.pitcher,
            is_next=seat == state.to_act,
            call=call_label(calls[seat]) if seat in calls else "",
        )
        for seat in at.timeline.rules.seats
    ]


def _trick_shown(at: _Step) -> tuple[list, str | None]:
    """The trick on the table; right after a trick's last card, that trick with its taker."""
    state = at.state
    taken_now = at.step in at.timeline.trick_taken_at
    shown = state.tricks[-1].cards if taken_now else state.current_trick
    winner = state.tricks[-1].winner if taken_now else None
    trick = [
        TrickCard(
            card_view(c),
            at.names[s],
            at.places[s].trick_x,
            at.places[s].trick_y,
            won=s == winner,
        )
        for s, c in shown
    ]
    return trick, winner


def _tricks_and_game_points(at: _Step) -> tuple[dict, dict]:
    """Each side's tricks taken so far, and the game points in them."""
    sides = at.timeline.rules.sides
    taken, captured = dict.fromkeys(sides, 0), dict.fromkeys(sides, 0)
    for trick in at.state.tricks:
        side = at.timeline.rules.side_of(trick.winner)
        taken[side] += 1
        captured[side] += sum(game_points(c) for _, c in trick.cards)
    return taken, captured


def _points(at: _Step) -> list[PointView]:
    """High, Low, Jack and Game: each named with its taker once it is settled."""
    result = at.timeline.result
    if result is None or result.thrown_in:
        return []
    points = []
    for name in POINT_NAMES:
        settled = at.step >= at.timeline.settled_at[name]
        side = result.points[name]
        code = at.timeline.point_cards.get(name)
        points.append(
            PointView(
                name=name.title(),
                settled=settled,
                taker=(at.sides[side] if side else "nobody") if settled else "",
                card=card_view(code) if settled and code else None,
                mine=settled and side is not None and side == at.my_side,
            )
        )
    return points


def _moves(
    timeline: Timeline, names, marks: Mapping[int, Mark], viewer, url_of, stand_ins=frozenset()
) -> list[Move]:
    moves = []
    for sequence, ((seat, token), kind) in enumerate(
        zip(timeline.history, timeline.kinds, strict=True)
    ):
        mark = marks.get(sequence) if seat == viewer else None  # only the viewer's own decisions
        card = None
        action = Action.parse(token)
        if kind == MoveKind.PLAY or action.kind == PITCH:
            card = card_view(action.word)
        moves.append(
            Move(
                step=sequence + 1,
                seat=seat,
                who=names[seat],
                kind=kind,
                label=token_label(token, kind),
                card=card,
                mark=mark,
                better=token_label(mark.better, kind) if mark else "",
                url=url_of(sequence + 1),
                stand_in=sequence in stand_ins,
            )
        )
    return moves


def _groups(timeline: Timeline, moves: list[Move], names) -> list[MoveGroup]:
    """The move list in sections: the auction, trump, discards, then trick by trick."""
    titles = {MoveKind.CALL: "Auction", MoveKind.TRUMP: "Trump", MoveKind.DISCARD: "Discards"}
    groups: list[MoveGroup] = []
    by_title: dict[str, list] = {}
    for move, trick_number in zip(moves, timeline.trick_of, strict=True):
        title = titles.get(move.kind) or f"Trick {trick_number}"
        if title not in by_title:
            by_title[title] = []
            winner = ""
            if move.kind == MoveKind.PLAY and trick_number <= len(timeline.final.tricks):
                winner = names[timeline.final.tricks[trick_number - 1].winner]
            groups.append(MoveGroup(title, by_title[title], winner))
        by_title[title].append(move)
    if timeline.winning_pitch:
        # The winning pitch is also the first trick's lead: show it there too.
        pitch = next(
            m
            for m in moves
            if m.kind == MoveKind.CALL and m.card and m.card.code == timeline.winning_pitch
        )
        lead = Move(
            pitch.step,
            pitch.seat,
            pitch.who,
            MoveKind.PLAY,
            short_card(pitch.card.code),
            pitch.card,
            url=pitch.url,
        )
        if "Trick 1" in by_title:
            by_title["Trick 1"].insert(0, lead)
        else:
            groups.append(MoveGroup("Trick 1", [lead], ""))
    return groups
