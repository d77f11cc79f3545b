"""Every change of friends, presence, notifications and clubs: `do_*`, one per change.

Each locks what it must, checks, writes, and tells the pages only after its transaction
commits. A refusal raises a GameError whose message is for the person and changes nothing.
"""

import re
import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import F
from django.urls import reverse
from django.utils import timezone

from accounts.models import FORMER_PLAYER
from games.core import mail
from games.core import selectors as game_selectors
from games.core.errors import Forbidden, GameError, NotFound
from games.models import Match
from games.tables import services as tables

from . import realtime, selectors
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

Role = Membership.Role
Kind = Notification.Kind
MAX_NAME = 40


def _person(name: str, asker=None):
    """The person called `name` (not a deleted account); NotFound, worded the same, for a name
    nobody has and for one hidden from the asker by a block."""
    name = (name or "").strip()
    person = (
        get_user_model().objects.filter(username__iexact=name, left_at__isnull=True).first()
        if name and "\x00" not in name
        else None
    )
    if person is None or (asker is not None and selectors.blocked_between(asker.pk, person.pk)):
        raise NotFound(f"There is no player called {name!r}.")
    return person


# --- Notifications ----------------------------------------------------------------------------


def notify(
    user, kind: str, text: str, url: str = "", action_label: str = "", actor=None
) -> Notification:
    """A notification for `user` (from `actor`, if a person), the bell rung after commit, and a
    mail if they chose one for this kind. `text` names people, clubs and tables only: never a
    card or a private result."""
    note = Notification.objects.create(
        user=user, kind=kind, text=text[:200], url=url, action_label=action_label, actor=actor
    )
    realtime.ring_after_commit(user.pk)
    wanted = bool(user.email) and MailChoice.objects.filter(user=user, kind=kind).exists()
    if wanted and mail.count_one_for(user.email, mail.account_key(user)):
        # No request here: the site's address from settings (on this machine, none: the path).
        link = settings.SITE_URL + url if url else ""
        context = {"user": user, "text": note.text, "link": link, "kind": note.get_kind_display()}
        mail.send_after_commit(mail.build("social/email/notification", user.email, context))
    return note


def do_mark_read(user, *, notification_id: int | None = None) -> int:
    """Mark one notification (or, with None, all) read; how many changed."""
    rows = Notification.objects.filter(user=user, read_at__isnull=True)
    if notification_id is not None:
        rows = rows.filter(pk=notification_id)
    changed = rows.update(read_at=timezone.now())
    if changed:
        realtime.ring_after_commit(user.pk)
    return changed


def do_set_mail_choices(user, *, kinds) -> set[str]:
    chosen = {k for k in kinds if k in Kind.values}
    with transaction.atomic():
        MailChoice.objects.filter(user=user).exclude(kind__in=chosen).delete()
        for kind in chosen:
            MailChoice.objects.get_or_create(user=user, kind=kind)
    return chosen


# --- Friends ----------------------------------------------------------------------------------


def do_ask_friend(user, *, name: str) -> Friendship:
    """Ask `name` to be a friend. Asking someone who already asked you accepts their request;
    asking again, or an existing friend, changes nothing."""
    other = _person(name, user)
    if other.pk == user.pk:
        raise GameError("You cannot be your own friend.")
    low, high = selectors.pair(user.pk, other.pk)
    with transaction.atomic():
        try:
            with transaction.atomic():
                row, created = Friendship.objects.get_or_create(
                    low_id=low, high_id=high, defaults={"asked_by": user}
                )
        except IntegrityError:  # they asked at the same moment: theirs is the row
            created = False
        row = Friendship.objects.select_for_update().get(low_id=low, high_id=high)
        if created:
            notify(
                other,
                Kind.FRIEND_REQUEST,
                f"{user.username} asks to be your friend.",
                reverse("social:friends"),
                "Answer",
                actor=user,
            )
        elif not row.accepted and row.asked_by_id != user.pk:
            _accept(row, user, other)
    return row


def _settle_request(user, other) -> None:
    """`other`'s friend request to `user` is answered: its notification is done with."""
    answered = Notification.objects.filter(
        user=user, actor=other, kind=Kind.FRIEND_REQUEST, read_at__isnull=True
    ).update(read_at=timezone.now())
    if answered:
        realtime.ring_after_commit(user.pk)


