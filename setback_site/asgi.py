"""ASGI entry point: Django for HTTP, Channels consumers for websockets."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "setback_site.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402  (needs the apps loaded)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.urls import re_path  # noqa: E402

from games.core.pages import load_table_templates  # noqa: E402
from games.events.routing import websocket_urlpatterns as event_websockets  # noqa: E402
from games.lobby.routing import websocket_urlpatterns as lobby_websockets  # noqa: E402
from games.routing import websocket_urlpatterns  # noqa: E402
from games.social.routing import websocket_urlpatterns as social_websockets  # noqa: E402
from games.web.consumers import NoSuchSocket  # noqa: E402
from setback_site.garbage import settle as settle_garbage_collector  # noqa: E402
from setback_site.proxies import TrustedProxyMiddleware  # noqa: E402

# Any other path is refused with a close, not a server error. django-stubs' re_path() takes only
# views, and channels' stubs want their own pattern type (typeddjango/django-stubs#3354).
unknown_socket = re_path(r"", NoSuchSocket.as_asgi())  # type: ignore[arg-type]
websocket_routes = [
    *websocket_urlpatterns,
    *lobby_websockets,
    *social_websockets,
    *event_websockets,
    unknown_socket,
]

# The client's address from X-Forwarded-For only when a trusted proxy sent it (proxies.py).
application = TrustedProxyMiddleware(
    ProtocolTypeRouter(
        {
            "http": django_asgi_app,
            "websocket": AllowedHostsOriginValidator(
                AuthMiddlewareStack(
                    URLRouter(websocket_routes)  # type: ignore[arg-type]  # see above
                )
            ),
        }
    )
)

load_table_templates()
settle_garbage_collector()  # last: everything loaded so far is frozen (setback_site/garbage.py)
