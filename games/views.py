"""Views: thin. They check who is asking, call one service or selector, and render."""

from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRedirect

from setback_site.limits import limited

from . import engine, hooks, invites, presenters, selectors, services, tables
from .engine.actions import Action
from .forms import PRESETS, NewMatchForm, NewTableForm, TableSettingsForm
from .models import Match


def _home_context(request: HttpRequest, **extra) -> dict:
    context = {}
    if request.user.is_authenticated:
        context["form"] = NewMatchForm()
        context["table_form"] = NewTableForm()
        context["unfinished"] = [
            (match, presenters.score_lines(match, request.user))
            for match in Match.objects.filter(
                seats__user=request.user, status=Match.Status.PLAYING
            ).order_by("-updated_at")[:20]
        ]
        context["forming"] = Match.objects.filter(
            seats__user=request.user, status=Match.Status.FORMING
        ).order_by("-updated_at")[:20]
    context.update(extra)
    return context


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "games/home.html", _home_context(request))


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
        return render(request, "games/home.html", _home_context(request, form=form), status=400)
    match = services.do_start_match(
        request.user, form.cleaned_data["rules"].to_spec(), form.cleaned_data["bot_level"]
    )
    return redirect("table", match_id=match.pk)


def _match_or_404(request: HttpRequest, match_id: int) -> Match:
    """The match, unless there is none or it is a shared table this user must not know of."""
    match = get_object_or_404(Match, pk=match_id)
    if selectors.hidden_from(match, request.user, invites.invited(request.session)):
        raise Http404("There is no such table.")
    return match


@login_required
def table(request: HttpRequest, match_id: int) -> HttpResponse:
    match = _match_or_404(request, match_id)
    invited = invites.invited(request.session)
    position, allowed = selectors.viewer_role(match, request.user, invited)
    if not allowed:
        message = "You are not playing at this table."
        if match.status == Match.Status.FORMING and selectors.blocked_by_host(match, request.user):
            message = "The host of this table has blocked you from their tables."
        elif match.invite_code is not None and match.status != Match.Status.FORMING:
            message = "This table has already started and does not allow spectators."
        return render(request, "games/refused.html", {"message": message}, status=403)
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
        return render(request, "games/table.html", context)
    # A GET only reads: a turn lost in a restart is woken by the table's socket connecting,
    # which the page opens at once, and by the sweeper.
    context["view"] = presenters.table_view(match, position)
    if position:
        # The coach's panel is drawn here, then only by the table's socket (games.coach.services).
        context["panels"] = hooks.table_panels(match, position)
    return render(request, "games/table.html", context)


def _table_fragment(request, match_id: int, seat: str, error: str = "", status: int = 200):
    match = Match.objects.get(pk=match_id)
    if match.status == Match.Status.FORMING:
        # Nothing is dealt at a forming table: no table to show, only why the request failed.
        return render(request, "games/refused.html", {"message": error}, status=status)
    view = presenters.table_view(match, seat)
    return render(request, "games/_table.html", {"view": view, "error": error}, status=status)


def _after_table_post(request: HttpRequest, match_id: int, error: services.GameError | None = None):
    """Back to the table page; an htmx request gets the refreshed fragment (with the error)."""
    if error is not None and not request.htmx:
        messages.error(request, str(error))
    if request.htmx:
        match = get_object_or_404(Match, pk=match_id)  # read again: the post changed it
        invited = invites.invited(request.session)
        position, _ = selectors.viewer_role(match, request.user, invited)
        status = error.status if error else 200
        if match.status == Match.Status.FORMING:
            view = presenters.forming_view(match, request.user, invited)
            return render(
                request,
                "games/_forming.html",
                {
                    "view": view,
                    "error": str(error or ""),
                    "origin": request.build_absolute_uri("/")[:-1],
                },
                status=status,
            )
        view = presenters.table_view(match, position)
        return render(
            request, "games/_table.html", {"view": view, "error": str(error or "")}, status=status
        )
    return redirect("table", match_id=match_id)


# --- How a refused post is answered (each gets the request, the match, the seat and the error) --


def _move_refused(request, match: Match, seat, error: services.GameError) -> HttpResponse:
    """A refused move: htmx swaps the table back in with the reason on it; a plain form post
    (no script yet) goes back to the whole table page, with the reason as a message."""
    if not request.htmx:
        messages.error(request, str(error))
        return redirect("table", match_id=match.pk)
    return _table_fragment(request, match.pk, seat.position, str(error), error.status)


def _table_post_refused(request, match: Match, seat, error: services.GameError) -> HttpResponse:
    """A refused change of a shared table: the table (forming or dealt) with the reason on it."""
    return _after_table_post(request, match.pk, error)


