from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from .forms import SignUpForm


def sign_up(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("home")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.username}! Your account is ready.")
        return redirect("home")
    return render(request, "registration/signup.html", {"form": form})


@login_required
@require_POST
def toggle_coach(request: HttpRequest) -> HttpResponse:
    """Switch the coach on or off; remembered on the user, so every table and device agrees."""
    request.user.coach_enabled = request.POST.get("enabled") == "on"
    request.user.save(update_fields=["coach_enabled"])
    if request.htmx:
        response = render(request, "accounts/_coach_toggle.html")
        response["HX-Trigger"] = "coach-toggled"  # the table's coach panel fetches itself again
        return response
    return redirect(request.POST.get("next") or "home")


@login_required
@require_POST
def history_privacy(request: HttpRequest) -> HttpResponse:
    """Whether the player page shows this player's ratings, record and recent matches."""
    request.user.history_public = request.POST.get("public") == "1"
    request.user.save(update_fields=["history_public"])
    messages.success(request, "Your history is now public." if request.user.history_public
                     else "Your history is now private: your page shows only your name.")
    return redirect("player", name=request.user.username)
