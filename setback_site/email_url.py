"""EMAIL_URL: the SMTP server a deployment sends mail through, as one setting.

    smtp://user:password@mail.example.com:587/?tls=true    STARTTLS on the submission port
    smtps://user:password@mail.example.com:465/            TLS from the first byte
    smtp://127.0.0.1:1025/                                 a local relay, no login
    console://                                             print mails (the default)

The user name and password are URL-encoded (`%40` for an `@` in a user name). `?timeout=S`
overrides EMAIL_TIMEOUT. A URL this module cannot read stops the site with one line saying
why, like a missing SECRET_KEY: a typo must not silently lose every mail.
"""

from urllib.parse import parse_qs, unquote, urlsplit

SMTP_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
CONSOLE_BACKEND = "django.core.mail.backends.console.EmailBackend"
TRUE = {"1", "true", "yes", "on"}


def parse(url: str) -> dict:
    """Django's EMAIL_* settings for `url`."""
    parts = urlsplit(url.strip())
    if parts.scheme == "console":
        return {"EMAIL_BACKEND": CONSOLE_BACKEND}
    if parts.scheme not in {"smtp", "smtps"}:
        raise SystemExit(
            f"Setback will not start: EMAIL_URL must start with smtp://, smtps:// or console://, "
            f"not {parts.scheme or 'nothing'}://."
        )
    port = _port(parts)
    query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    implicit_tls = parts.scheme == "smtps" or query.get("ssl", "").lower() in TRUE
    settings = {
        "EMAIL_BACKEND": SMTP_BACKEND,
        "EMAIL_HOST": parts.hostname,
        "EMAIL_PORT": port or (465 if implicit_tls else 25),
        "EMAIL_HOST_USER": unquote(parts.username or ""),
        "EMAIL_HOST_PASSWORD": unquote(parts.password or ""),
        "EMAIL_USE_SSL": implicit_tls,
        "EMAIL_USE_TLS": not implicit_tls and query.get("tls", "").lower() in TRUE,
    }
    if "timeout" in query:
        settings["EMAIL_TIMEOUT"] = _timeout(query["timeout"])
    return settings


def _port(parts) -> int | None:
    """The URL's port (None if it names none); the site does not start without a host name or
    with a port that is not a number."""
    try:
        port = parts.port
    except ValueError:
        port = -1
    if not parts.hostname or port == -1:
        raise SystemExit(
            "Setback will not start: EMAIL_URL needs a host name and, if given, a numeric port "
            "(smtp://user:password@host:587/?tls=true)."
        )
    return port


def _timeout(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise SystemExit(
            "Setback will not start: EMAIL_URL's timeout must be whole seconds."
        ) from None