def _back_with_message(request, match: Match, seat, error: services.GameError) -> HttpResponse:
    """A refused form of the table page (no htmx): the page again, with the reason as a message."""
    messages.error(request, str(error))
    return redirect("table", match_id=match.pk)


def _rematch_refused(request, match: Match, seat, error: services.GameError) -> HttpResponse:
    if not request.htmx:
        return _refused(request, error)
    if match.invite_code is not None:
        return _after_table_post(request, match.pk, error)
    return _table_fragment(request, match.pk, seat.position, str(error), error.status)


def _refused(request, error: services.GameError) -> HttpResponse:
    return render(request, "games/refused.html", {"message": str(error)}, status=error.status)


def table_post(*, refused, seated: bool = False):
    """The views' shared pattern for a post at one table.

    The user is logged in and posts; the match exists and is not a shared table hidden from
    them (404); with `seated`, they hold a seat at it (403, in plain words, for anyone else).
    The view is called with the request, the match and the seat (None unless `seated`) and
    answers only success: a refusal it raises (`GameError`) is answered by `refused`, a
    `NotFound` by 404.
    """

    def decorate(view):
        @wraps(view)
        def answer(request: HttpRequest, match_id: int) -> HttpResponse:
            match = _match_or_404(request, match_id)
            seat = None
            if seated:
                seat = selectors.viewer_seat(match, request.user)
                if seat is None:
                    return HttpResponse("You are not playing at this table.", status=403)
            try:
                return view(request, match, seat)
            except services.NotFound:
                raise Http404 from None
            except services.GameError as error:
                return refused(request, match, seat, error)

        return login_required(require_POST(answer))

    return decorate


def _posted_version(request: HttpRequest, what: str) -> int:
    """The table version the posting screen showed (a stale screen's post is refused)."""
    try:
        return int(request.POST.get("version"))
    except (TypeError, ValueError):
        raise services.GameError(f"The {what} was incomplete; please try again.") from None


@table_post(seated=True, refused=_move_refused)
def act(request: HttpRequest, match: Match, seat) -> HttpResponse:
    """One move by the user's seat: a call, a suit, a discard or a card."""
    token = request.POST.get("action", "").strip()
    if token == "discard" or "discard" in request.POST:
        token = str(Action.discard(request.POST.getlist("cards")))
    version = _posted_version(request, "move")
    if not token:
        raise services.GameError("The move was incomplete; please try again.")
    actor = services.Actor(user=request.user)
    services.through_restarts(
        lambda: services.do_act(match.pk, seat.position, token, version, actor)
    )
    return _after_change(request, match)


@table_post(seated=True, refused=_move_refused)
def next_deal(request: HttpRequest, match: Match, seat) -> HttpResponse:
    version = _posted_version(request, "request")
    services.through_restarts(lambda: services.do_next_deal(match.pk, version))
    return _after_change(request, match)


def _after_change(request: HttpRequest, match: Match) -> HttpResponse:
    """The answer to a saved move or deal: nothing to render. The table's websocket brings the
    new table to every screen, the mover's too: rendering it here as well would cost a second
    render, a slow response could replace a newer screen, and a read after the commit could
    fail (a database restart) after the change was saved."""
    if not request.htmx:
        return redirect("table", match_id=match.pk)
    return HttpResponse(status=204)


@table_post(seated=True, refused=_rematch_refused)
@limited("rematch")
def rematch(request: HttpRequest, match: Match, seat) -> HttpResponse:
    """A new match with the same rules and the same kind of opponents."""
    if match.invite_code is not None:
        new = tables.do_table_rematch(match.pk, request.user)
    else:
        new = services.do_rematch(match.pk, request.user)
    # The end screen usually arrives over the websocket, rendered without a request and so
    # without a CSRF field: its form posts through htmx (with the page's CSRF header), and the
    # new table is then loaded as a whole page, with a socket of its own.
    if request.htmx:
        return HttpResponseClientRedirect(reverse("table", args=[new.pk]))
    return redirect("table", match_id=new.pk)


# --- Shared tables ---------------------------------------------------------------------------


@login_required
@require_POST
@limited("new_table")
def new_table(request: HttpRequest) -> HttpResponse:
    form = NewTableForm(request.POST)
    if not form.is_valid():
        return render(
            request, "games/home.html", _home_context(request, table_form=form), status=400
        )
    match = tables.do_create_table(
        request.user,
        form.cleaned_data["rules"].to_spec(),
        allow_spectators=form.cleaned_data["allow_spectators"],
        turn_timeout_seconds=form.cleaned_data["turn_timeout_seconds"],
        public=form.cleaned_data["public"],
    )
    return redirect("table", match_id=match.pk)


