"""The builder keeps up, in a real browser: figures that follow every edit, focus where the
player left it, signed out, submitted or approved meanwhile, without JavaScript, and documents
the catalog does not know."""

import json
import re

import pytest
from playwright.sync_api import expect

from characters.models import Character
from tests.browser.builder.building import (
    SAVED,
    add_skills,
    enter_in,
    stored,
    stored_skill_names,
)
from tests.browser.pages import log_in, log_out, start_building
from tests.factories import UserFactory, character_document

pytestmark = pytest.mark.django_db(transaction=True)


def test_row_figures_and_mustering_out_follow_each_edit_without_save(building):
    page = building

    page.get_by_role("button", name="Add an item").click()
    row = page.locator("[data-item-row]")
    row.locator("select").select_option("Dagger|1")
    expect(row.locator("[data-item-cost]")).not_to_be_empty()
    single = row.locator("[data-item-weight]").inner_text()
    row.locator("input[type=number]").fill("3")
    expect(row.locator("[data-item-weight]")).not_to_have_text(single)

    page.select_option("select[name=service]", "scouts")
    page.fill("input[name=terms]", "2")
    expect(page.locator("#mustering-status")).to_contain_text("2 rolls allowed on the Scouts table")


def test_a_trait_made_a_flaw_in_place_shows_its_control_score_box_at_once(building):
    page = building
    enter_in(page, "input[name=trait-notation]", "[PP-C-S 2]")
    row = page.locator("[data-trait-row]")
    kind = row.locator("select[name$='-type']")
    box = row.get_by_role("checkbox", name="Trait 1: control score")
    expect(kind).to_have_value("PP")
    expect(box).to_be_hidden()

    kind.select_option("PF")
    expect(box).to_be_checked()  # a personal flaw has a control score unless unticked
    box.uncheck()
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    page.reload()

    expect(box).not_to_be_checked()
    assert stored()["traits"][0]["control"] is False
    kind.select_option("HF")
    expect(box).not_to_be_checked()  # the box the player sees is what is stored
    kind.select_option("PP")
    expect(box).to_be_hidden()
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    page.reload()
    expect(box).to_be_hidden()
    assert "control" not in stored()["traits"][0]


def test_one_unreadable_field_holds_back_nothing_else_and_says_so(building):
    page = building

    page.fill("input[name=END]", "")
    page.fill("input[name=STR]", "9")
    page.fill("input[name=homeworld]", "Regina")

    state = page.locator("[data-save-state]")
    expect(state).to_have_text(re.compile(r"^Saved all but one field: END: enter a level"))
    assert (stored()["attributes"]["STR"], stored()["homeworld"]) == (9, "Regina")
    page.fill("input[name=END]", "8")
    expect(state).to_have_text(SAVED)


def test_the_soc_stepper_follows_the_kind_chosen_without_a_reload(building):
    page = building
    page.locator("#id_kind").select_option("npc")
    page.fill("input[name=SOC]", "15")
    expect(page.locator('[data-hex="SOC"]')).to_have_text("F")

    raise_soc = page.get_by_role("button", name="Raise SOC", exact=True)
    raise_soc.click()
    raise_soc.click()
    raise_soc.click()
    expect(page.locator("input[name=SOC]")).to_have_value("17")  # an NPC's highest

    page.locator("#id_kind").select_option("pc")
    expect(page.locator('[data-hex="SOC"]')).to_have_text("H")
    page.get_by_role("button", name="Lower SOC", exact=True).click()
    page.get_by_role("button", name="Raise SOC", exact=True).click()
    # Above a PC's highest, a step only goes back towards it.
    expect(page.locator("input[name=SOC]")).to_have_value("16")


def test_the_steppers_stay_within_the_attributes_range(building):
    page = building
    raise_edu = page.get_by_role("button", name="Raise EDU", exact=True)
    for _ in range(10):
        raise_edu.click()
    expect(page.locator("input[name=EDU]")).to_have_value("15")
    expect(page.locator('[data-hex="EDU"]')).to_have_text("F")
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    assert stored()["attributes"]["EDU"] == 15


def test_the_native_language_and_culture_offer_the_chosen_species_defaults(building):
    page = building

    page.select_option("select[name=species]", "vargr")

    expect(page.locator("#automatic-skills")).to_contain_text("Language (Gvegh)")
    expect(page.locator("input[name=native_language]")).to_have_attribute("placeholder", "Gvegh")
    expect(page.locator("input[name=native_culture]")).to_have_attribute(
        "placeholder", "Vargr society"
    )


def test_the_age_offers_the_minimum_the_terms_served_give(building):
    page = building
    expect(page.locator("input[name=age]")).to_have_attribute("placeholder", "30")  # EXP DV 3

    page.fill("input[name=terms]", "5")

    expect(page.locator("input[name=age]")).to_have_attribute("placeholder", "38")  # 18 + 4 x 5


