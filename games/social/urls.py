from django.urls import path

from . import views

app_name = "social"
urlpatterns = [
    path("friends/", views.friends, name="friends"),
    path("friends/ask/", views.ask_friend, name="ask_friend"),
    path("friends/answer/", views.answer_friend, name="answer_friend"),
    path("friends/remove/", views.remove_friend, name="remove_friend"),
    path("notifications/", views.notifications, name="notifications"),
    path("notifications/read/", views.mark_read, name="mark_read"),
    path("notifications/<int:notification_id>/open/", views.open_notification, name="open"),
    path("notifications/mail/", views.mail_choices, name="mail_choices"),
    path("matches/<int:match_id>/invite-friend/", views.invite_to_table, name="invite_to_table"),
    path("clubs/", views.clubs, name="clubs"),
    path("clubs/new/", views.new_club, name="new_club"),
    path("clubs/join/<str:token>/", views.join_club, name="join_club"),
    path("clubs/<int:club_id>/", views.club, name="club"),
    path("clubs/<int:club_id>/invite/", views.invite_to_club, name="invite_to_club"),
    path("clubs/<int:club_id>/ask/", views.ask_to_join, name="ask_to_join"),
    path("clubs/<int:club_id>/invitation/", views.answer_invite, name="answer_invite"),
    path("clubs/<int:club_id>/requests/", views.answer_request, name="answer_request"),
    path("clubs/<int:club_id>/leave/", views.leave_club, name="leave_club"),
    path("clubs/<int:club_id>/remove/", views.remove_member, name="remove_member"),
    path("clubs/<int:club_id>/lift-ban/", views.lift_ban, name="lift_ban"),
    path("clubs/<int:club_id>/role/", views.set_role, name="set_role"),
    path("clubs/<int:club_id>/hand-over/", views.hand_over, name="hand_over"),
    path("clubs/<int:club_id>/delete/", views.delete_club, name="delete_club"),
    path("clubs/<int:club_id>/tables/new/", views.new_club_table, name="new_club_table"),
    path("clubs/<int:club_id>/games/<int:match_id>/", views.club_game, name="club_game"),
    path(
        "clubs/<int:club_id>/games/<int:match_id>/<int:number>/<int:step>/",
        views.club_step,
        name="club_step",
    ),
]
