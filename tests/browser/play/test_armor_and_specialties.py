"""On a phone, the player puts reflec on under the combat armor the sheet marks worn, and the
"Take damage" form says what each blow meets; then throws a test the Pilot specialty is in,
which takes its +1 (issue 36)."""

import pytest
from playwright.sync_api import expect

from characters.core import dice as server_dice
from tests.browser.pages import log_in
from tests.dice import Scripted
from tests.factories import character_in_campaign, medic_document

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def pilot():
    document = medic_document(
        skills=[
            {"skill": "Medical", "level": 2},
            {"skill": "Pilot", "level": 2, "specialties": ["small craft"]},
        ],
        equipment=[
            {"item": "Combat armor", "tl": 11, "quantity": 1, "worn": True},
            {"item": "Reflec", "quantity": 1},
            {"item": "Helmet", "quantity": 1},
        ],
    )
    document["attributes"] = {**document["attributes"], "STR": 9}
    return character_in_campaign(document)


def test_the_player_wears_reflec_under_armor_and_throws_a_specialty_test(page, pilot, monkeypatch):
    monkeypatch.setattr(server_dice, "dice_source", lambda: Scripted([4, 2]))
    page.set_viewport_size({"width": 390, "height": 844})
    log_in(page, "player1")
    page.goto(f"/characters/{pilot.pk}/play/")
    page.wait_for_load_state("load")

    expect(page.locator("[data-worn]")).to_contain_text("Combat armor (TL 11) (AV 33).")
    expect(page.locator("[data-worn]")).to_contain_text("As the character sheet marks it.")
    form = page.locator("[data-wear]")
    form.locator(".chip-option", has_text="Reflec").click()
    form.locator(".chip-option", has_text="Helmet").click()
    page.locator('[data-action="wear"]').click()

    expect(page.locator("[data-notice]")).to_contain_text(
        "Wears Combat armor (TL 11), with Reflec (TL 10) under it and a Helmet (TL 5)."
    )
    expect(page.locator("[data-worn]")).to_contain_text("Chosen on this sheet.")
    expect(page.locator("[data-armor-worn]")).to_contain_text(
        "with Reflec (TL 10) (AV 30) under it: use the better AV against the blow"
    )
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")

    page.locator("#roll-skill").select_option("Pilot::::small craft")
    expect(page.locator("#odds")).to_contain_text("Pilot-2 (small craft, +1) DEX")
    page.locator('[data-action="roll"]').click()
    expect(page.locator("[data-roll]").first).to_contain_text("Pilot-2 (small craft, +1) DEX")


def test_a_choice_made_the_moment_the_sheet_is_redrawn_still_updates_the_odds(page, pilot):
    log_in(page, "player1")
    page.goto(f"/characters/{pilot.pk}/play/")
    page.wait_for_load_state("load")
    # As soon as the wear form's answer is in the page, before anything else runs, the player
    # picks a skill in the redrawn roll form.
    page.evaluate(
        """() => document.body.addEventListener("htmx:afterSwap", () => setTimeout(() => {
            const skill = document.getElementById("roll-skill");
            skill.value = "Pilot::::small craft";
            skill.dispatchEvent(new Event("change", { bubbles: true }));
        }), { once: true })"""
    )
    page.locator("[data-wear] .chip-option", has_text="Helmet").click()
    page.locator('[data-action="wear"]').click()

    expect(page.locator("#odds")).to_contain_text("Pilot-2 (small craft, +1) DEX")
