from django.urls import path

from . import consumers

websocket_urlpatterns = [
    path("ws/table/<int:match_id>/", consumers.TableConsumer.as_asgi()),
]
