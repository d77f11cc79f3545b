"""What the offline page's Web Worker runs: one match against bots, drawn as the live table is.

This module goes into the engine's wheel and runs in the browser under Pyodide (it imports the
engine and nothing else; an import contract keeps it so). The page's JavaScript calls the
functions at the bottom with JSON and gets JSON back: a seat's view of the table, shaped like
the live table's ``presenters.TableView`` so that ``static/offline/table.js`` draws the same
markup as ``templates/games/_table.html``, and the coach's panel, from the same functions as the
site's coach (``games.engine.coach``).

The view is built from the person's own observation, as on the site; the rest of the deal lives
in this worker's memory only because the bots play here.
"""

from __future__ import annotations

import json
from typing import Any

from games.engine import (
    AUCTION,
    DISCARD,
    OVER,
    PLAY,
    TRUMP,
    IllegalAction,
    Rules,
    RulesError,
    discard_token,
    worth,
)
from games.engine.actions import PITCH, Action, pitch_token
from games.engine.claim import CLAIM, claimed_at
from games.engine.coach import panel as coach_panel
from games.engine.coach.advice import advise as coach_advise
from games.engine.coach.reasons import action_label
from games.engine.display import (
    going_out_note,
    in_hand_order,
    point_cards,
    points_text,
    screen_places,
    seat_name,
    status_line,
)
from games.engine.offline import OfflineMatch
from games.engine.refusals import unplayable_card
from games.engine.rules import spec_from_choices
from games.engine.scoring import POINT_NAMES
from games.engine.spoken import recent_moves, turn_cue
from games.engine.wording import (
    SUIT_NAMES,
    SUIT_SYMBOLS,
    bid_label,
    call_label,
    card_name,
    rank_label,
    trick_taken,
)

_match: OfflineMatch | None = None


# --- Cards and names --------------------------------------------------------------------------


def card(code: str, legal: bool = False, action: str = "", why: str = "") -> dict:
    return {
        "code": code,
        "rank_label": rank_label(code[0]),
        "symbol": SUIT_SYMBOLS[code[1]],
        "red": code[1] in "HD",
        "name": card_name(code),
        "legal": legal,
        "action": action or code,
        "why": why,
    }


def _names(match: OfflineMatch) -> dict[str, str]:
    """Each seat as the person reads it: "You", or the bot's seat name."""
    return {seat: "You" if seat == match.seat else seat_name(seat) for seat in match.rules.seats}


def side_label(rules: Rules, side: str, names: dict) -> str:
    """ "You & North", "East & West", or a cutthroat player's name (as on the live table)."""
    return " & ".join(names[p] for p in rules.seats if rules.side_of(p) == side) or side


# --- The table --------------------------------------------------------------------------------


def table_view(match: OfflineMatch) -> dict[str, Any]:
    """The person's view of the table, field for field as the live table's
    ``presenters.TableView``: built in steps, one per part of the table."""
    rules, deal, me = match.rules, match.deal, match.seat
    obs = match.observation(me)
    names = _names(match)
    my_turn = deal.to_act == me
    places = screen_places(rules.seats, me)
    hand, bids, discard_choices = _choices_view(match, obs, my_turn)
    seats = _seats_view(match, names, places)
    totals = [
        (side_label(rules, side, names), match.state.totals[side], side == rules.side_of(me))
        for side in rules.sides
    ]
    return {
        "key": match.key,
        "version": f"{match.number}.{deal.version}",
        "deal_number": match.number,
        "step": deal.version,
        "phase": deal.phase,
        "rules_text": rules.describe(),
        "totals": [[label, points_text(points), mine] for label, points, mine in totals],
        "target": rules.target,
        **_contract_view(match, names),
        "going_out_note": "" if match.over else going_out_note(rules, totals),
        "seats": seats,
        "me_seat": next(s for s in seats if s["is_me"]),
        "hand": hand,
        "bids": bids,
        "discard_choices": discard_choices,
        "discard_label": "Discard two cards" if rules.six_players else "Discard the chosen cards",
        "discard_exact": 2 if rules.six_players else None,
        "auction": [[names[s], call_label(t)] for s, t in deal.calls],
        **_tricks_view(match, names, places),
        "my_turn": my_turn,
        "spoken": [[step, words] for step, words in recent_moves(deal, names)],
        "turn_cue": turn_cue(obs),
        "may_claim": my_turn
        and deal.phase == PLAY
        and deal.trump is not None
        and not deal.current_trick,
        "bot_to_act": match.bot_to_act is not None,
        "status": status_line(deal.phase, deal.to_act, deal.current_trick, names, my_turn),
        **_end_view(match, names),
    }


