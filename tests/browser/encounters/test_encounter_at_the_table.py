"""A three-round fight run as a referee runs one (issue 36), in two browsers: the referee's at
1280 px and player1's phone at 390 px.

Kira and Idris (a specialist rifleman in combat armor over reflec) against two Vargr corsairs
(a group), Ghaekh the Vargr, Oro the spear thrower and a hunter. The opposition is surprised
until a corsair hit and left standing raises the alarm; each attack's odds name every DM (the
specialty's +1 among them) and its outcome shows how the dice were read and the damage worked
out, through the armor worn; a spear thrown beyond STR x 5 m is refused in the odds; a fighter
out of action is no target but for the referee's coup de grâce; the end is confirmed. The
server's dice are scripted, one list per action (padded: a light wound throws its bleeding).
"""

import pytest
from playwright.sync_api import expect

from characters.core import dice as server_dice
from characters.encounters.selectors import board
from tests.browser.pages import log_in
from tests.dice import Scripted
from tests.encounter_people import party_against_corsairs, raid_on_the_depot

pytestmark = pytest.mark.django_db(transaction=True)

PAD = [3] * 12


def fits(page) -> bool:
    return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


def chip(page, chips: str, label: str):
    return page.locator(f'[data-chips="{chips}"] .chip-option', has_text=label)


def throw(page):
    page.locator('[data-action="attack"]').click()
    return page.locator("#outcome")


