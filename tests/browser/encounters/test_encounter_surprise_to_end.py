"""A fight from its surprise to its end, in two browsers: the referee's at 1280 px and
player1's phone at 390 px.

The referee starts the encounter (the party against four Vargr corsairs), marks the
opposition as the side that may be surprised and throws for it: the corsairs are surprised.
Initiative; Kira, on her phone, delays to act after Dorn, and he after her; the referee brings
in a fifth corsair, who throws initiative as he joins, then ends the encounter: its summary
shows, and the campaign page lists it among the past encounters. The server's dice are
scripted, one list per action.
"""

import re

import pytest
from playwright.sync_api import expect

from characters.core import dice as server_dice
from tests.browser.pages import log_in
from tests.dice import Scripted
from tests.encounter_people import party_against_corsairs

pytestmark = pytest.mark.django_db(transaction=True)

DICE = [
    [6, 1, 1, 1],  # surprise: the party 6 against the corsairs 1
    [5, 6, 4, 3, 2, 1],  # initiative: Dorn, Kira (the party by name), corsairs 1 to 4
    [1],  # corsair 5 joins with a 1: last
]


@pytest.fixture
def referee_page(second_page):
    second_page.set_viewport_size({"width": 1280, "height": 900})
    return second_page


@pytest.fixture
def phone(page):
    page.set_viewport_size({"width": 390, "height": 844})
    return page


def fits(page) -> bool:
    """Nothing wider than the screen: no sideways scrolling."""
    return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


def test_surprise_a_chosen_delay_reinforcements_and_the_end(phone, referee_page, monkeypatch):
    campaign, _, _, _ = party_against_corsairs()
    throws = iter(DICE)
    monkeypatch.setattr(server_dice, "dice_source", lambda: Scripted(next(throws)))
    ref = referee_page

    log_in(ref, "referee")
    ref.goto(f"/campaigns/{campaign.pk}/")
    ref.locator('[data-action="start-encounter"]').click()
    ref.fill("input[name=name]", "Ambush at the docks")
    ref.get_by_label("Vargr corsair: how many").fill("4")
    ref.locator('[data-action="start-encounter"]').click()
    expect(ref).to_have_url(re.compile(r"/encounters/\d+/$"))
    url = ref.url

    # Surprise: the opposition may be surprised, and is; the log shows the dice and DMs.
    ref.locator(".chip-option", has_text="The opposition").click()
    ref.locator('[data-action="surprise"]').click()
    expect(ref.locator("#outcome")).to_contain_text("the opposition is surprised")
    expect(ref.locator("#outcome")).to_contain_text(
        "the party 6 (dice 6, 1; Dorn Hask's AWA DM +0)"
    )
    expect(ref.locator('[data-state="surprised"]')).to_have_count(4)
    expect(ref.locator('[data-action="surprise"]')).to_have_count(0)
    ref.locator('[data-action="initiative"]').click()
    expect(ref.locator("[data-now]")).to_contain_text("Kira Valen")

    # The corsairs lose their turns: Kira, on her phone, can only wait for Dorn, and he for her.
    log_in(phone, "player1")
    phone.goto(url)
    expect(phone.locator("#act-heading")).to_have_text("Kira Valen's turn")
    expect(phone.locator('[data-chips="after"] .chip-option')).to_have_text(["Dorn Hask"])
    assert fits(phone)
    phone.locator('[data-action="delay"]').click()
    expect(phone.locator("#outcome")).to_contain_text("Kira Valen delays, acting after Dorn Hask.")
    expect(phone.locator("#act-heading")).to_have_text("Dorn Hask's turn")
    expect(ref.locator("[data-now]")).to_contain_text("Dorn Hask", timeout=10_000)
    ref.reload()
    ref.locator('[data-chips="after"] .chip-option', has_text="Kira Valen").click()
    ref.locator('[data-action="delay"]').click()
    expect(ref.locator("#outcome")).to_contain_text("Dorn Hask delays, acting after Kira Valen.")

    # A fifth corsair joins and throws initiative as he comes: a 1 puts him last.
    ref.reload()
    ref.locator('[data-action="join"]').click()
    ref.get_by_label("Vargr corsair: how many").fill("1")
    ref.locator('[data-action="add-combatants"]').click()
    expect(ref).to_have_url(url)
    expect(ref.locator("[data-combatant]")).to_have_count(7)
    expect(ref.locator("[data-combatant]").last).to_contain_text("Vargr corsair 5")
    expect(ref.locator("[data-now]")).to_contain_text("Kira Valen")
    expect(phone.locator("[data-combatant]")).to_have_count(7, timeout=10_000)

    # The referee ends it, confirmed: the summary, read-only, and a past encounter on the
    # campaign page.
    ref.locator('[data-action="end"]').click()
    expect(ref.locator("[data-summary]")).to_have_count(0)
    ref.locator('[data-action="end-confirmed"]').click()
    expect(ref.locator("[data-summary]")).to_be_visible()
    expect(ref.locator("[data-summary] tbody tr")).to_have_count(7)
    expect(ref.locator('[data-action="attack"]')).to_have_count(0)
    expect(phone.locator("[data-summary]")).to_be_visible(timeout=10_000)
    assert fits(phone)
    ref.goto(f"/campaigns/{campaign.pk}/")
    expect(ref.locator("[data-past-encounters]")).to_contain_text("Ambush at the docks")
