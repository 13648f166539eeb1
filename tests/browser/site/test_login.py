import re

import pytest
from playwright.sync_api import expect

from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_player_logs_in_and_sees_the_dashboard(page):
    UserFactory(username="player1")

    page.goto("/")
    page.get_by_role("link", name="Log in").first.click()
    expect(page).to_have_url(re.compile(r"/accounts/login/$"))
    page.fill("input[name=username]", "player1")
    page.fill("input[name=password]", PASSWORD)
    page.get_by_role("button", name="Log in").click()

    expect(page).to_have_url(re.compile(r"/$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Welcome back, player1")
    expect(page.get_by_role("link", name="My characters").first).to_be_visible()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()


def test_htmx_is_served_from_our_own_static_files(page):
    page.goto("/accounts/login/")

    assert page.evaluate("typeof window.htmx") == "object"
    scripts = page.eval_on_selector_all("script[src]", "els => els.map(e => e.src)")
    assert scripts, "the page loads no script"
    assert all(src.startswith(page.url.split("/accounts/")[0]) for src in scripts), scripts