def _accept(row: Friendship, user, other) -> None:
    row.accepted_at = timezone.now()
    row.save(update_fields=["accepted_at"])
    _settle_request(user, other)
    notify(
        other,
        Kind.FRIEND_ACCEPTED,
        f"{user.username} is now your friend.",
        reverse("social:friends"),
        actor=user,
    )
    # Each sees the other in their friend list at once.
    realtime.tell_friends_after_commit(user.pk, [other.pk], whole_list=True)
    realtime.tell_friends_after_commit(other.pk, [user.pk], whole_list=True)


def do_answer_friend(user, *, name: str, accept: bool) -> None:
    """Accept or decline `name`'s request to `user`."""
    other = _person(name, user)
    low, high = selectors.pair(user.pk, other.pk)
    with transaction.atomic():
        row = Friendship.objects.select_for_update().filter(low_id=low, high_id=high).first()
        if row is None or row.asked_by_id == user.pk:
            raise NotFound(f"{other.username} has not asked to be your friend.")
        if row.accepted:
            return  # accepted a moment ago (another tab): nothing more to do
        if accept:
            _accept(row, user, other)
        else:
            row.delete()
            _settle_request(user, other)


def do_remove_friend(user, *, name: str) -> None:
    """End a friendship, or withdraw a request; nothing to end changes nothing."""
    other = _person(name)
    low, high = selectors.pair(user.pk, other.pk)
    with transaction.atomic():
        deleted, _ = Friendship.objects.filter(low_id=low, high_id=high).delete()
        if deleted:
            realtime.tell_friends_after_commit(other.pk, [user.pk], whole_list=True)
            realtime.tell_friends_after_commit(user.pk, [other.pk], whole_list=True)


# --- Presence ---------------------------------------------------------------------------------


def do_come_online(user_id: int) -> bool:
    """One more signed-in page open; True when it is the first (the person came online), and
    then the friends who are online are told."""
    now = timezone.now()
    with transaction.atomic():
        presence, _ = Presence.objects.get_or_create(user_id=user_id)
        # A count left by a process that died (not touched for STALE_AFTER) counts for nothing:
        # this page is the person's first, and their friends are told they came.
        Presence.objects.filter(
            pk=presence.pk, last_seen_at__lt=now - selectors.STALE_AFTER
        ).update(connections=0)
        Presence.objects.filter(pk=presence.pk).update(
            connections=F("connections") + 1, last_seen_at=now
        )
        count = Presence.objects.values_list("connections", flat=True).get(pk=presence.pk)
        if count == 1:
            realtime.tell_friends_after_commit(user_id, selectors.online_friend_ids(user_id))
    return count == 1


def do_go_offline(user_id: int) -> bool:
    """One signed-in page closed; True when it was the last (the person went)."""
    with transaction.atomic():
        Presence.objects.filter(user_id=user_id, connections__gt=0).update(
            connections=F("connections") - 1, last_seen_at=timezone.now()
        )
        count = Presence.objects.filter(user_id=user_id).values_list("connections", flat=True)
        gone = not count or count[0] == 0
        if gone:
            realtime.tell_friends_after_commit(user_id, selectors.online_friend_ids(user_id))
    return gone


def do_keep_present(user_ids) -> int:
    """The heartbeat of a web process: the people whose pages it holds open are still here."""
    ids = sorted(set(user_ids))
    if not ids:
        return 0
    return Presence.objects.filter(user_id__in=ids, connections__gt=0).update(
        last_seen_at=timezone.now()
    )


def do_expire_presence() -> int:
    """The sweeper's tick (`hooks.sweeping`): counts that no process has touched for
    STALE_AFTER were left by a process that died; they go to zero, and each person's friends
    who are online are told they went. Returns how many people went."""
    stale = timezone.now() - selectors.STALE_AFTER
    gone = 0
    for user_id in Presence.objects.filter(connections__gt=0, last_seen_at__lt=stale).values_list(
        "user_id", flat=True
    )[:500]:
        with transaction.atomic():
            # Only if still stale: a page that opened meanwhile counted itself from zero.
            if Presence.objects.filter(
                user_id=user_id, connections__gt=0, last_seen_at__lt=stale
            ).update(connections=0):
                gone += 1
                realtime.tell_friends_after_commit(user_id, selectors.online_friend_ids(user_id))
    return gone


