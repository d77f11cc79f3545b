"""Writing statistics: called by `games.core.services` inside the game's own transaction.

`do_record_deal` writes one summary row per seat when a deal ends, from the engine's result JSON
(`Deal.result`); `do_record_match` rates the players when a match ends. Nothing here re-scores a
deal: which side took High or made its bid is read from the result the engine wrote.
"""

import contextlib

from django.db import transaction

from games.core import selectors
from games.models import Deal, Match, Seat

from . import rating
from .models import DealSummary, MatchRecord, Opponents, Rating


def _player(seat: Seat) -> dict:
    """Who a seat counts for: its user (even when a bot stood in for them), else its bot level."""
    if seat.user_id:
        return {"user_id": seat.user_id, "bot_level": ""}
    return {"user_id": None, "bot_level": seat.bot_level}


def _opponents(seats: list[Seat], side_of, my_side: str) -> tuple[str, str]:
    """Who sat on the other sides: bots (and their levels), people, or both."""
    others = [seat for seat in seats if side_of(seat.position) != my_side]
    levels = sorted({seat.bot_level for seat in others if seat.user_id is None})
    people = any(seat.user_id for seat in others)
    kind = Opponents.MIXED if people and levels else Opponents.PEOPLE if people else Opponents.BOTS
    return kind, ",".join(levels)


def on_deal_end(deal_row: Deal, result: dict) -> None:
    """`hooks.after_deal`: a deal counts unless its match is of one deal (a practice, a daily
    deal: `Match.one_deal`)."""
    if not deal_row.match.one_deal:
        do_record_deal(deal_row, result)


def on_match_end(match: Match) -> None:
    """`hooks.after_match`: a match is rated if it counts, and only if the site dealt its cards:
    an offline match's were shuffled in the person's browser, and nothing proves the browser did
    not choose them."""
    if not match.one_deal and not match.played_offline:
        do_record_match(match)


def do_record_deal(deal_row: Deal, result: dict) -> list[DealSummary]:
    """One summary row per seat of a deal that has just ended, read from its result JSON."""
    match = deal_row.match
    seats = [seat for seat in match.seats.all() if not seat.is_empty]
    return DealSummary.objects.bulk_create(
        deal_summaries(deal_row, result, selectors.rules_of(match), seats)
    )


def deal_summaries(deal_row: Deal, result: dict, rules, seats: list[Seat]) -> list[DealSummary]:
    """The unsaved summary rows of a finished deal (no queries: the benchmark builds many)."""
    thrown_in = bool(result["thrown_in"])
    pitcher = result.get("pitcher")
    pitcher_side = rules.side_of(pitcher) if pitcher else None
    points = result["points"]
    rows = []
    for seat in seats:
        side = rules.side_of(seat.position)
        opponents, levels = _opponents(seats, rules.side_of, side)
        pitched = not thrown_in and pitcher_side == side
        defended = not thrown_in and pitcher_side is not None and pitcher_side != side
        rows.append(
            DealSummary(
                deal=deal_row,
                match_id=deal_row.match_id,
                seat=seat.position,
                **_player(seat),
                side=side,
                preset=rules.preset,
                cutthroat=rules.cutthroat,
                opponents=opponents,
                opponent_levels=levels,
                thrown_in=thrown_in,
                pitcher=not thrown_in and pitcher == seat.position,
                bid=result["bid"] if pitched else None,
                made=bool(result["made"]) if pitched else None,
                set_pitcher=(not result["made"]) if defended else None,
                took_high=points["high"] == side,
                took_low=points["low"] == side,
                took_jack=points["jack"] == side,
                took_game=points["game"] == side,
                jack_in_play=points["jack"] is not None,
                score_change=result["score"][side],
                finished_at=deal_row.finished_at,
                offline=deal_row.match.played_offline,
            )
        )
    return rows


def _key(player: dict) -> tuple:
    return ("user", player["user_id"]) if player["user_id"] else ("bot", player["bot_level"])


