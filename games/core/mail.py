"""Sending the site's few mails: an address to confirm, a password reset link, a notice.

A mail is handed to the task queue once the transaction that asked for it commits, never sent
inside the request:
- a password reset for a known address then answers in about the time of one for an unknown
  address (an SMTP conversation takes tens of milliseconds, enough to tell them apart);
- an SMTP server that is down or slow costs a retry and a line in the log, never an error page
  (which, again, only a known address would get);
- with workers (`make worker`), a mail waits in the broker until a worker has sent it: a restart
  of the web process or of the worker loses none. Under `make run` the in-process lane sends it.
The task sends with the settings' backend: the console by default, SMTP when configured
(setback_site/email_url.py); Django's test runner swaps in its in-memory outbox.

Each address (or, for a reset, each name or address typed) and each account gets at most
EMAILS_PER_ADDRESS_PER_HOUR mails an hour, whoever asks: requests from many addresses cannot
flood one mailbox. What was typed is counted under its normalised form (NFKC, upper- then
case-folded: 'alıce', 'ALICE' and 'alice' with a long s all count as 'alice', as PostgreSQL's
upper() finds the same account for each of them), and a reset mail counts for the account it goes
to as well, so a name and an address of one account share one count (issue 45). A mail over that
is dropped, silently for the person asking, since saying so would tell them the address has an
account.
"""

import hashlib
import unicodedata
from functools import partial

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.template.loader import render_to_string

from games.core import dispatch, limits

HOUR = limits.HOUR_SECONDS


def normalised(typed: str) -> str:
    """What a name or an address is counted as: every spelling a case-insensitive lookup may
    match (Unicode compatibility forms, dotless i, long s, sharp s) folds to one."""
    text = unicodedata.normalize("NFKC", typed.strip())
    return unicodedata.normalize("NFKC", text.upper().casefold())


def account_key(user) -> str:
    """The count of mails an account is sent, whatever name or address asked for them."""
    return f"account {user.pk}"  # a space: no name or address typed normalises to it


def count_one_for(*targets: str) -> bool:
    """Count one mail for each of `targets` (an address, what a reset form was given, an
    account's key) in this hour; False once any of them is over the hourly limit."""
    counts = [
        # Hashed: what was typed may be long, and an address is nothing to keep in a cache's keys.
        limits.count("mail", hashlib.sha256(normalised(target).encode()).hexdigest(), HOUR)
        for target in targets
    ]
    return all(count <= settings.EMAILS_PER_ADDRESS_PER_HOUR for count in counts)


def site_url(request) -> str:
    """The site's address for a mailed link: settings.SITE_URL; on this machine without one,
    the request's own (see the setting)."""
    return settings.SITE_URL or request.build_absolute_uri("/").rstrip("/")


def build(template: str, to: str, context: dict) -> EmailMultiAlternatives:
    """A plain-text mail from `<template>_subject.txt` and `<template>.txt`."""
    subject = render_to_string(f"{template}_subject.txt", context)
    subject = "".join(subject.splitlines()).strip()  # a header must be one line
    body = render_to_string(f"{template}.txt", context)
    return EmailMultiAlternatives(subject, body, settings.DEFAULT_FROM_EMAIL, [to])


def send_after_commit(message: EmailMultiAlternatives) -> None:
    """Send `message` through the task queue once the caller's transaction commits (at once
    outside one); never raises into the caller. The caller has counted it (`count_one_for`)."""
    transaction.on_commit(partial(_enqueue, message), robust=True)


def _enqueue(message: EmailMultiAlternatives) -> None:
    (to,) = message.to
    dispatch.enqueue(
        dispatch.task_named("accounts.tasks.send_mail"), message.subject, message.body, to
    )


def send(subject: str, body: str, to: str) -> None:
    """Send one mail with the settings' backend (the task's body: accounts/tasks.py)."""
    EmailMultiAlternatives(subject, body, settings.DEFAULT_FROM_EMAIL, [to]).send()
