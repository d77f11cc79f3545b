from django.urls import include, path

from games.web import views

urlpatterns = [
    path("", views.home, name="home"),
    path("rules/", views.rules, name="rules"),
    path("matches/new/", views.new_match, name="new_match"),
    path("matches/<int:match_id>/", views.table, name="table"),
    path("matches/<int:match_id>/act/", views.act, name="act"),
    path("matches/<int:match_id>/next/", views.next_deal, name="next_deal"),
    path("matches/<int:match_id>/rematch/", views.rematch, name="rematch"),
    path("", include("games.tables.urls")),
]
