"""A player builds a character in the browser and sees every consequence without a page load."""

import re
import time

import pytest
from playwright.sync_api import expect

from characters.builder import views as builder_views
from tests.browser.pages import PHONE, log_in, start_building
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_player_builds_a_character_live_and_finds_it_as_left(page):
    UserFactory(username="player1")
    log_in(page, "player1")

    start_building(page, "Mara Tolven")
    page.evaluate("() => { window.__sameDocument = true }")

    expect(page.locator('[data-derived="DEF"]')).to_have_text("3")
    expect(page.locator('[data-points="remaining"]')).to_have_text("100")
    page.fill("input[name=DEX]", "9")
    expect(page.locator('[data-derived="DEF"]')).to_have_text("4")
    expect(page.locator('[data-points="remaining"]')).to_have_text("90")
    expect(page.locator("input[name=DEX]")).to_be_focused()

    page.fill("input[name=new-skill]", "Pilot")
    page.get_by_role("button", name="Add", exact=True).first.click()
    level = page.locator("input[name=skill-0-level]")
    level.fill("2")
    page.get_by_label("small craft (under 100 tons)").check()
    expect(page.locator('[data-points="remaining"]')).to_have_text("87")
    expect(page.locator("[data-skill-total]")).to_have_text("2")

    level.fill("4")
    problem = page.locator('[data-problem="skill_level_above_max"]')
    expect(problem).to_contain_text("Pilot-4 is above the maximum skill level 3")
    level.fill("3")
    expect(problem).to_have_count(0)
    assert page.evaluate("() => window.__sameDocument") is True, "the page was reloaded"

    page.locator('[data-action="save"]').click()
    expect(page.locator(".message--success")).to_contain_text("Mara Tolven saved")
    page.reload()
    expect(page.locator("input[name=DEX]")).to_have_value("9")
    expect(page.locator("input[name=skill-0-level]")).to_have_value("3")
    expect(page.get_by_label("small craft (under 100 tons)")).to_be_checked()
    expect(page.locator('[data-points="remaining"]')).to_have_text("86")
    expect(page.locator("[data-upp]")).to_have_text("797-777-777")


def test_a_problem_link_takes_the_player_to_the_field_that_fixes_it(page):
    UserFactory(username="player1")
    log_in(page, "player1")
    start_building(page, "Kim")

    page.fill("input[name=rank]", "2")
    page.locator('[data-problem="rank_exceeds_terms"] a').click()
    expect(page).to_have_url(re.compile(r"#id_rank$"))


def test_attribute_figures_follow_quick_edits_to_several_attributes(page):
    UserFactory(username="player1")
    log_in(page, "player1")
    start_building(page, "Kim")
    expect(page.locator('[data-derived="DEF"]')).to_have_text("3")

    # Typed inside one debounce: the preview must still bring back both attributes' figures.
    page.evaluate("""() => {
        for (const [name, value] of [["DEX", "11"], ["STR", "4"]]) {
            const input = document.querySelector(`input[name=${name}]`);
            input.value = value;
            input.dispatchEvent(new Event("input", {bubbles: true}));
        }
    }""")
    expect(page.locator('[data-hex="DEX"]')).to_have_text("B")
    expect(page.locator('[data-dm="DEX"]')).to_have_text("DM +2")
    expect(page.locator('[data-hex="STR"]')).to_have_text("4")
    expect(page.locator('[data-derived="DEF"]')).to_have_text("5")

    # A species package moves every attribute: Vargr take 2 from STR, so STR 4 becomes 2.
    page.select_option("select[name=species]", "vargr")
    expect(page.locator('[data-hex="STR"]')).to_have_text("2")
    expect(page.locator('[data-hex="DEX"]')).to_have_text("D")


