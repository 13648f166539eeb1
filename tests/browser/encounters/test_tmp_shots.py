import pytest
from playwright.sync_api import expect

from characters.core import dice as server_dice
from characters.core.services import store_document
from characters.encounters import services
from tests.browser.pages import log_in
from tests.dice import Scripted
from tests.encounter_people import party_against_corsairs, start, take_up_two_rifles

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("width", [1280, 390])
def test_shots_ffa(page, width, monkeypatch):
    campaign, kira, dorn, corsair = party_against_corsairs()
    encounter = start(campaign, kira, dorn, corsair)
    services.throw_surprise(encounter=encounter, by=campaign.referee, may_be_surprised="opposition", rng=Scripted([6, 1, 1, 1]))
    services.throw_initiative(encounter=encounter, by=campaign.referee, rng=Scripted([6, 5, 4, 3, 2, 1]))
    monkeypatch.setattr(server_dice, "dice_source", lambda: Scripted([3, 1, 1, 3, 3, 3, 3]))
    page.set_viewport_size({"width": width, "height": 900})
    log_in(page, "referee")
    page.goto(f"/encounters/{encounter.pk}/")
    page.locator('[data-chips="target"] .chip-option').first.click()
    page.wait_for_timeout(400)
    page.locator('[data-action="attack"]').click()
    expect(page.locator("#outcome")).to_contain_text("Surprise is lost")
    page.screenshot(path=f"/tmp/qa/ffa-alarm-{width}.png", full_page=True)
    # A corsair out: morale due.
    import rules
    from characters.models import Combatant
    fallen = encounter.combatants.get(name="Vargr corsair 4")
    dead = rules.condition_from_dict(fallen.condition)
    dead, _ = rules.take_damage(dead, amount=dead.maximum * 2, form="L")
    Combatant.objects.filter(pk=fallen.pk).update(condition=rules.condition_as_dict(dead))
    page.goto(f"/encounters/{encounter.pk}/")
    page.locator('[data-morale="opposition"]').scroll_into_view_if_needed()
    page.screenshot(path=f"/tmp/qa/ffa-morale-{width}.png", full_page=True)


@pytest.mark.parametrize("width", [1280, 390])
def test_shots_t4(page, width, monkeypatch):
    campaign, kira, dorn, corsair = party_against_corsairs()
    document = corsair.document | {"equipment": [{"item": "Cutlass", "quantity": 1}, {"item": "Flak jacket", "quantity": 1}]}
    store_document(corsair, document, by=campaign.referee, action="Flak")
    take_up_two_rifles(kira)
    encounter = start(campaign, kira, dorn, corsair, corsairs=2, system="t4")
    services.throw_initiative(encounter=encounter, by=campaign.referee, rng=Scripted([6, 4, 3, 1]))
    services.take_turn(encounter=encounter, by=campaign.referee, action="done_moving")
    page.set_viewport_size({"width": width, "height": 900})
    log_in(page, "referee")
    page.goto(f"/encounters/{encounter.pk}/")
    page.locator('[data-chips="weapon"] .chip-option', has_text="Gauss rifle").click()
    page.wait_for_timeout(400)
    page.locator('[data-chips="autofire_rounds"] .chip-option', has_text="10 rounds").click()
    page.wait_for_timeout(600)
    page.screenshot(path=f"/tmp/qa/t4-burst-odds-{width}.png", full_page=True)
    monkeypatch.setattr(server_dice, "dice_source", lambda: Scripted([2, 3, 1, 3, 4, 6, 5, 5, 2, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4]))
    page.locator('[data-action="attack"]').click()
    page.wait_for_timeout(800)
    page.screenshot(path=f"/tmp/qa/t4-outcome-{width}.png", full_page=True)
    page.locator('[data-action="end"]').click()
    page.locator('[data-action="end-confirmed"]').click()
    expect(page.locator("[data-summary]")).to_be_visible()
    page.screenshot(path=f"/tmp/qa/t4-summary-{width}.png", full_page=True)
