"""What the attacker's tests share: people with their own browsers, and a table's invite."""

from django.contrib.auth import get_user_model
from django.test import Client

PASSWORD = "a-long-password-for-tests-1"


def person(username: str):
    return get_user_model().objects.create_user(username, password=PASSWORD)


def browser_for(user, address: str = "127.0.0.1") -> Client:
    client = Client(REMOTE_ADDR=address)
    client.force_login(user)
    return client


def follow_invite(client: Client, match) -> Client:
    assert client.get(f"/t/{match.invite_code}/").status_code == 302
    return client
