"""Where a form's `next` may send the browser: only to a path on this site."""

from django.http import HttpRequest, HttpResponseRedirect
from django.shortcuts import resolve_url
from django.utils.http import url_has_allowed_host_and_scheme


def next_path(request: HttpRequest) -> str:
    """The request's `next` (POST, else GET) if it is a path on this site, else "".

    Django's check refuses other hosts, `//host`, `javascript:` and the like; a path must also
    start with one slash, so a bare word never becomes a relative redirect."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target.startswith("/") and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return ""


def safe_next(request: HttpRequest, fallback: str) -> str:
    """The request's safe `next`, else `fallback` (a URL name or path)."""
    return next_path(request) or resolve_url(fallback)


def redirect_back(request: HttpRequest, fallback: str) -> HttpResponseRedirect:
    return HttpResponseRedirect(safe_next(request, fallback))
