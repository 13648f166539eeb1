"""Browser tests: Debian's Chromium driven by Playwright against pytest-django's live_server.

Playwright's sync API runs an event loop in this thread, which makes Django refuse ORM calls made
by the tests themselves unless DJANGO_ALLOW_ASYNC_UNSAFE is set.

Without Chromium the tests are skipped on a workstation, but fail under CI (CI=true), where a
skipped browser suite would hide that the browser was never run. Never `playwright install`:
the machines here cannot download browsers.
"""

import contextlib
import os
import time
from collections.abc import Iterator

import pytest

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

from playwright.sync_api import Error as PlaywrightError

from tests.browser.chromium import CHROMIUM, CHROMIUM_ARGS
from tests.ci import running_in_ci


@pytest.fixture(autouse=True)
def _django_defaults(django_test_defaults):
    """Every test here goes through Django: tests/conftest.py's defaults for that."""


@pytest.fixture(scope="session")
def playwright_session() -> Iterator["object"]:
    """One Playwright for the run: its sync API runs one per thread."""
    if not CHROMIUM.exists():
        message = f"Chromium is not installed at {CHROMIUM} (Debian: apt-get install chromium)."
        if running_in_ci():
            pytest.fail(f"{message} CI must run the browser tests.", pytrace=False)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        yield playwright


def _launched(playwright, **options) -> Iterator["object"]:
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, **options)
    yield browser
    browser.close()


@pytest.fixture(scope="session")
def browser(playwright_session) -> Iterator["object"]:
    yield from _launched(playwright_session, args=CHROMIUM_ARGS)


@pytest.fixture(scope="session")
def browser_with_back_forward_cache(playwright_session) -> Iterator["object"]:
    """Chromium as people run it, keeping pages left for Back and Forward: Playwright turns
    that cache off, and pages served no-store (the builder) enter it only with this feature,
    which Chrome has been rolling out."""
    feature = (
        "CacheControlNoStoreEnterBackForwardCache:level/restore-unless-http-only-cookie-change"
    )
    yield from _launched(
        playwright_session,
        args=[*CHROMIUM_ARGS, f"--enable-features={feature}"],
        ignore_default_args=["--disable-back-forward-cache"],
    )


# A builder whose save state says "Saving…" has a save waiting for the autosave pause, or on
# its way to the server.
_NO_SAVE_PENDING = "() => document.querySelector('[data-save-state]')?.dataset.state !== 'saving'"


def _browser_page(browser, live_server):
    """A page in a browser context of its own: its cookies are nobody else's.

    A test may end right after an edit, with the builder's save still to come. That request
    would reach the server while the test's database is torn down (on PostgreSQL the save's
    open transaction then held its lock into the next test), so each page's save is let land
    first, and so is every request still on its way (a page whose saving is paused asks the
    server quietly); then the context goes offline before it closes: nothing leaves it
    afterwards."""
    context = browser.new_context(base_url=live_server.url)
    context.set_default_timeout(10_000)
    on_the_way: set[object] = set()
    context.on("request", lambda request: on_the_way.add(request))
    context.on("requestfinished", lambda request: on_the_way.discard(request))
    context.on("requestfailed", lambda request: on_the_way.discard(request))
    yield context.new_page()
    for page in context.pages:
        with contextlib.suppress(PlaywrightError):
            page.wait_for_function(_NO_SAVE_PENDING, timeout=5_000)
    deadline = time.monotonic() + 5
    while on_the_way and context.pages and time.monotonic() < deadline:
        with contextlib.suppress(PlaywrightError):
            context.pages[0].wait_for_timeout(20)
    context.set_offline(True)
    context.close()


@pytest.fixture
def page(browser, live_server):
    yield from _browser_page(browser, live_server)


@pytest.fixture
def cached_page(browser_with_back_forward_cache, live_server):
    """A page whose browser keeps the pages it leaves, to restore on Back."""
    yield from _browser_page(browser_with_back_forward_cache, live_server)


@pytest.fixture
def second_page(browser, live_server):
    """Another person's browser, beside ``page``."""
    yield from _browser_page(browser, live_server)
