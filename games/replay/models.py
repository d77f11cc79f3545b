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
