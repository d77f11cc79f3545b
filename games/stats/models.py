"""What statistics read: one summary row per seat per finished deal, and ratings.

The rows are written by `games.stats.services` when a deal ends and when a match ends, in the
game's own transaction, from the engine's result JSON (never by re-scoring). The statistics page
aggregates these rows; it never replays actions.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

from games.models import Deal, Match, bot_level_field

# A rating is shown as 40 × μ (the skill estimate), so everyone starts at 1000 (μ = 25).
RATING_SCALE = 40


def shown_rating(mu: float) -> int:
    return round(mu * RATING_SCALE)


class Opponents(models.TextChoices):
    BOTS = "bots", "Bots"
    PEOPLE = "people", "People"
    MIXED = "mixed", "People and bots"


def _player_is_user_or_bot(name: str) -> models.CheckConstraint:
    return models.CheckConstraint(
        condition=(Q(user__isnull=False) & Q(bot_level=""))
        | (Q(user__isnull=True) & ~Q(bot_level="")),
        name=name,
    )


class DealSummary(models.Model):
    """One seat's deal, in numbers: who sat there, against whom, and what its side took.

    A seat held by a user counts for that user even when a bot stood in for them on some moves.
    """

    deal = models.ForeignKey(Deal, on_delete=models.CASCADE, related_name="summaries")
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="deal_summaries")
    seat = models.CharField(max_length=2)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="deal_summaries",
    )
    bot_level = bot_level_field(blank=True, help_text="Set for a bot's seat only.")
    side = models.CharField(max_length=8)
    preset = models.CharField(max_length=10)
    cutthroat = models.BooleanField()
    opponents = models.CharField(max_length=6, choices=Opponents.choices)
    opponent_levels = models.CharField(
        max_length=20, blank=True, help_text="The opposing bots' levels, sorted, comma-joined."
    )
    thrown_in = models.BooleanField(default=False)
    pitcher = models.BooleanField(default=False, help_text="This seat won the auction.")
    bid = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="The side's bid (5 for smudge), when the side pitched."
    )
    made = models.BooleanField(null=True, blank=True, help_text="When the side pitched.")
    set_pitcher = models.BooleanField(
        null=True, blank=True, help_text="When another side pitched: did it fail its bid?"
    )
    took_high = models.BooleanField(default=False)
    took_low = models.BooleanField(default=False)
    took_jack = models.BooleanField(default=False)
    took_game = models.BooleanField(default=False)
    jack_in_play = models.BooleanField(default=False)
    score_change = models.SmallIntegerField(help_text="The side's score change on this deal.")
    finished_at = models.DateTimeField()
    # Filled later by the coach (games.coach): the share, 0..1, of this seat's decisions in the
    # deal that matched the coach's choice. Null until the coach has judged the deal.
    coach_accuracy = models.FloatField(null=True, blank=True)
    # A deal played in the person's browser and checked once it came home (games/offline): the
    # statistics show it in a group of its own, apart from the deals the site dealt.
    offline = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["deal", "seat"], name="dealsummary_unique_seat"),
            _player_is_user_or_bot("dealsummary_user_or_bot"),
        ]
        indexes = [
            models.Index(fields=["user", "finished_at"], name="dealsummary_user_time"),
            models.Index(fields=["user", "preset", "finished_at"], name="dealsummary_user_preset"),
            # The coach's chart reads only the judged deals: a few among thousands.
            models.Index(
                fields=["user", "finished_at"],
                condition=Q(coach_accuracy__isnull=False),
                name="dealsummary_user_coached",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.seat} in deal {self.deal_id}"


class Rating(models.Model):
    """A player's current rating (openskill's Plackett-Luce μ and σ): a user, or a bot level."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="rating",
    )
    bot_level = bot_level_field(blank=True)
    mu = models.FloatField()
    sigma = models.FloatField()
    matches = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["bot_level"], condition=Q(user__isnull=True), name="rating_unique_bot_level"
            ),
            _player_is_user_or_bot("rating_user_or_bot"),
        ]

    def __str__(self) -> str:
        return f"{self.user or self.bot_level}: {self.shown}"

    @property
    def shown(self) -> int:
        return shown_rating(self.mu)


class MatchRecord(models.Model):
    """One rated player's finished match: the outcome and the rating after it (its history).

    A user has one row per match. A bot level has one row per match however many seats it held.
    """

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="records")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="match_records",
    )
    bot_level = bot_level_field(blank=True)
    side = models.CharField(max_length=8, help_text="The user's side; blank for a bot level.")
    preset = models.CharField(max_length=10)
    cutthroat = models.BooleanField()
    opponents = models.CharField(max_length=6, choices=Opponents.choices)
    opponent_levels = models.CharField(max_length=20, blank=True)
    won = models.BooleanField(help_text="For a bot level: whether any of its seats won.")
    mu_before = models.FloatField()
    mu = models.FloatField()
    sigma = models.FloatField()
    finished_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["match", "user"],
                condition=Q(user__isnull=False),
                name="matchrecord_unique_user",
            ),
            models.UniqueConstraint(
                fields=["match", "bot_level"],
                condition=Q(user__isnull=True),
                name="matchrecord_unique_bot_level",
            ),
            _player_is_user_or_bot("matchrecord_user_or_bot"),
        ]
        indexes = [models.Index(fields=["user", "finished_at"], name="matchrecord_user_time")]

    def __str__(self) -> str:
        return f"{self.user or self.bot_level} in match {self.match_id}"

    @property
    def shown(self) -> int:
        return shown_rating(self.mu)
