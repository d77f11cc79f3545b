from django.urls import path

from games.web import consumers

websocket_urlpatterns = [
    path("ws/table/<int:match_id>/", consumers.TableConsumer.as_asgi()),
]
