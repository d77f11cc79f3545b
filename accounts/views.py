from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import Resolver404, resolve, reverse, reverse_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games.coach import services as coach_services
from games.core import budget, mail
from games.core.http import HtmxRequest, SignedInRequest
from games.core.limits import client_address, count_and_check, limited, over_limit, too_many
from games.core.redirects import next_path, redirect_back
from games.tables import services as tables

from . import downloads, export, selectors, services
from .forms import (
    DeleteAccountForm,
    EmailForm,
    PasswordResetForm,
    SignUpForm,
    SoundForm,
    TextTableForm,
)
from .services import AccountError


def _take_invited_seat(request: HttpRequest, next_url: str) -> None:
    """An invite link followed before signing up or in seats its reader once they are in."""
    try:
        found = resolve(next_url.split("?", 1)[0])
    except Resolver404:
        return
    if found.url_name == "invite":
        tables.do_sit_by_invite(found.kwargs.get("code", ""), user=request.user)


def _site_url(request: HttpRequest) -> str:
    return mail.site_url(request)


@limited("signup", per="address")
def sign_up(request: HttpRequest) -> HttpResponse:
    next_url = next_path(request)
    if request.user.is_authenticated:
        return redirect(next_url or "home")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.username}! Your account is ready.")
        if form.cleaned_data["email"]:
            services.do_request_email(
                user, address=form.cleaned_data["email"], site_url=_site_url(request)
            )
            messages.info(
                request,
                f"We sent a link to {form.cleaned_data['email']}: follow it to confirm the address.",
            )
        if next_url:
            _take_invited_seat(request, next_url)
        return redirect(next_url or "home")
    return render(request, "registration/signup.html", {"form": form, "next": next_url})


