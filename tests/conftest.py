import pytest


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    """Hash test passwords cheaply: the real hasher is slow on purpose."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fresh_shared_caches():
    """The PDF and throttle caches are files shared between processes and kept between runs:
    each test starts with both empty."""
    from django.core.cache import caches

    for name in ("pdf", "throttle"):
        caches[name].clear()


def _clear_rules_caches() -> None:
    """Forget every cached result of the rules engine (functools caches of catalog figures)."""
    import sys

    for name, module in list(sys.modules.items()):
        if name == "rules" or name.startswith("rules."):
            for value in vars(module).values():
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()


@pytest.fixture
def patched_catalog(monkeypatch):
    """``monkeypatch``, for a test that changes the catalog's figures: the engine's caches are
    forgotten before and after, so no result worked out under the test's figures outlives it."""
    _clear_rules_caches()
    yield monkeypatch
    _clear_rules_caches()
