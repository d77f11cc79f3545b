"""History and replay pages: thin. Each checks who asks (through a selector), then renders.

A replay step is a plain page at its own URL; inside the replay, htmx swaps only `#replay` and
replaces the address with the step's URL, so a link or a reload opens that moment and Back
leaves the replay. A request from htmx
gets the fragment, anything else (a shared link, a reload, htmx restoring history) the page.
"""

import json
from dataclasses import dataclass

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_http_methods, require_POST

from games import engine
from games.core import pages
from games.core import services as game_services
from games.core.errors import NotFound
from games.core.http import HtmxRequest
from games.core.limits import limited
from games.core.redirects import redirect_back
from games.models import BotLevel, Match

from . import selectors, services
from .forms import HistoryFilter, ImportForm
from .frames import NoSuchStep

# A refused request (no such match, not a player, a deal in play) gets a page saying why.
refusals_as_pages = pages.refusals_as_pages("replay/refused.html")


@dataclass(frozen=True)
class ReplayPage:
    """What surrounds a replay frame: where it belongs, its record, and sharing."""

    heading: str
    back_url: str
    back_label: str
    record_url: str
    public_url: str = ""  # a public link to this very step, if the match is shared
    share_url: str = ""  # where a player asks for a public link, if there is none
    review_url: str = ""  # the coach's review of the viewer's own play in this deal
    faceup_url: str = ""  # the face-up analysis of this step (a player's own replay)
    practice_url: str = ""  # "play from here" (a player's own replay, before the last step)
    practice_levels: tuple[str, ...] = tuple(BotLevel.values)
    practice_level: str = BotLevel.HARD  # the one chosen at first
    offline: bool = False  # a deal played on the offline page and brought home


def _json_download(record: dict, filename: str) -> HttpResponse:
    response = HttpResponse(json.dumps(record, indent=2) + "\n", content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _render_step(request: HtmxRequest, frame, page: ReplayPage) -> HttpResponse:
    context = {"frame": frame, "page": page}
    if request.htmx and not request.htmx.history_restore_request:
        response = render(request, "replay/_replay.html", context)
    else:
        response = render(request, "replay/replay.html", context)
    patch_vary_headers(response, ("HX-Request",))
    return response


def _step_or_404(build, step: int):
    try:
        return build(step)
    except NoSuchStep:
        raise NotFound("This deal has no such step.") from None


# --- A match shown face up to others (a club's games, a Setback night's tables) -------------


def face_up_match(request: HttpRequest, game: Match, step_url) -> HttpResponse:
    """A finished match's deals, face up, for someone its owner (a club, an event) lets see
    them; `step_url(number, step)` names the page of each step."""
    summary = selectors.match_summary(game, None, lambda n: step_url(n, 0), finished_only=True)
    return render(
        request,
        "replay/match.html",
        {"summary": summary, "match": game, "record_url": "", "is_player": False},
    )


def face_up_step(
    request: HtmxRequest, game: Match, number: int, step: int, step_url, heading: str, back_url: str
) -> HttpResponse:
    """One step of a finished deal of `game`, face up (see `face_up_match`)."""
    deal_row = selectors.finished_deal(game, number)
    frame = _step_or_404(
        lambda n: selectors.match_deal_frame(
            game, deal_row, n, None, lambda k: step_url(number, k)
        ),
        step,
    )
    page = ReplayPage(
        heading=heading, back_url=back_url, back_label=f"Match {game.pk}", record_url=""
    )
    return _render_step(request, frame, page)


# --- History --------------------------------------------------------------------------------


@login_required
def history(request: HttpRequest) -> HttpResponse:
    filters = HistoryFilter(request.GET)
    values = filters.values()
    page = selectors.history_page(request.user, page=request.GET.get("page", 1), **values)
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "replay/history.html",
        {
            "filters": filters,
            "filtered": any(values.values()),
            "page": page,
            "query": query.urlencode(),
        },
    )


@login_required
@refusals_as_pages
def match(request: HttpRequest, match_id: int) -> HttpResponse:
    game, seat = selectors.players_match(match_id, request.user)
    summary = selectors.match_summary(
        game, seat.position, lambda n: reverse("replay:deal_step", args=[game.pk, n, 0])
    )
    public_url = ""
    if game.share_token:
        public_url = request.build_absolute_uri(
            reverse("replay:shared_match", args=[game.share_token])
        )
    return render(
        request,
        "replay/match.html",
        {
            "summary": summary,
            "match": game,
            "record_url": reverse("replay:match_record", args=[game.pk]),
            "public_url": public_url,
            "is_player": True,
            # The coach reviews any finished deal of the player's: by deal number, from each line.
            "review_urls": {
                number: reverse("coach:review", args=[pk])
                for number, pk in game.deals.filter(finished_at__isnull=False).values_list(
                    "number", "pk"
                )
            },
        },
    )


