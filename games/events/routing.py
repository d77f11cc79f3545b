from django.urls import path

from . import consumers

# django-stubs' path() takes only views, not ASGI applications (typeddjango/django-stubs#3354).
websocket_urlpatterns = [
    path("ws/events/<int:event_id>/", consumers.EventConsumer.as_asgi()),  # type: ignore[arg-type]  # see above
]
