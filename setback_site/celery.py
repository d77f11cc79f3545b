"""The Celery app. Workers run `make worker`; without REDIS_URL tasks run in-process instead."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "setback_site.settings")

app = Celery("setback_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
