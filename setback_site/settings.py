"""One settings module, driven by the environment.

Nothing set: a SQLite file, the in-memory channel layer, and bot/coach tasks run on a thread
pool inside the web process (see games/core/dispatch.py). `DATABASE_URL` switches to PostgreSQL;
`REDIS_URL` switches to the Redis channel layer and a Celery broker with separate workers.
"""

import os
import secrets
import tempfile
from datetime import timedelta
from pathlib import Path

import dj_database_url
import jinja2

from setback_site import email_url

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


# Off unless asked for: the debug page lists the URL patterns and settings to anyone.
DEBUG = env_bool("DEBUG", False)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        # One line, no traceback: `make run` keeps a generated key in var/secret_key.
        raise SystemExit(
            "Setback will not start: SECRET_KEY is not set. Set it to a long random value "
            "(make run creates one in var/secret_key), or set DEBUG=true for a throwaway key."
        )
    SECRET_KEY = secrets.token_urlsafe(50)  # DEBUG only: sessions end when the process does
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")
# A site served only to this machine (`make run`) speaks plain http; any other host name means a
# deployment, which is served over HTTPS (see "Security: HTTPS" below). HTTPS=false/true overrides.
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}
# Addresses (or networks, 10.0.0.0/8) whose X-Forwarded-For is believed: the proxy in front of
# Daphne (setback_site/proxies.py). Anyone else's X-Forwarded-* headers are dropped.
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES", "127.0.0.0/8,::1")
HTTPS = env_bool("HTTPS", not set(ALLOWED_HOSTS) <= LOOPBACK_HOSTS)

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "csp",
    "accounts",
    "games",
    "games.replay",
    "games.stats",
    "games.coach",
    "games.offline",
    "axes",
    "games.lobby",
    "games.daily",
    "games.social",
    "games.events",
    # The site's own commands: backup and restore (setback_site/backups.py); no models.
    "setback_site",
    # How the site is measured (benchmarks, load test, soak): commands only, never imported by
    # the site.
    "benchmarks",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # The Content-Security-Policy header of every answer (CONTENT_SECURITY_POLICY below).
    "csp.middleware.CSPMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Below every middleware but WhiteNoise's, as django-axes asks: it turns a locked-out login
    # into the lockout page (WhiteNoise only serves static files and passes the rest on).
    "axes.middleware.AxesMiddleware",
    # Last: it is the one middleware that runs only synchronously. Under Daphne (ASGI) Django
    # runs each middleware above a synchronous one synchronously too, so the whole chain runs
    # on one thread; placed high, it left the ones below it asynchronous, and each of those
    # hopped to a thread and back for its request and response hooks: about a dozen hops a
    # request, 15% of a move's POST and 25% of a page's GET (docs/performance.md).
    "whitenoise.middleware.WhiteNoiseMiddleware",
]

# django-axes first: it refuses a locked-out login before the password is even checked.
AUTHENTICATION_BACKENDS = [
    "accounts.backends.LoginLockoutBackend",
    "django.contrib.auth.backends.ModelBackend",
]

ROOT_URLCONF = "setback_site.urls"
ASGI_APPLICATION = "setback_site.asgi.application"
WSGI_APPLICATION = "setback_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "games.social.context_processors.bell",
            ],
        },
    },
    {
        # Only the live table's template (games/web/jinja.py says why). A missing variable is
        # empty, as in Django's templates: a table pushed over a socket has no request and so
        # no csrf_input (Django's backend would print DEBUG's placeholder instead).
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "NAME": "jinja2",  # games.core.pages.TABLE_ENGINE
        "DIRS": [BASE_DIR / "templates" / "jinja2"],
        "APP_DIRS": False,
        "OPTIONS": {"environment": "games.web.jinja.environment", "undefined": jinja2.Undefined},
    },
]