# --- Inviting a friend to a table -------------------------------------------------------------


def do_invite_to_table(host, *, match_id: int, name: str) -> Notification:
    """Invite a friend to the forming table `host` sits at: a notification with "Join"."""
    friend = _person(name, host)
    if not selectors.are_friends(host.pk, friend.pk):
        raise Forbidden(f"{friend.username} is not your friend.")
    match = Match.objects.filter(pk=match_id, seats__user=host).first()
    if match is None or match.invite_code is None:
        raise NotFound("There is no such table.")
    if match.status != Match.Status.FORMING:
        raise GameError("This table has already started.")
    if match.seats.filter(user=friend).exists():
        raise GameError(f"{friend.username} already sits at this table.")
    if game_selectors.blocked_by_host(match, friend):
        raise Forbidden(f"{friend.username} cannot sit at this table.")
    return notify(
        friend,
        Kind.TABLE_INVITE,
        f"{host.username} invites you to table {match.pk}.",
        reverse("invite", args=[match.invite_code]),
        "Join",
        actor=host,
    )


# --- Clubs ------------------------------------------------------------------------------------


def _lock_club(club_id: int) -> Club:
    club = Club.objects.select_for_update().filter(pk=club_id).first()
    if club is None:
        raise NotFound("There is no such club.")
    return club


def _role(club: Club, user) -> Membership:
    member = Membership.objects.filter(club=club, user_id=user.pk).first()
    if member is None:
        if not club.public:  # an invite-only club is not known to outsiders: no such club
            raise NotFound("There is no such club.")
        raise Forbidden("Only the club's members can do that.")
    return member


def _require_admin(club: Club, user) -> Membership:
    member = _role(club, user)
    if member.role not in (Role.OWNER, Role.ADMIN):
        raise Forbidden("Only the club's owner and admins can do that.")
    return member


def _club_event(club: Club, text: str, except_ids=()) -> None:
    url = reverse("social:club", args=[club.pk])
    for member in club.memberships.exclude(user_id__in=list(except_ids)).select_related("user"):
        notify(member.user, Kind.CLUB_EVENT, text, url)


def do_create_club(owner, *, name: str, description: str = "", public: bool = True) -> Club:
    name = " ".join((name or "").split())
    if not 3 <= len(name) <= MAX_NAME:
        raise GameError(f"A club's name has 3 to {MAX_NAME} characters.")
    description = (description or "").strip()[:300]
    with transaction.atomic():
        if Club.objects.filter(name__iexact=name).exists():
            raise GameError(f"There is already a club called {name}.")
        try:
            with transaction.atomic():
                club = Club.objects.create(
                    name=name,
                    description=description,
                    public=bool(public),
                    invite_token=secrets.token_urlsafe(16),
                )
        except IntegrityError as error:
            raise GameError(f"There is already a club called {name}.") from error
        Membership.objects.create(club=club, user=owner, role=Role.OWNER)
    return club


def _join(club: Club, user) -> None:
    if ClubBan.objects.filter(club=club, user_id=user.pk).exists():
        raise Forbidden("This club has banned you.")
    ClubRequest.objects.filter(club=club, user_id=user.pk).delete()
    _, created = Membership.objects.get_or_create(club=club, user=user)
    if created:
        _club_event(club, f"{user.username} joined {club.name}.", except_ids=[user.pk])


