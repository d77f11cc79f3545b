from django.urls import path

from . import views

app_name = "offline"

urlpatterns = [
    path("", views.page, name="page"),
    path("sw.js", views.service_worker, name="service_worker"),
    path("unavailable/", views.unavailable, name="unavailable"),
    path("engine-worker.mjs", views.engine_worker, name="engine_worker"),
    path("manifest.webmanifest", views.manifest, name="manifest"),
    path("engine/<str:filename>", views.engine_wheel, name="wheel"),
    path("session/", views.session, name="session"),
    path("uploads/", views.upload, name="upload"),
    path("uploads/<str:client_id>/", views.upload_status, name="upload_status"),
]
