"""Every read for history and replay: what a person may open, and what those pages show.

Who may watch what (the only rules of access, all here):
- a match's players see its history, its finished deals' replays and their records;
- anyone holding a match's share token sees the same finished deals, as a guest;
- an imported record is seen by the person who uploaded it;
- a deal still being played has no replay and no record, for anyone, players included.

List pages read the cached columns and the stored result JSON; only a replay or an export
rebuilds a deal through the engine.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache, reduce
from operator import or_

from django.core.paginator import Page, Paginator
from django.db.models import Count, Prefetch, Q
from django.utils import timezone

from games import engine
from games.core import hooks, presenters
from games.core import selectors as game_selectors
from games.core.errors import Forbidden, NotFound
from games.core.marks import coach_choice, stored_marks
from games.engine import deal_to_record, wording
from games.engine.worth import deal_net
from games.models import Action, Deal, Match, Seat, seat_name

from .frames import Frame, SideLine, Timeline, build_frame, side_name
from .models import FaceUpAnalysis, ImportedDeal

HISTORY_PAGE_SIZE = 20
PRESETS = tuple(engine.PRESET_NAMES)
OUTCOMES = ("won", "lost", "playing")
RECORD_META_NAME_LENGTH = 40


# --- Access ---------------------------------------------------------------------------------


def players_match(match_id: int, user) -> tuple[Match, Seat]:
    """The match and the user's seat in it; 404 for anyone who did not play it."""
    return game_selectors.players_match(match_id, user)


# The shape of a share token (secrets.token_urlsafe(16)); anything else leads nowhere without a
# query (PostgreSQL refuses a NUL in a text parameter with an error, not an empty result).
SHARE_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,32}")


def shared_match(token: str) -> Match:
    valid = bool(token) and SHARE_TOKEN.fullmatch(token) is not None
    match = Match.objects.filter(share_token=token).first() if valid else None
    if match is None or (match.closes_at is not None and timezone.now() < match.closes_at):
        raise NotFound("This link does not lead to a shared match; it may have been withdrawn.")
    return match


def finished_deal(match: Match, number: int) -> Deal:
    """A deal of the match that is over. A deal in progress has no replay and no record."""
    deal_row = match.deals.filter(number=number).first()
    if deal_row is None:
        raise NotFound("This match has no such deal.")
    if not deal_row.is_over:
        raise NotFound(
            "This deal is still being played: its replay and its record appear once it is over."
        )
    return deal_row


def own_import(import_id: int, user) -> ImportedDeal:
    imported = ImportedDeal.objects.filter(pk=import_id).first()
    if imported is None:
        raise NotFound("There is no such imported record.")
    if imported.owner_id != user.pk:
        raise Forbidden("This record was imported by someone else; only they can watch it.")
    return imported


# --- Names ----------------------------------------------------------------------------------


def seat_names(match: Match) -> dict[str, str]:
    return {seat.position: seat.display_name for seat in match.seats.select_related("user")}


def short_side(rules: engine.Rules, side: str, names: Mapping[str, str]) -> str:
    """A side in a narrow column: the player's name in cutthroat, else its seats ("N–S")."""
    if rules.cutthroat:
        return names[side]
    return "–".join(rules.seats_of(side))


# --- The history page -----------------------------------------------------------------------


@dataclass(frozen=True)
class HistoryRow:
    match_id: int
    played_at: object
    rules_label: str
    seats: list  # (seat, name, is_me)
    outcome: (
        str  # won, lost, tied, passed_out (a one-deal match everyone passed), playing, practice
    )
    totals: list  # SideLine
    deals: int | None = None  # how many deals the match has had
    offline: bool = False  # played in the person's browser and brought home (games/offline)
    label: str = ""  # what a feature calls the match ("Daily 2026-12-03 · deal 2")


