"""Reads for the account page."""

import re
from dataclasses import dataclass

from axes.handlers.proxy import AxesProxyHandler
from django.conf import settings

from games.core.sockets import session_still_valid
from games.stats.models import Rating

from .models import LoginSession

# Enough of a browser's User-Agent to tell one's own devices apart, most specific first.
BROWSERS = [("Edg/", "Edge"), ("OPR/", "Opera"), ("Firefox/", "Firefox"), ("Chrome/", "Chrome"),
            ("Chromium/", "Chromium"), ("Safari/", "Safari")]  # fmt: skip
SYSTEMS = [("Android", "Android"), ("iPhone", "iPhone"), ("iPad", "iPad"), ("Windows", "Windows"),
           ("Mac OS X", "macOS"), ("CrOS", "ChromeOS"), ("Linux", "Linux")]  # fmt: skip


def device_name(user_agent: str) -> str:
    """ "Chrome on Linux", from a User-Agent header; "A browser" when it says nothing known."""
    browser = next((name for mark, name in BROWSERS if mark in user_agent), "")
    if "HeadlessChrome" in user_agent:
        browser = "Chrome"
    system = next((name for mark, name in SYSTEMS if mark in user_agent), "")
    if browser and system:
        return f"{browser} on {system}"
    return (
        browser
        or system
        or (re.split(r"[/ ]", user_agent, maxsplit=1)[0] if user_agent else "A browser")
    )


@dataclass(frozen=True)
class SessionLine:
    device: str
    address: str
    signed_in: object
    current: bool


@dataclass(frozen=True)
class AccountView:
    name: str
    member_since: object
    email: str
    email_pending: str
    coach_enabled: bool
    history_public: bool
    rating: int | None
    sessions: list  # SessionLine, this browser first


def account_view(user, current_session_key: str | None) -> AccountView:
    sessions = [
        SessionLine(
            device=device_name(row.user_agent),
            address=row.address or "",
            signed_in=row.created_at,
            current=row.session_key == current_session_key,
        )
        for row in LoginSession.objects.filter(user=user)
        # Read from the session store: one that expired, or that a new password ended, is over.
        if row.session_key == current_session_key or session_still_valid(row.session_key, user.pk)
    ]
    sessions.sort(key=lambda line: not line.current)
    rating = Rating.objects.filter(user=user).first()
    return AccountView(
        name=user.username,
        member_since=user.date_joined,
        email=user.email,
        email_pending=user.email_pending,
        coach_enabled=user.coach_enabled,
        history_public=user.history_public,
        rating=rating.shown if rating else None,
        sessions=sessions,
    )


def login_tries_left(request, username: str) -> int | None:
    """How many more wrong passwords the typed user name may have before logging in with it is
    paused (settings.AXES_FAILURE_LIMIT, counted by django-axes); None for no name."""
    if not username:
        return None
    failures = AxesProxyHandler.get_failures(request, {"username": username})
    return max(settings.AXES_FAILURE_LIMIT - failures, 0)
