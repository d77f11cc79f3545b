"""The one settings module follows the environment."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_manage(*args, **env):
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY"}
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_with_debug_off_and_a_real_secret():
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DEBUG="false",
        SECRET_KEY="k" * 20 + "-a-long-and-random-production-secret-9f3a1c77e2",
        ALLOWED_HOSTS="setback.example.com",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_check_deploy_warns_on_a_loopback_run_with_debug_on():
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", DEBUG="true")
    assert result.returncode != 0
    assert "DEBUG" in result.stderr + result.stdout


def print_settings(**env):
    code = (
        "import django, json; django.setup(); from django.conf import settings as s; "
        "print(json.dumps([s.DATABASES['default']['ENGINE'], s.CHANNEL_LAYERS['default']['BACKEND'], "
        "s.CELERY_BROKER_URL, s.DEBUG, s.ALLOWED_HOSTS]))"
    )
    clean = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG"}}
    clean["SECRET_KEY"] = "a-test-key-" + "x" * 50
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**clean, "DJANGO_SETTINGS_MODULE": "setback_site.settings", **env},
        timeout=60,
    )
    assert result.returncode == 0, result.stderr

    return json.loads(result.stdout)


def test_nothing_set_but_a_key_means_sqlite_in_memory_layer_no_broker_and_no_debug():
    engine, layer, broker, debug, hosts = print_settings()
    assert engine == "django.db.backends.sqlite3"
    assert layer == "channels.layers.InMemoryChannelLayer"
    assert broker is None
    assert debug is False


def test_database_and_redis_urls_switch_to_the_real_services():
    engine, layer, broker, debug, hosts = print_settings(
        DATABASE_URL="postgres://someone@db.example:5432/setback",
        REDIS_URL="redis://cache.example:6379/0",
        DEBUG="0",
        ALLOWED_HOSTS="a.example,b.example",
    )
    assert engine == "django.db.backends.postgresql"
    assert layer == "channels_redis.core.RedisChannelLayer"
    assert broker == "redis://cache.example:6379/0"
    assert debug is False
    assert hosts == ["a.example", "b.example"]