@login_required
@refusals_as_pages
def match_record(request: HttpRequest, match_id: int) -> HttpResponse:
    game, _ = selectors.players_match(match_id, request.user)
    return _json_download(selectors.match_record(game), f"setback-match-{game.pk}.json")


def _back_to(request: HttpRequest, fallback: str) -> HttpResponse:
    return redirect_back(request, fallback)


@login_required
@require_POST
@refusals_as_pages
def share(request: HttpRequest, match_id: int) -> HttpResponse:
    services.do_share_match(match_id, user=request.user)
    return _back_to(request, reverse("replay:match", args=[match_id]))


@login_required
@require_POST
@refusals_as_pages
def stop_sharing(request: HttpRequest, match_id: int) -> HttpResponse:
    services.do_stop_sharing(match_id, user=request.user)
    return _back_to(request, reverse("replay:match", args=[match_id]))


# --- A player's replay ----------------------------------------------------------------------


@login_required
@refusals_as_pages
def deal(request: HttpRequest, match_id: int, number: int) -> HttpResponse:
    selectors.players_match(match_id, request.user)  # a stranger learns nothing, not even a step
    return redirect("replay:deal_step", match_id=match_id, number=number, step=0)


@login_required
@refusals_as_pages
def deal_step(request: HtmxRequest, match_id: int, number: int, step: int) -> HttpResponse:
    game, seat = selectors.players_match(match_id, request.user)
    deal_row = selectors.finished_deal(game, number)
    frame = _step_or_404(
        lambda s: selectors.match_deal_frame(
            game,
            deal_row,
            s,
            seat.position,
            lambda n: reverse("replay:deal_step", args=[game.pk, number, n]),
        ),
        step,
    )
    public_url = ""
    if game.share_token:
        public_url = request.build_absolute_uri(
            reverse("replay:shared_step", args=[game.share_token, number, step])
        )
    page = ReplayPage(
        heading=f"Match {game.pk}, deal {number}"
        + (" (played offline)" if game.played_offline else ""),
        offline=game.played_offline,
        back_url=reverse("replay:match", args=[game.pk]),
        back_label=f"Match {game.pk}",
        record_url=reverse("replay:deal_record", args=[game.pk, number]),
        public_url=public_url,
        share_url="" if public_url else reverse("replay:share", args=[game.pk]),
        review_url=reverse("coach:review", args=[deal_row.pk]),
        faceup_url=reverse("replay:faceup", args=[game.pk, number, step])
        if frame.phase == engine.PLAY
        else "",
        practice_url=reverse("replay:practice", args=[game.pk, number, step])
        if step < frame.last
        else "",
    )
    return _render_step(request, frame, page)


@login_required
@require_POST
@limited("new_match")  # a practice deal is a new match against bots, counted with the others
@refusals_as_pages
def practice(request: HttpRequest, match_id: int, number: int, step: int) -> HttpResponse:
    """Play on from this step of your own finished deal: a practice deal against bots."""
    level = request.POST.get("bot_level", ReplayPage.practice_level)
    practice_match = game_services.do_start_practice(
        request.user, match_id=match_id, number=number, step=step, bot_level=level
    )
    return redirect("table", match_id=practice_match.pk)


@login_required
@require_http_methods(["GET", "POST"])
@refusals_as_pages
def faceup(request: HttpRequest, match_id: int, number: int, step: int) -> HttpResponse:
    """The face-up analysis of one step of your own finished deal; POST asks for it."""
    game, seat = selectors.players_match(match_id, request.user)
    deal_row = selectors.finished_deal(game, number)
    busy = False
    if (
        request.method == "POST"
        and selectors.faceup_step_state(deal_row, step).phase == engine.PLAY
    ):
        try:
            services.do_request_faceup(deal_row, step=step, user=request.user)
        except services.AnalysisBusy:
            busy = True  # the panel asks again in a moment
    panel = selectors.faceup_panel(game, deal_row, step, seat.position, busy=busy)
    return render(
        request,
        "replay/_faceup.html",
        {
            "panel": panel,
            "url": reverse("replay:faceup", args=[game.pk, number, step]),
        },
    )


@login_required
@refusals_as_pages
def deal_record(request: HttpRequest, match_id: int, number: int) -> HttpResponse:
    game, _ = selectors.players_match(match_id, request.user)
    deal_row = selectors.finished_deal(game, number)
    return _json_download(
        selectors.deal_record(game, deal_row), f"setback-match-{game.pk}-deal-{number}.json"
    )


# --- A shared link: the finished deals, for anyone holding it -------------------------------


