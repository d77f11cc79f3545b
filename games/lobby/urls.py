from django.urls import path

from . import views

app_name = "lobby"
urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("tables/<int:match_id>/sit/", views.take_seat, name="take_seat"),
    path("pairing/", views.pairing, name="pairing"),
    path("pairing/find/", views.find_players, name="find_players"),
    path("pairing/cancel/", views.cancel_pairing, name="cancel_pairing"),
    path("pairing/start/", views.start_now, name="start_now"),
]