def _choices_view(match: OfflineMatch, obs, my_turn: bool) -> tuple[list, list, list]:
    """The person's cards (those playable, or pitchable, marked) and the choices of the
    decision before them: calls or suits to name, cards to discard."""
    deal, me = match.deal, match.seat
    legal = set(obs.legal_actions()) if my_turn else set()
    playable = legal if deal.phase == PLAY else set()
    hand = [
        # A card that may not be played says why, as on the live table (presenters._hand_card).
        card(
            c,
            c in playable,
            why="" if c in playable or deal.phase == OVER else unplayable_card(obs, c),
        )
        for c in in_hand_order(obs.hand, deal.trump)
    ]
    bids: list[dict[str, Any]] = []
    discard_choices: list[dict[str, Any]] = []
    if not my_turn:
        return hand, bids, discard_choices
    if deal.phase == AUCTION:
        bids, hand = _auction_choices(obs, legal, hand)
    elif deal.phase == TRUMP:
        bids = [
            {"token": t, "label": f"{SUIT_SYMBOLS[t]} {SUIT_NAMES[t].title()}"}
            for t in obs.legal_actions()
        ]
    elif deal.phase == DISCARD:
        discardable = set(deal.discardable(me))
        discard_choices = [card(c, c in discardable) for c in in_hand_order(obs.hand, deal.trump)]
    return hand, bids, discard_choices


def _auction_choices(obs, legal: set[str], hand: list[dict]) -> tuple[list, list]:
    """The calls as buttons; where pitching bids, the hand's cards are the pitches."""
    bids = [
        {"token": t, "label": call_label(t)}
        for t in obs.legal_actions()
        if Action.parse(t).kind != PITCH
    ]
    if any(Action.parse(t).kind == PITCH for t in legal):
        hand = [
            card(c["code"], pitch_token(c["code"]) in legal, pitch_token(c["code"])) for c in hand
        ]
    return bids, hand


def _seats_view(match: OfflineMatch, names: dict, places: dict) -> list[dict[str, Any]]:
    rules, deal, me = match.rules, match.deal, match.seat
    over = deal.phase == OVER
    calls = dict(deal.calls)
    current = dict(deal.current_trick)
    leader = deal.current_trick[0][0] if deal.current_trick else None
    seats = []
    for position in rules.seats:
        place = places[position]
        seats.append(
            {
                "position": position,
                # The person's own seat goes by its seat's name ("South (you)"), as on the site.
                "name": seat_name(position) if position == me else names[position],
                "is_me": position == me,
                "place": place.name,
                "x": place.x,
                "y": place.y,
                "trick_x": place.trick_x,
                "trick_y": place.trick_y,
                "card_count": len(deal.hand(position)),
                "is_dealer": position == deal.dealer,
                "is_turn": position == deal.to_act and not over,
                "is_pitcher": position == deal.pitcher,
                "bot_level": match.bots.get(position, ""),
                "call": call_label(calls[position]) if position in calls else "",
                "trick_card": card(current[position]) if position in current else None,
                "led": position == leader,
                # A played-out deal shows every hand in its result, not the backs.
                "revealed": over and not deal.thrown_in,
            }
        )
    return seats


def _contract_view(match: OfflineMatch, names: dict) -> dict[str, Any]:
    """Trump, the pitcher and the bid, once known, and the suit led to the trick."""
    deal = match.deal
    led_suit = deal.current_trick[0][1][1] if deal.current_trick else ""
    return {
        "trump": deal.trump,
        "trump_symbol": SUIT_SYMBOLS.get(deal.trump or "", ""),
        "trump_red": (deal.trump or "") in ("H", "D"),
        "led_suit": led_suit,
        "led_symbol": SUIT_SYMBOLS.get(led_suit, ""),
        "pitcher": names[deal.pitcher] if deal.pitcher else None,
        "bid_label": bid_label(deal.bid),
    }