# --- Database -------------------------------------------------------------------------------
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "0")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env_bool("DB_POOL", True):
    # A new PostgreSQL connection costs about 7 ms, and Daphne runs each request and each
    # consumer call on a thread of its own, where persistent connections would pile up: a small
    # pool per process instead (health-checked on every checkout, as CONN_HEALTH_CHECKS asks).
    # The cluster is shared, so each process holds at most DB_POOL_MAX connections.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": int(os.environ.get("DB_POOL_MAX", "8")),
        "timeout": 20,
    }
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["OPTIONS"] = {
        # Bot tasks write from threads while requests read: wait for the lock instead of
        # failing, and take the write lock at BEGIN so two writers never deadlock on upgrade.
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    # Threads and the live-server subprocess must reach the test database, so it is a file,
    # one per test run (the name is inherited by child processes through the environment).
    test_sqlite = os.environ.setdefault(
        "SETBACK_TEST_SQLITE",
        str(Path(tempfile.gettempdir()) / f"setback-test-{os.getpid()}.sqlite3"),
    )
    DATABASES["default"]["TEST"] = {"NAME": test_sqlite}

# A kept connection is checked before reuse, so one cut by a database restart is replaced
# instead of failing the next request or task.
CONN_HEALTH_CHECKS = True

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "accounts.User"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"
# A password reset link works once (the token is made from the password it replaces) and for
# this long: long enough for a slow mail, short enough that an old mail in a mailbox is no key.
PASSWORD_RESET_TIMEOUT = int(os.environ.get("PASSWORD_RESET_HOURS", "2")) * 3600
# A link confirming an e-mail address works for this long (and only while that address is the
# one waiting for confirmation: a newer request replaces it).
EMAIL_CONFIRM_DAYS = int(os.environ.get("EMAIL_CONFIRM_DAYS", "3"))

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
# Serve straight from the source folders until collectstatic has run (tests, a fresh clone).
WHITENOISE_USE_FINDERS = True
# A loopback run serves the files as they are on disk (an edit shows on reload); a deployment
# serves the hashed, compressed copies that collectstatic made.
WHITENOISE_AUTOREFRESH = DEBUG or not HTTPS
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if HTTPS
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# --- E-mail ----------------------------------------------------------------------------------
# Nothing set: mails are printed on the console of the process that sends them (`make run`'s
# terminal). A deployment sends through SMTP, configured by one URL (parsed in
# setback_site/email_url.py: smtp://user:password@host:587/?tls=true, smtps://... for implicit
# TLS) or by Django's usual EMAIL_HOST, EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD,
# EMAIL_USE_TLS and EMAIL_USE_SSL.
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Setback <setback@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
EMAIL_TIMEOUT = int(os.environ.get("EMAIL_TIMEOUT", "20"))
if os.environ.get("EMAIL_URL"):
    globals().update(email_url.parse(os.environ["EMAIL_URL"]))
elif os.environ.get("EMAIL_HOST"):
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_HOST = os.environ["EMAIL_HOST"]
    EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "587"))
    EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
    EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
else:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"

