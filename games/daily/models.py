"""A day's set of deals, and each person's play of each deal.

A play points at an ordinary one-deal match (`Match.single_deal`), played through the same
locked, versioned services as every table; the play's result columns are copied from the
deal's result when it ends (`services.record_result`), so comparisons read one small row per
play.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

from games.models import Match


class DailySet(models.Model):
    """One day's deals. The unique day is what keeps a midnight race to one set."""

    day = models.DateField(unique=True)
    rules = models.JSONField(help_text="The engine's rules spec the day is played with.")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"Daily deals of {self.day}"


class DailyDeal(models.Model):
    """One of a day's deals: the cards (never shown to a person before their play ends) and the
    seed of the bots, the same for everyone."""

    daily_set = models.ForeignKey(DailySet, on_delete=models.CASCADE, related_name="deals")
    number = models.PositiveSmallIntegerField()
    dealer = models.CharField(max_length=2)
    hands = models.JSONField()
    stock = models.JSONField()
    bot_seed = models.BigIntegerField()
    # Par: the hard bots playing the person's seat too (deals.par_line), filled by a task.
    par_score = models.SmallIntegerField(null=True, blank=True)
    par_net = models.SmallIntegerField(
        null=True, blank=True, help_text="Par's net points: its side's score less the other's."
    )
    par_tokens = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["daily_set", "number"]
        constraints = [
            models.UniqueConstraint(fields=["daily_set", "number"], name="dailydeal_unique_number")
        ]

    def __str__(self) -> str:
        return f"Deal {self.number} of {self.daily_set.day}"


class DailyPlay(models.Model):
    """A person's play of a daily deal. `counted` plays (made on the day itself) are compared;
    a person has at most one counted play of a deal. Plays of past days are practice."""

    deal = models.ForeignKey(DailyDeal, on_delete=models.CASCADE, related_name="plays")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="daily_plays"
    )
    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="daily_play")
    counted = models.BooleanField()
    started_at = models.DateTimeField(auto_now_add=True)
    # From the deal's result, once it is over.
    finished_at = models.DateTimeField(null=True, blank=True)
    score = models.SmallIntegerField(null=True, blank=True, help_text="The player's side's score.")
    # What the comparisons rank by (games.engine.worth.deal_net): a deal's worth to a side is
    # what it gained against the other side, so setting a bid of 4 beats a quiet 0.
    net = models.SmallIntegerField(
        null=True, blank=True, help_text="The player's side's score less the other side's."
    )
    pitcher = models.CharField(max_length=2, blank=True)
    bid = models.PositiveSmallIntegerField(null=True, blank=True)
    made = models.BooleanField(null=True, blank=True)
    auction = models.CharField(max_length=60, blank=True, help_text="The calls, space-separated.")
    # A counted play left unfinished when its day ended: closed then (its match takes no more
    # moves), ranked 0 % on the day's table, and no result in the others' fields (issue 45).
    closed = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["deal", "user"], condition=Q(counted=True), name="dailyplay_once"
            )
        ]
        indexes = [
            models.Index(fields=["deal", "counted", "finished_at"], name="dailyplay_field"),
            models.Index(fields=["user", "counted", "finished_at"], name="dailyplay_person"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} on {self.deal}"


class DailyLeaver(models.Model):
    """A name whose account was deleted after playing some of `day`'s deals: a keyed hash of the
    name (never the name), so that a new account with it cannot play that day's deals again.
    Kept for the day only (the sweeper drops older rows)."""

    day = models.DateField()
    name_hash = models.CharField(max_length=64)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["day", "name_hash"], name="dailyleaver_unique")
        ]

    def __str__(self) -> str:
        return f"A leaver of {self.day}"