@lru_cache(maxsize=1)
def sides_of_each_seat() -> dict[str, tuple[str, ...]]:
    """Every side each seat name can be on, over every table the engine knows: N is on NS at a
    partnership table; P1 is P1 at a cutthroat table and P1P4 at a six-player one."""
    shapes = [{"preset": "house"}, {"preset": "house", "six_players": True}]
    shapes += [{"preset": "auction", "players": n} for n in range(2, 8)]
    sides: dict[str, set[str]] = {}
    for spec in shapes:
        rules = engine.Rules.from_spec(spec)
        for seat in rules.seats:
            sides.setdefault(seat, set()).add(rules.side_of(seat))
    return {seat: tuple(sorted(found)) for seat, found in sides.items()}


def _won() -> Q:
    """The user's seat is on the winning side (seats of the history query)."""
    return Q(match__status=Match.Status.FINISHED) & reduce(
        or_,
        (Q(position=seat, match__winner__in=sides) for seat, sides in sides_of_each_seat().items()),
    )


def history_page(user, preset: str = "", outcome: str = "", page: int | str = 1) -> Page:
    """The user's matches, newest first, as a page of HistoryRow (three queries a page)."""
    seats = Seat.objects.filter(user=user)
    if preset in PRESETS:
        seats = seats.filter(Q(match__rules=preset) | Q(match__rules__preset=preset))
    if outcome == "won":
        seats = seats.filter(_won())
    elif outcome == "lost":
        # A practice deal is neither won nor lost.
        seats = seats.filter(
            match__status=Match.Status.FINISHED, match__practice_step__isnull=True
        ).exclude(_won())
    elif outcome == "playing":
        seats = seats.exclude(match__status=Match.Status.FINISHED)
    seats = (
        seats.select_related("match")
        .prefetch_related(Prefetch("match__seats", queryset=Seat.objects.select_related("user")))
        .annotate(deal_count=Count("match__deals"))
        .order_by("-match__created_at", "-match_id")
    )
    paginated = Paginator(seats, HISTORY_PAGE_SIZE).get_page(page)
    rows = [_history_row(seat) for seat in paginated.object_list]
    labels: dict = {}
    for found in hooks.match_labels([row.match_id for row in rows]):
        labels.update(found)
    paginated.object_list = [replace(row, label=labels.get(row.match_id, "")) for row in rows]
    return paginated


def _history_row(my_seat: Seat) -> HistoryRow:
    match = my_seat.match
    rules = game_selectors.rules_of(match)
    seats = {seat.position: seat for seat in match.seats.all()}
    names = {position: seat.display_name for position, seat in seats.items()}
    mine = rules.side_of(my_seat.position)
    if match.is_practice:
        outcome = "practice"
    elif match.status != Match.Status.FINISHED:
        outcome = "playing"
    elif match.single_deal:
        # One deal and over (a daily deal): no match winner; it went by the deal's net points.
        outcome = _single_deal_outcome(match.totals, mine)
    else:
        outcome = "won" if match.winner == mine else "lost"
    return HistoryRow(
        match_id=match.pk,
        played_at=match.created_at,
        rules_label=match.rules_label,
        seats=[
            (
                p,
                names.get(p, "Empty seat")
                + (f" ({seats[p].bot_level} bot)" if p in seats and seats[p].is_bot else ""),
                p == my_seat.position,
            )
            for p in rules.seats
        ],
        outcome=outcome,
        offline=match.played_offline,
        deals=getattr(my_seat, "deal_count", None),
        totals=[
            SideLine(side_name(rules, side, names), match.totals.get(side, 0), side == mine)
            for side in rules.sides
        ],
    )


def _single_deal_outcome(totals: dict, mine: str) -> str:
    """A one-deal match by its net points: everyone passed (0-0) is "passed_out", never lost."""
    if not any(totals.values()):
        return "passed_out"
    net = deal_net(totals, mine)
    return "won" if net > 0 else "lost" if net < 0 else "tied"


# --- A match's deals ------------------------------------------------------------------------


