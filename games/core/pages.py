"""What the core's pages share with the features' views: the home page's context, who may see
a match, and a post at a table: how it is checked (`table_post`) and how it is answered, done
or refused. The table's own views (games/web/views.py) and the shared tables' (games/tables/views.py)
use the same pieces, so every post at a table is checked and answered alike."""

from functools import cache, wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import get_template, render_to_string
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_POST

from games.core import invites, presenters, selectors, services
from games.core.forms import NewMatchForm, NewTableForm, last_choices
from games.engine.actions import Action
from games.models import Match, Seat

# The live table's template engine (settings.TEMPLATES, games/web/jinja.py), named at every render.
# Looked up by name alone, the template was first looked for in Django's engine, which raised
# and caught TemplateDoesNotExist at every render; the exception's traceback kept the render's
# frames and the whole table's view in reference cycles: most of a web process's garbage,
# collected in pauses of 40 to 160 ms under load (issue 31).
TABLE_ENGINE = "jinja2"

# The templates of the way to a table and of every move at it, by engine (None: Django's).
TABLE_TEMPLATES = (
    (TABLE_ENGINE, "games/_table.html"),
    (None, "games/home.html"),
    (None, "games/table.html"),
    (None, "coach/_panel.html"),
)


def load_table_templates() -> None:
    """Compile the table's templates before the process serves anyone (setback_site/asgi.py).

    Compiled lazily, the first requests after a start all found the Jinja template missing from
    its cache and compiled it at once, each on its own thread: in a start-up burst of 150 tables,
    a quarter of a web process's first ten seconds went to compiling the same template (issue 31).
    """
    for engine, name in TABLE_TEMPLATES:
        get_template(name, using=engine)


def home_context(
    request: HttpRequest,
    *,
    form: NewMatchForm | None = None,
    table_form: NewTableForm | None = None,
    **extra,
) -> dict:
    """The home page's context; `form` or `table_form` is a form sent back with its errors."""
    context = {}
    if request.user.is_authenticated:
        chosen = last_choices(request.user)
        context["form_fields"] = form_fields(
            "games/_new_match_fields.html", form or NewMatchForm, chosen
        )
        context["table_form_fields"] = form_fields(
            "games/_new_table_fields.html", table_form or NewTableForm, chosen
        )
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


def form_fields(template: str, form: NewMatchForm | type[NewMatchForm], chosen: dict | None = None):
    """A form's fields as HTML: a bound form's (with its errors), or a blank form's opening on
    the person's last choices (`chosen`, games.core.forms.last_choices), which are the same for
    everyone who chose the same: a dozen variants at most. Django renders a field's widget
    through its own template, about a millisecond each: the blank forms' 24 fields were most of
    the home page's 25 ms, and every table a person sits down at starts there (issue 31)."""
    if isinstance(form, type):
        return _blank_form_fields(template, form, tuple(sorted((chosen or {}).items())))
    return render_to_string(template, {"form": form})


@cache
def _blank_form_fields(template: str, form_class: type[NewMatchForm], chosen: tuple = ()):
    return mark_safe(render_to_string(template, {"form": form_class(initial=dict(chosen))}))


def visible_match_or_404(request: HttpRequest, match_id: int) -> tuple[Match, Seat | None]:
    """The match and the user's seat at it (None if they have none), unless there is no such
    match or this user must not know of it: a shared table they did not come to through its
    invite (or the lobby), or a match against bots that is not theirs. Either way the answer is
    the one a number with no match gets, so matches cannot be counted."""
    match = selectors.match_or_none(match_id)
    if match is None:
        raise Http404("There is no such table.")
    seat = selectors.viewer_seat(match, request.user)
    if seat is None and (
        match.invite_code is None
        or selectors.hidden_from(match, request.user, invites.invited(request.session))
    ):
        raise Http404("There is no such table.")
    return match, seat