def test_a_three_round_fight_at_the_table(page, second_page, monkeypatch):
    campaign, kira, _dorn, corsair = party_against_corsairs()
    encounter = raid_on_the_depot(campaign, kira, corsair)
    # Initiative as fielded: Kira, Idris, the corsairs, Ghaekh, Oro, the hunter (10 down to 4).
    order = [10 - place - row.ini_now for place, row in enumerate(board(encounter).rows)]
    throws = iter(
        [
            [6, 6, 1, 1],  # surprise: the party 6 + 1, the opposition 1
            order,
            [4, 2, 1, *PAD],  # Kira at corsair 1
            [6, 6, 1, *PAD],  # Idris at corsair 2, no longer surprised
            [3, 3],  # the opposition's morale
            [6, 3, *PAD],  # corsair 1's cutlass at Idris
            [6, *PAD],  # Ghaekh's claws at Idris
            [6, 6, *PAD],  # Oro's spear at Kira
            [5, 4, 1, *PAD],  # the hunter's teeth at Kira
        ]
    )
    monkeypatch.setattr(server_dice, "dice_source", lambda: Scripted(next(throws)))
    ref, phone = second_page, page
    ref.set_viewport_size({"width": 1280, "height": 900})
    phone.set_viewport_size({"width": 390, "height": 844})
    url = f"/encounters/{encounter.pk}/"
    log_in(ref, "referee")
    log_in(phone, "player1")

    # Surprise: the sheets' DMs are shown before the throw and logged with it.
    ref.goto(url)
    expect(ref.locator("[data-range-dms]")).to_contain_text("4 or more members in the side -1")
    ref.locator(".chip-option", has_text="The opposition").first.click()
    ref.locator('[data-action="surprise"]').click()
    expect(ref.locator("#outcome")).to_contain_text("the opposition is surprised")
    expect(ref.locator("#outcome")).to_contain_text("4 or more members in the side -1")
    ref.locator('[data-action="initiative"]').click()
    expect(ref.locator("[data-initiative-rolls]")).to_contain_text("Kira Valen: 1D")

    # Round 1, on the phone: Kira's pistol at a surprised corsair (TN 1), which cries out.
    phone.goto(url)
    expect(phone.locator("#act-heading")).to_have_text("Kira Valen's turn")
    expect(chip(phone, "target", "Vargr corsair 1 (surprised)")).to_be_visible()
    outcome = throw(phone)
    expect(outcome).to_contain_text("3DH: highest die: 4; 4 -2 = 2 vs TN 1, EN 1.")
    expect(outcome).to_contain_text(
        "Damage (P/L): EN 1: \u00d71 \u00d7 DMG 6 = 6 \u2212 AV 3 (Jack (TL 1)) = 3 to LIF."
    )
    expect(outcome).to_contain_text("Vargr corsair 1, hit and still standing, raises the alarm.")
    assert fits(phone)

    # Idris: the specialty's +1 is in the odds before the throw, and in the damage after it.
    expect(phone.locator("#act-heading")).to_have_text("Idris Tane's turn")
    chip(phone, "target", "Vargr corsair 2").click()
    expect(phone.locator("#odds")).to_contain_text("specialty: assault rifle +1")
    outcome = throw(phone)
    # Corsair 1's cry ended the surprise: corsair 2 meets the shot with its own DEF.
    expect(outcome).to_contain_text(
        "3DH: highest die 6, +1 for 1 more six: 7; 7 +1 = 8 vs TN 3, EN 5."
    )
    expect(outcome).to_contain_text("EN 5: \u00d75 \u00d7 DMG 8 = 40 \u2212 AV 3")
    assert fits(phone)

    # Corsair 1's cry ended the surprise: nobody is marked surprised and no alarm is left to
    # give. The referee tests the corsairs' morale, the odds shown before the throw.
    ref.goto(url)
    expect(ref.locator('[data-state="surprised"]')).to_have_count(0)
    expect(ref.locator('[data-action="alarm"]')).to_have_count(0)
    form = ref.locator('[data-morale="opposition"]')
    expect(ref.locator('[data-morale-odds="opposition"]')).to_contain_text("Holds")
    with ref.expect_response(lambda answer: "/morale/odds/" in answer.url):
        form.locator(".chip-option", has_text="Yes").click()
    expect(ref.locator('[data-morale-odds="opposition"]')).to_contain_text(
        "combat experience (trait) +2"
    )
    form.locator('[data-action="morale"]').click()
    expect(ref.locator("#outcome")).to_contain_text("combat experience (trait) +2")

    # Still round 1: the opposition, surprised no more, goes for Idris, whose combat armor
    # meets them.
    expect(ref.locator("#act-heading")).to_have_text("Vargr corsair 1's turn")
    chip(ref, "target", "Idris Tane").click()
    outcome = throw(ref)
    expect(outcome).to_contain_text(
        "EN 2: \u00d72 \u00d7 (DMG +1 + STR DV 4) = 10 \u2212 AV 33 (Combat armor (TL 11))"
    )
    expect(ref.locator("#act-heading")).to_have_text("Ghaekh's turn")
    expect(ref.locator('[data-chips="weapon"] input:checked')).to_have_value("Claws")
    expect(ref.locator('[data-chips="range_band"] input:checked')).to_have_value("close")
    chip(ref, "target", "Idris Tane").click()
    outcome = throw(ref)
    expect(outcome).to_contain_text("1DH: one die: 6; 6 +1 = 7 vs TN 4, EN 3.")
    expect(outcome).not_to_contain_text("nearer than optimal")

    # Oro's spear: long range is beyond STR 8 x 5 m, medium cannot hit Kira, short can.
    expect(ref.locator("#act-heading")).to_have_text("Oro's turn")
    chip(ref, "range_band", "Long").first.click()
    expect(ref.locator("#odds")).to_contain_text("reaches 40 m (STR 8 x 5)")
    ref.locator('[data-chips="range_band"] input[value="medium"]').check()
    expect(ref.locator("#odds")).to_contain_text("It cannot hit")
    ref.locator('[data-chips="range_band"] input[value="short"]').check()
    expect(ref.locator("#odds")).not_to_contain_text("It cannot hit")
    outcome = throw(ref)
    expect(outcome).to_contain_text("2DH: highest die 6, +1 for 1 more six: 7")
    expect(ref.locator("#act-heading")).to_have_text("hunter (40 kg)'s turn")
    outcome = throw(ref)
    expect(outcome).to_contain_text("(DMG +2 + STR DV 4)")
    ref.locator('[data-action="next-round"]').click()

    # Round 2: the dying corsair is no target for the player; the referee may finish it.
    phone.goto(url)
    expect(phone.locator("#act-heading")).to_have_text("Kira Valen's turn")
    expect(phone.locator('[data-chips="target"]')).not_to_contain_text("Vargr corsair 2")
    expect(phone.locator('[data-chips="finish"]')).to_have_count(0)
    assert fits(phone)
    ref.goto(url)
    expect(ref.locator('[data-chips="finish"]')).to_contain_text("Vargr corsair 2 (dying)")
    assert fits(ref)

    # One tap only opens the end; the second ends it, for everyone.
    ref.locator('[data-action="end"]').click()
    expect(ref.locator("[data-summary]")).to_have_count(0)
    ref.locator('[data-action="end-confirmed"]').click()
    expect(ref.locator("[data-summary]")).to_be_visible()
    expect(phone.locator("[data-summary]")).to_be_visible(timeout=10_000)
    assert fits(phone)
