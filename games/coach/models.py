"""What the coach stores: its advice for one position, and its review of one deal for one seat.

Both are computed by Celery tasks on the coach queue and stored once: a position is never
searched twice (a repeated request finds the row), and the review reuses the advice a player saw.
"""

from django.conf import settings
from django.db import models

from games.models import Deal


class Work(models.TextChoices):
    """Where a computation stands. A row is created `pending` by the request that enqueues its
    task; the task claims it (`computing`) and fills it in (`ready`)."""

    PENDING = "pending", "Waiting for the coach"
    COMPUTING = "computing", "Being computed"
    READY = "ready", "Ready"


class Advice(models.Model):
    """The coach's ranked options for the seat to act at one moment of a deal."""

    deal = models.ForeignKey(Deal, on_delete=models.CASCADE, related_name="coach_advice")
    step = models.PositiveSmallIntegerField(
        help_text="Actions applied in the deal before the decision."
    )
    seat = models.CharField(max_length=2)
    # The match's version at that moment: the seed of the search, as for the hard bot.
    version = models.PositiveIntegerField()
    status = models.CharField(max_length=9, choices=Work.choices, default=Work.PENDING)
    phase = models.CharField(max_length=8, blank=True)
    options = models.JSONField(default=list, help_text="advice.Option.to_json(), best first.")
    seconds = models.FloatField(null=True, blank=True, help_text="Wall time of the search.")
    requested_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    computed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["deal", "step", "seat"], name="advice_unique_position"),
        ]

    def __str__(self) -> str:
        return f"Advice for {self.seat} at step {self.step} of deal {self.deal_id} ({self.status})"


class Review(models.Model):
    """The coach's review of one seat's decisions in one finished deal."""

    deal = models.ForeignKey(Deal, on_delete=models.CASCADE, related_name="coach_reviews")
    seat = models.CharField(max_length=2)
    status = models.CharField(max_length=9, choices=Work.choices, default=Work.PENDING)
    accuracy = models.FloatField(
        null=True, blank=True, help_text="Percent; None when the seat had no choice to make."
    )
    # One entry per decision with a choice, in order: see services.review_entries.
    decisions = models.JSONField(default=list)
    inaccuracies = models.PositiveSmallIntegerField(default=0)
    mistakes = models.PositiveSmallIntegerField(default=0)
    blunders = models.PositiveSmallIntegerField(default=0)
    cost = models.FloatField(
        default=0.0, help_text="Estimated CPU seconds of the review (games/core/budget.py)."
    )
    requested_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    computed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["deal", "seat"], name="review_unique_seat"),
        ]

    def __str__(self) -> str:
        return f"Review of {self.seat} in deal {self.deal_id} ({self.status})"


class ExerciseAttempt(models.Model):
    """One try at an exercise: a position from the player's own deal where the coach marked a
    mistake or a blunder, answered again. The latest try of each position is the progress."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="exercise_attempts"
    )
    deal = models.ForeignKey(Deal, on_delete=models.CASCADE, related_name="exercise_attempts")
    step = models.PositiveSmallIntegerField(help_text="Actions applied before the decision.")
    seat = models.CharField(max_length=2)
    choice = models.CharField(max_length=40, help_text="The engine token chosen this time.")
    mark = models.CharField(
        max_length=10,
        blank=True,
        help_text='The coach\'s judgement: "", inaccuracy, mistake, blunder, or unvalued.',
    )
    loss = models.FloatField(default=0.0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "deal", "step"], name="exercise_user_position")]

    def __str__(self) -> str:
        return f"{self.user_id} tried {self.choice} at step {self.step} of deal {self.deal_id}"

    @property
    def solved(self) -> bool:
        """Good enough: the coach's choice, or within an inaccuracy of it."""
        return self.mark in ("", "inaccuracy")