def table_markup(view: presenters.TableView, *, error: str = "", request=None) -> str:
    """The live table for one seat: the one place its template is rendered, for the table page,
    an htmx answer and the table's socket (games/web/consumers.py). Its template is Jinja's
    (games/web/jinja.py), which Django's {% include %} cannot take in; with a `request` its forms
    carry the CSRF field."""
    context = {"view": view, "error": error}
    return render_to_string("games/_table.html", context, request=request, using=TABLE_ENGINE)


def forming_markup(view: presenters.FormingView, *, origin: str, error: str = "") -> str:
    """A forming table (seats, invite, start) for one person: the one place its template is
    rendered. `origin`: the site's address as the browser used it, for the invite link."""
    return render_to_string("games/_forming.html", {"view": view, "error": error, "origin": origin})


def table_html(request: HttpRequest, view: presenters.TableView):
    """The live table inside the table page, with the request's CSRF field."""
    return mark_safe(table_markup(view, request=request))


def table_answer(request: HttpRequest, match_id: int, error: services.GameError | None = None):
    """The table after a post: to htmx, the table (forming or dealt) as the poster's seat sees it
    now, with the refusal's reason on it; to a plain form post (no script yet), the whole table
    page again, with the reason as a message. The one answer to every post at a table."""
    if not request.htmx:
        if error is not None:
            messages.error(request, str(error))
        return redirect("table", match_id=match_id)
    match = get_object_or_404(Match, pk=match_id)  # read again: the post changed it
    invited = invites.invited(request.session)
    status = error.status if error else 200
    reason = str(error or "")
    if match.status == Match.Status.FORMING:
        view = presenters.forming_view(match, request.user, invited)
        origin = request.build_absolute_uri("/")[:-1]
        return HttpResponse(forming_markup(view, origin=origin, error=reason), status=status)
    position, _ = selectors.viewer_role(match, request.user, invited)
    view = presenters.table_view(match, position)
    return HttpResponse(table_markup(view, error=reason, request=request), status=status)


def table_refused(request, match: Match, seat, error: services.GameError) -> HttpResponse:
    """A refused post at a table (`table_post`'s `refused`): the table with the reason on it."""
    return table_answer(request, match.pk, error)


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
            match, seat = visible_match_or_404(request, match_id)
            if not seated:
                seat = None
            elif seat is None:
                return HttpResponse("You are not playing at this table.", status=403)
            try:
                return view(request, match, seat)
            except services.NotFound:
                raise Http404 from None
            except services.GameError as error:
                return refused(request, match, seat, error)

        return login_required(require_POST(answer))

    return decorate


def posted_version(request: HttpRequest, what: str) -> int:
    """The table version the posting screen showed (a stale screen's post is refused)."""
    return version_of(request.POST, what)


def version_of(fields, what: str) -> int:
    try:
        return int(fields.get("version"))
    except (TypeError, ValueError):
        raise services.GameError(f"The {what} was incomplete; please try again.") from None


def posted_move(fields) -> tuple[str, int]:
    """The move a table's form sends, and the version its screen showed: (token, version).

    `fields` are the form's (a QueryDict, or a MultiValueDict of the same fields sent over the
    table's socket): `action`, a call, suit or card; or `discard` with the `cards` chosen.
    """
    token = (fields.get("action") or "").strip()
    if token == "discard" or "discard" in fields:
        token = str(Action.discard(fields.getlist("cards")))
    version = version_of(fields, "move")
    if not token:
        raise services.GameError("The move was incomplete; please try again.")
    return token, version


def refusals_as_pages(template: str):
    """A view's refusal (`GameError`: no such match or day, not yours, not yet) answered as the
    feature's own page saying why, with the error's status."""

    def decorate(view):
        @wraps(view)
        def answer(request, *args, **kwargs):
            try:
                return view(request, *args, **kwargs)
            except services.GameError as error:
                context = {"message": str(error), "status": error.status}
                return render(request, template, context, status=error.status)

        return answer

    return decorate
