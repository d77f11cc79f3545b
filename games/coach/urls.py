from django.urls import path

from . import views

app_name = "coach"

urlpatterns = [
    path("matches/<int:match_id>/panel/", views.panel, name="panel"),
    path("deals/<int:deal_id>/review/", views.review, name="review"),
    path("exercises/", views.exercises, name="exercises"),
    path("exercises/<int:deal_id>/<int:step>/", views.exercise, name="exercise"),
    path(
        "exercises/<int:deal_id>/<int:step>/result/", views.exercise_result, name="exercise_result"
    ),
]