def _lock_ratings(keys: set[tuple]) -> dict[tuple, Rating]:
    """The players' rating rows, created at the starting rating if new, locked for update."""
    start = rating.new_skill()
    for kind, value in sorted(keys):
        lookup = {"user_id": value} if kind == "user" else {"user": None, "bot_level": value}
        Rating.objects.get_or_create(**lookup, defaults={"mu": start.mu, "sigma": start.sigma})
    user_ids = [value for kind, value in keys if kind == "user"]
    levels = [value for kind, value in keys if kind == "bot"]
    # Bot levels first, then users, each in a fixed order: two matches ending at once lock
    # shared rows in the same order and never deadlock.
    locked = list(
        Rating.objects.select_for_update()
        .filter(user=None, bot_level__in=levels)
        .order_by("bot_level")
    ) + list(Rating.objects.select_for_update().filter(user_id__in=user_ids).order_by("user_id"))
    return {_key({"user_id": row.user_id, "bot_level": row.bot_level}): row for row in locked}


def do_record_match(match: Match) -> list[MatchRecord]:
    """Rate a match that has just ended and keep a history row per rated player.

    `match` carries its final totals, winner and finish time (set by the caller, maybe not saved
    yet). Teams are the sides; ranks the final standing, winner first.
    """
    rules = selectors.rules_of(match)
    seats = [seat for seat in match.seats.all() if not seat.is_empty]
    teams = [
        [_key(_player(seat)) for seat in seats if rules.side_of(seat.position) == side]
        for side in rules.sides
    ]
    ranks = rating.ranks_of(rules.sides, match.totals, match.winner or None)
    rows = _lock_ratings({player for team in teams for player in team})
    before = {key: rating.Skill(row.mu, row.sigma) for key, row in rows.items()}
    after = rating.rate_match(teams, ranks, before)

    records = []
    recorded = set()
    for seat in seats:
        key = _key(_player(seat))
        if key in recorded:
            continue  # a bot level's later seats: it is rated once per match
        recorded.add(key)
        side = rules.side_of(seat.position)
        opponents, levels = _opponents(seats, rules.side_of, side)
        won_sides = {rules.side_of(s.position) for s in seats if _key(_player(s)) == key}
        row = rows[key]
        row.mu, row.sigma = after[key].mu, after[key].sigma
        row.matches += 1
        row.save(update_fields=["mu", "sigma", "matches", "updated_at"])
        records.append(
            MatchRecord(
                match=match,
                **_player(seat),
                side=side if seat.user_id else "",
                preset=rules.preset,
                cutthroat=rules.cutthroat,
                opponents=opponents,
                opponent_levels=levels,
                won=match.winner in won_sides,
                mu_before=before[key].mu,
                mu=row.mu,
                sigma=row.sigma,
                finished_at=match.finished_at,
            )
        )
    return MatchRecord.objects.bulk_create(records)


def do_record_coach_accuracy(deal_id: int, *, seat: str, accuracy: float) -> None:
    """For the coach: how well a seat's decisions in a finished deal matched its advice (0..1)."""
    if not 0.0 <= accuracy <= 1.0:
        raise ValueError(f"accuracy must be between 0 and 1, not {accuracy}")
    with transaction.atomic():
        updated = DealSummary.objects.filter(deal_id=deal_id, seat=seat).update(
            coach_accuracy=accuracy
        )
    if not updated:
        raise DealSummary.DoesNotExist(f"no summary for seat {seat} of deal {deal_id}")


def do_record_review_accuracy(deal_id: int, seat: str, accuracy: float) -> None:
    """`hooks.review_scored`: keep the coach's verdict, unless the deal finished before
    statistics were kept (it has no summary)."""
    with contextlib.suppress(DealSummary.DoesNotExist):
        do_record_coach_accuracy(deal_id, seat=seat, accuracy=accuracy)
