from django.urls import path

from . import views

urlpatterns = [
    path("tables/new/", views.new_table, name="new_table"),
    path("tables/join/", views.join_by_code, name="join_by_code"),
    path("t/<str:code>/", views.join_by_code, name="invite"),
    path("matches/<int:match_id>/sit/", views.sit, name="sit"),
    path("matches/<int:match_id>/bot/", views.seat_bot, name="seat_bot"),
    path("matches/<int:match_id>/start/", views.start_table, name="start_table"),
    path("matches/<int:match_id>/settings/", views.table_settings, name="table_settings"),
    path("matches/<int:match_id>/leave/", views.leave, name="leave"),
    path("matches/<int:match_id>/chat/", views.chat, name="chat"),
    path("matches/<int:match_id>/remove/", views.remove_from_table, name="remove_from_table"),
    path("players/<str:name>/manners/", views.manners, name="manners"),
]