@dataclass(frozen=True)
class DealLine:
    number: int
    dealer: str
    outcome: str  # made, set, thrown_in, playing
    pitcher: str = ""
    bid: str = ""
    trump: str = ""  # a suit letter
    points: tuple = ()  # (High, taker's short side or "—")
    score: tuple = ()  # SideLine: this deal's change
    totals: tuple = ()  # SideLine: the running score after it
    url: str = ""  # its replay, once over

    @property
    def trump_symbol(self) -> str:
        return wording.SUIT_SYMBOLS.get(self.trump, "")


@dataclass(frozen=True)
class MatchSummary:
    title: str
    rules_label: str
    rules_text: str
    seats: list  # (seat, name, is_viewer)
    sides: list  # (short side, full name, is_viewer's)
    winner: str  # the winning side's name, or ""
    totals: list  # SideLine
    deals: list  # DealLine


def deal_lines(
    rules: engine.Rules,
    deals: list[tuple[int, str, dict | None]],
    names: Mapping[str, str],
    viewer: str | None,
    url_of: Callable[[int], str],
) -> list[DealLine]:
    """One line per deal from (number, dealer, the engine's result JSON or None if in progress)."""
    mine = rules.side_of(viewer) if viewer in rules.seats else None
    totals = dict.fromkeys(rules.sides, 0)
    lines = []
    for number, dealer, result in deals:
        if result is None:
            lines.append(DealLine(number, names[dealer], "playing"))
            continue
        for side, delta in result["score"].items():
            totals[side] += delta
        running = tuple(
            SideLine(short_side(rules, s, names), totals[s], s == mine) for s in rules.sides
        )
        if result["thrown_in"]:
            lines.append(
                DealLine(number, names[dealer], "thrown_in", totals=running, url=url_of(number))
            )
            continue
        bid = result["bid"]
        lines.append(
            DealLine(
                number=number,
                dealer=names[dealer],
                outcome="made" if result["made"] else "set",
                pitcher=names[result["pitcher"]],
                bid=wording.bid_label(bid),
                trump=result["trump"],
                points=tuple(
                    (
                        name.title(),
                        short_side(rules, result["points"][name], names)
                        if result["points"][name]
                        else "—",
                    )
                    for name in wording.POINT_NAMES
                ),
                score=tuple(
                    SideLine(short_side(rules, s, names), result["score"][s], s == mine)
                    for s in rules.sides
                ),
                totals=running,
                url=url_of(number),
            )
        )
    return lines


def _summary(title, rules, names, viewer, winner, totals, lines) -> MatchSummary:
    mine = rules.side_of(viewer) if viewer in rules.seats else None
    full = {side: side_name(rules, side, names) for side in rules.sides}
    return MatchSummary(
        title=title,
        rules_label=_rules_label(rules),
        rules_text=rules.describe(),
        seats=[(seat, names[seat], seat == viewer) for seat in rules.seats],
        sides=[]
        if rules.cutthroat
        else [(short_side(rules, side, names), full[side], side == mine) for side in rules.sides],
        winner=full.get(winner, "") if winner else "",
        totals=[SideLine(full[side], totals.get(side, 0), side == mine) for side in rules.sides],
        deals=lines,
    )


def _rules_label(rules: engine.Rules) -> str:
    """The label lists use for a match, for rules that may not belong to a stored match."""
    return Match(rules=rules.to_spec()).rules_label


def match_summary(
    match: Match, viewer: str | None, url_of: Callable[[int], str], finished_only: bool = False
) -> MatchSummary:
    """A match's deals from their stored results; a guest (`finished_only`) sees only the deals
    that are over."""
    rules = game_selectors.rules_of(match)
    names = seat_names(match)
    rows = match.deals.order_by("number").values_list("number", "dealer", "phase", "result")
    deals = [
        (number, dealer, result if phase == engine.OVER else None)
        for number, dealer, phase, result in rows
        if phase == engine.OVER or not finished_only
    ]
    lines = deal_lines(rules, deals, names, viewer, url_of)
    # The totals change only when a deal ends, so they never tell anything about the deal in play.
    title = f"Match {match.pk}" + (", played offline" if match.played_offline else "")
    return _summary(title, rules, names, viewer, match.winner, match.totals, lines)