def do_invite_to_club(admin, *, club_id: int, name: str) -> ClubRequest:
    with transaction.atomic():
        club = _lock_club(club_id)
        _require_admin(club, admin)
        person = _person(name, admin)
        if Membership.objects.filter(club=club, user=person).exists():
            raise GameError(f"{person.username} is already a member.")
        if ClubBan.objects.filter(club=club, user=person).exists():
            raise GameError(f"{person.username} is banned from this club; lift the ban first.")
        asked = ClubRequest.objects.filter(club=club, user=person).first()
        if asked is not None and asked.kind == ClubRequest.Kind.ASK:
            _join(club, person)  # they asked already: an invitation lets them in
            return asked
        request, created = ClubRequest.objects.get_or_create(
            club=club, user=person, defaults={"kind": ClubRequest.Kind.INVITE, "by": admin}
        )
        if created:
            notify(
                person,
                Kind.CLUB_INVITE,
                f"{admin.username} invites you to the club {club.name}.",
                reverse("social:club", args=[club.pk]),
                "See",
                actor=admin,
            )
    return request


def do_answer_club_invite(user, *, club_id: int, accept: bool) -> None:
    with transaction.atomic():
        club = _lock_club(club_id)
        invite = ClubRequest.objects.filter(
            club=club, user_id=user.pk, kind=ClubRequest.Kind.INVITE
        ).first()
        if invite is None:
            raise NotFound("You have no invitation to this club.")
        if accept:
            _join(club, user)
        else:
            invite.delete()


def do_join_by_link(user, *, token: str) -> Club:
    club = selectors.club_by_token(token)
    if club is None:
        raise NotFound("This invitation link leads nowhere; ask for a new one.")
    with transaction.atomic():
        club = _lock_club(club.pk)
        _join(club, user)
    return club


def do_ask_to_join(user, *, club_id: int) -> ClubRequest | None:
    """Ask to join a public club (an invite-only club takes invitations only); an invitation
    already there lets the person in at once (None)."""
    with transaction.atomic():
        club = _lock_club(club_id)
        if Membership.objects.filter(club=club, user_id=user.pk).exists():
            raise GameError("You are already a member.")
        if ClubBan.objects.filter(club=club, user_id=user.pk).exists():
            raise NotFound("There is no such club.")
        existing = ClubRequest.objects.filter(club=club, user_id=user.pk).first()
        if existing is not None and existing.kind == ClubRequest.Kind.INVITE:
            _join(club, user)
            return None
        if not club.public:
            raise NotFound("There is no such club.")
        request, created = ClubRequest.objects.get_or_create(
            club=club, user=user, defaults={"kind": ClubRequest.Kind.ASK}
        )
        if created:
            for admin in club.memberships.filter(role__in=[Role.OWNER, Role.ADMIN]).select_related(
                "user"
            ):
                notify(
                    admin.user,
                    Kind.CLUB_EVENT,
                    f"{user.username} asks to join {club.name}.",
                    reverse("social:club", args=[club.pk]),
                    "Answer",
                    actor=user,
                )
    return request


def do_answer_join_request(admin, *, club_id: int, name: str, accept: bool) -> None:
    with transaction.atomic():
        club = _lock_club(club_id)
        _require_admin(club, admin)
        person = _person(name)
        asked = ClubRequest.objects.filter(
            club=club, user=person, kind=ClubRequest.Kind.ASK
        ).first()
        if asked is None:
            raise NotFound(f"{person.username} has not asked to join.")
        if accept:
            _join(club, person)
        else:
            asked.delete()


def do_leave_club(user, *, club_id: int) -> None:
    with transaction.atomic():
        club = _lock_club(club_id)
        member = _role(club, user)
        if member.role == Role.OWNER:
            raise GameError("Hand the club over to another member first, or delete it.")
        member.delete()


def do_remove_member(admin, *, club_id: int, name: str, ban: bool = False) -> None:
    """Remove a member (an admin removes members only; the owner anyone but themself), and
    with `ban` keep them out: no invitation, no asking, no link lets them back."""
    with transaction.atomic():
        club = _lock_club(club_id)
        mine = _require_admin(club, admin)
        person = _person(name)
        member = Membership.objects.filter(club=club, user=person).first()
        if member is not None:
            if member.role == Role.OWNER or (member.role == Role.ADMIN and mine.role != Role.OWNER):
                raise Forbidden("Only the owner can remove an admin, and nobody the owner.")
            member.delete()
        elif not ban:
            raise NotFound(f"{person.username} is not a member.")
        ClubRequest.objects.filter(club=club, user=person).delete()
        if ban:
            ClubBan.objects.get_or_create(club=club, user=person)


