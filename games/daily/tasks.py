from celery import shared_task

from . import services


# A day's par: a whole deal of hard searches, on the analysis queue (settings.CELERY_TASK_ROUTES). Idempotent: a
# repeated or late run finds par kept and changes nothing.
@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def compute_par(deal_id: int) -> None:
    services.do_compute_par(deal_id)
