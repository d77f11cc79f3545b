from django.urls import path

from . import views

app_name = "events"

urlpatterns = [
    path("", views.events, name="events"),
    path("new/", views.new_event, name="new"),
    path("<int:event_id>/", views.event, name="event"),
    path("<int:event_id>/check-in/", views.check_in, name="check_in"),
    path("<int:event_id>/leave/", views.leave, name="leave"),
    path("<int:event_id>/cancel/", views.cancel, name="cancel"),
    path("<int:event_id>/games/<int:match_id>/", views.event_game, name="game"),
    path(
        "<int:event_id>/games/<int:match_id>/deals/<int:number>/steps/<int:step>/",
        views.event_step,
        name="step",
    ),
]
