"""Issue 45, finding 3: a client that reaches Daphne directly cannot choose its address with a
forged X-Forwarded-For; only a trusted proxy's header is believed (setback_site/proxies.py)."""

import re
from pathlib import Path

import pytest
from channels.testing import HttpCommunicator
from django.urls import reverse

from setback_site.asgi import application
from setback_site.proxies import TrustedProxyMiddleware


async def scope_seen(client, headers):
    seen = {}

    async def app(scope, receive, send):
        seen.update(scope)

    await TrustedProxyMiddleware(app)(
        {"type": "http", "client": client, "headers": headers}, None, None
    )
    return seen


@pytest.mark.asyncio
async def test_a_forged_header_from_an_untrusted_address_is_dropped():
    forged = [(b"x-forwarded-for", b"198.51.100.7"), (b"x-forwarded-proto", b"https")]
    seen = await scope_seen(("203.0.113.9", 40000), [*forged, (b"host", b"example")])
    assert seen["client"] == ("203.0.113.9", 40000)
    assert seen["headers"] == [(b"host", b"example")]


@pytest.mark.asyncio
async def test_the_trusted_proxy_s_header_names_the_client():
    seen = await scope_seen(("127.0.0.1", 40000), [(b"x-forwarded-for", b"198.51.100.7")])
    assert seen["client"][0] == "198.51.100.7"
    # A client's own header in front of nginx's value is not believed: the rightmost wins.
    seen = await scope_seen(("127.0.0.1", 40000), [(b"x-forwarded-for", b"10.9.9.9, 198.51.100.8")])
    assert seen["client"][0] == "198.51.100.8"


@pytest.mark.asyncio
async def test_trusted_proxies_are_configurable(settings):
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    seen = await scope_seen(("10.1.2.3", 1), [(b"x-forwarded-for", b"198.51.100.7")])
    assert seen["client"][0] == "198.51.100.7"
    seen = await scope_seen(("127.0.0.1", 1), [(b"x-forwarded-for", b"198.51.100.7")])
    assert seen["client"][0] == "127.0.0.1"


async def request(method, path, client, headers, body=b""):
    communicator = HttpCommunicator(
        application, method, path, body=body, headers=[(b"host", b"127.0.0.1"), *headers]
    )
    communicator.scope["client"] = client
    return await communicator.get_response(timeout=30)


async def csrf_pair():
    """A login page's CSRF cookie and form token, as a browser has them."""
    page = await request("GET", reverse("login"), ("203.0.113.9", 49999), [])
    cookie = next(
        value.decode().split(";")[0]
        for name, value in page["headers"]
        if name.lower() == b"set-cookie" and value.startswith(b"csrftoken=")
    )
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page["body"]).group(1)
    return cookie, token.decode()


async def failed_login(n: int, cookie: str, token: str) -> int:
    body = f"username=nobody{n}&password=wrong&csrfmiddlewaretoken={token}".encode()
    response = await request(
        "POST",
        reverse("login"),
        ("203.0.113.9", 50000 + n),
        [
            (b"content-type", b"application/x-www-form-urlencoded"),
            (b"cookie", cookie.encode()),
            (b"x-forwarded-for", f"198.51.100.{n}".encode()),  # a new address each time
        ],
        body,
    )
    return response["status"]


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_failed_logins_sent_straight_to_daphne_count_for_the_real_address(settings):
    """Before: 25 failed log-ins with 25 forged addresses all answered 200 (nginx: 429 after
    20). Now they all count for the connection's own address."""
    limits = settings.REQUEST_LIMITS_PER_MINUTE
    settings.REQUEST_LIMITS_PER_MINUTE = {**limits, "login_failures": 20}
    cookie, token = await csrf_pair()
    statuses = [await failed_login(n, cookie, token) for n in range(1, 26)]
    assert statuses[:20] == [200] * 20 and statuses[20:] == [429] * 5, statuses


def test_no_daphne_of_the_site_believes_forwarded_headers_itself():
    """Daphne's --proxy-headers believes X-Forwarded-For from anyone who reaches its port; the
    documented deployment ran it on 0.0.0.0 with it. Every Daphne the project starts or documents
    binds loopback without it (the site's middleware reads a trusted proxy's header)."""
    root = Path(__file__).resolve().parents[2]
    for name in ["Makefile", "scripts/serve_behind_proxy.py", "docs/deploy.md", "README.md"]:
        text = (root / name).read_text()
        allowed = re.sub(r"without\s+`--proxy-headers`", "", text)
        assert "--proxy-headers" not in allowed, name
        assert "0.0.0.0" not in text, name
