"""Where the site's mails go: the console unless a deployment names an SMTP server, by
EMAIL_URL or Django's EMAIL_HOST settings; a URL that cannot be read stops the site in one line
(a typo must not lose every reset mail in silence)."""

import pytest

from setback_site import email_url

from .test_defaults import django_process

BACKEND = (
    "from django.conf import settings as s; print(s.EMAIL_BACKEND.rsplit('.', 2)[-2], "
    "getattr(s, 'EMAIL_HOST', ''), getattr(s, 'EMAIL_PORT', ''), s.EMAIL_USE_TLS, s.EMAIL_USE_SSL)"
)
KEY = "k" * 60
NO_MAIL_SETTINGS = {"EMAIL_URL": "", "EMAIL_HOST": ""}  # whatever the test run's environment has


def test_mails_are_printed_on_the_console_by_default():
    result = django_process(BACKEND, SECRET_KEY=KEY, **NO_MAIL_SETTINGS)
    assert result.stdout.split()[0] == "console"


def test_email_url_and_email_host_send_through_smtp():
    by_url = django_process(
        BACKEND, SECRET_KEY=KEY, EMAIL_URL="smtp://me%40example.com:pw@mail.example.com:587/?tls=1"
    )
    assert by_url.stdout.split() == ["smtp", "mail.example.com", "587", "True", "False"]
    by_host = django_process(
        BACKEND, SECRET_KEY=KEY, EMAIL_URL="", EMAIL_HOST="relay.local", EMAIL_PORT="25"
    )
    assert by_host.stdout.split() == ["smtp", "relay.local", "25", "False", "False"]


def test_a_bad_email_url_stops_the_site_in_one_line():
    result = django_process("print('started')", SECRET_KEY=KEY, EMAIL_URL="smpt://typo.example")
    assert result.returncode == 1 and "started" not in result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "EMAIL_URL must start with smtp://" in lines[0]


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "smtp://user:p%40ss@mail.example.com:587/?tls=true",
            {"EMAIL_HOST": "mail.example.com", "EMAIL_PORT": 587, "EMAIL_HOST_USER": "user",
             "EMAIL_HOST_PASSWORD": "p@ss", "EMAIL_USE_TLS": True, "EMAIL_USE_SSL": False},
        ),
        (
            "smtps://user:secret@mail.example.com/",
            {"EMAIL_PORT": 465, "EMAIL_USE_SSL": True, "EMAIL_USE_TLS": False},
        ),
        (
            "smtp://127.0.0.1:1025/?timeout=5",
            {"EMAIL_PORT": 1025, "EMAIL_HOST_USER": "", "EMAIL_TIMEOUT": 5},
        ),
        ("console://", {"EMAIL_BACKEND": email_url.CONSOLE_BACKEND}),
    ],
)  # fmt: skip
def test_email_urls_are_read_into_django_s_settings(url, expected):
    settings = email_url.parse(url)
    assert {key: settings[key] for key in expected} == expected


@pytest.mark.parametrize(
    "url", ["http://mail.example.com", "smtp://", "smtp://host:port/", "smtp://h/?timeout=x"]
)
def test_unreadable_email_urls_are_refused(url):
    with pytest.raises(SystemExit, match="EMAIL_URL"):
        email_url.parse(url)
