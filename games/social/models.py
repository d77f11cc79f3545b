"""Friends, presence, notifications and clubs.

A friendship is one row per pair of people (the lower user id first), asked by one of them and
accepted by the other: two people asking each other at the same moment meet on the pair's
unique constraint, and the second request accepts the first. A block (games.models.PersonalBlock,
either way) overrides all of it: the services refuse, the selectors hide.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

from games.models import Match


class Friendship(models.Model):
    low = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    high = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    asked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    accepted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=("low", "high"), name="friendship_one_per_pair"),
            models.CheckConstraint(
                condition=Q(low__lt=models.F("high")), name="friendship_ordered"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.low_id}-{self.high_id}"

    @property
    def accepted(self) -> bool:
        return self.accepted_at is not None

    def other(self, user_id: int) -> int:
        return self.high_id if user_id == self.low_id else self.low_id


class Presence(models.Model):
    """How many signed-in pages a person has open (their /ws/me/ sockets), and when one was last
    heard. Counted by the sockets themselves, and touched every HEARTBEAT by the process that
    holds them; a process that dies leaves its count behind, so a count not touched for
    STALE_AFTER is read as offline (selectors.HEARTBEAT, STALE_AFTER)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="presence"
    )
    connections = models.PositiveIntegerField(default=0)
    last_seen_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.user_id}: {self.connections}"


class Notification(models.Model):
    class Kind(models.TextChoices):
        FRIEND_REQUEST = "friend_request", "Friend requests"
        FRIEND_ACCEPTED = "friend_accepted", "Friend requests accepted"
        TABLE_INVITE = "table_invite", "Invitations to a table"
        CLUB_INVITE = "club_invite", "Invitations to a club"
        CLUB_EVENT = "club_event", "News of your clubs"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    kind = models.CharField(max_length=20, choices=Kind.choices)
    # Who it is from, if a person: a block between the two hides it, even one set in the same
    # moment as the request that made it.
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # Written when the notification is made, from names and numbers only: never a card, never
    # a private history.
    text = models.CharField(max_length=200)
    url = models.CharField(max_length=200, blank=True)
    action_label = models.CharField(max_length=20, blank=True)  # "Join", "Accept"
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=("user", "read_at"), name="notification_unread")]

    def __str__(self) -> str:
        return self.text


class MailChoice(models.Model):
    """A kind of notification the person also wants by e-mail (none by default)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mail_choices"
    )
    kind = models.CharField(max_length=20, choices=Notification.Kind.choices)

    class Meta:
        constraints = [models.UniqueConstraint(fields=("user", "kind"), name="mailchoice_unique")]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.kind}"


class Club(models.Model):
    name = models.CharField(max_length=40, unique=True)
    description = models.CharField(max_length=300, blank=True)
    public = models.BooleanField(
        default=True, help_text="Anyone may ask to join; else invite only."
    )
    invite_token = models.CharField(max_length=32, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    class Role(models.TextChoices):
        OWNER = "owner", "Owner"
        ADMIN = "admin", "Admin"
        MEMBER = "member", "Member"

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="club_memberships"
    )
    role = models.CharField(max_length=6, choices=Role.choices, default=Role.MEMBER)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=("club", "user"), name="membership_unique"),
            models.UniqueConstraint(
                fields=("club",), condition=Q(role="owner"), name="membership_one_owner"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.club_id} ({self.role})"


class ClubRequest(models.Model):
    """An invitation to a club (by an admin), or a person asking to join a public club."""

    class Kind(models.TextChoices):
        INVITE = "invite", "Invited"
        ASK = "ask", "Asked to join"

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="requests")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=6, choices=Kind.choices)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=("club", "user"), name="clubrequest_unique")]

    def __str__(self) -> str:
        return f"{self.user_id} {self.kind} {self.club_id}"


class ClubBan(models.Model):
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="bans")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=("club", "user"), name="clubban_unique")]

    def __str__(self) -> str:
        return f"{self.user_id} banned from {self.club_id}"


class ClubTable(models.Model):
    """A shared table made for a club: listed to its members only and seating only them."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="tables")
    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="club_table")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.club_id}: table {self.match_id}"
