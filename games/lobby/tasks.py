from celery import shared_task

from . import services


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def pairing_due(ticket_id: int) -> None:
    """A pairing ticket's wait is over (idempotent: a repeated or late run changes nothing)."""
    services.do_pairing_due(ticket_id)
