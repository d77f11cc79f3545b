"""The daily deals' pages: the day (today's or a past one), a deal against the field, another
player's replay of it. Reads go through selectors; the one write, starting a play, through
`services.do_play`. A GET changes nothing (today's set is made by the sweeper or the first play)."""

import datetime
from dataclasses import dataclass

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from games.core import pages
from games.core.errors import NotFound
from games.core.limits import limited
from games.replay import selectors as replay_selectors
from games.replay.frames import NoSuchStep

from . import selectors, services

# A refusal (no such day, a deal not yet finished, out of order) as a page with its status.
refused_as_pages = pages.refusals_as_pages("daily/refused.html")


def today(request: HttpRequest) -> HttpResponse:
    return _day_page(request, services.today())


@refused_as_pages
def day(request: HttpRequest, day: str) -> HttpResponse:
    return _day_page(request, selectors.parse_day(day))


def _day_page(request: HttpRequest, on: datetime.date) -> HttpResponse:
    page = selectors.day_page(on, request.user)
    return render(
        request,
        "daily/day.html",
        {
            "page": page,
            "previous_day": on - datetime.timedelta(days=1) if on > datetime.date.min else None,
            "next_day": on + datetime.timedelta(days=1) if on < services.today() else None,
        },
    )


@login_required
@require_POST
@limited("new_match")  # a daily deal is a new match against bots, counted with the others
@refused_as_pages
def play(request: HttpRequest, day: str, number: int) -> HttpResponse:
    """Start (or go back to) the user's play of a deal: a reload or a second tab finds the same."""
    match = services.do_play(request.user, day=selectors.parse_day(day), number=number)
    return redirect("table", match_id=match.pk)


@login_required
@refused_as_pages
def deal(request: HttpRequest, day: str, number: int) -> HttpResponse:
    on = selectors.parse_day(day)
    comparison = selectors.deal_comparison(on, number, request.user)
    return render(request, "daily/deal.html", {"c": comparison, "day": on.isoformat()})


@dataclass(frozen=True)
class ReplayPage:
    """What the replay's template reads around a frame (as games/replay/views.ReplayPage)."""

    heading: str
    back_url: str
    back_label: str
    record_url: str = ""
    public_url: str = ""
    share_url: str = ""
    review_url: str = ""
    faceup_url: str = ""
    practice_url: str = ""
    offline: bool = False


@login_required
@refused_as_pages
def play_replay(
    request: HttpRequest, day: str, number: int, play_id: int, step: int
) -> HttpResponse:
    """Another person's play of a deal the viewer may see the field of, step by step."""
    on = selectors.parse_day(day)
    play = selectors.field_play(on, number, play_id, request.user)
    deal_row = play.match.deals.get(number=1)
    try:
        frame = replay_selectors.match_deal_frame(
            play.match,
            deal_row,
            step,
            None,  # face up: the deal is over, and nobody's coach marks are shown
            lambda n: reverse("daily:play_replay", args=[day, number, play_id, n]),
        )
    except NoSuchStep:
        raise NotFound("This deal has no such step.") from None
    page = ReplayPage(
        heading=f"{play.user.shown_name}'s play of daily deal {number}, {day}",
        back_url=reverse("daily:deal", args=[day, number]),
        back_label=f"Deal {number} against the field",
    )
    template = "replay/_replay.html" if request.htmx else "replay/replay.html"
    return render(request, template, {"frame": frame, "page": page})


@login_required
@refused_as_pages
def par_replay(request: HttpRequest, day: str, number: int, step: int) -> HttpResponse:
    """The par line of a deal (the hard bots in every seat, yours too), step by step."""
    on = selectors.parse_day(day)
    try:
        frame = selectors.par_frame(
            on,
            number,
            request.user,
            step,
            lambda n: reverse("daily:par_replay", args=[day, number, n]),
        )
    except NoSuchStep:
        raise NotFound("This deal has no such step.") from None
    page = ReplayPage(
        heading=f"Par of daily deal {number}, {day}: the hard bots in every seat",
        back_url=reverse("daily:deal", args=[day, number]),
        back_label=f"Deal {number} against the field",
    )
    template = "replay/_replay.html" if request.htmx else "replay/replay.html"
    return render(request, template, {"frame": frame, "page": page})
