"""A round of T4 and one of 2D6, in two browsers: the referee's laptop (1280 px) and player1's
phone (390 px). The referee sets the campaign's combat system on its house rules, starts the
fight from the campaign page and runs the round; Kira's player acts from the phone, which keeps
up by itself. The server's dice are scripted, one list per action that throws; every figure
checked is worked by hand in tests/integration/encounters/test_encounters_t4.py and _2d6.py.
"""

import re

import pytest
from playwright.sync_api import expect

from characters.core import dice as server_dice
from tests.browser.pages import DESKTOP, PHONE, log_in, serious_violations
from tests.dice import Scripted
from tests.encounter_people import party_against_corsairs

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def laptop(second_page):
    second_page.set_viewport_size(DESKTOP)
    return second_page


@pytest.fixture
def phone(page):
    page.set_viewport_size(PHONE)
    return page


def fits_the_phone(page) -> None:
    """Nothing on the page is wider than the phone: no sideways scrolling."""
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def start_under(laptop, system_label: str, dice) -> None:
    """The referee sets the campaign's combat system, starts the party against two corsairs
    and throws initiative (the throws of each action from ``dice``)."""
    campaign, *_ = party_against_corsairs()
    log_in(laptop, "referee")
    laptop.goto(f"/campaigns/{campaign.pk}/settings/")
    laptop.get_by_label(system_label).check()
    laptop.get_by_role("button", name="Save house rules").click()
    expect(laptop.locator(".messages")).to_contain_text(f"Fights now run under {system_label}")
    laptop.locator('[data-action="start-encounter"]').click()
    expect(laptop.get_by_label(system_label)).to_be_checked()  # the campaign's, offered first
    laptop.fill("input[name=name]", "Ambush at the docks")
    laptop.get_by_label("Vargr corsair: how many").fill("2")
    laptop.locator('[data-action="start-encounter"]').click()
    expect(laptop).to_have_url(re.compile(r"/encounters/\d+/$"))
    laptop.locator('[data-action="initiative"]').click()
    expect(laptop.locator("#outcome")).to_contain_text("Initiative")


@pytest.fixture
def scripted(monkeypatch):
    def script(dice):
        throws = iter(dice)
        monkeypatch.setattr(server_dice, "dice_source", lambda: Scripted(next(throws)))

    return script


def test_a_t4_round_from_a_laptop_and_a_phone(laptop, phone, scripted):
    scripted(
        [
            [3, 6, 2, 1],  # initiative: Dorn 4, Kira 8, corsairs 3 and 2
            [2, 3, 1, 3, 4, 5],  # Kira: 2 + 3 + 1 (half of 1) = 6, the Mid Torso, 5
        ]
    )
    start_under(laptop, "T4 basic combat", None)
    expect(laptop.locator("#act-heading")).to_have_text("Round 1: movement")

    # Kira's player sets her status from the phone: the movement phase asks only for hers.
    log_in(phone, "player1")
    phone.goto(laptop.url)
    expect(phone.locator("[data-status-form]")).to_have_count(1)
    assert not serious_violations(phone)
    phone.locator("select[name=movement]").select_option("walking")
    phone.locator('[data-action="status"]').click()
    expect(phone.locator("#outcome")).to_contain_text("Kira Valen: walking, ranged attack.")
    fits_the_phone(phone)

    laptop.locator('[data-action="done-moving"]').click()
    expect(laptop.locator("#act-heading")).to_have_text("Kira Valen's turn")

    # The phone picks up the turn by itself, with the odds: walking costs her snapshot 4.
    expect(phone.locator("#act-heading")).to_have_text("Kira Valen's turn", timeout=8000)
    expect(phone.locator("#odds")).to_contain_text("at or under 10")
    expect(phone.locator("#odds")).to_contain_text("attacker walking (III.3) -4")
    expect(phone.locator('[data-chips="target"] input:checked')).to_have_value(re.compile(r"\d+"))
    assert not serious_violations(phone)

    # 2.5D: 2 + 3 + 1 (the half die's 1) = 6, at or under 10: a hit on the Mid Torso (34),
    # 2D less the jack's die: a 5, and the die the jack absorbed is 1 point of blunt trauma.
    phone.locator('[data-action="attack"]').click()
    outcome = phone.locator("#outcome")
    expect(outcome).to_contain_text("Kira Valen attacks Vargr corsair 1")
    expect(outcome).to_contain_text("2+3 + half die 1 (1) reads 6; hit: Mid Torso (34): 6 damage")
    expect(outcome.locator("[data-worked]")).to_contain_text(
        "2 \u00d7 Handgun 3 + \u2308DEX 10 \u00f7 2\u2309 = 11, attacker walking (III.3) -4"
    )
    fits_the_phone(phone)

    # The referee undoes it from the laptop; the phone shows the turn back.
    laptop.reload()
    laptop.locator('[data-action="undo"]').first.click()
    expect(laptop.locator("#outcome")).to_contain_text("Undone: Kira Valen attacks")
    expect(phone.locator('[data-action="attack"]')).to_be_visible(timeout=8000)