@pytest.fixture
def slow_saves(monkeypatch):
    """Every save takes 0.2 s more on the server, as on a slow network: a second edit or click
    lands while the first save is still on its way."""
    read = builder_views.form_from_post

    def slowly(post):
        time.sleep(0.2)
        return read(post)

    monkeypatch.setattr(builder_views, "form_from_post", slowly)


def test_an_attribute_edited_again_while_its_save_is_on_the_way_is_shown_as_last_typed(page):
    UserFactory(username="player1")
    log_in(page, "player1")
    start_building(page, "Kim")

    # DEX is typed again as the answer to the save of its first value comes back, just before
    # it is applied: the next save's answer must still bring DEX's figures.
    page.evaluate("""() => {
        const dex = document.querySelector("input[name=DEX]");
        document.body.addEventListener("htmx:beforeSwap", () => {
            dex.value = "11";
            dex.dispatchEvent(new Event("input", {bubbles: true}));
        }, {once: true});
        dex.value = "9";
        dex.dispatchEvent(new Event("input", {bubbles: true}));
    }""")

    expect(page.locator('[data-hex="DEX"]')).to_have_text("B")
    expect(page.locator('[data-dm="DEX"]')).to_have_text("DM +2")


def test_section_buttons_clicked_quickly_on_a_slow_network_keep_every_row(page, slow_saves):
    UserFactory(username="player1")
    log_in(page, "player1")
    start_building(page, "Kim")

    page.get_by_role("button", name="Combat experience").click()
    page.get_by_role("button", name="Derived-attribute flaw").click()
    page.get_by_role("button", name="Add an item").click()

    expect(page.locator("#trait-row-1")).to_be_visible()
    expect(page.locator("input[name=trait-0-name]")).to_have_value("Combat experience")
    expect(page.locator("select[name=item-0-item]")).to_have_count(1)


# The colour of a control's text and of the first opaque background behind it.
_TEXT_AND_BACKGROUND = """element => {
    let behind = element;
    let background = getComputedStyle(behind).backgroundColor;
    while (behind && (background === "rgba(0, 0, 0, 0)" || background === "transparent")) {
        behind = behind.parentElement;
        background = behind ? getComputedStyle(behind).backgroundColor : "rgb(255, 255, 255)";
    }
    return [getComputedStyle(element).color, background];
}"""


def test_every_row_control_of_the_builder_is_readable_and_inside_its_section(page):
    UserFactory(username="player1")
    log_in(page, "player1")
    page.set_viewport_size({"width": 1280, "height": 900})
    start_building(page, "Kim")
    page.fill("input[name=new-skill]", "Pilot")
    page.get_by_role("button", name="Add", exact=True).first.click()
    page.get_by_role("button", name="Combat experience").click()
    page.get_by_role("button", name="Derived-attribute flaw").click()
    page.get_by_role("button", name="Add an item").click()
    expect(page.locator("#trait-row-1")).to_be_visible()

    removes = page.locator(".builder [data-action=remove]")
    expect(removes).to_have_count(4)  # a skill, two traits, an item
    for index in range(4):
        remove = removes.nth(index)
        text, background = remove.evaluate(_TEXT_AND_BACKGROUND)
        assert text != background, (remove.get_attribute("value"), text)
        section = remove.locator("xpath=ancestor::fieldset[1]")
        button_box, section_box = remove.bounding_box(), section.bounding_box()
        assert button_box["x"] + button_box["width"] <= section_box["x"] + section_box["width"], (
            remove.get_attribute("value")
        )
    # A derived-attribute trait's six figures share the level and frequency columns.
    derived = page.locator("#trait-row-1 .derived-inputs").locator("..")
    assert derived.get_attribute("colspan") == "2"
    level_header = page.locator(".traits thead th").nth(2).bounding_box()
    frequency_header = page.locator(".traits thead th").nth(3).bounding_box()
    derived_box = derived.bounding_box()
    assert derived_box["width"] >= level_header["width"] + frequency_header["width"] - 1


