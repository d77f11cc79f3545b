"""The coach's pages: the panel beside a table, and the review of a deal. Thin: check who asks,
call one service, render."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from games import engine
from games.core import budget
from games.core import selectors as game_selectors
from games.core.errors import GameError, NotFound
from games.core.limits import limited
from games.models import Deal, Match

from . import selectors, services


def panel_html(match: Match, position: str, **already_read) -> str:
    """The panel for one seat (also what the table's websocket consumer sends, passing the
    seats and deal it has already read)."""
    panel = selectors.coach_panel(match, position, **already_read)
    return render_to_string("coach/_panel.html", {"panel": panel})


@login_required
@limited("coach", methods=("GET", "POST"))
def panel(request: HttpRequest, match_id: int) -> HttpResponse:
    """The panel for the user's seat, as it stands: a GET asks the coach for nothing. The coach
    is asked by the switch (switched on at this table), by every change of the table, and by
    the table's socket when it opens (a position whose advice was never asked for)."""
    try:
        match, seat = game_selectors.players_match(match_id, request.user)
    except NotFound as error:
        raise Http404(str(error)) from None
    if match.status == Match.Status.FORMING:
        return HttpResponse(
            "The table has not started yet: the coach speaks once it has.", status=409
        )
    return HttpResponse(panel_html(match, seat.position))


@login_required
@require_http_methods(["GET", "POST"])
@limited("coach")
def review(request: HttpRequest, deal_id: int) -> HttpResponse:
    """The coach's review of a finished deal for the user's seat; POST asks for one."""
    try:
        deal_row, seat = game_selectors.players_deal(deal_id, request.user)
    except NotFound as error:
        raise Http404(str(error)) from None
    if not deal_row.is_over:
        raise Http404("This deal is still being played.")
    busy = None
    if request.method == "POST":
        try:
            services.do_request_review(deal_row, seat=seat.position)
        except budget.Busy as error:  # the person's share is in flight, or the lane is full
            busy = error
        else:
            return redirect("coach:review", deal_id=deal_row.pk)
    context = {
        "deal": deal_row,
        "page": selectors.review_page(deal_row, seat.position),
        "busy": str(busy) if busy else "",
    }
    template = "coach/_review.html" if request.htmx else "coach/review.html"
    if busy is None:
        return render(request, template, context)
    response = render(request, template, context, status=busy.status)
    for name, value in budget.retry_headers(busy).items():
        response[name] = value
    return response


# --- Exercises: practise your mistakes --------------------------------------------------------


@login_required
def exercises(request: HttpRequest) -> HttpResponse:
    return render(
        request, "coach/exercises.html", {"exercises": selectors.exercises_of(request.user)}
    )


@login_required
@require_http_methods(["GET", "POST"])
def exercise(request: HttpRequest, deal_id: int, step: int) -> HttpResponse:
    """The position as you saw it; POST your choice, then see the coach's ranking."""
    deal_row = get_object_or_404(Deal.objects.select_related("match"), pk=deal_id)
    error = ""
    status = 200
    if request.method == "POST":
        try:
            services.do_attempt_exercise(
                request.user, deal_row=deal_row, step=step, choice=request.POST.get("choice", "")
            )
        except GameError as refused:
            error, status = str(refused), refused.status
        else:
            return redirect("coach:exercise_result", deal_id=deal_id, step=step)
    view = selectors.exercise_view(request.user, deal_row, step, answered=False)
    if view is None:
        return _not_an_exercise(request)
    return render(request, "coach/exercise.html", {"exercise": view, "error": error}, status=status)


@login_required
def exercise_result(request: HttpRequest, deal_id: int, step: int) -> HttpResponse:
    deal_row = get_object_or_404(Deal.objects.select_related("match"), pk=deal_id)
    view = selectors.exercise_view(request.user, deal_row, step, answered=True)
    if view is None:
        return _not_an_exercise(request)
    if view.attempt is None:
        return redirect("coach:exercise", deal_id=deal_id, step=step)
    faceup_url = ""
    if view.phase == engine.PLAY:
        faceup_url = reverse("replay:faceup", args=[view.match_id, view.deal_number, step])
    return render(
        request,
        "coach/exercise.html",
        {"exercise": view, "answered": True, "faceup_url": faceup_url},
    )


def _not_an_exercise(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "replay/refused.html",
        {"message": "This is not one of your exercises.", "status": 404},
        status=404,
    )
