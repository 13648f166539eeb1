"""The encounter pages for a keyboard, a screen reader and a phone: axe-core finds no serious
or critical violation, nothing scrolls sideways at 390 px, every chip is a named control
big enough to tap, and the action panel comes first however many fight."""

import pytest
from playwright.sync_api import expect

from characters.encounters import services
from tests.browser.pages import DESKTOP, PHONE, log_in, serious_violations
from tests.encounter_people import party_against_corsairs, start

pytestmark = pytest.mark.django_db(transaction=True)

# The smallest tap target a phone page should have, in CSS pixels (WCAG 2.5.8 asks for 24).
TAP = 40


@pytest.fixture
def fight():
    campaign, kira, dorn, corsair = party_against_corsairs()
    encounter = services.start_encounter(
        campaign=campaign,
        by=campaign.referee,
        name="Ambush",
        groups=[
            services.Group(1, "party", character=kira),
            services.Group(1, "party", character=dorn),
            services.Group(4, "opposition", character=corsair),
        ],
    )
    services.throw_initiative(encounter=encounter, by=campaign.referee)
    return campaign, encounter


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
@pytest.mark.parametrize(
    ("user", "path"),
    [
        ("referee", "/encounters/{encounter}/"),
        ("player1", "/encounters/{encounter}/"),
        ("referee", "/campaigns/{campaign}/encounters/new/"),
    ],
    ids=["referee", "player", "new"],
)
def test_the_encounter_pages_pass_axe_and_fit_a_phone(page, fight, viewport, user, path):
    campaign, encounter = fight
    page.set_viewport_size(viewport)
    log_in(page, user)
    page.goto(path.format(encounter=encounter.pk, campaign=campaign.pk))
    page.wait_for_load_state("load")
    assert serious_violations(page) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]


def test_every_chip_is_a_big_named_target_on_a_phone(page, fight):
    _campaign, encounter = fight
    page.set_viewport_size(PHONE)
    log_in(page, "referee")
    page.goto(f"/encounters/{encounter.pk}/")
    # Every folded part unfolded: the situation's rarer DMs, the leaders of the sides.
    page.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    chips = page.locator(".chip-option")
    assert chips.count() > 20
    for index in range(chips.count()):
        chip = chips.nth(index)
        box = chip.bounding_box()
        assert box["height"] >= TAP, chip.inner_text()
        assert box["width"] >= TAP, chip.inner_text()
        assert chip.inner_text().strip(), "a chip without a name"


def test_a_keyboard_user_lands_on_the_outcome_and_tabs_on_to_the_next_action(page, fight):
    """An action replaces the whole action panel; without care the focus falls back to the page
    body, and every throw would start again at the skip link and the menu."""
    _campaign, encounter = fight
    page.set_viewport_size(DESKTOP)
    log_in(page, "referee")
    page.goto(f"/encounters/{encounter.pk}/")
    page.locator('[data-action="pass"]').focus()

    page.keyboard.press("Enter")

    expect(page.locator("#outcome")).to_contain_text("ends its turn.")
    expect(page.locator("#outcome")).to_be_focused()
    page.keyboard.press("Tab")
    assert page.evaluate("document.getElementById('act').contains(document.activeElement)")


@pytest.fixture
def crowded_fight():
    """Kira and Dorn against twelve corsairs: fourteen rows of turn order."""
    campaign, kira, dorn, corsair = party_against_corsairs()
    encounter = start(campaign, kira, dorn, corsair, corsairs=12)
    services.throw_initiative(encounter=encounter, by=campaign.referee)
    return encounter


def test_on_a_phone_the_action_panel_comes_before_fourteen_rows_of_turn_order(page, crowded_fight):
    page.set_viewport_size(PHONE)
    log_in(page, "referee")
    page.goto(f"/encounters/{crowded_fight.pk}/")

    expect(page.locator("#act-heading")).to_be_in_viewport()
    expect(page.locator('[data-chips="target"]')).to_be_in_viewport()
    assert page.locator("#act").bounding_box()["y"] < page.locator("#order").bounding_box()["y"]
    page.get_by_role("link", name="Turn order: 14 fighters").click()
    expect(page.locator("[data-now]")).to_be_in_viewport()


def test_on_a_wide_screen_the_turn_order_stands_beside_the_panel_which_tab_reaches_first(
    page, crowded_fight
):
    page.set_viewport_size(DESKTOP)
    log_in(page, "referee")
    page.goto(f"/encounters/{crowded_fight.pk}/")

    act, order = page.locator("#act").bounding_box(), page.locator("#order").bounding_box()
    assert act["x"] + act["width"] <= order["x"]
    assert abs(act["y"] - order["y"]) < 100
    expect(page.locator("[data-now]")).to_be_in_viewport()
    expect(page.get_by_role("link", name="Turn order: 14 fighters")).to_be_hidden()
    page.locator(".page-head__actions a").focus()  # the last stop before the encounter
    page.keyboard.press("Tab")
    assert page.evaluate("document.getElementById('act').contains(document.activeElement)")