def test_the_heading_and_automatic_skills_follow_the_identity_fields(building):
    page = building

    page.fill("input[name=name]", "Mara Tolven")
    page.fill("input[name=homeworld]", "Regina")

    expect(page.locator("h1")).to_contain_text("Mara Tolven")
    expect(page.locator("#automatic-skills")).to_contain_text("Area Knowledge (Regina)")


@pytest.mark.parametrize(
    ("removed", "then_focused"), [("Pilot", "Navigation"), ("Medical", "Navigation")]
)
def test_remove_pressed_from_the_keyboard_keeps_focus_on_the_row_that_stays(
    building, removed, then_focused
):
    page = building
    add_skills(page, "Pilot", "Navigation", "Medical")
    page.locator(f'[data-skill-row][data-skill="{removed}"] [data-action=remove]').focus()
    page.keyboard.press("Enter")

    level = page.locator(f'[data-skill-row][data-skill="{then_focused}"] [data-field=level]')
    expect(page.locator("[data-skill-row]")).to_have_count(2)
    expect(level).to_be_focused()
    page.keyboard.press("End")
    page.keyboard.press("Backspace")
    page.keyboard.type("3")
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    assert {"skill": "Navigation", "level": 3} in stored()["skills"]
    assert removed not in stored_skill_names()


@pytest.mark.parametrize("width", [1280, 390])
def test_the_only_trait_removed_from_the_keyboard_leaves_focus_in_the_notation_box(building, width):
    page = building
    page.set_viewport_size({"width": width, "height": 800})
    enter_in(page, "input[name=trait-notation]", "[PF-H-R -2]")
    expect(page.locator("[data-trait-row]")).to_have_count(1)
    page.locator("[data-trait-row] [data-action=remove]").focus()
    page.keyboard.press("Enter")

    box = page.locator("input[name=trait-notation]")
    expect(page.locator("[data-trait-row]")).to_have_count(0)
    expect(box).to_be_focused()
    expect(box).to_be_in_viewport()
    page.keyboard.type("[HF-H-R -2]")
    page.keyboard.press("Enter")
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    assert [(t["type"], t["level"], t["frequency"]) for t in stored()["traits"]] == [
        ("HF", "H", "R")
    ]


@pytest.mark.parametrize("width", [1280, 390])
def test_a_row_added_with_a_click_takes_focus_in_view(building, width):
    page = building
    page.set_viewport_size({"width": width, "height": 800})

    page.get_by_role("button", name="Combat experience").click()

    description = page.locator("[data-trait-row] input[name$='-name']")
    expect(description).to_be_focused()
    expect(description).to_be_in_viewport()
    expect(description).to_have_value("Combat experience")


def test_edits_made_while_signed_out_wait_on_the_page_and_are_saved_after_signing_in_again(
    building,
):
    page = building
    other = page.context.new_page()
    other.goto("/")
    log_out(other)

    page.fill("input[name=DEX]", "9")
    enter_in(page, "[data-add=skill]", "Pilot")
    expect(page.locator("[data-save-state]")).to_contain_text("you are signed out")
    expect(page).to_have_url(re.compile(r"/characters/\d+/edit/$"))  # not sent to the login
    assert stored()["attributes"]["DEX"] == 7

    log_in(other, "player1")  # a new CSRF secret: the page's own token is refused from now
    page.fill("input[name=STR]", "12")

    expect(page.locator("[data-upp]")).to_have_text("C97-777-777")
    expect(page.locator("[data-save-state]")).to_have_text(SAVED, timeout=15_000)
    assert (stored()["attributes"]["DEX"], stored()["attributes"]["STR"]) == (9, 12)
    assert stored_skill_names() == ["Pilot"]


def test_signed_out_on_an_approved_character_the_page_stays_and_still_says_why(building):
    page = building
    Character.objects.filter(name="Mara").update(status=Character.Status.APPROVED)
    page.reload()
    page.wait_for_load_state("load")
    other = page.context.new_page()
    other.goto("/")
    log_out(other)

    # The save's answer is the redirect to the login page.
    with page.expect_response(lambda response: response.request.method == "POST"):
        page.fill("input[name=DEX]", "9")

    expect(page).to_have_url(re.compile(r"/characters/\d+/edit/$"))
    expect(page.locator("[data-save-state]")).to_contain_text("you are signed out")


def _reopened_as(page, status):
    Character.objects.filter(name="Mara").update(status=status)
    page.reload()
    page.wait_for_load_state("load")


def test_a_character_returned_while_its_builder_is_open_saves_by_itself_again(building):
    page = building
    _reopened_as(page, Character.Status.SUBMITTED)
    expect(page.locator("[data-save-state]")).to_contain_text("it is submitted for review")
    page.fill("input[name=DEX]", "9")
    expect(page.locator("[data-save-state]")).to_contain_text("it is submitted for review")

    # The referee returns it while the player's page still holds the unsaved edit.
    Character.objects.filter(name="Mara").update(status=Character.Status.RETURNED)
    page.fill("input[name=STR]", "10")

    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    mara = Character.objects.get(name="Mara")
    assert (mara.document["attributes"]["DEX"], mara.document["attributes"]["STR"]) == (9, 10)
    assert mara.status == Character.Status.RETURNED


