"""What the replay app stores itself: records people uploaded. Site deals are replayed from
their own rows (games.Deal and games.Action); nothing about them is copied here."""

from django.conf import settings
from django.db import models


class ImportedDeal(models.Model):
    """A deal record (or a match record of several deals) someone uploaded to watch.

    A row exists only for a record the engine accepted, so every stored record replays.
    """

    class Kind(models.TextChoices):
        DEAL = "deal", "Deal"
        MATCH = "match", "Match"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="imported_deals"
    )
    record = models.JSONField(help_text="The record as uploaded (RULES.md section 4).")
    kind = models.CharField(max_length=5, choices=Kind.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Imported {self.kind} {self.pk} of {self.owner_id}"


class FaceUpAnalysis(models.Model):
    """The face-up (double-dummy) values of every choice at one step of a finished site deal.

    Created `pending` by the request that asks for it, filled in by a worker task, kept for
    good: a finished deal never changes, so a step is solved once.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting"
        COMPUTING = "computing", "Being computed"
        READY = "ready", "Ready"
        TOO_LARGE = "too_large", "Too large to solve exactly"

    deal = models.ForeignKey("games.Deal", on_delete=models.CASCADE, related_name="faceup_analyses")
    step = models.PositiveSmallIntegerField(help_text="Actions applied before the decision.")
    # The position itself (rules, cards dealt, actions so far): a practice deal copied from
    # this one, or the same step asked for again, reuses the answer instead of solving again.
    position_key = models.CharField(max_length=64, db_index=True, default="")
    # Who asked (each person has a few solves in flight at most); kept if they leave the site.
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    status = models.CharField(max_length=9, choices=Status.choices, default=Status.PENDING)
    seat = models.CharField(max_length=2, blank=True)
    lines = models.JSONField(
        default=list, help_text="One per legal card: card, points, takers, score, made, best."
    )
    exact_from_trick = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="When too large: the first trick of this deal that is solved exactly.",
    )
    nodes = models.PositiveIntegerField(default=0)
    seconds = models.FloatField(null=True, blank=True)
    requested_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["deal", "step"], name="faceup_unique_step")]

    def __str__(self) -> str:
        return f"Face-up analysis of deal {self.deal_id} step {self.step} ({self.status})"