# --- Replay frames --------------------------------------------------------------------------


def match_deal_frame(
    match: Match, deal_row: Deal, step: int, viewer: str | None, url_of: Callable[[int], str]
) -> Frame:
    """One step of a finished deal of a match: the engine rebuilt from its rows."""
    timeline = Timeline(game_selectors.deal_state(deal_row))
    marks = stored_marks(deal_row, viewer) if viewer else {}
    totals = dict.fromkeys(game_selectors.rules_of(match).sides, 0)
    for result in match.deals.filter(number__lt=deal_row.number).values_list("result", flat=True):
        for side, delta in (result or {}).get("score", {}).items():
            totals[side] += delta
    return build_frame(
        timeline,
        step,
        number=deal_row.number,
        names=seat_names(match),
        viewer=viewer,
        url_of=url_of,
        marks=marks,
        totals_before=totals,
        stand_ins=game_selectors.stand_in_sequences(deal_row),
    )


# --- Records out ----------------------------------------------------------------------------


def _in_key_order(meta):
    """`meta` with every object's keys sorted: a record exported again after an import is then
    the same bytes, whatever order the database kept the keys in (PostgreSQL's jsonb sorts its own)."""
    return json.loads(json.dumps(meta, sort_keys=True))


def _meta(match: Match, names: Mapping[str, str], number: int | None = None) -> dict:
    meta = {"site": "setback", "match": match.pk, "players": dict(names)}
    if number is not None:
        meta["deal"] = number
    return _in_key_order(meta)


def deal_record(match: Match, deal_row: Deal) -> dict:
    """The finished deal's record (docs/rules.md section 4), with who sat where in `meta`."""
    record = deal_to_record(game_selectors.deal_state(deal_row))
    record["meta"] = _meta(match, seat_names(match), deal_row.number)
    stand_ins = game_selectors.stand_in_sequences(deal_row)
    if stand_ins:
        # The moves (indexes of the deal's actions in order) a bot made for an absent person.
        record["meta"]["stand_in"] = sorted(stand_ins)
    return record


def match_record(match: Match) -> dict:
    """The match record of its finished deals (a deal in progress is left out)."""
    rules = game_selectors.rules_of(match)
    finished = [row for row in match.deals.order_by("number") if row.is_over]
    record = engine.match_record_json(rules, game_selectors.deal_states(match, finished))
    record["meta"] = _meta(match, seat_names(match))
    return record


# --- Imported records -----------------------------------------------------------------------


@dataclass(frozen=True)
class ImportedReplay:
    """An imported record read back through the engine."""

    imported: ImportedDeal
    rules: engine.Rules
    deals: list  # engine Deal, in order
    names: dict
    match: engine.MatchState | None  # for a match record

    @property
    def is_match(self) -> bool:
        return self.match is not None


def _names_from_meta(rules: engine.Rules, record: Mapping) -> dict[str, str]:
    """Player names an exported record carries in `meta.players`; seat names otherwise."""
    names = {seat: seat_name(seat) for seat in rules.seats}
    meta = record.get("meta")
    players = meta.get("players") if isinstance(meta, Mapping) else None
    if isinstance(players, Mapping):
        for seat, name in players.items():
            if seat in names and isinstance(name, str) and name.strip():
                names[seat] = name.strip()[:RECORD_META_NAME_LENGTH]
    return names


def read_import(imported: ImportedDeal) -> ImportedReplay:
    record = imported.record
    if imported.kind == ImportedDeal.Kind.MATCH:
        state = engine.match_from_record(record)
        deals = list(state.played_deals) + ([state.current] if state.current is not None else [])
        return ImportedReplay(
            imported, state.rules, deals, _names_from_meta(state.rules, record), state
        )
    deal = engine.deal_from_record(record)
    return ImportedReplay(imported, deal.rules, [deal], _names_from_meta(deal.rules, record), None)


