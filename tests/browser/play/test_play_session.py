"""A short session in play, in two browsers: the player's and the referee's.

The player's character takes a blow and the sheet shows the wound and the lowered DEF; the
player treats it; the referee awards improvement points and the player spends them; the
player throws an action test that the campaign's log shows; after a mistaken edit the player
restores an earlier revision. The dice are the server's, scripted for the test.
"""

import pytest
from playwright.sync_api import expect

from characters.core import dice as server_dice
from characters.models import Character
from tests.browser.pages import log_in
from tests.dice import Scripted
from tests.factories import character_in_campaign, medic_document

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def referee_page(second_page):
    """The referee's browser: their cookies are not the other's."""
    return second_page


@pytest.fixture
def mara():
    """The scout medic of ``medic_document``, approved in the referee's campaign."""
    return character_in_campaign(medic_document(), approved=True)


def test_a_short_session_in_play(page, referee_page, mara, monkeypatch):
    # The light wound's bleeding days: 3; treatment: Medical-2 throws 5 and 3; the action
    # test: Pilot-2 throws 4 and 2.
    faces = [3, 5, 3, 4, 2]
    dice = Scripted(faces)
    monkeypatch.setattr(server_dice, "dice_source", lambda: dice)
    play_url = f"/characters/{mara.pk}/play/"
    log_in(page, "player1")
    page.goto(play_url)
    page.evaluate("() => { window.__samePage = true }")
    expect(page.locator('[data-derived="DEF"]')).to_have_text("4")
    expect(page.locator('[data-state="ok"]')).to_be_visible()

    # A blow of 9 lethal: a light wound (up to 2 x WND 6), body attributes -2, DEF 3.
    page.fill("#damage-amount", "9")
    page.locator('[data-action="damage"]').click()
    expect(page.locator("[data-notice]")).to_contain_text("A light wound: 9 damage against WND 6")
    wound = page.locator('[data-wound="0"]')
    expect(wound).to_have_attribute("data-severity", "light")
    expect(wound.locator("[data-effect]")).to_have_text("Body attributes -2")
    expect(page.locator('[data-lif-box="x"]')).to_have_count(9)
    expect(page.locator("[data-lif]")).to_have_text("14")
    expect(page.locator('[data-derived="DEF"]')).to_have_text("3")
    expect(page.locator('[data-state="bleeding"]')).to_be_visible()
    expect(wound.locator("[data-bleed-left]")).to_have_text("3 days")

    # The player treats it with a medical kit: 5 + EDU DM 1 + kit 2 = 8 vs TN 4, EN 4 healed.
    wound.locator('[data-action="open-treat"]').click()
    wound.locator('[data-action="treat"]').click()
    expect(page.locator("[data-notice]")).to_contain_text("The light wound is treated")
    expect(page.locator("[data-notice] [data-total]")).to_have_text("8")
    expect(page.locator('[data-wound="0"] [data-effect]')).to_have_text("None")
    expect(page.locator('[data-lif-box="x"]')).to_have_count(5)
    expect(page.locator('[data-derived="DEF"]')).to_have_text("4")
    assert page.evaluate("() => window.__samePage") is True, "htmx swapped the region in place"

    # The referee awards improvement points from their own browser.
    log_in(referee_page, "referee")
    referee_page.goto(play_url)
    referee_page.fill("#award-amount", "12")
    referee_page.fill("#award-reason", "Got the courier to Regina")
    referee_page.locator('[data-action="award"]').click()
    expect(referee_page.locator("[data-ip-balance]")).to_have_text("12")

    # The player spends 10 of them on Pilot-2 (new level 2 x 5).
    page.reload()
    expect(page.locator("[data-ip-balance]")).to_have_text("12")
    page.select_option("#spend-skill", label="Pilot-1 (next level 10 IP)")
    page.fill("#spend-level", "2")
    page.locator('[data-action="raise-skill"]').click()
    expect(page.locator("[data-notice]")).to_have_text("Spent 10 IP: Pilot-1 → Pilot-2.")
    expect(page.locator("[data-ip-balance]")).to_have_text("2")
    page.evaluate("() => { window.__samePage = true }")

    # An action test: Pilot-2 DEX, average (TN 4). 2DH shows 4; DEX DM +1: 5, EN 1.
    page.select_option("#roll-skill", label="Pilot-2 (DEX)")
    page.select_option("#roll-attribute", value="DEX")
    expect(page.locator("[data-odds]")).to_contain_text("%")
    page.locator('[data-action="roll"]').click()
    latest = page.locator("[data-notice] [data-roll]")
    expect(latest).to_contain_text("Pilot-2 DEX")
    expect(latest.locator("[data-total]")).to_have_text("5")
    expect(latest.locator("[data-effect]")).to_have_text("1")
    expect(latest.locator("[data-success]")).to_have_attribute("data-success", "yes")
    assert page.evaluate("() => window.__samePage") is True, "htmx swapped the region in place"
    referee_page.goto(f"/campaigns/{mara.campaign_id}/")
    expect(referee_page.locator("[data-campaign-rolls]")).to_contain_text(
        "Mara Tolven: Pilot-2 DEX"
    )

    # The referee reopens Mara for a correction; the player's edit goes wrong, and the player
    # restores the revision before it, as a new revision.
    referee_page.goto(f"/characters/{mara.pk}/")
    referee_page.locator('[data-action="reopen"]').click()
    expect(referee_page.locator(".message--success")).to_contain_text("reopened")
    page.goto(f"/characters/{mara.pk}/edit/")
    page.fill("input[name=homeworld]", "Rhylanor")
    page.locator('[data-action="save"]').click()
    expect(page.locator(".message--success")).to_contain_text("Mara Tolven saved")
    page.goto(f"/characters/{mara.pk}/history/")
    rows = page.locator("[data-history] tbody tr")
    expect(rows.first).to_contain_text("Homeworld Regina → Rhylanor")
    purchase = rows.filter(has_text="Improvement: Pilot-1 → Pilot-2")
    number = purchase.get_attribute("data-revision")
    purchase.locator('[data-action="restore"]').click()
    expect(page.locator(".message--success")).to_contain_text(f"Restored revision {number}")
    expect(rows.first).to_contain_text(f"Restored revision {number}")
    expect(rows.first).to_contain_text("Homeworld Rhylanor → Regina")

    restored = Character.objects.get(pk=mara.pk)
    assert restored.document["homeworld"] == "Regina"
    assert {"skill": "Pilot", "level": 2} in restored.document["skills"]
    assert dice.faces == []
