"""What the whole suite shares: the tiers' markers, hypothesis's profiles, one cache folder per
pytest-xdist worker, and the defaults every test that goes through Django runs with.

Tiers: tests/unit is the rules engine alone (no database, no Django fixtures), tests/integration
goes through Django, tests/browser drives Chromium and is marked ``browser`` here, by folder.
``slow`` marks a test that takes a second or more however quiet the machine. `make test-fast`
leaves both out and spreads the rest over the cores; `make test` runs everything.
"""

from pathlib import Path

import hypothesis
import pytest

from tests.ci import CI_EXAMPLES, running_in_ci

BROWSER_TESTS = Path(__file__).parent / "browser"
# File caches that every process of the site shares (settings.CACHES).
SHARED_CACHES = ("pdf", "throttle")

# CI tries as many examples as ever; anywhere else a tenth as many, and so does every test that
# sets its own count with tests.ci.examples. No deadline: a shared machine's pauses are not bugs.
hypothesis.settings.register_profile("ci", max_examples=CI_EXAMPLES, deadline=None)
hypothesis.settings.register_profile("fast", max_examples=CI_EXAMPLES // 10, deadline=None)
hypothesis.settings.load_profile("ci" if running_in_ci() else "fast")


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist each worker gets file caches of its own, as pytest-django gives it a
    database of its own: every test empties the caches first, which would pull a cached sheet
    or a throttle count from under a test running in another worker."""
    worker = getattr(config, "workerinput", {}).get("workerid")
    if worker:
        from django.conf import settings

        for name in SHARED_CACHES:
            cache = settings.CACHES[name]
            if cache["BACKEND"].endswith("FileBasedCache"):
                cache["LOCATION"] = f"{cache['LOCATION']}-{worker}"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.is_relative_to(BROWSER_TESTS):
            item.add_marker(pytest.mark.browser)


@pytest.fixture
def django_test_defaults(settings):
    """Cheap password hashing (the real hasher is slow on purpose), and the PDF and throttle
    caches empty: they are files shared between processes and kept between runs. The Django
    tiers' conftests use this for every test; the engine's tests need neither."""
    from django.core.cache import caches

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    for name in SHARED_CACHES:
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
