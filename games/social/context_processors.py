"""The bell's count in every signed-in page as it is served: the /ws/me/ socket brings changes
after, but a page drawn with 0 showed an empty bell until (and unless) its socket connected."""

from django.http import HttpRequest

from . import selectors


def bell(request: HttpRequest) -> dict:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"unread_notifications": selectors.unread_count(user.pk)}
