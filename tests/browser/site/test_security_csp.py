"""Under the site's Content-Security-Policy, Chromium refuses nothing on the builder (live
preview, steppers, rows added, saving by itself), the sheet, the play sheet and the campaign
pages, and the builder's points bar still draws its parts to scale."""

import pytest
from playwright.sync_api import expect

from tests.browser.pages import log_in, log_out, start_building
from tests.factories import UserFactory, character_in_campaign, medic_document

pytestmark = pytest.mark.django_db(transaction=True)

# Before any page script: every violation the document reports, and Chromium's own console
# errors about the policy, go to the test.
LISTEN = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.reportViolation(
    `${event.violatedDirective} blocked ${event.blockedURI || "inline"} on ${location.pathname}`
    + (event.sample ? `: ${event.sample}` : "")
  );
});
"""


@pytest.fixture
def violations(page) -> list[str]:
    found: list[str] = []

    def report(text: str) -> None:
        found.append(text)

    def console(message) -> None:
        if message.type == "error" and "Content Security Policy" in message.text:
            found.append(f"console: {message.text}")

    page.expose_function("reportViolation", report)
    page.add_init_script(LISTEN)
    page.on("console", console)
    return found


@pytest.fixture
def campaign_with_mara():
    mara = character_in_campaign(medic_document(), approved=True)
    return mara.campaign, mara


def test_the_builder_works_and_nothing_is_refused(page, violations):
    UserFactory(username="player1")
    log_in(page, "player1")
    start_building(page, "Kim")

    # Typing is previewed (after a pause), a stepper at once, a row added by htmx.
    page.fill("input[name=DEX]", "9")
    expect(page.locator('[data-derived="DEF"]')).to_have_text("4")
    expect(page.locator('[data-points="remaining"]')).to_have_text("90")
    page.locator('button[value="step:STR:1"]').click()
    expect(page.locator('[data-points="remaining"]')).to_have_text("85")
    page.fill("input[name=new-skill]", "Pilot")
    page.get_by_role("button", name="Add", exact=True).first.click()
    expect(page.locator("input[name=skill-0-level]")).to_be_visible()
    # Saved by itself: the script's own request, under connect-src.
    expect(page.locator("[data-save-state]")).to_have_attribute("data-state", "saved")

    # The bar: the attributes' 15 of 100 points are 15% of its width.
    bar = page.locator(".points__bar").bounding_box()
    part = page.locator(".points__part--attributes").bounding_box()
    assert part["height"] > 0
    assert part["width"] == pytest.approx(0.15 * bar["width"], abs=3)
    assert violations == []


def test_the_sheet_play_sheet_and_campaign_pages_refuse_nothing(
    page, violations, campaign_with_mara
):
    campaign, mara = campaign_with_mara
    log_in(page, "player1")

    page.goto(f"/characters/{mara.pk}/")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Mara Tolven")
    page.goto(f"/characters/{mara.pk}/play/")
    expect(page.locator('[data-derived="DEF"]')).to_have_text("4")
    # The odds box loads by htmx as the page opens, and again on a change.
    expect(page.locator("#odds")).not_to_contain_text("The chance of success shows here")
    page.goto(f"/campaigns/{campaign.pk}/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Spinward Marches")
    page.goto("/characters/")
    page.goto("/campaigns/")

    log_out(page)
    log_in(page, "referee")
    page.goto(f"/campaigns/{campaign.pk}/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Spinward Marches")
    page.goto(f"/campaigns/{campaign.pk}/settings/")
    page.goto(f"/characters/{mara.pk}/")
    page.wait_for_load_state("load")

    assert violations == []


def test_the_listener_does_report_what_the_policy_refuses(page, violations):
    # Without this, an empty list above could mean the listener never ran.
    page.goto("/accounts/login/")
    page.evaluate("() => document.body.setAttribute('style', 'color: red')")
    page.evaluate(
        "() => { const s = document.createElement('script'); s.textContent = '1';"
        " document.body.append(s); }"
    )

    # Reports arrive asynchronously: give them a moment (Playwright dispatches while waiting).
    for _ in range(20):
        if len(violations) >= 2:
            break
        page.wait_for_timeout(100)
    assert any("style-src" in v for v in violations), violations
    assert any("script-src" in v for v in violations), violations
