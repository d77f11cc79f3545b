from django.urls import path

from . import consumers

# django-stubs' path() takes only views, not ASGI applications (typeddjango/django-stubs#3354).
websocket_urlpatterns = [
    path("ws/me/", consumers.MeConsumer.as_asgi()),  # type: ignore[arg-type]  # see above
]