def do_lift_ban(admin, *, club_id: int, name: str) -> None:
    with transaction.atomic():
        club = _lock_club(club_id)
        _require_admin(club, admin)
        ClubBan.objects.filter(club=club, user=_person(name)).delete()


def do_set_role(owner, *, club_id: int, name: str, role: str) -> None:
    """The owner makes a member an admin, or an admin a member again."""
    if role not in (Role.ADMIN, Role.MEMBER):
        raise GameError("A member is an admin or a member.")
    with transaction.atomic():
        club = _lock_club(club_id)
        if _role(club, owner).role != Role.OWNER:
            raise Forbidden("Only the owner can do that.")
        member = Membership.objects.filter(club=club, user=_person(name)).first()
        if member is None or member.role == Role.OWNER:
            raise NotFound(f"{name} is not a member you can change.")
        member.role = role
        member.save(update_fields=["role"])


def do_hand_over(owner, *, club_id: int, name: str) -> None:
    """The owner makes another member the owner and stays as an admin."""
    with transaction.atomic():
        club = _lock_club(club_id)
        mine = _role(club, owner)
        if mine.role != Role.OWNER:
            raise Forbidden("Only the owner can do that.")
        member = Membership.objects.filter(club=club, user=_person(name)).first()
        if member is None or member.pk == mine.pk:
            raise NotFound(f"{name} is not another member of the club.")
        mine.role = Role.ADMIN
        mine.save(update_fields=["role"])  # first: one owner at a time (a constraint)
        member.role = Role.OWNER
        member.save(update_fields=["role"])
        _club_event(club, f"{member.user.username} now owns {club.name}.")


def do_delete_club(owner, *, club_id: int) -> None:
    with transaction.atomic():
        club = _lock_club(club_id)
        if _role(club, owner).role != Role.OWNER:
            raise Forbidden("Only the owner can delete the club.")
        _club_event(club, f"The club {club.name} was deleted.", except_ids=[owner.pk])
        Notification.objects.filter(url=reverse("social:club", args=[club.pk])).update(url="")
        club.delete()


def do_create_club_table(
    host, *, club_id: int, rules_spec, turn_timeout_seconds: int = 30
) -> Match:
    """A table for the club: private (its invite, and the club's members), listed on the club
    page and in the members' lobby, seating members only; the host fills the rest with bots."""
    with transaction.atomic():
        club = _lock_club(club_id)
        _role(club, host)
        match = tables.do_create_table(
            host,
            rules_spec=rules_spec,
            allow_spectators=True,
            turn_timeout_seconds=turn_timeout_seconds,
        )
        ClubTable.objects.create(club=club, match=match)
    return match


def do_leave_everything(user, *, name: str) -> None:
    """An account being deleted (inside its transaction): its friendships, notifications,
    presence, club places and requests go; a club it owned passes to its longest-standing admin
    or member, or goes; its name (`name`) is taken out of the notifications others were sent."""
    word = re.compile(rf"\b{re.escape(name)}\b")
    for note in Notification.objects.filter(text__contains=name).exclude(user=user):
        note.text = word.sub(FORMER_PLAYER, note.text)
        note.save(update_fields=["text"])
    from_user = Friendship.objects.filter(low=user) | Friendship.objects.filter(high=user)
    from_user.delete()
    Notification.objects.filter(user=user).delete()
    MailChoice.objects.filter(user=user).delete()
    Presence.objects.filter(user=user).delete()
    ClubRequest.objects.filter(user=user).delete()
    ClubRequest.objects.filter(by=user).update(by=None)
    ClubBan.objects.filter(user=user).delete()
    for member in Membership.objects.filter(user=user, role=Role.OWNER).select_related("club"):
        heir = (
            Membership.objects.filter(club=member.club)
            .exclude(pk=member.pk)
            .order_by("role", "joined_at")  # "admin" sorts before "member"
            .first()
        )
        member.delete()
        if heir is None:
            member.club.delete()
        else:
            heir.role = Role.OWNER
            heir.save(update_fields=["role"])
    Membership.objects.filter(user=user).delete()