@pytest.mark.parametrize("width", [1280, 390])
def test_a_sections_empty_line_shows_only_while_it_has_no_rows(page, width):
    UserFactory(username="player1")
    log_in(page, "player1")
    start_building(page, "Kim")
    page.set_viewport_size({"width": width, "height": 800})
    empty = page.get_by_text("Nothing bought yet.")
    expect(empty).to_be_visible()

    page.get_by_role("button", name="Add an item").click()
    expect(empty).to_be_hidden()
    page.locator("[data-item-row] [data-action=remove]").click()
    expect(empty).to_be_visible()


def test_a_trait_typed_in_notation_brings_its_description_and_only_the_figures_it_names(page):
    UserFactory(username="player1")
    log_in(page, "player1")
    start_building(page, "Kim")
    box = page.locator("#id_trait-notation")

    box.fill("[PP INI+1 5]")
    box.press("Enter")
    box.fill("Loud [PF-I-S -2]")
    box.press("Enter")

    quick, loud = page.locator("[data-trait-row]").all()
    expect(quick.locator("[name$=-derived-INI]")).to_have_value("1")
    expect(quick.locator("[name$=-derived-DEF]")).to_have_value("")  # not the template's own
    expect(page.locator('[data-derived="DEF"]')).to_have_text("3")
    expect(page.locator('[data-derived="INI"]')).to_have_text("4")
    expect(loud.locator("[name$=-name]")).to_have_value("Loud")
    expect(loud.locator(".notation")).to_have_text("[PF-I-S -2]")
    expect(box).to_be_focused()


def test_on_a_phone_focus_never_hides_under_the_status_bar_and_notations_wrap_beside_remove(
    page,
):
    UserFactory(username="player1")
    log_in(page, "player1")
    page.set_viewport_size(PHONE)
    start_building(page, "Kim")
    page.locator("#id_trait-notation").fill("[PF DEF-1 INI-1 MOV-1 TGH-1 -20]")
    page.locator("#id_trait-notation").press("Enter")
    expect(page.locator("[data-trait-row]")).to_have_count(1)

    # Backwards through the traits, as a player tabs back up the page: the bar, stuck to the
    # top of the screen, covers no control that takes the focus.
    bar = page.locator(".builder__status")
    for _ in range(40):
        page.keyboard.press("Shift+Tab")
        focused = page.locator(":focus").bounding_box()
        assert focused["y"] >= bar.bounding_box()["y"] + bar.bounding_box()["height"] - 1

    notation = page.locator("[data-trait-row] td.notation")
    expect(notation).to_have_text(re.compile(r"TGH-1 -20\]"))
    assert notation.evaluate("(cell) => cell.scrollWidth <= cell.clientWidth")


def test_on_a_phone_the_bar_in_view_shows_the_upp_the_derived_figures_and_leads_to_the_problems(
    page,
):
    UserFactory(username="player1")
    log_in(page, "player1")
    page.set_viewport_size(PHONE)
    start_building(page, "Kim")
    page.fill("input[name=DEX]", "9")
    page.fill("input[name=rank]", "2")  # a rank without a service: an error among others

    # Far down the page, where the skills' add box is, the bar still shows what changed.
    page.locator("#id_trait-notation").scroll_into_view_if_needed()
    bar = page.locator(".builder__status")
    for figure in (
        bar.locator("[data-upp]"),
        bar.locator('[data-derived="DEF"]'),
        bar.locator(".status__problems"),
    ):
        expect(figure).to_be_in_viewport()
    expect(bar.locator("[data-upp]")).to_have_text("797-777-777")
    expect(bar.locator('[data-derived="DEF"]')).to_have_text("4")
    problems = bar.locator("a.status__problems")
    expect(problems).to_have_text(re.compile(r"^\d+ errors?\b"))

    problems.click()
    expect(page.locator("#problems")).to_be_in_viewport()
    expect(page.locator("#problems")).to_contain_text("rank")
