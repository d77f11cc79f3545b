from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    """A person who plays. Preferences live here so they follow the user across devices."""

    coach_enabled = models.BooleanField(
        default=False, help_text="Show the coach's advice at the user's turns."
    )
    history_public = models.BooleanField(
        default=True,
        help_text="Show this player's ratings, record and recent matches on their player page.",
    )
