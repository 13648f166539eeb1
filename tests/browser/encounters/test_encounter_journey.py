"""Three rounds of a fight, in two browsers: the referee's at 1280 px and player1's phone.

The referee starts the encounter from the campaign page (the party against four Vargr corsairs
fielded from one stat block) and throws initiative. Kira shoots a corsair at short range in
some cover, seeing the odds first; a corsair's cutlass wounds her, which her play sheet shows
and her phone picks up by itself; the referee undoes that blow and the wound is gone; Kira
misses at medium range in good cover, then takes the corsair out of action at short range, and
the referee throws the corsairs' morale test. The server's dice are scripted, one list per
action that throws.
"""

import re

import pytest
from playwright.sync_api import expect

from characters.core import dice as server_dice
from tests.browser.pages import log_in
from tests.dice import Scripted
from tests.encounter_people import party_against_corsairs

pytestmark = pytest.mark.django_db(transaction=True)

# The dice of each action that throws, in the order they come.
DICE = [
    [5, 6, 4, 3, 2, 1],  # initiative: Dorn, Kira (the party by name), corsairs 1 to 4
    [6, 6, 6, 2],  # Kira hits corsair 1 (and his light wound's bleeding days)
    [6, 6],  # corsair 1 cuts Kira: a superficial wound
    [3, 3],  # after the undo, corsair 1 misses
    [5, 5, 5],  # round 2: Kira misses at medium range in good cover
    [6, 6, 6, 1, 1],  # round 3: Kira takes corsair 1 out (spare dice for any bleeding)
    [6, 6],  # the corsairs' morale
]


@pytest.fixture
def referee_page(second_page):
    second_page.set_viewport_size({"width": 1280, "height": 900})
    return second_page


@pytest.fixture
def phone(page):
    page.set_viewport_size({"width": 390, "height": 844})
    return page


def end_turn(page, name: str) -> None:
    expect(page.locator("#act-heading")).to_have_text(f"{name}'s turn")
    page.locator('[data-action="pass"]').click()
    expect(page.locator("#outcome")).to_contain_text(f"{name} ends its turn.")


def choose(page, group: str, label: str) -> None:
    """Tap a chip, and wait for the odds it changes (a chip already chosen changes nothing)."""
    chip = page.locator(f'[data-chips="{group}"] .chip-option', has_text=label)
    if chip.locator("input").is_checked():
        return
    with page.expect_response(re.compile(r"/odds/")):
        chip.click()
    expect(chip.locator("input")).to_be_checked()


def attack(page, *, target: str, range_band: str, cover: str = "None") -> str:
    """Choose the target, range and cover as chips; returns the odds shown before the throw."""
    choose(page, "target", target)
    choose(page, "range_band", range_band)
    choose(page, "cover", cover)
    # The odds shown are those of every chip chosen (a later change replaces an earlier one's
    # request, so an answer that comes late never shows).
    if cover != "None":
        expect(page.locator("#odds")).to_contain_text(f"cover: {cover.lower()}")
    odds = page.locator("[data-odds]").inner_text()
    page.locator('[data-action="attack"]').click()
    # The result shows where the button was: the page stays where it is, the result in view.
    expect(page.locator("#outcome")).to_contain_text(" attacks ")
    expect(page.locator("#outcome")).to_be_in_viewport()
    return odds


@pytest.fixture
def ambush(phone, referee_page, monkeypatch):
    """The referee starts the encounter from the campaign page (the party and four corsairs)
    and throws initiative: Kira's turn, which her player's phone shows. The dice are DICE's.
    Returns Kira."""
    campaign, kira, _, _ = party_against_corsairs()
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
    ref.locator('[data-action="initiative"]').click()
    expect(ref.locator("[data-now]")).to_contain_text("Kira Valen")
    expect(ref.locator("[data-combatant]")).to_have_count(6)
    log_in(phone, "player1")
    phone.goto(ref.url)
    expect(phone.locator("#act-heading")).to_have_text("Kira Valen's turn")
    return kira


