import pytest


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    """Hash test passwords cheaply: the real hasher is slow on purpose."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