# --- Channels and Celery --------------------------------------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            # redis-py 8 reads with a 5 s socket timeout by default, which kills the layer's
            # blocking receive (and the consumer with it) on an idle socket: no client timeout.
            # After a Redis restart the pooled connections are dead: ping one that has been idle
            # for a few seconds before using it, and retry a command on a fresh connection.
            "CONFIG": {
                "hosts": [
                    {
                        "address": REDIS_URL,
                        "socket_timeout": None,
                        "socket_connect_timeout": 2,
                        "socket_keepalive": True,
                        "health_check_interval": 5,
                        "retry_on_timeout": True,
                        # redis-py 8 caps a pool at 100 connections and refuses the 101st
                        # (MaxConnectionsError): a Daphne process with about fifty busy tables
                        # reached it and refused sockets (500 at the handshake). Each group
                        # send or add holds a connection only for its round trip, so this
                        # bounds a burst, not what stays open.
                        "max_connections": 1000,
                    }
                ]
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# The cache holds the request limits (games/core/limits.py): it must be shared by every web
# process, so Redis when there is one; a single `make run` process keeps it in memory.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "setback",
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

CELERY_BROKER_URL = REDIS_URL or None
# Redis, with a worker that survives losing it (setback_site/broker.py).
CELERY_BROKER_TRANSPORT = "setback_site.broker:Transport" if REDIS_URL else None
CELERY_RESULT_BACKEND = REDIS_URL or None
# One result backend per process, not one per thread: Daphne runs every request on a thread of
# its own, and each new thread built a backend (its Redis client and pool) to send one bot task.
CELERY_RESULT_BACKEND_THREAD_SAFE = True
CELERY_TASK_ACKS_LATE = True
# Celery's Django fixup closes the database connections around every task, and in a prefork
# child it closes the whole connection pool: each bot move paid a new pool, a new PostgreSQL
# connection and its pool's threads. Only every this many tasks now; after each task the
# connection goes back to the pool instead (setback_site/celery.py), as after a request.
CELERY_DB_REUSE_MAX = 500
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A task whose worker vanished without a goodbye is handed out again after this long.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "60")),
    # Notice a dead connection (Redis restarted) within seconds, on web processes and workers.
    "health_check_interval": 5,
    "socket_connect_timeout": 2,
    "socket_keepalive": True,
}
# A worker never gives up reconnecting to the broker, at start-up or after losing it; a web
# process that cannot publish a task fails fast (the sweeper sends the turn again later).
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0.2, "interval_step": 0.5}
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {"socket_connect_timeout": 2}
# Three queues, each with workers of its own (`make worker` starts one per queue), so that no
# work waits behind another kind: "bots" (a table's next move, a stand-in, the next deal: a
# table waits on it), "coach" (the analysis lane: advice, reviews, face-up solves, a daily
# deal's par: one person waits on it) and "checks" (offline deals coming home, data downloads:
# heavy and never urgent). A flood of offline uploads once queued on the worker that also
# served the bots (issue 45). The prefix lets two test runs share one Redis without taking
# each other's tasks.
QUEUE_PREFIX = os.environ.get("SETBACK_QUEUE_PREFIX", "")
QUEUE_NAMES = ("bots", "coach", "checks")
CELERY_TASK_DEFAULT_QUEUE = f"{QUEUE_PREFIX}bots"
CELERY_TASK_ROUTES = {
    "games.coach.tasks.*": {"queue": f"{QUEUE_PREFIX}coach"},
    "games.replay.tasks.*": {"queue": f"{QUEUE_PREFIX}coach"},  # face-up analysis
    # A daily deal's par: a whole deal of hard searches, once a day per deal.
    "games.daily.tasks.*": {"queue": f"{QUEUE_PREFIX}coach"},
    # The check of an offline deal searches every bot move again: heavy, and never urgent.
    "games.offline.tasks.*": {"queue": f"{QUEUE_PREFIX}checks"},
    # A mail: a few milliseconds, and a person waits for a reset link (accounts/tasks.py).
    "accounts.tasks.send_mail": {"queue": f"{QUEUE_PREFIX}bots"},
    # A person's data download, written to a file (accounts/tasks.py).
    "accounts.tasks.*": {"queue": f"{QUEUE_PREFIX}checks"},
}

# "Download my data" files, built by a task (accounts/tasks.py) into this private folder (owner
# only). Without workers (`make run`) the task builds each in a process of its own
# (`manage.py build_data_download`), so a big download never holds the web process's CPU.
DOWNLOADS_DIR = Path(os.environ.get("DOWNLOADS_DIR", BASE_DIR / "var" / "downloads"))
DATA_DOWNLOAD_SUBPROCESS = env_bool("DATA_DOWNLOAD_SUBPROCESS", True)
# A ready download is kept this long; the next one, or deleting the account, removes it sooner.
DATA_DOWNLOAD_KEEP_DAYS = 7

# Without workers, the web process runs searches (bot decisions, coach advice) in this many
# processes of their own, so that they never hold up a page (games/core/dispatch.py); 0 runs them
# on the task threads instead.
SEARCH_PROCESSES = int(os.environ.get("SEARCH_PROCESSES", max(1, (os.cpu_count() or 2) - 1)))

# Seconds a bot waits before each card so a person can follow the play (0 in tests).
BOT_PACE_SECONDS = float(os.environ.get("BOT_PACE_SECONDS", "0.7"))
# How often the sweeper looks for turns nobody will play (games/web/sweeper.py); 0 switches it off.
SWEEP_SECONDS = float(os.environ.get("SWEEP_SECONDS", "2"))

