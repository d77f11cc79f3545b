"""The load test's users log in through the real form on the first try, and making them twice
changes nothing."""

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def test_the_load_test_users_log_in_through_the_form_and_are_made_once(client):
    call_command("loadtest_users", 3, prefix="lt", password="Quiet-harbor-58213", stdout=StringIO())
    out = StringIO()
    call_command("loadtest_users", 3, prefix="lt", password="Quiet-harbor-58213", stdout=out)
    assert "0 users created, 3 already there" in out.getvalue()
    assert get_user_model().objects.filter(username__startswith="lt-").count() == 3

    response = client.post(
        "/accounts/login/", {"username": "lt-3", "password": "Quiet-harbor-58213"}
    )
    assert response.status_code == 302
