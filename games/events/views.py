"""Setback nights' pages: thin. Parse, check who asks (a selector), call one service, answer.
A refusal (GameError) is a page saying why, with its status."""

from datetime import datetime, timedelta
from functools import partial

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRedirect

from games.core import pages
from games.core.errors import GameError, NotFound
from games.core.http import HtmxRequest
from games.core.limits import limited
from games.models import DEFAULT_BOT_LEVEL, BotLevel
from games.replay.views import face_up_match, face_up_step
from games.social.models import Membership

from . import selectors, services
from .models import Event

refusals_as_pages = pages.refusals_as_pages("social/refused.html")


def _visible(request, event_id: int) -> Event:
    event = selectors.visible_event(event_id, request.user)
    if event is None:
        raise NotFound("There is no such event.")
    return event


def _clubs_run_by(user) -> list:
    if not user.is_authenticated:
        return []
    return [
        m.club
        for m in Membership.objects.filter(
            user=user, role__in=[Membership.Role.OWNER, Membership.Role.ADMIN]
        ).select_related("club")
    ]


def events(request: HttpRequest) -> HttpResponse:
    now = timezone.now()
    return render(
        request,
        "events/list.html",
        {
            "upcoming": selectors.upcoming_events(request.user, now),
            "recent": selectors.recent_events(request.user),
            "movements": Event.Movement.choices,
            "presets": [(p, p.title()) for p in services.PRESETS],
            "bot_levels": BotLevel.choices,
            "default_bot_level": DEFAULT_BOT_LEVEL,
            "clubs": _clubs_run_by(request.user),
            "default_start": (now + timedelta(minutes=35)).strftime("%Y-%m-%dT%H:%M"),
        },
    )


def _start_time(text: str) -> datetime:
    """The start as the form sends it (a datetime-local field), read as UTC, the site's time."""
    try:
        naive = datetime.strptime((text or "").strip(), "%Y-%m-%dT%H:%M")
    except ValueError:
        raise GameError("Give the start as a date and a time.") from None
    return timezone.make_aware(naive, timezone.get_current_timezone())


@login_required
@require_POST
@limited("new_event")
@refusals_as_pages
def new_event(request: HttpRequest) -> HttpResponse:
    form = request.POST
    club = form.get("club", "")
    event = services.do_schedule_event(
        request.user,
        name=form.get("name", ""),
        preset=form.get("preset", ""),
        movement=form.get("movement", ""),
        rounds=form.get("rounds"),
        deals_per_round=form.get("deals_per_round"),
        minutes_per_round=form.get("minutes_per_round"),
        bot_level=form.get("bot_level", ""),
        starts_at=_start_time(form.get("starts_at", "")),
        club_id=int(club) if club.isdigit() else None,
    )
    return redirect("events:event", event_id=event.pk)


@refusals_as_pages
def event(request: HttpRequest, event_id: int) -> HttpResponse:
    shown = _visible(request, event_id)
    return render(
        request,
        "events/event.html",
        {
            "live": selectors.live_view(shown),
            "place": selectors.my_place(shown, request.user),
            "may_replay": selectors.may_replay(shown, request.user),
        },
    )


def _back_to_the_event(request: HtmxRequest, event_id: int) -> HttpResponse:
    """The event's page again, after a check-in or a leave. Their forms also come over the
    event's socket, rendered without a request and so without a CSRF field: those post through
    htmx (with the page's CSRF header, base.html), and the page then loads again as a whole."""
    url = reverse("events:event", args=[event_id])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


@login_required
@require_POST
@refusals_as_pages
def check_in(request: HtmxRequest, event_id: int) -> HttpResponse:
    _visible(request, event_id)
    try:
        services.do_check_in(
            event_id, user=request.user, partner_name=request.POST.get("partner", "")
        )
    except GameError as error:
        if not request.htmx:
            raise
        messages.error(request, str(error))  # said on the event's page, where they asked
    return _back_to_the_event(request, event_id)


@login_required
@require_POST
@refusals_as_pages
def leave(request: HtmxRequest, event_id: int) -> HttpResponse:
    _visible(request, event_id)
    try:
        services.do_leave_event(event_id, user=request.user)
        messages.success(request, "You left the event.")
    except GameError as error:
        if not request.htmx:
            raise
        messages.error(request, str(error))
    return _back_to_the_event(request, event_id)


@login_required
@require_POST
@refusals_as_pages
def cancel(request: HttpRequest, event_id: int) -> HttpResponse:
    _visible(request, event_id)
    services.do_cancel_event(event_id, user=request.user)
    return redirect("events:event", event_id=event_id)


# --- Replays: every deal of a finished event, face up -----------------------------------------


def _event_game(request, event_id: int, match_id: int):
    shown = _visible(request, event_id)
    if not selectors.may_replay(shown, request.user):
        raise NotFound("The event's deals can be replayed once it is over, by its players.")
    game = shown.tables.filter(match_id=match_id).select_related("match").first()
    if game is None or game.match is None:
        raise NotFound("There is no such game in this event.")
    return shown, game.match


@refusals_as_pages
def event_game(request: HttpRequest, event_id: int, match_id: int) -> HttpResponse:
    shown, game = _event_game(request, event_id, match_id)
    return face_up_match(request, game, partial(_event_step_url, shown.pk, game.pk))


@refusals_as_pages
def event_step(request: HtmxRequest, event_id: int, match_id: int, number: int, step: int):
    shown, game = _event_game(request, event_id, match_id)
    return face_up_step(
        request,
        game,
        number,
        step,
        partial(_event_step_url, shown.pk, game.pk),
        heading=f"{shown.name}: match {game.pk}, deal {number}",
        back_url=reverse("events:game", args=[shown.pk, game.pk]),
    )


def _event_step_url(event_id: int, match_id: int, number: int, step: int) -> str:
    return reverse("events:step", args=[event_id, match_id, number, step])
