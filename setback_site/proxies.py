"""Which client a request comes from, behind a proxy: X-Forwarded-For believed only from a proxy.

Daphne's `--proxy-headers` believes X-Forwarded-For from anyone who can reach it: a client that
reached a Daphne port directly chose its own address, and the login lockout, the request limits
and the sessions' recorded address with it (issue 45). Daphne now runs without it, and this ASGI
middleware, around the whole site (pages and websockets), takes the client's address from
X-Forwarded-For only when the connection comes from an address in settings.TRUSTED_PROXIES
(loopback by default: nginx on the same machine). From anyone else every X-Forwarded-* header is
dropped, so neither the address nor the scheme (SECURE_PROXY_SSL_HEADER) can be forged.
"""

import ipaddress
from functools import cache

from django.conf import settings

FORWARDED_PREFIX = b"x-forwarded-"


@cache
def _trusted_networks(proxies: tuple[str, ...]):
    return tuple(ipaddress.ip_network(proxy.strip(), strict=False) for proxy in proxies if proxy)


def is_trusted_proxy(host: str | None) -> bool:
    try:
        address = ipaddress.ip_address(host or "")
    except ValueError:  # a unix socket has no address: only a proxy on this machine reaches it
        return host is None or not host
    networks = _trusted_networks(tuple(settings.TRUSTED_PROXIES))
    return any(address in network for network in networks)


def forwarded_client(header: bytes) -> str | None:
    """The client nginx saw: the rightmost address of the header that is not itself a proxy
    (nginx sets the header; another proxy in front appends to it)."""
    for entry in reversed(header.decode("latin-1").split(",")):
        candidate = entry.strip()
        try:
            ipaddress.ip_address(candidate)
        except ValueError:
            return None
        if not is_trusted_proxy(candidate):
            return candidate
    return None


class TrustedProxyMiddleware:
    """Sets scope["client"] from a trusted proxy's X-Forwarded-For; strips the headers else."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] in ("http", "websocket"):
            scope = self._resolve(scope)
        return await self.app(scope, receive, send)

    @staticmethod
    def _resolve(scope):
        client = scope.get("client")
        peer = client[0] if client else None
        headers = scope.get("headers", [])
        if not is_trusted_proxy(peer):
            kept = [(name, value) for name, value in headers if not _forwarded(name)]
            return {**scope, "headers": kept}
        for name, value in headers:
            if name.lower() == b"x-forwarded-for":
                address = forwarded_client(value)
                if address is not None:
                    return {**scope, "client": (address, 0)}
        return scope


def _forwarded(name: bytes) -> bool:
    return name.lower().startswith(FORWARDED_PREFIX)
