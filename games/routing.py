from django.urls import path, re_path

from . import consumers

websocket_urlpatterns = [
    path("ws/table/<int:match_id>/", consumers.TableConsumer.as_asgi()),
    # Any other path is refused with a close, not a server error.
    re_path(r"", consumers.NoSuchSocket.as_asgi()),
]
