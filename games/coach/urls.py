from django.urls import path

from . import views

app_name = "coach"

urlpatterns = [
    path("matches/<int:match_id>/panel/", views.panel, name="panel"),
    path("deals/<int:deal_id>/review/", views.review, name="review"),
]
