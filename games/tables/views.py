"""The pages and posts of shared tables: thin. Check who asks (games/core/pages.py), call one service
of games/tables/services.py, answer."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from games.core import invites, presenters, selectors, services
from games.core.forms import NewTableForm, TableSettingsForm
from games.core.limits import limited
from games.core.pages import home_context, table_answer, table_post, table_refused
from games.models import Match

from . import services as tables


@login_required
@require_POST
@limited("new_table")
def new_table(request: HttpRequest) -> HttpResponse:
    form = NewTableForm(request.POST)
    if not form.is_valid():
        return render(
            request, "games/home.html", home_context(request, table_form=form), status=400
        )
    match = tables.do_create_table(
        request.user,
        rules_spec=form.cleaned_data["rules"].to_spec(),
        allow_spectators=form.cleaned_data["allow_spectators"],
        turn_timeout_seconds=form.cleaned_data["turn_timeout_seconds"],
        public=form.cleaned_data["public"],
    )
    request.user.remember_choices(preset=form.cleaned_data["preset"])
    return redirect("table", match_id=match.pk)


def join_by_code(request: HttpRequest, code: str = "") -> HttpResponse:
    """The invite link (/t/CODE/) and the home page's "join by code" box. Someone signed out
    who follows a link sees who invited them to what, with the way in that comes back here."""
    if not request.user.is_authenticated:
        return _invitation(request, code)
    code = code or request.GET.get("code", "") or request.POST.get("code", "")
    match = selectors.table_by_code(code)
    if match is None:
        context = home_context(
            request,
            join_error=f"No table has the code {code.strip()!r}."
            if code.strip()
            else "Type the table's code.",
            join_code=code.strip()[:12],  # kept in the box, to correct a typo
        )
        return render(request, "games/home.html", context, status=404)
    invites.remember(request.session, match.pk)
    return redirect("table", match_id=match.pk)


def _invitation(request: HttpRequest, code: str) -> HttpResponse:
    match = selectors.table_by_code(code) if code else None
    if match is None:  # the join box, or a code that names nothing: log in first, as before
        return redirect_to_login(request.get_full_path())
    invites.remember(request.session, match.pk)
    view = presenters.forming_view(match, request.user)
    return render(
        request,
        "games/invitation.html",
        {
            "view": view,
            "status": match.status,
            "back": request.path,
        },
    )


@table_post(refused=table_refused)
def sit(request: HttpRequest, match: Match, seat) -> HttpResponse:
    tables.do_sit(match.pk, user=request.user, position=request.POST.get("position", ""))
    response = table_answer(request, match.pk)
    if request.htmx:
        response["HX-Refresh"] = "true"  # the page around the table changes too (chat, leave)
    return response


@table_post(refused=table_refused)
def seat_bot(request: HttpRequest, match: Match, seat) -> HttpResponse:
    """The host's seat controls: a bot of a level in one seat, or in every empty seat."""
    level = request.POST.get("level", "")
    if request.POST.get("position") == "all":
        tables.do_fill_with_bots(match.pk, host=request.user, level=level)
    else:
        tables.do_set_seat_bot(
            match.pk, host=request.user, position=request.POST.get("position", ""), level=level
        )
    request.user.remember_choices(bot_level=level)  # checked by the service, or "" (none)
    return table_answer(request, match.pk)


@table_post(refused=table_refused)
def start_table(request: HttpRequest, match: Match, seat) -> HttpResponse:
    tables.do_start_table(match.pk, host=request.user)
    return table_answer(request, match.pk)


@table_post(refused=table_refused)
def remove_from_table(request: HttpRequest, match: Match, seat) -> HttpResponse:
    """The host removes a person from a table that has not started."""
    tables.do_remove_from_table(
        match.pk, host=request.user, position=request.POST.get("position", "")
    )
    return table_answer(request, match.pk)


@table_post(refused=table_refused)
def table_settings(request: HttpRequest, match: Match, seat) -> HttpResponse:
    form = TableSettingsForm(request.POST)
    if not form.is_valid():
        raise services.GameError(" ".join(e for errors in form.errors.values() for e in errors))
    tables.do_table_settings(match.pk, host=request.user, **form.cleaned_data)
    messages.success(request, "Table settings saved.")
    return redirect("table", match_id=match.pk)


@table_post(refused=table_refused)
def leave(request: HttpRequest, match: Match, seat) -> HttpResponse:
    match = tables.do_leave(match.pk, user=request.user)
    if match.status == Match.Status.PLAYING:
        messages.success(request, "You left the table; a bot plays your seat from now on.")
    else:
        messages.success(request, "You left the table.")
    return redirect("home")


@table_post(refused=table_refused)  # the chat answers its own refusals, in its form
def chat(request: HttpRequest, match: Match, seat) -> HttpResponse:
    """A chat line; the table's screens get it over the websocket. Returns the chat form
    (cleared, or with the error) for htmx, which swaps it in place."""
    error = ""
    try:
        tables.do_chat(match.pk, user=request.user, text=request.POST.get("text", ""))
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
        tables.do_set_personal_block(request.user, other_name=name, kind=kind, on=on)
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
