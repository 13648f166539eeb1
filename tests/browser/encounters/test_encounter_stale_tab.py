"""Two tabs of one encounter: the referee acts in one, then in the other, which had fallen
behind: the encounter moved on, or the session changed (a log-in in the other tab, which
makes the old tab's CSRF token stale). Each refusal shows on the page in the site's classes,
with htmx and without, and Chromium reports nothing: no Content-Security-Policy violation, no
console error."""

import pytest
from playwright.sync_api import expect

from characters.encounters import services
from tests.browser.pages import log_in, log_out
from tests.dice import Scripted
from tests.encounter_people import party_against_corsairs, start

pytestmark = pytest.mark.django_db(transaction=True)

# Before any page script: every violation the document reports goes to the test.
LISTEN = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.reportProblem(`${event.violatedDirective} blocked ${event.blockedURI || "inline"}`
    + (event.sample ? `: ${event.sample}` : ""));
});
"""


@pytest.fixture
def fight():
    campaign, kira, dorn, corsair = party_against_corsairs()
    encounter = start(campaign, kira, dorn, corsair)
    services.throw_initiative(
        encounter=encounter, by=campaign.referee, rng=Scripted([6, 5, 4, 3, 2, 1])
    )
    return encounter


@pytest.fixture
def problems(page) -> list[str]:
    found: list[str] = []
    page.context.expose_function("reportProblem", lambda text: found.append(text))
    page.context.add_init_script(LISTEN)
    return found


def watched(page, problems: list[str]):
    def console(message) -> None:
        if message.type == "error":
            problems.append(f"console: {message.text}")

    page.on("console", console)
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    return page


def two_tabs(page, fight, problems, width):
    page.set_viewport_size({"width": width, "height": 900})
    log_in(page, "referee")
    first = watched(page, problems)
    first.goto(f"/encounters/{fight.pk}/")
    second = watched(page.context.new_page(), problems)
    second.set_viewport_size({"width": width, "height": 900})
    second.goto(f"/encounters/{fight.pk}/")
    return first, second


def end_turn_without_javascript(page):
    """The End the turn form posted as a browser without JavaScript posts it."""
    with page.expect_navigation():
        page.evaluate("document.querySelector('[data-action=pass]').closest('form').submit()")


@pytest.mark.parametrize("width", [1280, 390])
def test_a_tab_the_encounter_moved_on_from_is_refused_and_nothing_is_reported(
    page, fight, problems, width
):
    first, second = two_tabs(page, fight, problems, width)

    first.locator('[data-action="pass"]').click()
    expect(first.locator("#outcome")).to_contain_text("Kira Valen ends its turn.")
    second.locator('[data-action="pass"]').click()

    refusal = second.locator("#outcome")
    expect(refusal).to_contain_text("changed since this page was loaded")
    expect(refusal).to_have_class("play__notice play__notice--error")
    assert second.locator("#encounter [style]").count() == 0
    second.wait_for_timeout(300)  # a late swap or script error reports itself
    assert problems == []


def session_changed_in_the_other_tab(page, fight, problems):
    """Two tabs; logged out and in again in the second: the first tab's CSRF token is stale."""
    first, second = two_tabs(page, fight, problems, 390)
    log_out(second)
    log_in(second, "referee")
    return first


def acts_again(page, problems):
    """Nothing was done: it is still Kira's turn, and the page acts again."""
    expect(page.locator("#act-heading")).to_have_text("Kira Valen's turn")
    page.locator('[data-action="pass"]').click()
    expect(page.locator("#outcome")).to_contain_text("Kira Valen ends its turn.")
    assert page.locator("[style]").count() == 0
    assert problems == []


def test_a_tab_whose_session_changed_shows_the_refusal_in_view_and_reloads(page, fight, problems):
    first = session_changed_in_the_other_tab(page, fight, problems)

    first.locator('[data-action="pass"]').click()

    refusal = first.locator("#main [data-refused]")
    expect(refusal).to_contain_text("This page was out of date")
    expect(refusal).to_contain_text("nothing was done")
    expect(refusal).to_be_in_viewport()
    assert first.locator("[style]").count() == 0
    with first.expect_navigation():
        refusal.get_by_role("link", name="Reload the page").click()
    acts_again(first, problems)


def test_a_tab_whose_session_changed_is_refused_without_javascript_too(page, fight, problems):
    first = session_changed_in_the_other_tab(page, fight, problems)

    end_turn_without_javascript(first)

    refusal = first.locator(".messages .message--error")
    expect(refusal).to_contain_text("This page was out of date")
    expect(refusal).to_contain_text("nothing was done")
    acts_again(first, problems)
