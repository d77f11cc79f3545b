"""The one settings module follows the environment."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import global_settings, settings

from setback_site import settings as site_settings
from setback_site.garbage import YOUNG_THRESHOLD
from tests import settings as test_settings

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


SITE_SETTINGS = """
import json, django
from django.conf import settings
django.setup()
from tests.db.test_settings import shown
print(json.dumps({name: shown(getattr(settings, name)) for name in dir(settings) if name.isupper()}))
"""
# What is not a setting of the site: the settings module's own name and its bookkeeping.
NOT_SETTINGS = {"SETTINGS_MODULE", "DIFFERENCES", "TEST_ENVIRONMENT"}


def shown(value) -> str:
    """A setting's value as text two processes can compare: a set in order, a lazy value as
    what it stands for."""
    if isinstance(value, set | frozenset):
        return repr(sorted(value, key=repr))
    if "Lazy" in type(value).__name__:
        return str(value)
    return repr(value)


def test_the_tests_differ_from_the_site_only_where_tests_settings_says_why():
    """The settings of this run against those `make run` reads from the same environment
    (less the variables tests/settings.py sets): every difference must be in DIFFERENCES."""
    ours = {
        k: v
        for k, v in os.environ.items()
        if k not in test_settings.TEST_ENVIRONMENT and k != "DJANGO_SETTINGS_MODULE"
    }
    ours["DJANGO_SETTINGS_MODULE"] = "setback_site.settings"
    result = subprocess.run(
        [sys.executable, "-c", SITE_SETTINGS],
        cwd=ROOT,
        env=ours,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    site = json.loads(result.stdout)
    # django.conf.settings: the settings of this process, as the fixtures left them.
    here = {name: shown(getattr(settings, name)) for name in dir(settings) if name.isupper()}
    different = sorted(
        name
        for name in (here.keys() | site.keys()) - NOT_SETTINGS
        if here.get(name) != site.get(name)
    )
    print("Settings a test run changes, and why:")
    for name in different:
        print(f"  {name}: {test_settings.DIFFERENCES.get(name, 'NO REASON GIVEN')}")
    assert set(different) <= set(test_settings.DIFFERENCES)


def test_the_site_keeps_djangos_strong_password_hasher():
    """Only the tests hash passwords fast (tests/settings.py): the site keeps Django's PBKDF2."""
    hashers = getattr(site_settings, "PASSWORD_HASHERS", global_settings.PASSWORD_HASHERS)
    assert hashers[0] == "django.contrib.auth.hashers.PBKDF2PasswordHasher"


def test_each_pytest_process_of_a_run_on_redis_has_a_database_of_its_own():
    choose = test_settings.redis_database_of_this_test_process
    assert choose("redis://127.0.0.1:6379/1", "") == "redis://127.0.0.1:6379/1"
    assert choose("redis://127.0.0.1:6379/1", "gw0") == "redis://127.0.0.1:6379/2"
    assert choose("redis://127.0.0.1:6379/1", "gw1") == "redis://127.0.0.1:6379/3"
    assert (
        choose("redis://:secret@cache.example:6379", "gw0")
        == "redis://:secret@cache.example:6379/1"
    )


@pytest.mark.real_services
@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs REDIS_URL")
def test_this_test_process_chose_its_own_redis_database():
    """An xdist worker inherits its starter's environment: the choice above must run again in
    it (once it did not, and the workers shared one database and heard each other's tables)."""
    assert os.environ["SETBACK_TEST_REDIS_CHOSEN_BY"] == os.environ.get("PYTEST_XDIST_WORKER", "")
    address = settings.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"][0]["address"]
    assert address == settings.CACHES["default"]["LOCATION"] == os.environ["REDIS_URL"]


@pytest.mark.parametrize(
    "loads",
    [
        "import setback_site.asgi",  # what Daphne loads (make run, the deployment)
        # what `celery worker` does before it forks its pool
        "from setback_site.celery import app; from celery.signals import worker_init;"
        " worker_init.send(sender=None)",
    ],
)
def test_the_serving_processes_freeze_their_start_up_and_collect_young_garbage_less_often(loads):
    """Full collections walking the whole start-up heap paused each Daphne for 120 to 340 ms
    every ten seconds under the paced load test (setback_site/garbage.py)."""
    clean = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    code = f"{loads}; import gc; print(gc.get_threshold()[0], gc.get_freeze_count())"
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "setback_site.settings", "SECRET_KEY": "x" * 50},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    threshold, frozen = result.stdout.split()[-2:]
    assert int(threshold) == YOUNG_THRESHOLD and int(frozen) > 10_000