def imported_deal(replay: ImportedReplay, number: int) -> engine.Deal:
    if not 1 <= number <= len(replay.deals):
        raise NotFound("This record has no such deal.")
    return replay.deals[number - 1]


def imported_summary(replay: ImportedReplay, url_of: Callable[[int], str]) -> MatchSummary:
    rows = [
        (n, deal.dealer, deal.result().to_json() if deal.is_over else None)
        for n, deal in enumerate(replay.deals, start=1)
    ]
    lines = deal_lines(replay.rules, rows, replay.names, None, url_of)
    lines = [
        line
        if line.outcome != "playing"
        else DealLine(line.number, line.dealer, "stopped", url=url_of(line.number))
        for line in lines
    ]
    state = replay.match
    return _summary(
        f"Imported match {replay.imported.pk}",
        replay.rules,
        replay.names,
        None,
        state.winner,
        dict(state.totals),
        lines,
    )


def imported_frame(replay: ImportedReplay, number: int, step: int, url_of) -> Frame:
    deal = imported_deal(replay, number)
    totals_before = None
    if replay.is_match:
        totals_before = dict.fromkeys(replay.rules.sides, 0)
        for earlier in replay.deals[: number - 1]:
            for side, delta in earlier.result().score.items():
                totals_before[side] += delta
    return build_frame(
        Timeline(deal),
        step,
        number=_shown_deal_number(replay, number),
        names=replay.names,
        viewer=None,
        url_of=url_of,
        totals_before=totals_before,
    )


def _shown_deal_number(replay: ImportedReplay, number: int) -> int:
    """A single deal exported from a match keeps its number there (`meta.deal`): deal 7 of a
    match is shown as deal 7, not as the first deal of the file."""
    meta = replay.imported.record.get("meta")
    deal = meta.get("deal") if isinstance(meta, Mapping) and not replay.is_match else None
    return deal if isinstance(deal, int) and not isinstance(deal, bool) and deal > 0 else number


def imported_record(replay: ImportedReplay) -> dict:
    """The record again, written by the engine: what was uploaded, in the site's own layout."""
    if replay.is_match:
        record = engine.match_record_json(replay.rules, replay.deals)
    else:
        record = deal_to_record(replay.deals[0])
    if "meta" in replay.imported.record:
        record["meta"] = _in_key_order(replay.imported.record["meta"])
    return record


@dataclass(frozen=True)
class ImportRow:
    import_id: int
    title: str  # "Deal record 3", "Match record 4 (7 deals)"
    rules_label: str
    created_at: object


def imports_of(user, limit: int = 50) -> list[ImportRow]:
    """The user's latest imports; their rules were accepted by the engine when stored."""
    rows = []
    for imported in ImportedDeal.objects.filter(owner=user)[:limit]:
        record = imported.record
        title = f"{imported.get_kind_display()} record {imported.pk}"
        if imported.kind == ImportedDeal.Kind.MATCH:
            count = len(record["deals"])
            title += f" ({count} deal{'s' if count != 1 else ''})"
        rules = engine.Rules.from_spec(record["rules"])
        rows.append(ImportRow(imported.pk, title, _rules_label(rules), imported.created_at))
    return rows


# --- Face-up analysis -----------------------------------------------------------------------


@dataclass(frozen=True)
class FaceUpChoice:
    """One legal card at a step, valued with every hand known and perfect play after it."""

    card: object  # CardView
    sides: list  # SideLine: points each side takes
    made: bool
    best: bool
    actual: bool  # the card that was really played


@dataclass(frozen=True)
class FaceUpPanel:
    status: str  # none (not asked yet), pending, computing, ready, too_large, not_play
    who: str = ""
    pitcher_side: str = ""
    bid_label: str = ""
    choices: list = None
    actual_best: bool | None = None
    exact_from_trick: int | None = None
    seconds: float | None = None
    coach_card: object | None = None  # CardView of the coach's choice, where it is not best here


