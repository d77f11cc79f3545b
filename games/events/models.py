"""Setback nights: scheduled events of several rounds, where the tables of each round are made
by a movement (docs/events.md) and every table is an ordinary shared match.

What is stored is what happened: who checked in, which tables each round had and who sat where,
and the matches themselves. Standings are always computed from the matches' stored deals
(selectors.standings), never kept.
"""

from django.conf import settings
from django.db import models

from games.models import DEFAULT_BOT_LEVEL, Match, bot_level_field

NAME_LENGTH = 60


class Event(models.Model):
    class Movement(models.TextChoices):
        ROTATION = "rotation", "Progressive: North stays, South down one, East up one, West up two"
        WINNERS = "winners", "Progressive: the winners move up a table and split"
        SWISS = "swiss", "Swiss: fixed pairs, paired by standing"
        INDIVIDUAL = "individual", "Individual: new partners drawn each round"

    class Status(models.TextChoices):
        SCHEDULED = "scheduled", "Scheduled"
        PLAYING = "playing", "Playing"
        FINISHED = "finished", "Finished"
        CANCELLED = "cancelled", "Cancelled"

    name = models.CharField(max_length=NAME_LENGTH)
    organiser = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="organised_events"
    )
    # A club's event is for its members only; an event without a club is public.
    club = models.ForeignKey(
        "social.Club", null=True, blank=True, on_delete=models.CASCADE, related_name="events"
    )
    rules = models.JSONField(help_text="The engine's rules spec (a partnership preset).")
    movement = models.CharField(max_length=10, choices=Movement.choices)
    rounds = models.PositiveSmallIntegerField()
    deals_per_round = models.PositiveSmallIntegerField()
    minutes_per_round = models.PositiveSmallIntegerField()
    bot_level = bot_level_field(default=DEFAULT_BOT_LEVEL)
    starts_at = models.DateTimeField(db_index=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SCHEDULED)
    # The round being played (0 before the start), and when its time runs out.
    round_number = models.PositiveSmallIntegerField(default=0)
    round_ends_at = models.DateTimeField(null=True, blank=True)
    # Bumped by every change the event's page shows (a check-in, a deal's end, a new round).
    version = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["status", "starts_at"], name="event_status_start")]

    def __str__(self) -> str:
        return self.name

    @property
    def public(self) -> bool:
        return self.club_id is None

    @property
    def by_pairs(self) -> bool:
        return self.movement == self.Movement.SWISS


class Entry(models.Model):
    """A person checked in to an event."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="event_entries"
    )
    checked_in_at = models.DateTimeField(auto_now_add=True)
    # The first round they play: 1, or the round after the one being played when they came.
    first_round = models.PositiveSmallIntegerField(default=1)
    # They left: a stand-in finishes their table's round, and they are in no later round.
    left_at = models.DateTimeField(null=True, blank=True)
    # Swiss: the partner they asked for at check-in, and the pair they play in.
    asked_partner = models.CharField(max_length=150, blank=True)
    pair_number = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["event", "checked_in_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=("event", "user"), name="entry_one_per_person"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} in event {self.event_id}"


class EventTable(models.Model):
    """One table of one round: who sat where (user ids; None for a bot) and its match. A table
    of four bots is kept for the movement's sake but never played (no match)."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="tables")
    round = models.PositiveSmallIntegerField()
    number = models.PositiveSmallIntegerField(help_text="1 for the head table.")
    seats = models.JSONField(help_text="N, E, S, W -> a user id, or None for a bot.")
    match = models.OneToOneField(
        Match, null=True, blank=True, on_delete=models.SET_NULL, related_name="event_table"
    )

    class Meta:
        ordering = ["event", "round", "number"]
        constraints = [
            # Two processes ending the same round at once make one next round: the second's
            # tables meet this constraint (and the event's row lock before it).
            models.UniqueConstraint(
                fields=("event", "round", "number"), name="eventtable_one_per_number"
            ),
        ]

    def __str__(self) -> str:
        return f"event {self.event_id} round {self.round} table {self.number}"
