"""The Celery app. Workers run `make worker`; without REDIS_URL tasks run in-process instead."""

import os

from celery import Celery
from celery.signals import task_postrun, worker_init
from django.db import close_old_connections

from .garbage import settle as settle_garbage_collector

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "setback_site.settings")

app = Celery("setback_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@task_postrun.connect
def give_connections_back(task=None, **kwargs) -> None:
    """After a task in a worker, as after a request: its database connection goes back to the pool
    (the pool checks it before the next task takes it), or is closed if it broke."""
    if getattr(task.request, "is_eager", False):
        return  # run inside the caller (a test's transaction): its connection is not ours to end
    close_old_connections()


@worker_init.connect
def settle_garbage(**kwargs) -> None:
    """Before the worker forks its pool: the children inherit the frozen start-up objects and
    the collector's settings (setback_site/garbage.py)."""
    settle_garbage_collector()
