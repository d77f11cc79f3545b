"""Reads of friends, presence, notifications and clubs. A GET never writes.

Blocks override everything here: a person who blocked another, or was blocked by them, is not
their friend, is not listed to them, and is not told of them coming online.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from games import engine
from games.core import selectors as game_selectors
from games.models import Match, PersonalBlock, Seat

from .models import (
    Club,
    ClubBan,
    ClubRequest,
    ClubTable,
    Friendship,
    MailChoice,
    Membership,
    Notification,
    Presence,
)

# Each web process touches the presence of the people whose /ws/me/ sockets it holds every
# HEARTBEAT (consumers._Relay). A count not touched for STALE_AFTER is a process that died
# with its sockets open (never counted down): it reads as offline, the person's next page
# counts from zero, and the sweeper's tick tells their friends they went.
HEARTBEAT = timedelta(seconds=60)
STALE_AFTER = 3 * HEARTBEAT
RECENT_LIMIT = 10
ELO_START, ELO_K = 1500, 24


def pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def blocked_between(a: int, b: int) -> bool:
    """Either of the two blocked the other (mutes do not count: they are about chat)."""
    return PersonalBlock.objects.filter(
        Q(owner_id=a, other_id=b) | Q(owner_id=b, other_id=a), kind=PersonalBlock.Kind.BLOCK
    ).exists()


def blocked_ids(user_id: int) -> set[int]:
    """Everyone `user_id` blocked or was blocked by."""
    found = set()
    for owner, other in PersonalBlock.objects.filter(
        Q(owner_id=user_id) | Q(other_id=user_id), kind=PersonalBlock.Kind.BLOCK
    ).values_list("owner_id", "other_id"):
        found.add(other if owner == user_id else owner)
    return found


def friendship(a: int, b: int) -> Friendship | None:
    low, high = pair(a, b)
    return Friendship.objects.filter(low_id=low, high_id=high).first()


def friend_ids(user_id: int) -> set[int]:
    """The accepted friends of `user_id`, without anyone a block stands between."""
    rows = Friendship.objects.filter(
        Q(low_id=user_id) | Q(high_id=user_id), accepted_at__isnull=False
    ).values_list("low_id", "high_id")
    friends = {high if low == user_id else low for low, high in rows}
    return friends - blocked_ids(user_id) if friends else friends


def are_friends(a: int, b: int) -> bool:
    return b in friend_ids(a)


def online_ids(user_ids) -> set[int]:
    """Which of `user_ids` have a signed-in page open now."""
    fresh = timezone.now() - STALE_AFTER
    return set(
        Presence.objects.filter(
            user_id__in=list(user_ids), connections__gt=0, last_seen_at__gte=fresh
        ).values_list("user_id", flat=True)
    )


def online_friend_ids(user_id: int) -> set[int]:
    """The friends to tell when `user_id` comes or goes: only those online."""
    return online_ids(friend_ids(user_id))


@dataclass(frozen=True)
class FriendRow:
    user_id: int
    name: str
    online: bool
    last_seen: datetime | None
    table_id: int | None  # the table they play at, if any
    watch_url: str  # where to watch it, when its host lets anyone watch; else ""


def _playing_at(user_ids) -> dict[int, Match]:
    seats = (
        Seat.objects.filter(
            user_id__in=list(user_ids),
            match__status=Match.Status.PLAYING,
            match__invite_code__isnull=False,
        )
        .select_related("match")
        .order_by("match__updated_at")
    )
    return {seat.user_id: seat.match for seat in seats}


def friend_rows(user_id: int) -> list[FriendRow]:
    """The person's friends: online first, then by name."""
    ids = friend_ids(user_id)
    return friend_rows_for(ids)


def friend_rows_for(ids) -> list[FriendRow]:
    ids = set(ids)
    if not ids:
        return []
    people = get_user_model().objects.filter(pk__in=ids, left_at__isnull=True)
    presence = {p.user_id: p for p in Presence.objects.filter(user_id__in=ids)}
    online = online_ids(ids)
    playing = _playing_at(online)
    rows = []
    for person in people:
        match = playing.get(person.pk)
        seen = presence.get(person.pk)
        rows.append(
            FriendRow(
                user_id=person.pk,
                name=person.username,
                online=person.pk in online,
                last_seen=seen.last_seen_at if seen else None,
                table_id=match.pk if match else None,
                watch_url=reverse("table", args=[match.pk])
                if match is not None and match.public and match.allow_spectators
                else "",
            )
        )
    return sorted(rows, key=lambda r: (not r.online, r.name.lower()))


def friend_row(user_id: int) -> FriendRow | None:
    rows = friend_rows_for({user_id})
    return rows[0] if rows else None


def pending_requests(user_id: int) -> tuple[list, list]:
    """(requests to `user_id` waiting for an answer, requests they sent), blocks left out."""
    rows = Friendship.objects.filter(
        Q(low_id=user_id) | Q(high_id=user_id), accepted_at__isnull=True
    ).select_related("low", "high")
    hidden = blocked_ids(user_id)
    incoming, outgoing = [], []
    for row in rows:
        other = row.high if row.low_id == user_id else row.low
        if other.pk in hidden or other.left_at is not None:
            continue
        (outgoing if row.asked_by_id == user_id else incoming).append(other)
    return incoming, outgoing