@login_required
def join_by_code(request: HttpRequest, code: str = "") -> HttpResponse:
    """The invite link (/t/CODE/) and the home page's "join by code" box."""
    code = code or request.GET.get("code", "") or request.POST.get("code", "")
    match = selectors.table_by_code(code)
    if match is None:
        context = _home_context(
            request,
            join_error=f"No table has the code {code.strip()!r}."
            if code.strip()
            else "Type the table's code.",
            join_code=code.strip()[:12],  # kept in the box, to correct a typo
        )
        return render(request, "games/home.html", context, status=404)
    invites.remember(request.session, match.pk)
    return redirect("table", match_id=match.pk)


@table_post(refused=_table_post_refused)
def sit(request: HttpRequest, match: Match, seat) -> HttpResponse:
    tables.do_sit(match.pk, request.user, request.POST.get("position", ""))
    response = _after_table_post(request, match.pk)
    if request.htmx:
        response["HX-Refresh"] = "true"  # the page around the table changes too (chat, leave)
    return response


@table_post(refused=_table_post_refused)
def seat_bot(request: HttpRequest, match: Match, seat) -> HttpResponse:
    """The host's seat controls: a bot of a level in one seat, or in every empty seat."""
    level = request.POST.get("level", "")
    if request.POST.get("position") == "all":
        tables.do_fill_with_bots(match.pk, request.user, level)
    else:
        tables.do_set_seat_bot(match.pk, request.user, request.POST.get("position", ""), level)
    return _after_table_post(request, match.pk)


@table_post(refused=_table_post_refused)
def start_table(request: HttpRequest, match: Match, seat) -> HttpResponse:
    tables.do_start_table(match.pk, request.user)
    return _after_table_post(request, match.pk)


@table_post(refused=_table_post_refused)
def remove_from_table(request: HttpRequest, match: Match, seat) -> HttpResponse:
    """The host removes a person from a table that has not started."""
    tables.do_remove_from_table(match.pk, request.user, request.POST.get("position", ""))
    return _after_table_post(request, match.pk)


@table_post(refused=_back_with_message)
def table_settings(request: HttpRequest, match: Match, seat) -> HttpResponse:
    form = TableSettingsForm(request.POST)
    if not form.is_valid():
        raise services.GameError(" ".join(e for errors in form.errors.values() for e in errors))
    tables.do_table_settings(match.pk, request.user, **form.cleaned_data)
    messages.success(request, "Table settings saved.")
    return redirect("table", match_id=match.pk)


@table_post(refused=_back_with_message)
def leave(request: HttpRequest, match: Match, seat) -> HttpResponse:
    match = tables.do_leave(match.pk, request.user)
    if match.status == Match.Status.PLAYING:
        messages.success(request, "You left the table; a bot plays your seat from now on.")
    else:
        messages.success(request, "You left the table.")
    return redirect("home")


@table_post(refused=_back_with_message)  # the chat answers its own refusals, in its form
def chat(request: HttpRequest, match: Match, seat) -> HttpResponse:
    """A chat line; the table's screens get it over the websocket. Returns the chat form
    (cleared, or with the error) for htmx, which swaps it in place."""
    error = ""
    try:
        tables.do_chat(match.pk, request.user, request.POST.get("text", ""))
    except services.GameError as refusal:
        if isinstance(refusal, services.NotFound):
            raise  # a 404, like every table post
        error = str(refusal)
    if not request.htmx:
        if error:
            messages.error(request, error)
        return redirect("table", match_id=match.pk)
    return render(
        request,
        "games/_chat_form.html",
        {
            "match": match,
            "error": error,
            "text": request.POST.get("text", "") if error else "",
            "lines": presenters.chat_lines(match, request.user),
            "posted": True,
        },
        status=400 if error else 200,
    )


@login_required
@require_POST
def manners(request: HttpRequest, name: str) -> HttpResponse:
    """Mute another player's chat for oneself, or block them from one's tables (or undo it)."""
    kind = request.POST.get("kind", "")
    on = request.POST.get("on") == "1"
    try:
        tables.do_set_personal_block(request.user, name, kind, on)
    except services.NotFound:
        raise Http404 from None
    except services.GameError as error:
        messages.error(request, str(error))
        return redirect("player", name=name)
    done = {
        ("mute", True): f"You no longer see {name}'s chat.",
        ("mute", False): f"You see {name}'s chat again.",
        ("block", True): f"{name} can no longer sit at your tables.",
        ("block", False): f"{name} may sit at your tables again.",
    }
    messages.success(request, done[(kind, on)])
    return redirect("player", name=name)
