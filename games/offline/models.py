"""What the offline app stores itself: each deal that came home, and which site match holds
the deals of one offline match. The deals themselves, once accepted, are ordinary rows of the
core (games.Match with `played_offline`, Deal, Action), so history, replay, the face-up
analysis, the coach's review and statistics treat them like any other."""

from django.conf import settings
from django.db import models


class OfflineMatch(models.Model):
    """The site match that keeps the deals of one match played offline, found by the id the
    browser made for it."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="offline_matches"
    )
    key = models.CharField(max_length=64, help_text="The match's id, made in the browser.")
    match = models.OneToOneField(
        "games.Match", on_delete=models.CASCADE, related_name="offline_origin"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "key"], name="offlinematch_unique_key")
        ]

    def __str__(self) -> str:
        return f"Offline match {self.key} of {self.owner_id}"


class OfflineUpload(models.Model):
    """One finished deal sent home from the offline page, and what the check made of it.

    Created `checking` only for an envelope whose record the engine accepted at once (legal,
    the seeds' cards, the score as claimed); a background task then decides every bot move
    again and either stores the deal (`accepted`, `deal` set) or says why not (`refused`).
    The browser's id makes a repeated upload harmless. Once settled the envelope is dropped
    (the deal is stored as the core's rows, or refused), and a refused row is deleted after
    `services.REFUSED_KEEP_DAYS`: long enough for the page to show the reason.
    """

    class Status(models.TextChoices):
        CHECKING = "checking", "Being checked"
        ACCEPTED = "accepted", "Accepted"
        REFUSED = "refused", "Refused"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="offline_uploads"
    )
    client_id = models.CharField(max_length=64, help_text="The deal's id, made in the browser.")
    match_key = models.CharField(max_length=64)
    number = models.PositiveSmallIntegerField(help_text="The deal's number in its match.")
    envelope = models.JSONField(help_text="The upload as sent (games/engine/offline.py).")
    digest = models.CharField(
        max_length=64, help_text="sha256 of the envelope: tells a repeat from another deal."
    )
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.CHECKING)
    reason = models.TextField(blank=True, help_text="Why it was refused, for the person.")
    deal = models.OneToOneField(
        "games.Deal",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="offline_upload",
    )
    received_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    checked_at = models.DateTimeField(null=True, blank=True)
    check_seconds = models.FloatField(
        null=True, blank=True, help_text="CPU seconds the bots' moves took to decide again."
    )
    content_key = models.CharField(
        max_length=64,
        blank=True,
        db_index=True,
        help_text="sha256 of what the check depends on (games.engine.offline.content_key): "
        "a deal already checked is not checked again.",
    )
    cost = models.FloatField(
        default=0.0, help_text="Estimated CPU seconds of the check (games/core/budget.py)."
    )
    bot_mismatch = models.TextField(  # noqa: DJ001 - null (not checked) differs from "" (no difference)
        null=True,
        blank=True,
        help_text="What the check found: null before it ran, empty when every bot move was "
        "found again, else the first difference.",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "client_id"], name="offlineupload_unique_id")
        ]
        indexes = [models.Index(fields=["owner", "match_key", "number"], name="offline_deal")]

    def __str__(self) -> str:
        return f"Offline deal {self.match_key}#{self.number} of {self.owner_id} ({self.status})"
