import pytest


@pytest.fixture(autouse=True)
def _quick_password_hashing(settings):
    # These tests make several users each; a slow hash only slows them down.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