def _tricks_view(match: OfflineMatch, names: dict, places: dict) -> dict[str, Any]:
    """The last trick taken (its cards where they were played, who took it) and the tricks
    each side has taken."""
    rules, deal, me = match.rules, match.deal, match.seat
    last_trick, last_trick_winner = [], ""
    if deal.tricks:
        trick = deal.tricks[-1]
        last_trick = [
            {
                "card": card(c),
                "seat_name": names[s],
                "won": s == trick.winner,
                "x": places[s].trick_x,
                "y": places[s].trick_y,
            }
            for s, c in trick.cards
        ]
        last_trick_winner = trick_taken("You" if trick.winner == me else names[trick.winner])
    taken: dict[str, int] = {}
    for trick in deal.tricks:
        taken[rules.side_of(trick.winner)] = taken.get(rules.side_of(trick.winner), 0) + 1
    return {
        "last_trick": last_trick,
        "last_trick_winner": last_trick_winner,
        "tricks_done": len(deal.tricks),
        "tricks_per_deal": rules.tricks_per_deal,
        "trick_just_done": bool(deal.tricks) and not deal.current_trick,
        "tricks_taken": [[side_label(rules, side, names), n] for side, n in taken.items()],
    }


def _end_view(match: OfflineMatch, names: dict) -> dict[str, Any]:
    """The deal's result once it is over, and the match's winner once it is won."""
    winner = match.state.winner
    winner_label = side_label(match.rules, winner, names) if winner else ""
    return {
        "result": _result_view(match, names) if match.deal.phase == OVER else None,
        "match_over": match.over,
        "winner_label": winner_label,
        "winner_verb": "win" if " & " in winner_label or winner_label == "You" else "wins",
    }


def _result_view(match: OfflineMatch, names: dict) -> dict[str, Any]:
    """The deal's result as the live table shows it (``presenters._result_view``)."""
    rules, deal = match.rules, match.deal
    result = deal.result()
    if result.thrown_in:
        return {"thrown_in": True}
    sides = {side: side_label(rules, side, names) for side in rules.sides}
    cards = point_cards(deal.plays, deal.trump)
    return {
        "thrown_in": False,
        "pitcher": names[result.pitcher],
        "bid": bid_label(result.bid),
        "made": result.made,
        "points": [
            [
                kind.title(),
                sides[side] if (side := result.points.get(kind)) else "nobody",
                card(code) if (code := cards.get(kind)) else None,
            ]
            for kind in POINT_NAMES
        ],
        "game_points": [[sides[side], n] for side, n in result.game_points.items()],
        "claim_note": _claim_note(deal, names),
        "score": [
            [sides[side], points_text(n) if n < 0 else f"+{n}" if n > 0 else "0"]
            for side, n in result.score.items()
        ],
        "hands": [
            [names[seat], [card(c) for c in in_hand_order(deal.dealt_hands[seat], deal.trump)]]
            for seat in rules.seats
        ],
    }


def _claim_note(deal, names: dict) -> str:
    """Who claimed the deal's last tricks (as the live table says it), or ""."""
    found = claimed_at(deal.as_dealt(), deal.history)
    if found is None:
        return ""
    step, seat = found
    tricks = (len(deal.history) - step) // len(deal.rules.seats)
    last = "the last trick" if tricks == 1 else f"the last {tricks} tricks"
    return f"{names[seat]} claimed {last}."


# --- The coach --------------------------------------------------------------------------------


