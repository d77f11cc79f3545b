"""Views: thin. They check who is asking, call one service or selector, and render."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRedirect

from games import engine
from games.core import hooks, invites, presenters, selectors, services
from games.core.forms import PRESETS, NewMatchForm, TableSettingsForm
from games.core.limits import limited
from games.core.pages import (
    home_context,
    posted_move,
    posted_version,
    table_html,
    table_post,
    table_refused,
    visible_match_or_404,
)
from games.models import Match
from games.social import selectors as social
from games.tables import services as tables


def home(request: HttpRequest) -> HttpResponse:
    context = home_context(request)
    if request.user.is_authenticated:
        # Friends who are here now, and the recent results of those whose history is public.
        context["friends_online"] = [
            row for row in social.friend_rows(request.user.pk) if row.online
        ]
        context["friend_results"] = social.friends_recent_results(request.user.pk)
    return render(request, "games/home.html", context)


def rules(request: HttpRequest) -> HttpResponse:
    """How to play, for anyone: the game in plain words, and each preset as the engine says it."""
    presets = [(label, engine.Rules.from_spec(name).describe()) for name, label in PRESETS]
    return render(request, "games/rules.html", {"presets": presets})


@login_required
@require_POST
@limited("new_match")
def new_match(request: HttpRequest) -> HttpResponse:
    form = NewMatchForm(request.POST)
    if not form.is_valid():
        return render(request, "games/home.html", home_context(request, form=form), status=400)
    match = services.do_start_match(
        request.user,
        rules_spec=form.cleaned_data["rules"].to_spec(),
        bot_level=form.cleaned_data["bot_level"],
    )
    request.user.remember_choices(
        preset=form.cleaned_data["preset"], bot_level=form.cleaned_data["bot_level"]
    )
    return redirect("table", match_id=match.pk)


@login_required
def table(request: HttpRequest, match_id: int) -> HttpResponse:
    match, _ = visible_match_or_404(request, match_id)
    invited = invites.invited(request.session)
    seats = selectors.seats_of(match)  # read once for the role, the table and the coach
    position, allowed = selectors.viewer_role(match, request.user, invited, seats=seats)
    if not allowed:
        return _not_at_this_table(request, match)
    if match.played_offline:
        # Played in the browser: there is no table here to play at, only its deals to replay.
        return redirect("replay:match", match_id=match.pk)
    context = {"match": match, "me": position, "origin": request.build_absolute_uri("/")[:-1]}
    if match.invite_code is not None:
        context["knows_code"] = selectors.came_through_invite(match, request.user, invited)
        context["lines"] = presenters.chat_lines(match, request.user)
        context["settings_form"] = TableSettingsForm(
            initial={
                "allow_spectators": match.allow_spectators,
                "turn_timeout_seconds": match.turn_timeout_seconds,
            }
        )
    if match.status == Match.Status.FORMING:
        context["forming"] = presenters.forming_view(match, request.user, invited)
        if position and match.invite_code is not None:
            context["invitable"] = _friends_to_invite(request.user, seats)
        return render(request, "games/table.html", context)
    # A GET only reads: a turn lost in a restart is woken by the table's socket connecting,
    # which the page opens at once, and by the sweeper.
    # The match again with its deal, in one query: the version shown names the deal shown.
    match, deal_row = selectors.match_and_current_deal(match.pk)
    view = presenters.table_view(match, position, seats=seats, deal_row=deal_row)
    context["table"] = table_html(request, view)
    if position:
        # The coach's panel is drawn here, then only by the table's socket (games.coach.services).
        context["panels"] = hooks.table_panels(match, position, seats=seats, deal_row=deal_row)
    return render(request, "games/table.html", context)


def _not_at_this_table(request: HttpRequest, match: Match) -> HttpResponse:
    message = "You are not playing at this table."
    if match.status == Match.Status.FORMING and selectors.blocked_by_host(match, request.user):
        message = "The host of this table has blocked you from their tables."
    elif match.invite_code is not None and match.status != Match.Status.FORMING:
        message = "This table has already started and does not allow spectators."
    return render(request, "games/refused.html", {"message": message}, status=403)


def _friends_to_invite(user, seats) -> list:
    """The host's friends a forming table offers to invite: not those already seated."""
    seated = {seat.user_id for seat in seats if seat.user_id}
    return [row for row in social.friend_rows(user.pk) if row.user_id not in seated]


@table_post(seated=True, refused=table_refused)
def act(request: HttpRequest, match: Match, seat) -> HttpResponse:
    """One move by the user's seat: a call, a suit, a discard or a card."""
    token, version = posted_move(request.POST)
    actor = services.Actor(user=request.user)
    services.through_restarts(
        lambda: services.do_act(
            match.pk, seat=seat.position, token=token, version=version, actor=actor
        )
    )
    return _after_change(request, match)


@table_post(seated=True, refused=table_refused)
def next_deal(request: HttpRequest, match: Match, seat) -> HttpResponse:
    version = posted_version(request, "request")
    services.through_restarts(lambda: services.do_next_deal(match.pk, version=version))
    return _after_change(request, match)


def _after_change(request: HttpRequest, match: Match) -> HttpResponse:
    """The answer to a saved move or deal: nothing to render. The table's websocket brings the
    new table to every screen, the mover's too: rendering it here as well would cost a second
    render, a slow response could replace a newer screen, and a read after the commit could
    fail (a database restart) after the change was saved."""
    if not request.htmx:
        return redirect("table", match_id=match.pk)
    return HttpResponse(status=204)


@table_post(seated=True, refused=table_refused)
@limited("rematch")
def rematch(request: HttpRequest, match: Match, seat) -> HttpResponse:
    """A new match with the same rules and the same kind of opponents."""
    if match.invite_code is not None:
        new = tables.do_table_rematch(match.pk, user=request.user)
    else:
        new = services.do_rematch(match.pk, host=request.user)
    # The end screen usually arrives over the websocket, rendered without a request and so
    # without a CSRF field: its form posts through htmx (with the page's CSRF header), and the
    # new table is then loaded as a whole page, with a socket of its own.
    if request.htmx:
        return HttpResponseClientRedirect(reverse("table", args=[new.pk]))
    return redirect("table", match_id=new.pk)


# --- Shared tables ---------------------------------------------------------------------------