def test_a_character_approved_while_its_builder_is_open_says_it_is_locked(building):
    page = building
    _reopened_as(page, Character.Status.SUBMITTED)
    Character.objects.filter(name="Mara").update(status=Character.Status.APPROVED)

    page.fill("input[name=DEX]", "9")

    expect(page.locator("[data-save-state]")).to_contain_text("it is approved and locked")
    expect(page.locator("#announcer")).to_contain_text("it is approved and locked")
    assert stored()["attributes"]["DEX"] == 7


def test_a_character_submitted_elsewhere_waits_and_saves_again_once_returned(building):
    page = building
    page.fill("input[name=DEX]", "9")
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    Character.objects.filter(name="Mara").update(status=Character.Status.SUBMITTED)

    page.fill("input[name=DEX]", "10")
    expect(page.locator("[data-save-state]")).to_contain_text("it is submitted for review")
    assert stored()["attributes"]["DEX"] == 9

    Character.objects.filter(name="Mara").update(status=Character.Status.RETURNED)
    page.fill("input[name=STR]", "11")
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    assert (stored()["attributes"]["DEX"], stored()["attributes"]["STR"]) == (10, 11)


def test_without_javascript_enter_keeps_the_rows_and_save_stores_the_edits(browser, live_server):
    UserFactory(username="player1")
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    context.set_default_timeout(10_000)
    page = context.new_page()
    log_in(page, "player1")
    start_building(page, "Mara")
    for name in ("Pilot", "Medical"):
        page.fill("input[name=new-skill]", name)
        page.locator("input[name=new-skill]").press("Enter")
    expect(page.locator('[data-skill-row][data-skill="Pilot"]')).to_have_count(1)
    expect(page.locator("[data-save-state]")).to_have_text(
        "Not saved: press Save to keep these changes"
    )
    page.locator('[data-skill-row][data-skill="Pilot"] [data-action=remove]').click()
    expect(page.locator("[data-skill-row]")).to_have_count(1)

    page.fill("input[name=STR]", "9")
    page.locator("input[name=STR]").press("Enter")
    expect(page.locator('[data-skill-row][data-skill="Medical"]')).to_have_count(1)
    page.locator("[data-action=save]").click()

    expect(page.locator(".message--success")).to_contain_text("Mara saved")
    assert stored()["attributes"]["STR"] == 9
    assert stored_skill_names() == ["Medical"]
    context.close()


def test_names_the_catalog_does_not_know_survive_an_edit_of_something_else(building):
    """An imported document may name a species, service, item, trait code, specialty or
    cascade this catalog lacks (a typo, a house rule): the builder says so, and keeps the name
    until the player picks another."""
    page = building
    document = character_document(
        name="Odd Import",
        species="klingon",
        service="jedi",
        terms=1,
        equipment=[{"item": "Lightsaber", "quantity": 1}, {"item": "Dagger", "quantity": 2}],
        skills=[
            {"skill": "Pilot", "level": 2, "specialties": ["broomstick"]},
            {"skill": "Blade Combat", "cascade": "lightsaber", "level": 1},
        ],
        traits=[
            {"type": "XX", "name": "Odd code", "level": "E", "frequency": "S"},
            {"type": "PP", "name": "Odd level", "level": "Z", "frequency": "Q"},
        ],
    )
    page.goto("/characters/import/")
    page.set_input_files(
        "input[name=document]",
        files=[
            {
                "name": "odd.json",
                "mimeType": "application/json",
                "buffer": json.dumps(document).encode(),
            }
        ],
    )
    page.get_by_role("button", name="Import").click()
    expect(page).to_have_url(re.compile(r"/characters/\d+/edit/$"))
    page.wait_for_load_state("load")
    expect(page.locator('[data-problem="unknown_species"]')).to_have_count(1)

    page.fill("#id_notes", "Met on Regina")
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)

    stored = Character.objects.get(name="Odd Import").document
    assert stored["notes"] == "Met on Regina"
    assert (stored["species"], stored["service"]) == ("klingon", "jedi")
    assert [entry["item"] for entry in stored["equipment"]] == ["Lightsaber", "Dagger"]
    assert stored["skills"] == document["skills"]
    assert stored["traits"] == document["traits"]
    expect(page.locator('[data-problem="unknown_species"]')).to_have_count(1)
    expect(page.locator("#id_species")).to_have_value("klingon")
    expect(page.locator('[data-skill-row][data-skill="Blade Combat"] select')).to_have_value(
        "lightsaber"
    )