def coach_view(match: OfflineMatch) -> dict[str, Any]:
    """The coach's panel for the person's decision now: the states of the live panel
    (``templates/coach/_panel.html``) that need no server: waiting, forced, advice."""
    deal, me = match.deal, match.seat
    base = {"version": f"{match.number}.{deal.version}"}
    if deal.phase == OVER or deal.to_act != me:
        return {**base, "state": "waiting"}
    obs = match.observation(me)
    legal = obs.legal_actions()
    if len(legal) == 1:
        return {**base, "state": "forced", "forced_label": action_label(obs, legal[0])}
    # Seeded by the position, told who sits where, as the site's coach.
    models = {seat: level for seat, level in match.bots.items()}
    models[me] = "hard"
    options = coach_advise(obs, seat_models=models)
    views = []
    for rank, option in enumerate(options, start=1):
        f = option.figures
        views.append(
            {
                "rank": rank,
                "action": option.action,
                "label": option.label[:1].upper() + option.label[1:],
                "reason": option.reason,
                "card": card(option.action) if obs.phase == PLAY else None,
                "net_text": worth.net_text(f),
                "points_text": f"{f['expected_points']:+.2f}",
                "theirs_text": f"{f['expected_points'] - f['expected_margin']:+.2f}",
                "stderr": f"{f['stderr']:.2f}",
                "contract": coach_panel.contract_chance(obs, f),
                "chances": coach_panel.point_chances(f),
                "win_match": coach_panel.match_chance(f),
                "best": rank == 1,
            }
        )
    grid = []
    if obs.phase == AUCTION:
        grid = [
            {
                "label": label,
                "suit": SUIT_NAMES.get(suit, ""),
                "symbol": SUIT_SYMBOLS.get(suit, ""),
                "make": make,
            }
            for label, suit, make in coach_panel.bid_rows(options, obs)
        ]
    return {
        **base,
        "state": "advice",
        "options": views,
        "bid_grid": grid,
        "samples": options[0].figures["samples"],
        "ranking": options[0].figures["ranking"],
    }


# --- What the page calls (JSON in, JSON out) ---------------------------------------------------


def _answer(**fields) -> str:
    return json.dumps(fields)


def _current() -> OfflineMatch:
    if _match is None:
        raise RuntimeError("no match is being played here; start one")
    return _match


def start(options_json: str) -> str:
    """A new match: ``{"choices": {preset, seating, players, target, low_to, switches}, "level",
    "seed", "key", "engine"}``. Answers the table, or an error for rules that cannot be."""
    global _match
    options = json.loads(options_json)
    choices = options["choices"]
    try:
        spec = spec_from_choices(
            choices.get("preset") or "house",
            seating=choices.get("seating") or "",
            players=int(choices["players"]) if choices.get("players") else None,
            target=int(choices["target"]) if choices.get("target") else None,
            low_to=choices.get("low_to") or "",
            switches=list(choices.get("switches") or ()),
        )
        match = OfflineMatch(
            spec, options["level"], int(options["seed"]), options["key"], options["engine"]
        )
    except (RulesError, ValueError) as error:
        return _answer(error=str(error))
    _match = match
    return _answer(table=table_view(match), saved=match.saved())


def restore(saved_json: str, engine: str) -> str:
    """The match a page kept (``saved``), its moves applied again."""
    global _match
    _match = OfflineMatch.restore(json.loads(saved_json), engine)
    return _answer(table=table_view(_match), saved=_match.saved())


def act(token: str) -> str:
    """The person's move; a move that is not legal now changes nothing and says so."""
    match = _current()
    if match.deal.to_act != match.seat:
        return _answer(error="It is not your turn.", table=table_view(match))
    try:
        if token == CLAIM:
            match.claim()
        else:
            match.act(token)
    except IllegalAction as error:
        refusal = error.reason if token == CLAIM else "That move is not allowed now."
        return _answer(error=refusal, table=table_view(match))
    return _moved(match)


def discard(cards_json: str) -> str:
    """The person's discard: the cards chosen (any order)."""
    return act(discard_token(json.loads(cards_json)))


def bot() -> str:
    """One bot move, if a bot is to act."""
    match = _current()
    if match.bot_to_act is not None:
        match.play_bot()
    return _moved(match)


def _moved(match: OfflineMatch) -> str:
    return _answer(table=table_view(match), saved=match.saved(), finished=match.deal.is_over)


def next_deal() -> str:
    match = _current()
    match.next_deal()
    return _answer(table=table_view(match), saved=match.saved())


def envelope(upload_id: str) -> str:
    """The finished current deal as it goes home (``games.engine.offline`` documents it)."""
    return json.dumps(_current().envelope(upload_id))


def coach() -> str:
    return json.dumps(coach_view(_current()))
