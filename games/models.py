"""What is stored: matches, their seats, their deals, and one row for every action taken.

The engine (games/engine) decides what is legal and what scores; these rows are the durable
record from which any moment of any deal can be rebuilt. A seat holds a user or a bot, so the
same tables serve a person against bots and people against each other.
"""

from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models
from django.db.models import Q

from games import engine
from games.core.errors import GameError
from games.engine.bots import SITE_LEVELS
from games.engine.display import seat_name

if TYPE_CHECKING:
    from accounts.models import User

# The site's bot levels come from the engine's list: a new level is added there, not here.
# (django-stubs lacks the functional form with (name, value) pairs that the enum module takes.)
BotLevel = models.TextChoices("BotLevel", [(level.upper(), level) for level in SITE_LEVELS])  # type: ignore[call-overload]
# The level every form and seat control offers first: the home page, quick pairing, filling a
# table's empty seats (easy there, medium on the home page, surprised a newcomer: issue 28).
DEFAULT_BOT_LEVEL = str(BotLevel.MEDIUM)


def known_bot_level(level) -> str:
    """`level` as a plain string if it is one of the site's bot levels; refused otherwise (the
    refusal never echoes what was sent)."""
    if level not in BotLevel.values:
        raise GameError(f"Unknown bot level: choose {', '.join(BotLevel.values)}.")
    return str(level)


def bot_level_field(**options) -> models.CharField:
    """A column holding one of the site's bot levels, as wide as the longest."""
    return models.CharField(
        max_length=max(len(level) for level in SITE_LEVELS), choices=BotLevel.choices, **options
    )


class Match(models.Model):
    class Status(models.TextChoices):
        FORMING = "forming", "Waiting for players"
        PLAYING = "playing", "Playing"
        FINISHED = "finished", "Finished"
        # Played in a person's browser without a network (games/offline): its deals are kept
        # here as they come home and are checked; nobody plays it here. Finished once a deal
        # that came home ends it.
        OFFLINE = "offline", "Played offline"

    rules = models.JSONField(help_text="The engine's rules spec: a preset name or an options dict.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING)
    host = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="hosted_matches"
    )
    first_dealer = models.CharField(max_length=2)
    # Bumped by every change a seat can see; a move names the version it was made on.
    version = models.PositiveIntegerField(default=0)
    totals = models.JSONField(default=dict, help_text="Running score by side.")
    winner = models.CharField(max_length=8, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Tables with people.
    invite_code = models.CharField(max_length=12, unique=True, null=True, blank=True)
    allow_spectators = models.BooleanField(default=False)
    turn_timeout_seconds = models.PositiveSmallIntegerField(default=30)
    rematch_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="rematches"
    )
    # Replays: anyone holding this token may watch the finished deals.
    share_token = models.CharField(max_length=32, unique=True, null=True, blank=True)
    # A match that may be played only until then (a daily deal's counted play: the end of its
    # day, UTC): later moves are refused, and it is not shared before (issue 45).
    closes_at = models.DateTimeField(null=True, blank=True)
    # A practice deal ("play from here"): one deal replaying a finished deal's cards and its
    # first `practice_step` actions, then played on against bots. Kept and replayable, never
    # counted in statistics or ratings.
    practice_of = models.ForeignKey(
        "Deal", null=True, blank=True, on_delete=models.SET_NULL, related_name="practices"
    )
    practice_step = models.PositiveSmallIntegerField(null=True, blank=True)
    # Listed in the lobby while forming: anyone logged in may find it and sit down.
    public = models.BooleanField(default=False)
    # Played in the person's browser (games/offline), its deals checked here once they came
    # home: shown in history and counted in statistics as played offline, never rated.
    played_offline = models.BooleanField(default=False)
    # One deal, then over, like a practice deal (never counted in statistics or ratings): a daily
    # deal (games/daily) is one.
    single_deal = models.BooleanField(default=False)
    # The bots' searches are seeded from this instead of the match's number when set, so that
    # the same cards and the same moves meet the same replies at every table (the daily deals).
    bot_seed = models.BigIntegerField(null=True, blank=True)
    # Over after this many deals (a deal everyone passed is dealt again and does not count), won
    # by the side ahead (nobody on a tie), whatever the points: a round of a Setback night
    # (games/events). Its deal in play is its last once its time ran out (stand_ins_from).
    deals_limit = models.PositiveSmallIntegerField(null=True, blank=True)
    # From then on stand-ins play every person's turn at once: a Setback night's round whose
    # time ran out finishes its deal in play without waiting for anyone (docs/events.md).
    stand_ins_from = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["status", "-updated_at"])]

    def __str__(self) -> str:
        return f"Match {self.pk} ({self.status})"

    @property
    def coach_may_advise(self) -> bool:
        """Whether the coach may advise during a deal. Not at a table of seeded bots: its deal
        is compared with everyone's who held the same cards (the daily deals), so everyone
        plays it on their own; the coach's review still comes once the deal is over."""
        return self.bot_seed is None

    @property
    def rules_label(self) -> str:
        """The preset's name, and the options that differ from it, for lists."""
        if isinstance(self.rules, str):
            return preset_name(self.rules)
        options = [
            f"{k.replace('_', ' ')} {v}" if v is not True else k.replace("_", " ")
            for k, v in self.rules.items()
            if k != "preset"
        ]
        return f"{preset_name(self.rules['preset'])} ({', '.join(options)})"

    @property
    def is_practice(self) -> bool:
        return self.practice_step is not None

    @property
    def one_deal(self) -> bool:
        """Over after one deal, with no winner, and never counted in statistics or ratings: a
        practice deal, a daily deal."""
        return self.is_practice or self.single_deal


