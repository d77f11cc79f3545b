"""Request limits: at most so many requests of one kind per minute, per user (or per address).

Counted in Django's cache (Redis when REDIS_URL is set, so every web process shares the count;
in memory for the single process of `make run`). A fixed one-minute window: a burst at the turn
of a minute can reach twice the limit, which is still a limit. Logins are not counted here:
django-axes locks them out (see the settings).
"""

import time
from functools import wraps

from django.conf import settings
from django.core.cache import cache
from django.shortcuts import render

WINDOW_SECONDS = 60

KIND_WORDS = {
    "signup": "sign-ups from one address",
    "new_match": "new matches",
    "new_table": "new tables",
    "rematch": "rematches",
    "coach": "requests to the coach",
    "pairing": "requests for players",
    "login_failures": "failed log-ins from your address",
    "password_reset": "password reset requests from one address",
    "email_change": "e-mail address changes",
    "data_download": "data downloads",
    "offline_upload": "deals sent home from the offline page",
    "friend_request": "friend requests",
    "invite": "invitations",
    "new_event": "new events",
}

HOUR_SECONDS = 3600


def current_window() -> int:
    """The number of the minute now: the counts of one window are kept together."""
    return int(time.time() // WINDOW_SECONDS)


def _limit_and_window(kind: str) -> tuple[int, int]:
    """(how many, in how many seconds): a kind in REQUEST_LIMITS_PER_HOUR is counted by the
    hour (friend requests and invitations: a burst a minute would still spam a person)."""
    hourly = getattr(settings, "REQUEST_LIMITS_PER_HOUR", {})
    if kind in hourly:
        return hourly[kind], HOUR_SECONDS
    return settings.REQUEST_LIMITS_PER_MINUTE[kind], WINDOW_SECONDS


def _key(kind: str, who: str, window_seconds: int) -> str:
    window = int(time.time() // window_seconds)
    # The namespace lets each test count from zero without clearing a cache it may share.
    return f"limit:{getattr(settings, 'REQUEST_LIMITS_NAMESPACE', '')}:{kind}:{who}:{window}"


def count(kind: str, who: str, window_seconds: int) -> int:
    """Count one more of `kind` by `who` in this window of `window_seconds`; the count so far.
    The site's one counter: request limits here, mails per address (games/core/mail.py)."""
    key = _key(kind, who, window_seconds)
    cache.add(key, 0, timeout=window_seconds * 2)
    try:
        return cache.incr(key)
    except ValueError:  # the key expired between add and incr
        cache.add(key, 1, timeout=window_seconds * 2)
        return 1


def over_limit(kind: str, who: str) -> bool:
    """Whether `who` has already made this window's limit of `kind`, without counting one."""
    limit, window = _limit_and_window(kind)
    return (cache.get(_key(kind, who, window)) or 0) >= limit


def count_and_check(kind: str, who: str) -> bool:
    """Count one request of `kind` by `who`; False when it is over this window's limit."""
    limit, window = _limit_and_window(kind)
    return count(kind, who, window) <= limit


def client_address(request) -> str:
    # The connection's own address; Daphne sets it from a proxy's header only with --proxy-headers.
    return request.META.get("REMOTE_ADDR") or "unknown"


def limited(kind: str, *, per: str = "user", methods: tuple = ("POST",)):
    """A view decorator: past the limit, answer 429 with a clear message and do nothing."""

    def decorate(view):
        @wraps(view)
        def wrapper(request, *args, **kwargs):
            if request.method in methods:
                who = (
                    f"user{request.user.pk}" if per == "user" else f"addr{client_address(request)}"
                )
                if not count_and_check(kind, who):
                    return too_many(request, kind)
            return view(request, *args, **kwargs)

        return wrapper

    return decorate


def too_many(request, kind: str):
    limit, window = _limit_and_window(kind)
    if window == HOUR_SECONDS:
        message = f"Too many {KIND_WORDS[kind]}: at most {limit} an hour. Try again later."
    else:
        message = (
            f"Too many {KIND_WORDS[kind]}: at most {limit} a minute. Wait a minute and try again."
        )
    template = "_limited.html" if getattr(request, "htmx", False) else "limited.html"
    response = render(request, template, {"message": message}, status=429)
    response["Retry-After"] = str(window)
    return response
