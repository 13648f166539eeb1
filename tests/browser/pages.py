"""Steps the browser tests share."""

import re

from playwright.sync_api import expect

from tests.factories import PASSWORD


def log_in(page, username: str) -> None:
    """Log in through the login form and wait for the dashboard."""
    page.goto("/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(re.compile(r"/$"))