@dataclass(frozen=True)
class FriendResult:
    name: str
    won: bool
    rules_label: str
    finished_at: datetime


def friends_recent_results(user_id: int, limit: int = 6) -> list[FriendResult]:
    """Finished matches of the person's friends with public histories, newest first."""
    ids = friend_ids(user_id)
    public = set(
        get_user_model()
        .objects.filter(pk__in=ids, history_public=True, left_at__isnull=True)
        .values_list("pk", flat=True)
    )
    if not public:
        return []
    seats = (
        Seat.objects.filter(user_id__in=public, match__status=Match.Status.FINISHED)
        .select_related("match", "user")
        .order_by("-match__finished_at")[:limit]
    )
    results = []
    for seat in seats:
        rules = game_selectors.rules_of(seat.match)
        results.append(
            FriendResult(
                name=seat.user.username,
                won=rules.side_of(seat.position) == seat.match.winner,
                rules_label=seat.match.rules_label,
                finished_at=seat.match.finished_at,
            )
        )
    return results


# --- Notifications ----------------------------------------------------------------------------


def _shown_notifications(user_id: int):
    """A person's notifications, without those from anyone a block stands between: the blocks
    as subqueries, so the bell's count (every signed-in page asks) is one query."""
    block = PersonalBlock.Kind.BLOCK
    blocked = PersonalBlock.objects.filter(owner_id=user_id, kind=block).values("other_id")
    blocker = PersonalBlock.objects.filter(other_id=user_id, kind=block).values("owner_id")
    return (
        Notification.objects.filter(user_id=user_id)
        .exclude(actor_id__in=blocked)
        .exclude(actor_id__in=blocker)
    )


def unread_count(user_id: int) -> int:
    return _shown_notifications(user_id).filter(read_at__isnull=True).count()


def notifications(user_id: int, limit: int | None = 50) -> list[Notification]:
    rows = _shown_notifications(user_id).order_by("-created_at", "-pk")
    return list(rows[:limit] if limit else rows)


def mail_choices(user_id: int) -> set[str]:
    return set(MailChoice.objects.filter(user_id=user_id).values_list("kind", flat=True))


# --- Clubs ------------------------------------------------------------------------------------


def membership(club_id: int, user) -> Membership | None:
    if not user.is_authenticated:
        return None
    return Membership.objects.filter(club_id=club_id, user_id=user.pk).first()


def visible_club(club_id: int, user) -> tuple[Club, Membership | None] | None:
    """The club and the viewer's membership; None (a 404) for a club the viewer may not know:
    an invite-only club is known to its members and to those invited only, and a club that
    banned the viewer is not known to them."""
    club = Club.objects.filter(pk=club_id).first()
    if club is None:
        return None
    member = membership(club_id, user)
    if member is not None:
        return club, member
    if user.is_authenticated and ClubBan.objects.filter(club=club, user_id=user.pk).exists():
        return None
    if club.public:
        return club, None
    invited = (
        user.is_authenticated
        and ClubRequest.objects.filter(
            club=club, user_id=user.pk, kind=ClubRequest.Kind.INVITE
        ).exists()
    )
    return (club, None) if invited else None


def club_by_token(token: str) -> Club | None:
    return Club.objects.filter(invite_token=token).first() if token else None


def my_clubs(user) -> list[Membership]:
    return list(
        Membership.objects.filter(user_id=user.pk).select_related("club").order_by("club__name")
    )


def public_clubs(limit: int = 50) -> list[Club]:
    return list(Club.objects.filter(public=True).order_by("name")[:limit])


def invitations(user) -> list[ClubRequest]:
    return list(
        ClubRequest.objects.filter(user_id=user.pk, kind=ClubRequest.Kind.INVITE).select_related(
            "club", "by"
        )
    )


def requests_of(user) -> list[ClubRequest]:
    """Every invitation to a club the person holds, and every request to join they made."""
    return list(ClubRequest.objects.filter(user_id=user.pk).select_related("club"))


def members(club: Club) -> list[Membership]:
    order = {"owner": 0, "admin": 1, "member": 2}
    rows = list(club.memberships.select_related("user"))
    return sorted(rows, key=lambda m: (order[m.role], m.user.username.lower()))


def member_ids(club_id: int) -> set[int]:
    return set(Membership.objects.filter(club_id=club_id).values_list("user_id", flat=True))


def asking(club: Club) -> list[ClubRequest]:
    return list(club.requests.filter(kind=ClubRequest.Kind.ASK).select_related("user"))


def open_club_tables(club_ids) -> list[ClubTable]:
    return list(
        ClubTable.objects.filter(club_id__in=list(club_ids), match__status=Match.Status.FORMING)
        .select_related("club", "match", "match__host")
        .order_by("-created_at")
    )


