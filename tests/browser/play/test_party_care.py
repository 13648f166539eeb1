"""The referee's play sheet for an unconscious character, at desktop and phone widths: the
dice are not offered (the reason is), the weapon table and the worn armor's AV are there, and
the party's surgeon, chosen by default, stabilises the wound with her own Medical."""

import pytest
from playwright.sync_api import expect

import rules
from characters.builder import services as builder_services
from characters.core import dice as server_dice
from characters.models import Character
from characters.play import services as play_services
from tests.browser.pages import log_in
from tests.dice import Scripted
from tests.factories import UserFactory, character_in_campaign, medic_document

pytestmark = pytest.mark.django_db(transaction=True)

VIEWPORTS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_the_party_surgeon_cares_for_the_unconscious_character(page, monkeypatch, viewport):
    equipment = [{"item": name, "quantity": 1} for name in ("Mesh", "Automatic pistol")]
    mara = character_in_campaign(medic_document(equipment=equipment))
    skills = [{"skill": "Medical", "level": 3}]
    doc = builder_services.create_character(
        owner=UserFactory(username="player2"),
        document=medic_document(name="Doc Varga", skills=skills),
        campaign=mara.campaign,
    )
    referee = Character.objects.get(pk=mara.pk).campaign.referee
    play_services.take_damage(character=mara, by=referee, amount=30, form="L", rng=Scripted([]))
    monkeypatch.setattr(server_dice, "dice_source", lambda: Scripted([6, 2, 1]))
    page.set_viewport_size(VIEWPORTS[viewport])
    log_in(page, "referee")
    page.goto(f"/characters/{mara.pk}/play/")
    page.wait_for_load_state("load")

    expect(page.locator('[data-action="roll"]')).to_have_count(0)
    expect(page.locator("[data-cannot-act]")).to_contain_text(
        "Mara Tolven is unconscious and cannot act"
    )
    expect(page.locator('[data-weapon="Automatic pistol"]')).to_be_visible()
    mesh = rules.catalog().equipment_item("Mesh", None)
    expect(page.locator("#damage-armor")).to_have_value(str(mesh.av))

    wound = page.locator('[data-wound="0"]')
    wound.locator('[data-action="open-stabilise"]').click()
    stabilise = wound.locator("details", has=page.locator('[data-action="stabilise"]'))
    medic = stabilise.locator("[data-medic]")
    expect(medic).to_have_value(str(doc.pk))
    expect(medic.locator('option[value="own"]')).to_be_disabled()
    wound.locator('[data-action="stabilise"]').click()

    notice = page.locator("[data-notice]")
    expect(notice).to_have_attribute("data-place", "wounds")
    expect(notice.locator("[data-roll]")).to_contain_text("Doc Varga's Medical-3 EDU")
    expect(page.locator('[data-wound="0"] [data-care]')).to_have_attribute(
        "data-care", "stabilised"
    )
