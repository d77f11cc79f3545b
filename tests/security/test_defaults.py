"""Item 11: safe defaults. No debug page unless asked for, no start without a secret key, the
HTTPS settings on for any deployment, and friendly 404 and 500 pages."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client, RequestFactory
from django.views.defaults import server_error

from .helpers import browser_for, person

ROOT = Path(__file__).resolve().parents[2]


def django_process(code, **env):
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "HTTPS"}
    }
    return subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "setback_site.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_without_a_secret_key_the_site_refuses_to_start_in_one_line():
    result = django_process("print('started')")
    assert result.returncode == 1 and "started" not in result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "SECRET_KEY is not set" in lines[0]


def test_debug_is_off_unless_asked_for_and_then_needs_no_key():
    off = django_process(
        "from django.conf import settings; print(settings.DEBUG)", SECRET_KEY="k" * 60
    )
    assert off.stdout.strip() == "False"
    on = django_process("from django.conf import settings; print(settings.DEBUG)", DEBUG="true")
    assert on.returncode == 0 and on.stdout.strip() == "True"


SECURITY = (
    "from django.conf import settings as s; print(s.SECURE_SSL_REDIRECT, s.SESSION_COOKIE_SECURE, "
    "s.CSRF_COOKIE_SECURE, s.SECURE_HSTS_SECONDS > 0)"
)


def test_a_loopback_run_speaks_http_and_a_deployment_https():
    loopback = django_process(SECURITY, SECRET_KEY="k" * 60)
    assert loopback.stdout.split() == ["False", "False", "False", "False"]
    deployed = django_process(SECURITY, SECRET_KEY="k" * 60, ALLOWED_HOSTS="setback.example")
    assert deployed.stdout.split() == ["True", "True", "True", "True"]


@pytest.mark.django_db
def test_a_missing_page_is_a_friendly_404_without_the_debug_page():
    client = browser_for(person("alice"))
    for url in ("/matches/999999/", "/no/such/page/", "/t/NOPE42/x/"):
        response = client.get(url)
        body = response.content.decode()
        assert response.status_code == 404
        assert "URLconf" not in body and "Traceback" not in body and "urlpatterns" not in body
    assert "Nothing here" in client.get("/matches/999999/").content.decode()
    assert "Nothing here" in Client().get("/no/such/page/").content.decode()  # logged out too


def test_a_server_error_is_a_friendly_500_page():
    response = server_error(RequestFactory().get("/"))
    body = response.content.decode()
    assert (
        response.status_code == 500 and "Something went wrong" in body and "Traceback" not in body
    )


@pytest.mark.asyncio
@pytest.mark.django_db
async def test_pages_and_static_files_served_as_daphne_serves_them_carry_the_protective_headers(
    async_client,
):
    """Through Django's ASGI handler, as under Daphne: the middleware chain (run on one thread,
    WhiteNoise last) still serves static files and marks pages and files alike."""
    for path in ("/accounts/login/", "/static/css/site.css"):
        response = await async_client.get(path)
        assert response.status_code == 200, path
        assert response.headers["X-Content-Type-Options"] == "nosniff", path
        assert response.headers["X-Frame-Options"] == "DENY", path
    assert "Set-Cookie" not in (await async_client.get("/static/css/site.css")).headers