def replayable_club_matches(club: Club, limit: int) -> list[Match]:
    """The club's games with a deal over, newest first: a finished game, or one still in play
    whose finished deals are public already (every hand is shown once its deal is over)."""
    return list(
        Match.objects.filter(
            club_table__club=club,
            status__in=(Match.Status.PLAYING, Match.Status.FINISHED),
            deals__phase=engine.OVER,
        )
        .distinct()
        .prefetch_related("seats__user")
        .order_by("-created_at")[:limit]
    )


def finished_club_matches(club: Club, limit: int | None = None) -> list[Match]:
    rows = (
        Match.objects.filter(club_table__club=club, status=Match.Status.FINISHED)
        .prefetch_related("seats__user")
        .order_by("-finished_at")
    )
    return list(rows[:limit] if limit else rows)


@dataclass(frozen=True)
class ClubGame:
    match_id: int
    rules_label: str
    people: tuple[str, ...]
    winner_names: tuple[str, ...]
    finished_at: datetime | None  # None: still in play (its finished deals replay)
    replay_allowed: bool  # face up for members: every person who played keeps history public


def _people(match: Match) -> list[Seat]:
    return [s for s in match.seats.all() if s.user_id]


def replay_allowed(match: Match) -> bool:
    """A club game replays face up to the members when every person who played it lets others
    see their history (the player page's privacy switch)."""
    return all(s.user.history_public and s.user.left_at is None for s in _people(match))


def recent_games(club: Club) -> list[ClubGame]:
    games = []
    for match in replayable_club_matches(club, RECENT_LIMIT):
        rules = game_selectors.rules_of(match)
        people = _people(match)
        games.append(
            ClubGame(
                match_id=match.pk,
                rules_label=match.rules_label,
                people=tuple(s.user.shown_name for s in people),
                # Bots win games too: the list says so, rather than naming no winner.
                winner_names=tuple(
                    s.user.shown_name if s.user_id else f"Bot ({s.get_bot_level_display().lower()})"
                    for s in match.seats.all()
                    if match.winner and rules.side_of(s.position) == match.winner
                ),
                finished_at=match.finished_at,
                replay_allowed=replay_allowed(match),
            )
        )
    return games


@dataclass(frozen=True)
class LeaderRow:
    name: str
    rating: int
    played: int
    won: int


def leaderboard(club: Club) -> list[LeaderRow]:
    """The club's own rating: Elo over its finished tables between people who are members now,
    every pair of people on opposite sides one game (bots are not rated here)."""
    current = member_ids(club.pk)
    rating: dict[int, float] = {}
    played: dict[int, int] = {}
    won: dict[int, int] = {}
    names: dict[int, str] = {}
    for match in reversed(finished_club_matches(club)):
        rules = game_selectors.rules_of(match)
        people = [s for s in _people(match) if s.user_id in current]
        sides = {s.user_id: rules.side_of(s.position) for s in people}
        if len(set(sides.values())) < 2:
            continue  # one side only: nobody beat anybody in the club
        for s in people:
            names[s.user_id] = s.user.username
            played[s.user_id] = played.get(s.user_id, 0) + 1
            won[s.user_id] = won.get(s.user_id, 0) + (sides[s.user_id] == match.winner)
        before = {uid: rating.get(uid, ELO_START) for uid in sides}
        for a in sides:
            for b in sides:
                if sides[a] == sides[b]:
                    continue
                expected = 1 / (1 + 10 ** ((before[b] - before[a]) / 400))
                score = (
                    1.0 if sides[a] == match.winner else 0.0 if sides[b] == match.winner else 0.5
                )
                rating[a] = rating.get(a, ELO_START) + ELO_K * (score - expected)
    rows = [
        LeaderRow(name=names[uid], rating=round(rating[uid]), played=played[uid], won=won[uid])
        for uid in rating
    ]
    return sorted(rows, key=lambda r: (-r.rating, r.name.lower()))


def club_game(club: Club, match_id: int) -> Match | None:
    """A game of the club, finished or in play, that its members may replay face up (its
    finished deals only: `replay.selectors.finished_deal`); None otherwise."""
    match = (
        Match.objects.filter(
            pk=match_id,
            club_table__club=club,
            status__in=(Match.Status.PLAYING, Match.Status.FINISHED),
        )
        .prefetch_related("seats__user")
        .first()
    )
    return match if match is not None and replay_allowed(match) else None


# --- The core's hooks -------------------------------------------------------------------------


def club_member_knows_table(match: Match, user) -> bool:
    """hooks.table_known_to: a club's members know their club's tables."""
    return Membership.objects.filter(club__tables__match_id=match.pk, user_id=user.pk).exists()


def club_seat_refusal(match: Match, user) -> str | None:
    """hooks.seat_refusal: a club's table seats its members only."""
    table = ClubTable.objects.filter(match_id=match.pk).select_related("club").first()
    if table is None or Membership.objects.filter(club=table.club, user_id=user.pk).exists():
        return None
    return f"This table is for the members of {table.club.name}."