class LogInView(auth_views.LoginView):
    """Django's log-in, which also seats someone who came by an invite link. An address that has
    failed too often this minute, across any names, waits for the next before trying again."""

    def post(self, request, *args, **kwargs):
        address = f"addr{client_address(request)}"
        if over_limit("login_failures", address):
            return too_many(request, "login_failures")
        response = super().post(request, *args, **kwargs)
        if response.status_code == 200:  # the form again, with its error: a failed log-in
            count_and_check("login_failures", address)
        return response

    def form_valid(self, form):
        response = super().form_valid(form)
        next_url = next_path(self.request)
        if next_url:
            _take_invited_seat(self.request, next_url)
        return response

    def form_invalid(self, form):
        """A wrong password says how many tries the name has left before its lockout, so
        that the lockout never comes as a surprise."""
        username = self.request.POST.get("username", "")
        context = self.get_context_data(
            form=form,
            tries_left=selectors.login_tries_left(self.request, username),
            lockout_minutes=int(settings.AXES_COOLOFF_TIME.total_seconds() // 60),
        )
        return self.render_to_response(context)


def _table_id(value) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


@login_required
@require_POST
def toggle_coach(request: HtmxRequest) -> HttpResponse:
    """Switch the coach on or off; remembered on the user, so every table and device agrees."""
    at_table = _table_id(request.POST.get("match"))
    coach_services.do_set_coach(
        request.user, enabled=request.POST.get("enabled") == "on", at_table=at_table
    )
    if request.htmx:
        # The table's own panel comes over its socket (coach_services.do_set_coach).
        return render(request, "accounts/_coach_toggle.html", {"coach_table": at_table})
    return redirect_back(request, "home")


class PasswordChangeView(auth_views.PasswordChangeView):
    """Django's password change, which also ends the user's other sessions and every open
    websocket: the other sessions are logged out by the new password, and their sockets must
    not go on showing (or dealing) a hand."""

    def form_valid(self, form):
        old_key = self.request.session.session_key
        response = super().form_valid(form)  # saves, then gives this browser a new session key
        services.do_note_new_session_key(old_key, new_key=self.request.session.session_key)
        services.do_after_password_change(
            self.request.user, current_session_key=self.request.session.session_key
        )
        return response


# --- Password reset: Django's own views and URL names, with the site's form -----------------


@limited("password_reset", per="address")
def password_reset(request: HttpRequest, *args, **kwargs) -> HttpResponseBase:
    """Ask for a reset link by user name or e-mail address. Every answer is the same page, for
    a known account or not; at most REQUEST_LIMITS_PER_MINUTE["password_reset"] a minute."""
    return auth_views.PasswordResetView.as_view(form_class=PasswordResetForm)(
        request, *args, **kwargs
    )


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """Django's reset by link (a token that works once and expires); a new password ends every
    session and socket of the person, as a password change does. The person then logs in."""

    success_url = reverse_lazy("password_reset_complete")

    def form_valid(self, form):
        response = super().form_valid(form)
        services.do_after_password_change(form.user)
        services.do_lift_login_lockout(form.user)
        return response


# --- The account page -----------------------------------------------------------------------


@login_required
@require_GET
def account(request: HttpRequest) -> HttpResponse:
    view = selectors.account_view(request.user, request.session.session_key)
    return render(
        request,
        "accounts/account.html",
        {
            "account": view,
            # The address waiting for its link, else the one in use: the field shows it.
            "email_form": EmailForm(initial={"email": view.email_pending or view.email}),
            "download": downloads.download_view(request.user),
        },
    )


@login_required
@require_POST
@limited("email_change")
def change_email(request: HttpRequest) -> HttpResponse:
    """Ask to use an address (a link is mailed to it), or remove the addresses on file."""
    if request.POST.get("remove"):
        services.do_remove_email(request.user)
        messages.success(request, "Your e-mail address is removed.")
        return redirect("account")
    form = EmailForm(request.POST)
    if form.is_valid():
        try:
            address = services.do_request_email(
                request.user, address=form.cleaned_data["email"], site_url=_site_url(request)
            )
        except AccountError as error:
            form.add_error("email", str(error))
        else:
            messages.success(
                request,
                f"We sent a link to {address}. Follow it within a few days to confirm the address.",
            )
            return redirect("account")
    view = selectors.account_view(request.user, request.session.session_key)
    context = {
        "account": view,
        "email_form": form,
        "download": downloads.download_view(request.user),
    }
    return render(request, "accounts/account.html", context, status=400)


@require_http_methods(["GET", "POST"])
def confirm_email(request: HttpRequest, token: str) -> HttpResponse:
    """The link in a confirmation mail. Opening it shows what it confirms; only the button (a
    POST) changes anything, so a mail scanner fetching links confirms nothing."""
    try:
        user, address = services.read_email_token(token)
        if request.method == "POST":
            services.do_confirm_email(token, signed_in=request.user)
            messages.success(request, f"Your e-mail address is now {address}.")
            return redirect("account" if request.user.is_authenticated else "login")
    except AccountError as error:
        return render(
            request, "accounts/confirm_email.html", {"error": str(error)}, status=error.status
        )
    other_account = request.user.is_authenticated and request.user.pk != user.pk
    return render(
        request,
        "accounts/confirm_email.html",
        {"name": user.username, "address": address, "other_account": other_account},
    )


@login_required
@require_POST
def sign_out_everywhere(request: HttpRequest) -> HttpResponse:
    services.do_sign_out_everywhere(request.user)
    logout(request)
    messages.success(request, "You are signed out everywhere, on this browser too.")
    return redirect("login")


@login_required
@require_http_methods(["GET", "POST"])
@limited("data_download")
def download_data(request: HttpRequest) -> HttpResponseBase:
    """POST: ask for one zip file of everything the site keeps about the person signed in, built
    off the web process (accounts/downloads.py); the account page links it when ready.
    GET: that file, once ready (else back to the account page)."""
    if request.method == "POST":
        try:
            downloads.do_request_download(request.user)
        except budget.Busy as error:
            messages.error(request, str(error))
        else:
            messages.success(
                request, "Your data is being put together; its link appears below when ready."
            )
        return redirect(reverse("account") + "#data-title")
    ready = downloads.ready_download(request.user)
    if ready is None:
        messages.info(request, "No download is ready: ask for one below.")
        return redirect(reverse("account") + "#data-title")
    response = FileResponse(
        open(downloads.file_path(ready), "rb"),  # noqa: SIM115 - FileResponse closes it
        content_type="application/zip",
        as_attachment=True,
        filename=export.filename(request.user),
    )
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
@require_GET
def download_status(request: HttpRequest) -> HttpResponse:
    """The account page's "Your data" panel (polled while a download is being built)."""
    return render(
        request, "accounts/_download.html", {"download": downloads.download_view(request.user)}
    )


@login_required
@require_http_methods(["GET", "POST"])
def delete_account(request: HttpRequest) -> HttpResponse:
    form = DeleteAccountForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            services.do_delete_account(request.user, password=form.cleaned_data["password"])
        except AccountError as error:
            form.add_error("password", str(error))
        else:
            logout(request)
            messages.success(
                request,
                "Your account is deleted. The deals you played stay in the other players' "
                "history, under “a former player”.",
            )
            return redirect("home")
    status = 400 if form.errors else 200
    return render(request, "accounts/delete.html", {"form": form}, status=status)


@login_required
@require_POST
def history_privacy(request: SignedInRequest) -> HttpResponse:
    """Whether the player page shows this player's ratings, record and recent matches."""
    services.do_set_history_public(request.user, public=request.POST.get("public") == "1")
    messages.success(
        request,
        "Your history is now public."
        if request.user.history_public
        else "Your history is now private: your page shows only your name.",
    )
    if next_path(request):
        return redirect_back(request, "home")
    return redirect("player", name=request.user.username)


@login_required
@require_POST
def sound_settings(request: HtmxRequest) -> HttpResponse:
    """The table's sounds: the mute switch and the volume, remembered on the person so another
    browser plays them alike. The table and the offline page send a change at once (htmx, an
    empty answer); the account page's form without scripts comes back to the page it was on.
    A value that is not one (a volume of "loud", or past 100) is refused and changes nothing."""
    form = SoundForm(request.POST)
    if not form.is_valid():
        return HttpResponse(
            "The volume must be a whole number from 0 to 100.",
            status=400,
            content_type="text/plain; charset=utf-8",
        )
    services.do_set_sound(
        request.user, muted=form.cleaned_data["muted"], volume=form.cleaned_data["volume"]
    )
    if request.htmx:
        return HttpResponse(status=204)
    messages.success(request, "Your sound settings are saved.")
    return redirect_back(request, "account")


@login_required
@require_POST
def text_table_settings(request: HtmxRequest) -> HttpResponse:
    """The table as text (docs/accessibility.md), kept on the person. The table page sends a
    change at once (htmx, an empty answer) and redraws itself in the page; the form without
    scripts comes back to the page it was on, drawn the new way."""
    form = TextTableForm(request.POST)
    form.is_valid()  # a checkbox: anything but "on" is off
    services.do_set_text_table(request.user, on=form.cleaned_data.get("text_table", False))
    if request.htmx:
        return HttpResponse(status=204)
    messages.success(request, "Your table setting is saved.")
    return redirect_back(request, "account")
