"""Reading ratings between people: the leaderboard per preset and a player's public page.

The board's rating is openskill's (the same model and update as `rating.rate_match`) over the
matches of one preset in which every seat was a person, in the order they finished; a player
is ranked by the conservative estimate μ − 3σ and appears after `MIN_MATCHES` such matches.
It is recomputed from `MatchRecord` rows (no state of its own), cached until a new record
arrives or the day changes.
"""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db.models import Exists, OuterRef, Q, Value
from django.utils import timezone

from accounts.models import FORMER_PLAYER
from games.core import selectors as game_selectors
from games.engine import PRESET_NAMES
from games.models import Match, Seat, seat_name

from . import rating
from .models import RATING_SCALE, MatchRecord, Opponents, Rating

MIN_MATCHES = 10
RECENT_DAYS = 30
RECENT_MATCHES = 10


def conservative(skill: rating.Skill) -> int:
    """The rating shown on the board: 40 × (μ − 3σ), so a new player starts at 0."""
    return round((skill.mu - 3 * skill.sigma) * RATING_SCALE)


@dataclass
class PeopleRating:
    user_id: int
    skill: rating.Skill
    matches: int = 0
    history: list = field(default_factory=list)  # (finished_at, conservative rating)

    @property
    def shown(self) -> int:
        return conservative(self.skill)


def _people_only_records(preset: str, since=None):
    has_bot = MatchRecord.objects.filter(match=OuterRef("match"), user__isnull=True)
    rows = MatchRecord.objects.filter(preset=preset, user__isnull=False).exclude(Exists(has_bot))
    if since is not None:
        rows = rows.filter(finished_at__gte=since)
    return rows.order_by("finished_at", "match_id").values_list(
        "match_id", "user_id", "side", "finished_at", "match__totals", "match__winner"
    )


def people_ratings(preset: str, since=None) -> dict[int, PeopleRating]:
    """Everyone's people-only rating in `preset` (from `since`, if given), with its history."""
    latest = (
        MatchRecord.objects.filter(preset=preset)
        .order_by("-id")
        .values_list("id", flat=True)
        .first()
    )
    key = f"people-ratings:{preset}:{since.date() if since else 'all'}:{latest}"
    found = cache.get(key)
    if found is None:
        found = _compute(preset, since)
        cache.set(key, found, 3600)
    return found


def _compute(preset: str, since) -> dict[int, PeopleRating]:
    matches: dict[int, dict] = {}
    for match_id, user_id, side, finished_at, totals, winner in _people_only_records(preset, since):
        entry = matches.setdefault(
            match_id,
            {"sides": defaultdict(list), "at": finished_at, "totals": totals, "winner": winner},
        )
        entry["sides"][side].append(user_id)
    ratings: dict[int, PeopleRating] = {}
    for entry in matches.values():
        sides = sorted(entry["sides"])
        if len(sides) < 2:
            continue
        teams = [entry["sides"][side] for side in sides]
        for team in teams:
            for user_id in team:
                ratings.setdefault(user_id, PeopleRating(user_id, rating.new_skill()))
        ranks = rating.ranks_of(sides, entry["totals"], entry["winner"] or None)
        after = rating.rate_match(
            teams, ranks, {u: ratings[u].skill for team in teams for u in team}
        )
        for user_id, skill in after.items():
            row = ratings[user_id]
            row.skill = skill
            row.matches += 1
            row.history.append((entry["at"], conservative(skill)))
    return ratings


@dataclass(frozen=True)
class BoardLine:
    rank: int
    name: str
    rating: int
    matches: int


@dataclass(frozen=True)
class Board:
    preset: str
    recent: bool
    lines: list
    presets: tuple = PRESET_NAMES
    min_matches: int = MIN_MATCHES
    recent_days: int = RECENT_DAYS


def leaderboard(preset: str, recent: bool = False, limit: int = 100) -> Board:
    """The players with at least `MIN_MATCHES` people-only matches of `preset` (in the last
    `RECENT_DAYS` days if `recent`), best conservative rating first. Players who keep their
    history private are rated (they are others' opponents) but not listed."""
    since = timezone.now() - timedelta(days=RECENT_DAYS) if recent else None
    ratings = [r for r in people_ratings(preset, since).values() if r.matches >= MIN_MATCHES]
    names = dict(
        get_user_model()
        .objects.filter(pk__in=[r.user_id for r in ratings], history_public=True)
        .values_list("pk", "username")
    )
    listed = sorted(
        (r for r in ratings if r.user_id in names),
        key=lambda r: (-r.shown, -r.matches, names[r.user_id]),
    )
    return Board(
        preset,
        recent,
        [
            BoardLine(n, names[r.user_id], r.shown, r.matches)
            for n, r in enumerate(listed[:limit], start=1)
        ],
    )


# --- A player's page --------------------------------------------------------------------------


@dataclass(frozen=True)
class PresetLine:
    preset: str
    rating: int | None
    matches: int
    history: list  # (label, value)
    played_people: int
    won_people: int


@dataclass(frozen=True)
class Opponent:
    name: str
    played: int
    won: int


