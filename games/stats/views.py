"""The statistics page, player pages and the leaderboard: thin. Parse the filters, read the figures, draw the charts, render."""

from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from games.core import hooks
from games.core import selectors as game_selectors
from games.engine import PRESET_NAMES

from . import charts, players, selectors
from .forms import StatsFilterForm


@login_required
def my_stats(request: HttpRequest) -> HttpResponse:
    form = StatsFilterForm(request.GET or None)
    if form.is_bound and not form.is_valid():
        return render(request, "stats/page.html", {"form": form}, status=400)
    filters = form.filters() if form.is_bound else selectors.Filters()
    stats = selectors.player_stats(request.user, filters)
    return render(
        request,
        "stats/page.html",
        {"form": form, "stats": stats, "charts": charts.page_charts(stats)},
    )


def player(request: HttpRequest, name: str) -> HttpResponse:
    """A player's public page: ratings between people per preset, record, recent matches."""
    if "\x00" in name:  # no user name holds one, and PostgreSQL refuses it in a query
        raise Http404("No such player.")
    # A deleted account's placeholder has no page: it is nobody's any more.
    person = get_object_or_404(get_user_model(), username=name, left_at__isnull=True)
    page = players.player_page(person, request.user)
    drawn = {
        line.preset: charts.line_chart(
            line.history,
            title=f"{line.preset.title()} rating after each match",
            value_format=lambda v: f"{v:.0f}",
        )
        for line in page.presets
        if len(line.history) > 1
    }
    blocks = game_selectors.personal_blocks(request.user)
    return render(
        request,
        "stats/player.html",
        {
            "page": page,
            "person": person,
            "preset_rows": [(line, drawn.get(line.preset)) for line in page.presets],
            "muted": person.pk in blocks["mute"],
            "blocked": person.pk in blocks["block"],
            "actions": hooks.player_actions(person, request.user, request)
            if request.user.is_authenticated
            else [],
            "panels": hooks.player_panels(person, request.user)
            if page.history_public or page.is_me
            else [],
        },
    )


def leaderboard(request: HttpRequest) -> HttpResponse:
    preset = request.GET.get("preset", "house")
    if preset not in PRESET_NAMES:
        return render(
            request,
            "stats/leaderboard.html",
            {
                "error": f"Unknown rules {preset!r}.",
                "board": players.leaderboard("house"),
            },
            status=400,
        )
    board = players.leaderboard(preset, recent=request.GET.get("period") == "30d")
    return render(request, "stats/leaderboard.html", {"board": board})
