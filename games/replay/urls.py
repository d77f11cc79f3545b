from django.urls import path

from . import views

app_name = "replay"

urlpatterns = [
    path("history/", views.history, name="history"),
    path("history/matches/<int:match_id>/", views.match, name="match"),
    path("history/matches/<int:match_id>/record.json", views.match_record, name="match_record"),
    path("history/matches/<int:match_id>/share/", views.share, name="share"),
    path("history/matches/<int:match_id>/unshare/", views.stop_sharing, name="stop_sharing"),
    # A player's replay: /replay/matches/<match>/<deal number>/<step>/
    path("replay/matches/<int:match_id>/<int:number>/", views.deal, name="deal"),
    path(
        "replay/matches/<int:match_id>/<int:number>/<int:step>/", views.deal_step, name="deal_step"
    ),
    path(
        "replay/matches/<int:match_id>/<int:number>/<int:step>/faceup/", views.faceup, name="faceup"
    ),
    path(
        "replay/matches/<int:match_id>/<int:number>/<int:step>/practice/",
        views.practice,
        name="practice",
    ),
    path(
        "replay/matches/<int:match_id>/<int:number>/record.json",
        views.deal_record,
        name="deal_record",
    ),
    # A public link to a match's finished deals.
    path("replay/shared/<str:token>/", views.shared_match, name="shared_match"),
    path(
        "replay/shared/<str:token>/record.json",
        views.shared_match_record,
        name="shared_match_record",
    ),
    path(
        "replay/shared/<str:token>/<int:number>/<int:step>/", views.shared_step, name="shared_step"
    ),
    path(
        "replay/shared/<str:token>/<int:number>/record.json",
        views.shared_deal_record,
        name="shared_deal_record",
    ),
    # Records people uploaded.
    path("replay/imports/", views.imports, name="imports"),
    path("replay/imports/<int:import_id>/", views.imported, name="imported"),
    path(
        "replay/imports/<int:import_id>/<int:number>/<int:step>/",
        views.imported_step,
        name="imported_step",
    ),
    path(
        "replay/imports/<int:import_id>/record.json", views.imported_record, name="imported_record"
    ),
    path("replay/imports/<int:import_id>/delete/", views.delete_import, name="delete_import"),
]
