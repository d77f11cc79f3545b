"""The lobby's pages: thin. Parse, call one service or selector, render."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRedirect

from games.core import hooks
from games.core.errors import GameError
from games.core.forms import last_choices
from games.core.limits import limited

from . import selectors, services
from .forms import PairingForm


def _lobby(
    request: HttpRequest, form: PairingForm | None = None, error: str = "", status: int = 200
):
    tables = selectors.visible_tables(
        selectors.open_tables(), selectors.hosts_blocking(request.user)
    )
    return render(
        request,
        "lobby/lobby.html",
        {
            "tables": tables,
            "form": form or PairingForm(initial=last_choices(request.user)),
            "pairing": selectors.pairing_view(request.user),
            "error": error,
            "panels": hooks.lobby_panels(request.user),
        },
        status=status,
    )


@login_required
def lobby(request: HttpRequest) -> HttpResponse:
    return _lobby(request)


@login_required
@require_POST
def take_seat(request: HttpRequest, match_id: int) -> HttpResponse:
    """One click from the lobby: the first free seat of the table (of a side, if chosen)."""
    try:
        match = services.do_take_seat(
            match_id, user=request.user, side=request.POST.get("side", "")
        )
    except GameError as error:
        if request.htmx:
            return render(
                request, "lobby/_message.html", {"error": str(error)}, status=error.status
            )
        return _lobby(request, error=str(error), status=error.status)
    url = reverse("table", args=[match.pk])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


@login_required
@require_POST
@limited("pairing")
def find_players(request: HttpRequest) -> HttpResponse:
    form = PairingForm(request.POST)
    if not form.is_valid():
        return _lobby(request, form=form, status=400)
    try:
        ticket = services.do_find_players(
            request.user,
            rules_spec=form.cleaned_data["rules"].to_spec(),
            bot_level=form.cleaned_data["bot_level"],
            wait_seconds=form.cleaned_data["wait_seconds"],
        )
    except GameError as error:
        return _lobby(request, form=form, error=str(error), status=error.status)
    request.user.remember_choices(
        preset=form.cleaned_data["preset"], bot_level=form.cleaned_data["bot_level"]
    )
    if ticket.match_id:
        return redirect("table", match_id=ticket.match_id)
    return redirect("lobby:pairing")


@login_required
def pairing(request: HttpRequest) -> HttpResponse:
    """The waiting page: live over its websocket until the person is seated or cancels."""
    services.resume_overdue(request.user)
    view = selectors.pairing_view(request.user)
    if view.status == "seated" and view.match_id:
        return redirect("table", match_id=view.match_id)
    if view.status != "waiting":
        return redirect("lobby:lobby")
    return render(request, "lobby/pairing.html", {"view": view})


@login_required
@require_POST
def start_now(request: HttpRequest) -> HttpResponse:
    """Start at once with whoever waits, bots in the other seats."""
    try:
        match = services.do_start_now(request.user)
    except GameError as error:
        messages.error(request, str(error))
        return redirect("lobby:lobby")
    return redirect("table", match_id=match.pk)


@login_required
@require_POST
def cancel_pairing(request: HttpRequest) -> HttpResponse:
    try:
        services.do_cancel_pairing(request.user)
    except GameError as error:
        messages.error(request, str(error))
        view = selectors.pairing_view(request.user)
        if view.status == "seated":
            return redirect("table", match_id=view.match_id)
        return redirect("lobby:lobby")
    messages.success(request, "You stopped looking for players.")
    return redirect("lobby:lobby")
