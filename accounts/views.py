from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import Resolver404, resolve
from django.views.decorators.http import require_POST

from games import tables
from games.coach import services as coach_services
from setback_site.limits import client_address, count_and_check, limited, over_limit, too_many
from setback_site.redirects import next_path, redirect_back

from . import services
from .forms import SignUpForm
from .sockets import end_sockets


def _take_invited_seat(request: HttpRequest, next_url: str) -> None:
    """An invite link followed before signing up or in seats its reader once they are in."""
    try:
        found = resolve(next_url.split("?", 1)[0])
    except Resolver404:
        return
    if found.url_name == "invite":
        tables.do_sit_by_invite(found.kwargs.get("code", ""), request.user)


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


def _table_id(value) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


@login_required
@require_POST
def toggle_coach(request: HttpRequest) -> HttpResponse:
    """Switch the coach on or off; remembered on the user, so every table and device agrees."""
    at_table = _table_id(request.POST.get("match"))
    coach_services.do_set_coach(
        request.user, request.POST.get("enabled") == "on", at_table=at_table
    )
    if request.htmx:
        # The table's own panel comes over its socket (coach_services.do_set_coach).
        return render(request, "accounts/_coach_toggle.html", {"coach_table": at_table})
    return redirect_back(request, "home")


class PasswordChangeView(auth_views.PasswordChangeView):
    """Django's password change, which also ends every open websocket of the user: the other
    sessions are logged out by the new password, and their sockets must not go on showing
    (or dealing) a hand."""

    def form_valid(self, form):
        response = super().form_valid(form)
        end_sockets(self.request.user.pk)
        return response


@login_required
@require_POST
def history_privacy(request: HttpRequest) -> HttpResponse:
    """Whether the player page shows this player's ratings, record and recent matches."""
    services.do_set_history_public(request.user, request.POST.get("public") == "1")
    messages.success(
        request,
        "Your history is now public."
        if request.user.history_public
        else "Your history is now private: your page shows only your name.",
    )
    return redirect("player", name=request.user.username)