@refusals_as_pages
def shared_match(request: HttpRequest, token: str) -> HttpResponse:
    game = selectors.shared_match(token)
    summary = selectors.match_summary(
        game, None, lambda n: reverse("replay:shared_step", args=[token, n, 0]), finished_only=True
    )
    return render(
        request,
        "replay/match.html",
        {
            "summary": summary,
            "match": game,
            "record_url": reverse("replay:shared_match_record", args=[token]),
            "is_player": False,
        },
    )


@refusals_as_pages
def shared_match_record(request: HttpRequest, token: str) -> HttpResponse:
    game = selectors.shared_match(token)
    return _json_download(selectors.match_record(game), f"setback-match-{game.pk}.json")


@refusals_as_pages
def shared_step(request: HtmxRequest, token: str, number: int, step: int) -> HttpResponse:
    game = selectors.shared_match(token)
    deal_row = selectors.finished_deal(game, number)
    frame = _step_or_404(
        lambda s: selectors.match_deal_frame(
            game,
            deal_row,
            s,
            None,
            lambda n: reverse("replay:shared_step", args=[token, number, n]),
        ),
        step,
    )
    page = ReplayPage(
        heading=f"Match {game.pk}, deal {number}",
        back_url=reverse("replay:shared_match", args=[token]),
        back_label=f"Match {game.pk}",
        record_url=reverse("replay:shared_deal_record", args=[token, number]),
        public_url=request.build_absolute_uri(),
    )
    return _render_step(request, frame, page)


@refusals_as_pages
def shared_deal_record(request: HttpRequest, token: str, number: int) -> HttpResponse:
    game = selectors.shared_match(token)
    deal_row = selectors.finished_deal(game, number)
    return _json_download(
        selectors.deal_record(game, deal_row), f"setback-match-{game.pk}-deal-{number}.json"
    )


# --- Imported records -----------------------------------------------------------------------


@login_required
def imports(request: HttpRequest) -> HttpResponse:
    """Upload a record (a file or pasted text) and list the ones already imported."""
    form = ImportForm()
    refusal = ""
    status = 200
    if request.method == "POST":
        form = ImportForm(request.POST, request.FILES)
        if form.is_valid():
            try:
                imported = services.do_import_record(
                    request.user, data=form.cleaned_data["payload"]
                )
            except services.RecordRefused as error:
                refusal, status = str(error), 400
            else:
                return redirect("replay:imported", import_id=imported.pk)
        else:
            status = 400
    return render(
        request,
        "replay/imports.html",
        {
            "form": form,
            "refusal": refusal,
            "imports": selectors.imports_of(request.user),
        },
        status=status,
    )


@login_required
@refusals_as_pages
def imported(request: HttpRequest, import_id: int) -> HttpResponse:
    replay = selectors.read_import(selectors.own_import(import_id, request.user))
    if not replay.is_match:
        return redirect("replay:imported_step", import_id=import_id, number=1, step=0)
    summary = selectors.imported_summary(
        replay, lambda n: reverse("replay:imported_step", args=[import_id, n, 0])
    )
    return render(
        request,
        "replay/match.html",
        {
            "summary": summary,
            "record_url": reverse("replay:imported_record", args=[import_id]),
            "is_player": False,
            "imported": replay.imported,
        },
    )


@login_required
@refusals_as_pages
def imported_step(request: HtmxRequest, import_id: int, number: int, step: int) -> HttpResponse:
    replay = selectors.read_import(selectors.own_import(import_id, request.user))
    frame = _step_or_404(
        lambda s: selectors.imported_frame(
            replay,
            number,
            s,
            lambda n: reverse("replay:imported_step", args=[import_id, number, n]),
        ),
        step,
    )
    back = (
        reverse("replay:imported", args=[import_id])
        if replay.is_match
        else reverse("replay:imports")
    )
    page = ReplayPage(
        heading=f"Imported {'match' if replay.is_match else 'deal'} {import_id}"
        + (f", deal {number}" if replay.is_match else ""),
        back_url=back,
        back_label=f"Imported match {import_id}" if replay.is_match else "Imported records",
        record_url=reverse("replay:imported_record", args=[import_id]),
    )
    return _render_step(request, frame, page)


@login_required
@refusals_as_pages
def imported_record(request: HttpRequest, import_id: int) -> HttpResponse:
    replay = selectors.read_import(selectors.own_import(import_id, request.user))
    return _json_download(selectors.imported_record(replay), f"setback-import-{import_id}.json")


@login_required
@require_POST
@refusals_as_pages
def delete_import(request: HttpRequest, import_id: int) -> HttpResponse:
    services.do_delete_import(import_id, user=request.user)
    return redirect("replay:imports")
