"""The check of a deal that came home: thin. Claim the upload, decide its bots' moves again in the
checks lane's search process (never the analysis lane's: a flood of uploads held up everyone's
face-up steps) (plain engine values only cross into it), and settle it."""

from celery import shared_task

from games.core import searches
from games.engine.offline import redecide_report

from . import services


# A six-player hard deal is the dearest: about fifty bot decisions, each a search.
@shared_task(acks_late=True, reject_on_worker_lost=True, soft_time_limit=240, time_limit=300)
def check_offline_deal(upload_id: int) -> str:
    upload = services.do_claim(upload_id)
    if upload is None:
        return "done"
    known = services.known_outcome(upload.content_key) if upload.content_key else None
    if known is not None:  # the same deal was checked meanwhile (another upload of it)
        return services.do_settle(
            upload_id, mismatches=[known] if known else [], seconds=0.0
        ).status
    mismatches, seconds = searches.compute(
        redecide_report, upload.envelope, lane=searches.Lane.CHECKS
    )
    return services.do_settle(upload_id, mismatches=mismatches, seconds=seconds).status
