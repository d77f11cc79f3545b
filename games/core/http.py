"""What a request to the site carries beyond Django's own, for the type checker.

django-htmx's middleware sets ``request.htmx`` on every request, and behind ``login_required``
``request.user`` is a signed-in ``User``, not an ``AnonymousUser``. Views say which they rely
on by annotating ``request`` with these (django-htmx's documented pattern); at run time a
request is still Django's own.
"""

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails

from accounts.models import User


class HtmxRequest(HttpRequest):
    htmx: HtmxDetails


class SignedInRequest(HtmxRequest):
    user: User
