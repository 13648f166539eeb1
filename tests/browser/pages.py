"""Steps the browser tests share."""

import re

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.factories import PASSWORD


def log_in(page, username: str) -> None:
    """Log in through the login form and wait for the dashboard."""
    page.goto("/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(re.compile(r"/$"))


def log_out(page) -> None:
    """Log out with the header's button and wait for the page it leads to (the button first
    forgets the sheets kept for offline reading, so the navigation starts a moment later)."""
    with page.expect_navigation():
        page.get_by_role("button", name="Log out").click()


def start_building(page, name: str) -> None:
    """Create a character from the new-character form and wait until its builder is live.

    The click returns once the builder's document commits, and its figures are in the DOM
    before the deferred scripts (htmx, builder.js) have run; an edit made in that gap would
    never reach the preview. The load event comes after every deferred script.
    """
    page.goto("/characters/new/")
    page.fill("input[name=name]", name)
    page.get_by_role("button", name="Create and start building").click()
    expect(page).to_have_url(re.compile(r"/characters/\d+/edit/$"))
    page.wait_for_load_state("load")


PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


def axe_violations(page, *, impacts=("minor", "moderate", "serious", "critical")) -> list[str]:
    """axe-core's violations on the page of the given impacts, with where they are."""
    results = Axe().run(page)
    return [
        f"{violation['id']} ({violation['impact']}): "
        + "; ".join(node["target"][0] for node in violation["nodes"][:5])
        for violation in results.response["violations"]
        if violation["impact"] in impacts
    ]


def serious_violations(page) -> list[str]:
    """axe-core's serious and critical violations on the page, with where they are."""
    return axe_violations(page, impacts=("serious", "critical"))
