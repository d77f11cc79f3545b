"""Issue 45, finding 11: every page carries a Content-Security-Policy without 'unsafe-inline' or
'unsafe-eval', and nothing the site writes needs either (tests/e2e/test_csp.py visits the pages
in Chromium and listens for violations)."""

import re
from pathlib import Path

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
# Markup the policy refuses: an inline script, an inline handler, a style attribute or element.
INLINE = re.compile(
    r"<script(?![^>]*\bsrc=)(?![^>]*application/(?:ld\+)?json)[^>]*>|\son[a-z]+\s*=|"
    r"\sstyle\s*=|<style\b|javascript:",
    re.IGNORECASE,
)


def policy(response) -> dict:
    header = response.headers.get("Content-Security-Policy", "")
    return {part.split()[0]: part.split()[1:] for part in header.split(";") if part.strip()}


@pytest.mark.parametrize("name", ["home", "login", "signup", "offline:page", "rules"])
def test_every_page_has_a_strict_policy(client, name):
    directives = policy(client.get(reverse(name)))
    assert directives, "no Content-Security-Policy"
    for sources in directives.values():
        assert "'unsafe-inline'" not in sources and "'unsafe-eval'" not in sources
    assert directives["script-src"] == ["'self'", "'wasm-unsafe-eval'"]  # Pyodide's WebAssembly
    assert directives["style-src"] == ["'self'"]
    assert directives["worker-src"] == ["'self'"]  # the engine's worker, the service worker
    assert directives["object-src"] == ["'none'"]


def test_a_signed_in_page_has_it_too(client, make_user):
    client.force_login(make_user("alice"))
    assert "script-src" in policy(client.get(reverse("account")))


def site_markup():
    for folder, pattern in [
        ("templates", "*.html"),
        ("static/js", "*.js"),
        ("static/offline", "*.js"),
    ]:
        yield from sorted((ROOT / folder).rglob(pattern))


@pytest.mark.parametrize("path", list(site_markup()), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_template_or_script_writes_what_the_policy_refuses(path):
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".js":  # only the HTML a script builds in strings
        text = " ".join(re.findall(r"[\"'`]([^\"'`]*)[\"'`]", text))
    found = [match.group(0) for match in INLINE.finditer(text)]
    assert not found, found


def test_positions_are_classes_for_every_percentage():
    css = (ROOT / "static/css/positions.css").read_text()
    for n in range(101):
        for rule in (
            f".at-x-{n}{{--x:{n}%}}",
            f".at-y-{n}{{--y:{n}%}}",
            f".w-pct-{n}{{width:{n}%}}",
        ):
            assert rule in css
