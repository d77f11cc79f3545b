"""The offline page and what it needs: thin. The page, its service worker and manifest, the
engine's wheel, and the JSON endpoints the page calls once it is back online (who is signed
in, a deal coming home, how its check went)."""

from __future__ import annotations

import hashlib
import json

from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from games.core import budget, limits
from games.core.errors import GameError
from games.core.forms import NewMatchForm

from . import selectors, services

# The site's own files the page needs, cached by the service worker with the runtime and wheel.
PAGE_STATIC = (
    "css/site.css",
    "css/positions.css",
    "js/site.js",
    "img/favicon.svg",
    "django_htmx/htmx-2.min.js",
    "django_htmx/ext/hx-ws-2.min.js",
    "js/table.js",
    "js/cardtable.js",
    "js/sounds.js",
    "offline/page.js",
    "offline/render.js",
)
# The Web Worker's script, served from /offline/ by `engine_worker`.
WORKER_SCRIPT = "offline/engine-worker.mjs"


def _page_context() -> dict:
    runtime = selectors.runtime()
    wheel = selectors.engine_wheel()
    return {
        "runtime": runtime,
        "wheel_url": reverse("offline:wheel", args=[wheel.filename]),
        "engine": wheel.digest,
    }


@require_GET
def page(request: HttpRequest) -> HttpResponse:
    """The offline table: a match against bots that runs in the browser (docs/offline.md)."""
    return render(request, "offline/page.html", {**_page_context(), "form": NewMatchForm()})


@require_GET
def unavailable(request: HttpRequest) -> HttpResponse:
    """What the service worker shows for any page of the site that the network cannot bring:
    what still works without one. Cached with the offline page (docs/offline.md)."""
    return render(request, "offline/unavailable.html")


def _cache_name(urls: list[str], context: dict) -> str:
    """A name that changes whenever anything cached changes: the runtime's version, the
    engine's hash, and the content of each of the site's files (whose names need not change
    with their content when served unhashed)."""
    digest = hashlib.sha256(f"{context['runtime'].version}:{context['engine']}".encode())
    for name in (*PAGE_STATIC, WORKER_SCRIPT):
        found = finders.find(name)
        if found:
            with open(found, "rb") as file:
                digest.update(hashlib.sha256(file.read()).digest())
    digest.update(json.dumps(urls).encode())
    return "setback-offline-" + digest.hexdigest()[:16]


@require_GET
def service_worker(request: HttpRequest) -> HttpResponse:
    """The service worker: served from /offline/ so that it controls the offline page (one
    served from /static/ would control only pages under /static/)."""
    context = _page_context()
    urls = [
        reverse("offline:page"),
        reverse("offline:unavailable"),
        reverse("offline:manifest"),
        reverse("offline:engine_worker"),
        context["wheel_url"],
        *(static(name) for name in PAGE_STATIC),
        *context["runtime"].files,
    ]
    response = render(
        request,
        "offline/sw.js",
        {"cache_name": _cache_name(urls, context), "urls": json.dumps(urls)},
        content_type="text/javascript; charset=utf-8",
    )
    # The browser asks for a newer worker at each visit; an old copy must never answer.
    response["Cache-Control"] = "no-cache"
    # Served from /offline/, it may still control the whole site: when the network is gone,
    # the menu's links open the page that says what works without one, not the browser's error.
    response["Service-Worker-Allowed"] = "/"
    return response


@require_GET
def engine_worker(request: HttpRequest) -> HttpResponse:
    """The engine's Web Worker script, served from /offline/ and not /static/: a worker is
    controlled by the service worker whose scope holds its own address, and one from /static/
    would fetch the runtime from the network even offline."""
    found = finders.find(WORKER_SCRIPT)
    if not found:
        raise Http404("The engine worker's script is missing.")
    with open(found, "rb") as script:
        response = HttpResponse(script.read(), content_type="text/javascript; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    return response


@require_GET
def manifest(request: HttpRequest) -> HttpResponse:
    """The web app manifest: the offline page can be installed and opened like an app."""
    start = reverse("offline:page")
    data = {
        "name": "Setback, offline",
        "short_name": "Setback",
        "description": "Setback against the computer, with the coach, without a network.",
        "start_url": start,
        "scope": start,
        "display": "standalone",
        "background_color": "#0f5132",
        "theme_color": "#0f5132",
        "icons": [
            {"src": static("img/favicon.svg"), "sizes": "any", "type": "image/svg+xml"},
        ],
    }
    return JsonResponse(data, content_type="application/manifest+json")


@require_GET
def engine_wheel(request: HttpRequest, filename: str) -> HttpResponse:
    """The engine's wheel, built from this server's own tree. Its name carries the hash of its
    files, so a name that is not the current one is gone for good."""
    wheel = selectors.engine_wheel()
    if filename != wheel.filename:
        raise Http404("No such engine wheel; reload the offline page.")
    response = HttpResponse(wheel.data, content_type="application/octet-stream")
    response["Cache-Control"] = "public, max-age=31536000, immutable"
    return response


@never_cache
@require_GET
def session(request: HttpRequest) -> HttpResponse:
    """Who is signed in here, with a fresh CSRF token: the page asks before sending deals home
    (its own copy of the page may be days old)."""
    user = request.user
    return JsonResponse(
        {
            "signed_in": user.is_authenticated,
            "username": user.username if user.is_authenticated else "",
            "csrf_token": get_token(request),
            # Kept by the page with each deal played from now on: the deal goes home under
            # this account only (services.check_outbox_token).
            "outbox_token": services.outbox_token(user) if user.is_authenticated else "",
            "login_url": reverse("login") + "?next=" + reverse("offline:page"),
        }
    )


def _error(message: str, status: int, **headers) -> JsonResponse:
    response = JsonResponse({"error": message}, status=status)
    for name, value in headers.items():
        response[name] = value
    return response


@never_cache
@require_POST
def upload(request: HttpRequest) -> HttpResponse:
    """A finished offline deal coming home: checked at once as far as it is cheap (a refusal
    stores nothing), then taken in for the check of its bots' moves (202)."""
    if not request.user.is_authenticated:
        return _error("Log in to bring your offline deals home.", 403)
    if not limits.count_and_check("offline_upload", f"user{request.user.pk}"):
        limit = settings.REQUEST_LIMITS_PER_MINUTE["offline_upload"]
        return _error(
            f"Too many deals sent home: at most {limit} a minute. The page tries again.",
            429,
            **{"Retry-After": str(limits.WINDOW_SECONDS)},
        )
    try:
        services.check_outbox_token(request.user, request.headers.get("X-Setback-Outbox", ""))
        envelope = services.read_upload(request.body)
        received = services.do_receive(request.user, envelope=envelope)
    except budget.Busy as error:  # the person's share is in flight, or the lane is full
        return _error(str(error), error.status, **budget.retry_headers(error))
    except GameError as error:
        return _error(str(error), error.status)
    status = 202 if received.status == received.Status.CHECKING else 200
    return JsonResponse(selectors.upload_answer(received), status=status)


@never_cache
@require_GET
def upload_status(request: HttpRequest, client_id: str) -> HttpResponse:
    """How the check of a deal that came home went (the page asks until it is settled)."""
    if not request.user.is_authenticated:
        return _error("Log in to see your offline deals.", 403)
    try:
        received = selectors.owned_upload(request.user, client_id)
    except GameError as error:
        return _error(str(error), error.status)
    return JsonResponse(selectors.upload_answer(received))
