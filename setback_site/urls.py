from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("accounts/", include("accounts.urls")),
    path("admin/", admin.site.urls),
    path("", include("games.replay.urls")),
    path("stats/", include("games.stats.urls")),
    path("lobby/", include("games.lobby.urls")),
    path("daily/", include("games.daily.urls")),
    path("", include("games.stats.player_urls")),
    path("coach/", include("games.coach.urls")),
    path("offline/", include("games.offline.urls")),
    path("events/", include("games.events.urls")),
    path("", include("games.social.urls")),
    path("", include("games.urls")),
]