# Quick pairing: how long a person may choose to wait for people before bots fill the seats.
PAIRING_WAIT_MIN_SECONDS = int(os.environ.get("PAIRING_WAIT_MIN_SECONDS", "10"))
PAIRING_WAIT_MAX_SECONDS = int(os.environ.get("PAIRING_WAIT_MAX_SECONDS", "300"))

# --- Limits ---------------------------------------------------------------------------------
# Logins (django-axes): 5 failures for one user name lock that name out for 15 minutes, from
# anywhere. Failures are rows in the database, so every process agrees. An address is not
# locked out by axes: everyone behind one (a school, an office, a phone network) would be, for a
# quarter of an hour, after five typos; instead "login_failures" below slows an address that
# guesses across many names to that many failures a minute.
AXES_FAILURE_LIMIT = int(os.environ.get("LOGIN_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("LOGIN_LOCKOUT_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = ["username"]
# axes warns that without the address a guesser can rotate cookies and user agents: the
# address is held to REQUEST_LIMITS_PER_MINUTE["login_failures"] instead (accounts/views.py).
SILENCED_SYSTEM_CHECKS = ["axes.W006"]
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
# The address is the connection's own (Daphne puts a proxy's X-Forwarded-For there only when
# started with --proxy-headers): a header a client sends never picks the address it is counted by.
AXES_IPWARE_META_PRECEDENCE_ORDER = ["REMOTE_ADDR"]
AXES_VERBOSE = False
# Everything else a person can do in bulk: at most this many per minute (per user; per address
# for sign-up, before there is a user). Counted in the cache above.
REQUEST_LIMITS_PER_MINUTE = {
    "signup": 5,
    "new_match": 10,
    "new_table": 5,
    "rematch": 10,
    "coach": 30,
    "pairing": 10,
    "login_failures": 20,  # per address: failed log-ins, whatever the names tried
    # Per address: asking for a password reset link (each may send a mail). Each address a
    # reset is asked for also gets at most EMAILS_PER_ADDRESS_PER_HOUR mails an hour.
    "password_reset": 5,
    # Per user: asking to confirm a new e-mail address (each sends a mail), and data downloads
    # (each rebuilds every deal the person played).
    "email_change": 5,
    "data_download": 5,
    # Deals coming home from the offline page, one at a time (a long match is 10 to 20 deals).
    "offline_upload": 30,
    # Scheduling a Setback night (games/events): a handful a minute is plenty for anyone.
    "new_event": 5,
}
# What reaches another person by the hour, per user: friend requests, and invitations (to a
# table, to a club). A minute's limit would still let one person fill another's bell all day.
REQUEST_LIMITS_PER_HOUR = {"friend_request": 30, "invite": 60}
EMAILS_PER_ADDRESS_PER_HOUR = int(os.environ.get("EMAILS_PER_ADDRESS_PER_HOUR", "5"))
# The site's address in the links it mails (a password reset, an address to confirm), never the
# request's Host header: Django's host check ignores the port, so a request to another port of an
# allowed host would otherwise mail a link to that port (issue 45). A deployment defaults to
# https:// and its first allowed host name; this machine (loopback only) to the request's own
# address, which only this machine can send.
_named_hosts = [h.lstrip(".") for h in ALLOWED_HOSTS if h not in LOOPBACK_HOSTS and "*" not in h]
SITE_URL = os.environ.get("SITE_URL", f"https://{_named_hosts[0]}" if _named_hosts else "").rstrip(
    "/"
)

# --- Security: Content-Security-Policy (django-csp) ---------------------------------------------
# Only the site's own files run and style a page: no inline script, handler or style attribute
# ('unsafe-inline'), no eval (htmx.config.allowEval is false, base.html). The offline page runs
# the engine in a Web Worker with WebAssembly (Pyodide): 'wasm-unsafe-eval', and workers and the
# service worker from the site itself. Websockets are the site's own ('self' covers ws: and wss:
# of the same host). tests/security/test_csp_policy.py and tests/e2e/test_csp.py.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'", "'wasm-unsafe-eval'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "worker-src": ["'self'"],
        "manifest-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

# --- Security: HTTPS --------------------------------------------------------------------------
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
if HTTPS:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