def faceup_step_state(deal_row: Deal, step: int) -> engine.Deal:
    """The engine's state of a finished deal before the decision at `step`."""
    state = game_selectors.deal_state(deal_row, upto=step)
    if len(state.history) != step or state.is_over:
        raise NotFound("This deal has no such step.")
    return state


def position_key(deal_row: Deal, step: int) -> str:
    """A name for the position before `step` of a deal: its rules, cards as dealt and actions
    so far. A practice deal copied from a deal shares its positions up to where it was copied."""
    tokens = list(deal_row.actions.order_by("sequence").values_list("token", flat=True)[:step])
    position = {
        "rules": game_selectors.rules_of(deal_row.match).to_spec(),
        "dealer": deal_row.dealer,
        "hands": deal_row.hands,
        "stock": deal_row.stock,
        "actions": tokens,
    }
    return hashlib.sha256(json.dumps(position, sort_keys=True).encode()).hexdigest()


def play_steps_after(deal_row: Deal, step: int) -> list[int]:
    """The steps after `step` of a finished deal at which a card is played, in order."""
    kinds = deal_row.actions.filter(sequence__gt=step).order_by("sequence")
    return list(kinds.filter(kind=Action.Kind.PLAY).values_list("sequence", flat=True))


def faceup_panel(
    match: Match, deal_row: Deal, step: int, viewer: str | None, busy: bool = False
) -> FaceUpPanel:
    """What the face-up analysis of `step` shows: only for a finished deal (every hand is
    public by then), only for a card to play. `busy`: the viewer's share of solves is in
    flight, so this step waits its turn."""
    state = faceup_step_state(deal_row, step)
    if state.phase != engine.PLAY:
        return FaceUpPanel(status="not_play")
    row = FaceUpAnalysis.objects.filter(deal=deal_row, step=step).first()
    if row is None:
        return FaceUpPanel(status="busy" if busy else "none")
    if row.status != FaceUpAnalysis.Status.READY:
        return FaceUpPanel(status=row.status, exact_from_trick=row.exact_from_trick)
    rules = state.rules
    names = seat_names(match)
    for seat in rules.seats:
        names.setdefault(seat, seat_name(seat))
    choices = _faceup_choices(deal_row, step, row, rules, names, viewer)
    chosen = next((c for c in choices if c.actual), None)
    return FaceUpPanel(
        status="ready",
        who=names[row.seat],
        pitcher_side=short_side(rules, rules.side_of(state.pitcher), names),
        bid_label=wording.bid_label(state.bid),
        choices=choices,
        actual_best=chosen.best if chosen else None,
        seconds=row.seconds,
        coach_card=_coach_card_not_best(deal_row, step, row.seat, viewer, choices),
    )


def _faceup_choices(deal_row, step, row, rules, names, viewer) -> list[FaceUpChoice]:
    """Each card the analysis solved: its points for each side (the viewer's marked), whether
    the contract is made, whether it is among the best, and whether it was the card played."""
    my_side = rules.side_of(viewer) if viewer in rules.seats else None
    actual = deal_row.actions.filter(sequence=step).values_list("token", flat=True).first()
    return [
        FaceUpChoice(
            card=presenters.card_view(line["card"]),
            sides=[
                SideLine(short_side(rules, side, names), line["points"][side], side == my_side)
                for side in rules.sides
            ],
            made=line["made"],
            best=line["best"],
            actual=line["card"] == actual,
        )
        for line in row.lines
    ]


def _coach_card_not_best(deal_row, step, seat, viewer, choices):
    """The coach chose without seeing the hidden cards: where its card is not among the best
    with every card known, the panel says so (and why) rather than leave two verdicts. Only on
    the viewer's own decisions, as the coach's marks."""
    coach = coach_choice(deal_row, step, seat) if viewer == seat else None
    if coach and not any(c.best and c.card.code == coach for c in choices):
        return presenters.card_view(coach)
    return None