@dataclass(frozen=True)
class SharedMatch:
    match_id: int
    rules_label: str
    finished_at: object
    won: bool
    people: list  # (seat name, username)
    replay_url_name: str  # "" when the viewer may not see it
    replay_arg: object


@dataclass(frozen=True)
class PlayerPage:
    name: str
    member_since: object
    history_public: bool
    is_me: bool
    overall_rating: int | None = None
    presets: list = field(default_factory=list)
    opponents: list = field(default_factory=list)
    recent: list = field(default_factory=list)


def player_page(player, viewer) -> PlayerPage:
    is_me = viewer.is_authenticated and viewer.pk == player.pk
    if not (player.history_public or is_me):
        return PlayerPage(player.username, player.date_joined, False, is_me)
    overall = Rating.objects.filter(user=player).first()
    return PlayerPage(
        name=player.username,
        member_since=player.date_joined,
        history_public=player.history_public,
        is_me=is_me,
        overall_rating=overall.shown if overall else None,
        presets=_preset_lines(player),
        opponents=_opponents(player),
        recent=_recent_shared(player, viewer),
    )


def _against_people() -> Q:
    return Q(opponents__in=[Opponents.PEOPLE, Opponents.MIXED])


def _preset_lines(player) -> list[PresetLine]:
    lines = []
    records = MatchRecord.objects.filter(user=player).filter(_against_people())
    for preset in PRESET_NAMES:
        mine = people_ratings(preset).get(player.pk)
        played = records.filter(preset=preset)
        count = played.count()
        if mine is None and not count:
            continue
        lines.append(
            PresetLine(
                preset=preset,
                rating=mine.shown if mine else None,
                matches=mine.matches if mine else 0,
                history=[
                    (at.strftime("%d %b"), value) for at, value in (mine.history if mine else [])
                ],
                played_people=count,
                won_people=played.filter(won=True).count(),
            )
        )
    return lines


def _opponents(player, limit: int = 20) -> list[Opponent]:
    """Head to head: the people who sat on another side, matches played and won against them.
    Someone who keeps their history private is not named on anyone else's page."""
    mine = MatchRecord.objects.filter(user=player)
    theirs = (
        MatchRecord.objects.filter(
            match__in=mine.values("match"), user__isnull=False, user__history_public=True
        )
        .exclude(user=player)
        .values_list("match_id", "side", "user__username", "user__left_at")
    )
    my_rows = {m: (side, won) for m, side, won in mine.values_list("match_id", "side", "won")}
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for match_id, side, name, left_at in theirs:
        name = FORMER_PLAYER if left_at else name
        my_side, won = my_rows[match_id]
        if side != my_side:
            tally[name][0] += 1
            tally[name][1] += int(won)
    ordered = sorted(tally.items(), key=lambda item: (-item[1][0], item[0]))[:limit]
    return [Opponent(name, played, won) for name, (played, won) in ordered]


def _recent_shared(player, viewer) -> list[SharedMatch]:
    """The player's last finished matches with other people; a replay link only for those who
    may see it: the match's players, or anyone when its players shared it. A match with someone
    who keeps their history private is left out, unless the viewer played in it too."""
    someone_private = Exists(
        Seat.objects.filter(match=OuterRef("pk"), user__history_public=False).exclude(user=player)
    )
    # A visitor who is not signed in sat nowhere: looked up with no id, "user_id IS NULL" would
    # find every bot's seat, and show them matches with people who keep their history private.
    viewer_sat = (
        Exists(Seat.objects.filter(match=OuterRef("pk"), user_id=viewer.pk))
        if viewer.is_authenticated
        else Value(False)
    )
    matches = (
        Match.objects.filter(
            status=Match.Status.FINISHED, invite_code__isnull=False, seats__user=player
        )
        .filter(~someone_private | viewer_sat)
        .prefetch_related("seats__user")
        .order_by("-finished_at")[:RECENT_MATCHES]
    )
    rows = []
    for match in matches:
        seats = list(match.seats.all())
        mine = next(s for s in seats if s.user_id == player.pk)
        viewer_played = viewer.is_authenticated and any(s.user_id == viewer.pk for s in seats)
        arg: int | str | None
        if viewer_played:
            url_name, arg = "replay:match", match.pk
        elif match.share_token:
            url_name, arg = "replay:shared_match", match.share_token
        else:
            url_name, arg = "", None
        rules = game_selectors.rules_of(match)
        rows.append(
            SharedMatch(
                match_id=match.pk,
                rules_label=match.rules_label,
                finished_at=match.finished_at,
                won=bool(match.winner) and rules.side_of(mine.position) == match.winner,
                people=[(seat_name(s.position), s.person.shown_name) for s in seats if s.user_id],
                replay_url_name=url_name,
                replay_arg=arg,
            )
        )
    return rows


def shown_ratings(user_ids) -> dict[int, int]:
    """For other features (the lobby's host ratings): the overall rating shown on /stats/, of
    those who show their history (a private player's rating is theirs alone)."""
    return {
        user_id: round(mu * RATING_SCALE)
        for user_id, mu in Rating.objects.filter(
            user_id__in=list(user_ids), user__history_public=True
        ).values_list("user_id", "mu")
    }
