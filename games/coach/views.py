"""The coach's pages: the panel beside a table, and the review of a deal. Thin: check who asks,
call one service, render."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_http_methods

from games import selectors as tables
from games.models import Deal, Match

from . import selectors, services


def panel_html(match: Match, position: str, **already_read) -> str:
    """The panel for one seat (also what the table's websocket consumer sends, passing the
    seats and deal it has already read)."""
    panel = selectors.coach_panel(match, position, **already_read)
    return render_to_string("coach/_panel.html", {"panel": panel})


def _refused(request: HttpRequest, message: str) -> HttpResponse:
    return render(request, "games/refused.html", {"message": message}, status=403)


@login_required
def panel(request: HttpRequest, match_id: int) -> HttpResponse:
    """The panel for the user's seat, asking the coach for what it lacks (after the coach is
    switched on, or when a page opens on a position whose advice was never asked for)."""
    match = get_object_or_404(Match, pk=match_id)
    seat = tables.viewer_seat(match, request.user)
    if seat is None:
        return HttpResponse("You are not playing at this table.", status=403)
    services.prepare(match.pk)
    return HttpResponse(panel_html(match, seat.position))


@login_required
@require_http_methods(["GET", "POST"])
def review(request: HttpRequest, deal_id: int) -> HttpResponse:
    """The coach's review of a finished deal for the user's seat; POST asks for one."""
    deal_row = get_object_or_404(Deal.objects.select_related("match"), pk=deal_id)
    seat = tables.viewer_seat(deal_row.match, request.user)
    if seat is None:
        return _refused(request, "You did not play this deal.")
    if not deal_row.is_over:
        raise Http404("This deal is still being played.")
    if request.method == "POST":
        services.request_review(deal_row, seat.position)
        return redirect("coach:review", deal_id=deal_row.pk)
    context = {"deal": deal_row, "page": selectors.review_page(deal_row, seat.position)}
    if request.htmx:
        return render(request, "coach/_review.html", context)
    return render(request, "coach/review.html", context)
