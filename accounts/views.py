from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
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
    target = request.POST.get("next", "")
    # Back to the page the switch was on: a path on this site, else home (a bare word is not a
    # page, and another site is not ours to send anyone to).
    if not (target.startswith("/") and url_has_allowed_host_and_scheme(
            target, {request.get_host()}, request.is_secure())):
        target = reverse("home")
    return HttpResponseRedirect(target)