PRESET_TITLES = {
    "house": "House",
    "classic": "Classic",
    "auction": "Auction Pitch",
    "family": "Family",
}


def preset_name(preset: str) -> str:
    """A preset as every page names it (one name for each, on every page)."""
    return PRESET_TITLES.get(preset, preset.title())


class Seat(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    position = models.CharField(max_length=2, help_text="N E S W, or P1..P7.")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="seats",
    )
    bot_level = bot_level_field(blank=True)
    # Presence: open websocket connections of the seat's user, and when they last acted or left.
    connections = models.PositiveSmallIntegerField(default=0)
    last_seen_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["match", "id"]
        constraints = [
            models.UniqueConstraint(fields=["match", "position"], name="seat_unique_position"),
            models.UniqueConstraint(
                fields=["match", "user"], condition=Q(user__isnull=False), name="seat_unique_user"
            ),
            models.CheckConstraint(
                condition=Q(user__isnull=True) | Q(bot_level=""),
                name="seat_user_or_bot",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.position} of match {self.match_id}"

    @property
    def is_bot(self) -> bool:
        return self.user_id is None and bool(self.bot_level)

    @property
    def is_empty(self) -> bool:
        return self.user_id is None and not self.bot_level

    @property
    def person(self) -> "User":
        """The person in a seat known to have one (its `user_id` is set)."""
        assert self.user is not None, f"seat {self.position} has no person"
        return self.user

    @property
    def display_name(self) -> str:
        if self.user_id:
            return self.person.shown_name  # "a former player" once the account is deleted
        if self.bot_level:
            return seat_name(self.position)
        return "Empty seat"


class Deal(models.Model):
    """One deal: the cards as dealt and the cached public state; the actions are its rows."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="deals")
    number = models.PositiveSmallIntegerField(help_text="1 for the match's first deal.")
    dealer = models.CharField(max_length=2)
    hands = models.JSONField(help_text="Seat -> the cards as dealt.")
    stock = models.JSONField(help_text="The undealt cards, in order.")
    # Cached from the engine after every action, for lists and queries; the rows are the truth.
    phase = models.CharField(
        max_length=8, choices=[(p.value, p.value) for p in engine.Phase], default=engine.AUCTION
    )
    to_act = models.CharField(max_length=2, blank=True)
    pitcher = models.CharField(max_length=2, blank=True)
    bid = models.PositiveSmallIntegerField(null=True, blank=True)
    trump = models.CharField(max_length=1, blank=True)
    # How many action rows the deal has: with the deal's id it names one engine state, which a
    # process may keep cached instead of replaying the rows (games.core.selectors.current_state).
    steps = models.PositiveSmallIntegerField(default=0)
    result = models.JSONField(null=True, blank=True, help_text="The engine's score JSON.")
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["match", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="deal_unique_number"),
        ]

    def __str__(self) -> str:
        return f"Deal {self.number} of match {self.match_id}"

    @property
    def is_over(self) -> bool:
        return self.phase == engine.OVER


class Action(models.Model):
    """One bid, trump named, discard or card played: every action is a row."""

    class Kind(models.TextChoices):
        BID = "bid", "Bid"
        TRUMP = "trump", "Trump named"
        DISCARD = "discard", "Discard"
        PLAY = "play", "Card played"

    deal = models.ForeignKey(Deal, on_delete=models.CASCADE, related_name="actions")
    sequence = models.PositiveSmallIntegerField(help_text="0 for the deal's first action.")
    seat = models.CharField(max_length=2)
    kind = models.CharField(max_length=7, choices=Kind.choices)
    token = models.CharField(max_length=40, help_text="The engine's action token.")
    # Who decided: the seat's user, or a bot (also when a bot stood in for an absent person).
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    bot_level = bot_level_field(blank=True)
    # Played by a claim (games/engine/claim.py): the claimer's cards and everyone else's, all at
    # once; the others' cards are their lowest legal ones, which cannot change the score.
    claimed = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["deal", "sequence"]
        constraints = [
            models.UniqueConstraint(fields=["deal", "sequence"], name="action_unique_sequence"),
        ]

    def __str__(self) -> str:
        return f"{self.seat} {self.token}"


class ChatMessage(models.Model):
    """A line of a table's chat. Shown escaped (Django templates); length and rate are limited."""

    MAX_LENGTH = 200

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="chat_messages")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_messages"
    )
    text = models.CharField(max_length=MAX_LENGTH)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["match", "id"]
        indexes = [models.Index(fields=["user", "created_at"], name="chat_user_time")]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.text[:30]}"


class PersonalBlock(models.Model):
    """One person's choice about another: hide their chat lines (mute), or keep them away
    from the tables this person hosts (block). Only the owner sees or feels the mute."""

    class Kind(models.TextChoices):
        MUTE = "mute", "Muted chat"
        BLOCK = "block", "Blocked from my tables"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="personal_blocks"
    )
    other = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocked_by"
    )
    kind = models.CharField(max_length=5, choices=Kind.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "other", "kind"], name="personalblock_unique"),
            models.CheckConstraint(
                condition=~Q(owner=models.F("other")), name="personalblock_not_self"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.owner_id} {self.kind}s {self.other_id}"
