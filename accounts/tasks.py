"""The accounts app's task: build a person's data download off the web process (thin)."""

from celery import shared_task

from . import downloads


# On the `checks` queue (settings.CELERY_TASK_ROUTES): heavy reading, never urgent.
@shared_task(acks_late=True, reject_on_worker_lost=True, soft_time_limit=900, time_limit=960)
def build_data_download(download_id: int) -> str:
    return downloads.run_build(download_id)
