"""Quick pairing: people asking for the same rules wait in one queue until a table is made.

A `PairingQueue` row per rules (its key is the engine's rules spec as sorted JSON) is what
requests for those rules lock, so two people asking at the same moment, even on two web
processes, are handled one after the other and end at one table.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

from games.models import Match, bot_level_field


class PairingQueue(models.Model):
    rules_key = models.CharField(max_length=400, unique=True)

    def __str__(self) -> str:
        return self.rules_key


class PairingTicket(models.Model):
    """One person's request for players: waiting, then seated at a match, or cancelled."""

    class Status(models.TextChoices):
        WAITING = "waiting", "Waiting for players"
        SEATED = "seated", "Seated"
        CANCELLED = "cancelled", "Cancelled"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="pairing_tickets"
    )
    queue = models.ForeignKey(PairingQueue, on_delete=models.CASCADE, related_name="tickets")
    rules = models.JSONField(help_text="The engine's rules spec.")
    bot_level = bot_level_field()
    wait_seconds = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=9, choices=Status.choices, default=Status.WAITING)
    match = models.ForeignKey(
        Match, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    due_at = models.DateTimeField(help_text="When bots fill the empty seats.")

    class Meta:
        ordering = ["queue", "created_at", "id"]
        constraints = [
            # Pairing twice is refused by the service; this makes it impossible.
            models.UniqueConstraint(
                fields=["user"], condition=Q(status="waiting"), name="pairing_one_waiting_per_user"
            ),
        ]
        indexes = [
            models.Index(fields=["queue", "status", "created_at"], name="pairing_queue_waiting")
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.status} for {self.queue_id}"
