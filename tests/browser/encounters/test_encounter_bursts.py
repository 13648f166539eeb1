"""The autofire chips follow the weapon chosen, on player1's phone: Kira carries an accelerator
rifle (RoF 1:3) and a Gauss rifle (RoF 1:4:10). With the accelerator rifle only its 3-round
burst is offered; choosing the Gauss rifle offers 4, 8 and 10 and drops the 3 chosen, before
the odds are asked for; her hands offer no burst at all. She then fires 8 rounds."""

import re

import pytest
from playwright.sync_api import expect

from characters.core import dice as server_dice
from characters.encounters import services
from tests.browser.pages import log_in
from tests.dice import Scripted
from tests.encounter_people import party_against_corsairs, start, take_up_two_rifles

pytestmark = pytest.mark.django_db(transaction=True)

INITIATIVE = [6, 5, 4, 3, 2, 1]  # Kira, Dorn, corsairs 1 to 4
ATTACK = [6, 6, 6, 1, 1]  # Kira's burst, with spare dice for any bleeding


def choose(page, group: str, label: str) -> None:
    """Tap a chip and wait for the odds it changes."""
    chip = page.locator(f'[data-chips="{group}"] .chip-option', has_text=label)
    with page.expect_response(re.compile(r"/odds/")):
        chip.click()
    expect(chip.locator("input")).to_be_checked()


def bursts(page):
    return page.locator('[data-chips="autofire_rounds"] .chip-option:visible')


def test_the_bursts_offered_are_those_of_the_weapon_chosen(page, monkeypatch):
    campaign, kira, dorn, corsair = party_against_corsairs()
    take_up_two_rifles(kira)
    encounter = start(campaign, kira, dorn, corsair)
    services.throw_initiative(encounter=encounter, by=campaign.referee, rng=Scripted(INITIATIVE))
    monkeypatch.setattr(server_dice, "dice_source", lambda: Scripted(ATTACK))

    log_in(page, "player1")
    page.goto(f"/encounters/{encounter.pk}/")
    page.wait_for_load_state("load")
    expect(page.locator("#act-heading")).to_have_text("Kira Valen's turn")

    # The accelerator rifle, chosen first, fires bursts of 3 only.
    expect(bursts(page)).to_have_text(["Single shot", "3 rounds (Accelerator rifle)"])
    choose(page, "autofire_rounds", "3 rounds")
    expect(page.locator("#odds")).to_contain_text("autofire, 3 rounds")

    # The Gauss rifle: its own bursts, and the 3 chosen is a single shot before the odds come.
    choose(page, "weapon", "Gauss rifle")
    expect(bursts(page)).to_have_text(
        [
            "Single shot",
            "4 rounds (Gauss rifle)",
            "8 rounds (Gauss rifle)",
            "10 rounds (Gauss rifle)",
        ]
    )
    expect(page.locator('[data-chips="autofire_rounds"] input[value="0"]')).to_be_checked()
    # The odds of a single shot (a 3-round burst would be refused with this rifle).
    expect(page.locator("#odds")).not_to_contain_text("autofire, 3 rounds")
    expect(page.locator("[data-odds-error]")).to_have_count(0)
    expect(page.locator("[data-odds]")).to_be_visible()

    # Hands fire no burst: the autofire part goes.
    choose(page, "weapon", "Hands")
    expect(page.locator("[data-autofire]")).to_be_hidden()

    choose(page, "weapon", "Gauss rifle")
    choose(page, "autofire_rounds", "8 rounds")
    page.locator('[data-action="attack"]').click()
    expect(page.locator("#outcome")).to_contain_text("with the Gauss rifle")
    expect(page.locator("#outcome")).to_contain_text("autofire, 8 rounds +2")


def range_chosen(page):
    return page.locator('[data-chips="range_band"] input:checked')


def test_the_range_follows_the_weapon_chosen_until_a_range_is_chosen(page):
    campaign, kira, dorn, corsair = party_against_corsairs()
    take_up_two_rifles(kira)
    encounter = start(campaign, kira, dorn, corsair)
    services.throw_initiative(encounter=encounter, by=campaign.referee, rng=Scripted(INITIATIVE))

    log_in(page, "player1")
    page.goto(f"/encounters/{encounter.pk}/")
    page.wait_for_load_state("load")

    # A rifle at pistol range; her hands at contact, with the odds asked for at that range.
    expect(range_chosen(page)).to_have_value("medium")
    choose(page, "weapon", "Hands")
    expect(range_chosen(page)).to_have_value("contact")
    expect(page.locator("#odds")).not_to_contain_text("range:")
    choose(page, "weapon", "Gauss rifle")
    expect(range_chosen(page)).to_have_value("medium")

    # A range chosen by hand stays when the weapon changes.
    choose(page, "range_band", "Short")
    choose(page, "weapon", "Accelerator rifle")
    expect(range_chosen(page)).to_have_value("short")
