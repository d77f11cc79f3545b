from django.urls import path

from games.web import consumers

# django-stubs' path() takes only views, not ASGI applications (typeddjango/django-stubs#3354).
websocket_urlpatterns = [
    path("ws/table/<int:match_id>/", consumers.TableConsumer.as_asgi()),  # type: ignore[arg-type]  # see above
]
