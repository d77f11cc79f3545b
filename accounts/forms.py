from django import forms
from django.conf import settings
from django.contrib.auth import forms as auth_forms
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.tokens import default_token_generator
from django.db.models import Q
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from games.core import mail

from .models import User
from .names import lookalike_problem
from .services import EMAIL_MAX_LENGTH, AccountError, clean_email

EMAIL_HELP = (
    "Optional. Only to send you a link if you forget your password; we confirm it first "
    "and show it to nobody."
)


class OptionalEmailField(forms.CharField):
    """An e-mail address or nothing, checked by the same rule as the account page's form."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", EMAIL_MAX_LENGTH)
        kwargs.setdefault("required", False)
        kwargs.setdefault("widget", forms.EmailInput(attrs={"autocomplete": "email"}))
        super().__init__(**kwargs)

    def clean(self, value):
        value = super().clean(value)
        if not value:
            return ""
        try:
            return clean_email(value)
        except AccountError as error:
            raise forms.ValidationError(str(error), code="invalid") from None


class SignUpForm(UserCreationForm):
    email = OptionalEmailField(label="E-mail address (optional)", help_text=EMAIL_HELP)
    field_order = ["username", "email", "password1", "password2"]

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username",)

    def clean_username(self):
        username = super().clean_username()
        if not username:
            return username  # already refused (taken, differing only in case)
        # Every existing name is compared by its skeleton: fine for thousands of players; a
        # stored, indexed skeleton column is the step after that.
        existing = User.objects.values_list("username", flat=True)
        problem = lookalike_problem(username, existing)
        if problem:
            raise forms.ValidationError(problem, code="lookalike")
        return username


class EmailForm(forms.Form):
    email = OptionalEmailField(label="E-mail address", required=True)


class SoundForm(forms.Form):
    """The table's sounds (accounts.services.do_set_sound): the mute switch, a checkbox, and the
    volume, a slider from 0 to 100."""

    muted = forms.BooleanField(required=False, label="Mute sounds")
    volume = forms.IntegerField(min_value=0, max_value=100, label="Volume")


class TextTableForm(forms.Form):
    """The table as text (accounts.services.do_set_text_table): a checkbox."""

    text_table = forms.BooleanField(required=False, label="Text table")


class DeleteAccountForm(forms.Form):
    password = forms.CharField(
        label="Your password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )


class PasswordResetForm(auth_forms.PasswordResetForm):
    """Django's reset form, asked for a user name or an e-mail address.

    The link goes only to a confirmed address on the account (never to what was typed), for
    an active account with a password. Whatever was typed, known or not, the page that follows
    is the same, and it takes about the same time: the lookup is the same, and the mail leaves
    through the task queue (games.core.mail).
    """

    email = forms.CharField(
        label="Your user name or e-mail address",
        max_length=EMAIL_MAX_LENGTH,
        widget=forms.TextInput(attrs={"autocomplete": "username"}),
    )

    def get_users(self, typed):
        typed = typed.strip()
        # A user name may hold an "@" too: one query asks for either.
        found = User.objects.filter(Q(email__iexact=typed) | Q(username__iexact=typed))
        for user in found.filter(is_active=True, left_at__isnull=True).exclude(email=""):
            if user.has_usable_password():
                yield user

    def save(self, domain_override=None, request=None, use_https=False, **kwargs):
        typed = self.cleaned_data["email"]
        # Counted whether or not an account answers to it: the same work either way.
        if not mail.count_one_for(typed):
            return
        for user in self.get_users(typed):
            # One count per account too: its name and its address, typed in turn, share it.
            if not mail.count_one_for(mail.account_key(user)):
                continue
            link = mail.site_url(request) + reverse(
                "password_reset_confirm",
                kwargs={
                    "uidb64": urlsafe_base64_encode(force_bytes(user.pk)),
                    "token": default_token_generator.make_token(user),
                },
            )
            mail.send_after_commit(
                mail.build(
                    "registration/password_reset_email",
                    user.email,
                    {"name": user.username, "link": link, "hours": _reset_hours()},
                )
            )


def _reset_hours() -> int:
    return max(1, settings.PASSWORD_RESET_TIMEOUT // 3600)
