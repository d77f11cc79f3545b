"""The accounts app's tasks (thin): send a mail; build a person's data download off the web
process."""

from smtplib import SMTPException

from celery import shared_task

from games.core import mail

from . import downloads


# On the `checks` queue (settings.CELERY_TASK_ROUTES): heavy reading, never urgent.
@shared_task(acks_late=True, reject_on_worker_lost=True, soft_time_limit=900, time_limit=960)
def build_data_download(download_id: int) -> str:
    return downloads.run_build(download_id)


# On the bots' queue (settings.CELERY_TASK_ROUTES): a reset link should not wait behind a day's
# offline checks, and a mail is a few milliseconds of work. An SMTP server that is down or
# refuses is tried again with a growing wait, for about an hour in all.
@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OSError, SMTPException),
    retry_backoff=30,
    retry_backoff_max=600,
    max_retries=8,
)
def send_mail(subject: str, body: str, to: str) -> None:
    mail.send(subject, body, to)