def test_a_2d6_reaction_is_asked_on_the_targets_phone(laptop, phone, scripted):
    scripted(
        [
            [1, 1, 2, 2, 6, 6, 1, 2],  # initiative: Dorn 2, Kira 5, corsair 1 12, corsair 2 3
            [],  # the attack, declared: no die until Kira's reaction
            [6, 6, 3, 3],  # corsair 1's cutlass: 12 + 3 - 1 (Kira dodges) = 14, Effect 6; 3 + 3
        ]
    )
    start_under(laptop, "2D6 combat", None)
    expect(laptop.locator("#act-heading")).to_have_text("Vargr corsair 1's turn")
    log_in(phone, "player1")
    phone.goto(laptop.url)

    laptop.locator('[data-chips="target"] .chip-option', has_text="Kira Valen").click()
    laptop.locator('[data-chips="range_band"] .chip-option', has_text="Personal").click()
    expect(laptop.locator("input[name=reaction][value=ask]")).to_be_checked()
    laptop.locator('[data-action="attack"]').click()
    expect(laptop.locator("#act-heading")).to_have_text("Kira Valen is attacked")
    expect(laptop.locator("#act")).to_contain_text("Answer for Kira Valen's player")

    # Kira's phone is asked, with the odds of each reaction; her player dodges.
    expect(phone.locator("[data-reaction]")).to_be_visible(timeout=8000)
    expect(phone.locator('[data-reaction-odds="dodge"]')).to_contain_text("hit 72.2%")
    fits_the_phone(phone)
    assert not serious_violations(phone)
    phone.locator("label:has(input[name=reaction][value=dodge])").click()
    phone.locator('[data-action="react"]').click()
    outcome = phone.locator("#outcome")
    # 12 + 3 - 1 = 14, Effect 6; 2D 3 + 3 = 6 + 6 = 12 on an unarmoured Kira: END 7, then 5 to
    # the higher of STR 7 and DEX 10.
    expect(outcome).to_contain_text("2D 6+6 +2 = 14 vs 8, a hit, Effect 6")
    expect(outcome).to_contain_text("Kira Valen dodges: initiative -2")
    expect(phone.locator("[data-mine]")).to_contain_text("END 0/7")
    expect(phone.locator("[data-mine]")).to_contain_text("DEX 5/10")

    # The laptop's log has it by itself.
    expect(laptop.locator("#log")).to_contain_text("Kira Valen dodges", timeout=8000)

    # Kira's play sheet shows her 2D6 record, named cell by cell on the phone.
    phone.locator("[data-mine] a", has_text="Play sheet").click()
    record = phone.locator('[data-record="2d6"]')
    expect(record.locator('[data-now="END"]')).to_have_text("0")
    expect(record.locator('td[data-label="Now"]').first).to_be_visible()
    fits_the_phone(phone)
    assert not serious_violations(phone)
