from django.urls import path

from . import views

app_name = "daily"
urlpatterns = [
    path("", views.today, name="today"),
    path("<str:day>/", views.day, name="day"),
    path("<str:day>/<int:number>/", views.deal, name="deal"),
    path("<str:day>/<int:number>/play/", views.play, name="play"),
    path("<str:day>/<int:number>/par/<int:step>/", views.par_replay, name="par_replay"),
    path(
        "<str:day>/<int:number>/plays/<int:play_id>/<int:step>/",
        views.play_replay,
        name="play_replay",
    ),
]
