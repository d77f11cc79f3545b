from django.contrib.auth.models import AbstractUser
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.crypto import salted_hmac

# How every page names the seat of a person who deleted their account.
FORMER_PLAYER = "a former player"


class User(AbstractUser):
    """A person who plays. Preferences live here so they follow the user across devices.

    `email` holds only a confirmed address (password reset mails go nowhere else); an address
    typed but not yet confirmed waits in `email_pending`. A person who deletes their account
    leaves this row behind as a nameless placeholder (`left_at` set, see
    `accounts.services.do_delete_account`): the seats, moves and results of the deals they
    played point at it, so those deals stay whole for the people who played them too.
    """

    coach_enabled = models.BooleanField(
        default=False, help_text="Show the coach's advice at the user's turns."
    )
    history_public = models.BooleanField(
        default=True,
        help_text="Show this player's ratings, record and recent matches on their player page.",
    )
    email_pending = models.EmailField(
        blank=True, help_text="An address typed but not yet confirmed by its link."
    )
    # Part of every session's check (see _get_session_auth_hash): one more signs every session
    # of the user out at once, including those started before sessions were listed.
    session_epoch = models.PositiveIntegerField(default=0)
    left_at = models.DateTimeField(
        null=True, blank=True, help_text="When the person deleted their account."
    )

    # The table's sounds (static/js/sounds.js): a mute switch and a volume, kept here so they
    # follow the person to another browser (the browser keeps a copy for the offline page).
    sound_muted = models.BooleanField(default=False, help_text="Play no sounds at the table.")
    sound_volume = models.PositiveSmallIntegerField(
        default=70,
        validators=[MinValueValidator(0), MaxValueValidator(100)],
        help_text="The table's sounds, from 0 (silent) to 100.",
    )
    # The table as text (issue 50, docs/accessibility.md): the table page lists the table in
    # reading order, its moves, turn, hand, auction and score as plain text and buttons.
    text_table = models.BooleanField(
        default=False, help_text="Show the table as text, in reading order."
    )

    # The person's last choices on the forms that start a game: {"preset": "classic",
    # "bot_level": "hard"}; the forms open on them (games.core.pages, presenters). Unknown keys and
    # values that are no longer choices are ignored where they are read.
    last_choices = models.JSONField(default=dict, blank=True)

    def remember_choices(self, **choices: str) -> None:
        """Keep these choices as the person's last (one UPDATE; nothing when they are the same)."""
        merged = {**self.last_choices, **{k: v for k, v in choices.items() if v}}
        if merged != self.last_choices:
            self.last_choices = merged
            type(self).objects.filter(pk=self.pk).update(last_choices=merged)

    @property
    def has_left(self) -> bool:
        return self.left_at is not None

    @property
    def shown_name(self) -> str:
        """The name every page shows: the user name, or "a former player"."""
        return FORMER_PLAYER if self.has_left else self.username

    def _get_session_auth_hash(self, secret=None):
        # Django signs a session with a hash of the password, so a new password ends the other
        # sessions. Mixing in the epoch ends them all on "sign out everywhere" too. An epoch of
        # 0 keeps Django's own hash, so sessions signed before this field existed still hold.
        if not self.session_epoch:
            return super()._get_session_auth_hash(secret=secret)
        return salted_hmac(
            "accounts.User.session_epoch",
            f"{self.password}:{self.session_epoch}",
            secret=secret,
            algorithm="sha256",
        ).hexdigest()


class LoginSession(models.Model):
    """A signed-in browser, listed on the account page so its owner can see and end it.

    Written when someone logs in, removed when they log out; one that expired or was ended
    elsewhere is left out of the list (the session store is the truth) and goes with the rest.
    """

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="login_sessions")
    session_key = models.CharField(max_length=40, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    user_agent = models.CharField(max_length=300, blank=True)
    address = models.GenericIPAddressField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"session of {self.user_id} since {self.created_at:%Y-%m-%d %H:%M}"


class DataDownload(models.Model):
    """One build of a person's "Download my data" zip: built by a task off the web process
    (accounts/tasks.py) into a private file under `settings.DOWNLOADS_DIR`, linked on the
    account page when ready. One at a time per person; a newer one replaces the older."""

    class Status(models.TextChoices):
        WAITING = "waiting", "Waiting"
        BUILDING = "building", "Being built"
        READY = "ready", "Ready"
        FAILED = "failed", "Failed"

    owner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="data_downloads")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.WAITING)
    file_name = models.CharField(
        max_length=100, blank=True, help_text="The file in DOWNLOADS_DIR (a random name)."
    )
    size = models.PositiveBigIntegerField(default=0)
    cost = models.FloatField(default=0.0, help_text="Estimated CPU seconds (games/core/budget.py).")
    seconds = models.FloatField(null=True, blank=True, help_text="How long the build took.")
    requested_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-requested_at"]

    def __str__(self) -> str:
        return f"Data download {self.pk} of {self.owner_id} ({self.status})"
