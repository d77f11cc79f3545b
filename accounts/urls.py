from django.contrib.auth import views as auth_views
from django.urls import path

from . import views

urlpatterns = [
    path("", views.account, name="account"),
    path("signup/", views.sign_up, name="signup"),
    path("login/", views.LogInView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "password/",
        views.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "password/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    # A forgotten password: Django's views and URL names, the site's form (accounts.forms).
    path("password/reset/", views.password_reset, name="password_reset"),
    path(
        "password/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "password/reset/<uidb64>/<token>/",
        views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "password/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path("email/", views.change_email, name="change_email"),
    path("email/confirm/<str:token>/", views.confirm_email, name="confirm_email"),
    path("sessions/end/", views.sign_out_everywhere, name="sign_out_everywhere"),
    path("data/", views.download_data, name="download_data"),
    path("data/status/", views.download_status, name="download_status"),
    path("delete/", views.delete_account, name="delete_account"),
    path("coach/", views.toggle_coach, name="toggle_coach"),
    path("history-privacy/", views.history_privacy, name="history_privacy"),
    path("sound/", views.sound_settings, name="sound_settings"),
    path("text-table/", views.text_table_settings, name="text_table_settings"),
]