def test_three_rounds_against_a_group_of_corsairs(phone, referee_page, ambush):
    kira = ambush
    ref = referee_page

    # Kira's player, on a phone, sees her turn and shoots corsair 1 in some cover.
    phone.evaluate("() => { window.__samePage = true }")
    odds = attack(phone, target="Vargr corsair 1", range_band="Short", cover="Some")
    assert re.fullmatch(r"\d+(\.\d)?%", odds)
    notice = phone.locator("#outcome")
    expect(notice).to_contain_text("Kira Valen attacks Vargr corsair 1 with the Automatic pistol")
    expect(notice.locator("[data-hit]")).to_have_attribute("data-hit", "yes")
    expect(notice).to_contain_text(f"chance was {odds}")
    expect(notice).to_contain_text("range: short")
    expect(notice).to_contain_text("cover: some")
    expect(notice).to_contain_text("a light wound")
    expect(phone.locator("#act-heading")).to_have_text("Dorn Hask's turn")

    # The referee's page picks it up by itself (the log, and the panel: the turn moved on),
    # ends Dorn's turn, and corsair 1 cuts Kira.
    expect(ref.locator('[data-entry="attack"]')).to_have_count(1, timeout=10_000)
    end_turn(ref, "Dorn Hask")
    attack(ref, target="Kira Valen", range_band="Close")
    expect(ref.locator("#outcome")).to_contain_text(
        "Vargr corsair 1 attacks Kira Valen with the Cutlass"
    )
    expect(ref.locator("#outcome")).to_contain_text("a superficial wound")

    # Kira's phone picks it up by itself; her play sheet shows the wound.
    expect(phone.locator('[data-my-wound="superficial"]')).to_be_visible(timeout=10_000)
    assert phone.evaluate("() => window.__samePage") is True, "the phone was not reloaded"
    sheet = phone.context.new_page()
    sheet.goto(f"/characters/{kira.pk}/play/")
    expect(sheet.locator('[data-wound="0"]')).to_have_attribute("data-severity", "superficial")

    # The referee undoes the blow: Kira's sheet and the phone are whole again.
    ref.locator('[data-action="undo"]').click()
    expect(ref.locator("#outcome")).to_contain_text("Undone: Vargr corsair 1 attacks Kira Valen")
    expect(ref.locator("[data-undone]")).to_have_count(1)
    expect(phone.locator('[data-my-wound="superficial"]')).to_have_count(0, timeout=10_000)
    sheet.reload()
    expect(sheet.locator("[data-wound]")).to_have_count(0)
    sheet.close()

    # Corsair 1 tries again and misses; the others wait; round 2.
    attack(ref, target="Kira Valen", range_band="Close")
    expect(ref.locator("#outcome [data-hit]")).to_have_attribute("data-hit", "no")
    for n in (2, 3, 4):
        end_turn(ref, f"Vargr corsair {n}")
    ref.locator('[data-action="next-round"]').click()
    expect(ref.locator("[data-round]")).to_have_text("2")

    # Round 2: at medium range in good cover the odds are long, and Kira misses.
    expect(phone.locator("#act-heading")).to_have_text("Kira Valen's turn", timeout=10_000)
    far = attack(phone, target="Vargr corsair 1", range_band="Medium", cover="Good")
    assert float(far.rstrip("%")) < float(odds.rstrip("%"))
    expect(phone.locator("#outcome [data-hit]")).to_have_attribute("data-hit", "no")
    ref.reload()
    for name in ("Dorn Hask", *(f"Vargr corsair {n}" for n in range(1, 5))):
        end_turn(ref, name)
    ref.locator('[data-action="next-round"]').click()
    expect(ref.locator("[data-round]")).to_have_text("3")

    # Round 3: Kira takes corsair 1 out of action; a fifth of the corsairs are down.
    expect(phone.locator("#act-heading")).to_have_text("Kira Valen's turn", timeout=10_000)
    attack(phone, target="Vargr corsair 1", range_band="Short", cover="None")
    expect(phone.locator("#outcome [data-hit]")).to_have_attribute("data-hit", "yes")
    ref.reload()
    corsair = ref.locator("[data-combatant]", has_text="Vargr corsair 1")
    expect(corsair).to_have_class(re.compile("turn--out"))
    ref.locator('[data-action="morale"][data-side="opposition"]').click()
    expect(ref.locator("#outcome")).to_contain_text("Morale of the opposition")
    expect(ref.locator("#outcome")).to_contain_text("it holds")
    expect(ref.locator('[data-action="morale"]')).to_have_count(0)


def test_a_panel_being_filled_in_stays_when_the_turn_moves_on_elsewhere(
    phone, referee_page, ambush
):
    """Swapped for the next turn's panel under the referee's finger, the next tap would have
    thrown for the next fighter with its defaults."""
    ref = referee_page

    # The referee begins Kira's attack for her player, who attacks from the phone meanwhile.
    choose(ref, "target", "Vargr corsair 2")
    choose(ref, "range_band", "Medium")
    attack(phone, target="Vargr corsair 1", range_band="Short", cover="Some")

    expect(ref.locator('[data-entry="attack"]')).to_have_count(1, timeout=10_000)  # polled
    expect(ref.locator("[data-moved-on]")).to_contain_text("The turn has moved on")
    expect(ref.locator("#act-heading")).to_have_text("Kira Valen's turn")
    medium = ref.locator('[data-chips="range_band"] .chip-option', has_text="Medium")
    expect(medium.locator("input")).to_be_checked()
    ref.locator('[data-action="attack"]').click()
    expect(ref.locator("#outcome")).to_contain_text("changed since this page was loaded")
    expect(ref.locator("#act-heading")).to_have_text("Dorn Hask's turn")
    expect(ref.locator('[data-entry="attack"]')).to_have_count(1)
    # Dorn's own form: the choices refused were Kira's (the first standing corsair, not the 2nd).
    first = ref.locator('[data-chips="target"] .chip-option', has_text="Vargr corsair 1")
    expect(first.locator("input")).to_be_checked()
