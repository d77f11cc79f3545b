"""The statistics page: thin. Parse the filters, read the figures, draw the charts, render."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from . import charts, selectors
from .forms import StatsFilterForm


@login_required
def my_stats(request: HttpRequest) -> HttpResponse:
    form = StatsFilterForm(request.GET or None)
    if form.is_bound and not form.is_valid():
        return render(request, "stats/page.html", {"form": form}, status=400)
    filters = form.filters() if form.is_bound else selectors.Filters()
    stats = selectors.player_stats(request.user, filters)
    return render(
        request, "stats/page.html",
        {"form": form, "stats": stats, "charts": charts.page_charts(stats)},
    )
