from django.urls import path

from . import views

urlpatterns = [
    path("players/<str:name>/", views.player, name="player"),
    path("leaderboard/", views.leaderboard, name="leaderboard"),
]
