"""The builder keeps a player's work: rows come at once whatever the network, edits are stored
by themselves, and leaving, reloading, Back, a second tab or a lost network loses nothing; a
tab that fell behind says so instead of overwriting. Enter never removes anything, and focus
stays where the player works."""

import contextlib
import json
import re
import time

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from characters.models import Character
from tests.browser.builder.building import (
    SAVED,
    add_skills,
    enter_in,
    stored,
    stored_skill_names,
)
from tests.browser.pages import log_in, start_building
from tests.factories import UserFactory, character_document, character_in_campaign

pytestmark = pytest.mark.django_db(transaction=True)


def _hold_saves(page, *, lose: bool = False) -> list:
    """A slow network: the page's saves (the posts it makes by itself) wait, in the list, until
    the test lets each go on (``continue_()``); with ``lose``, the network fails the first one
    instead, and lets the next ones through. Pages and every other request go at once."""
    held: list = []

    def hold(route):
        request = route.request
        if request.method != "POST" or "hx-request" not in request.headers or (lose and held):
            route.continue_()
        else:
            held.append(route)
            if lose:
                route.abort("connectionrefused")

    page.route("**/edit/", hold)
    return held


def _let_go(held: list) -> None:
    """The network answers at last: every save held goes on (one the page replaced by a newer
    one meanwhile is gone already)."""
    for route in held:
        with contextlib.suppress(PlaywrightError):
            route.continue_()


def _until_asked(page, routes: list) -> None:
    """Wait until the page has asked for what the test's route holds (or lost)."""
    while not routes:
        page.wait_for_timeout(20)


def test_an_edit_is_stored_without_save_and_survives_a_reload_right_away(building):
    page = building
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)

    page.fill("input[name=DEX]", "9")
    page.reload()  # at once: the save is still waiting for the player to pause

    expect(page.locator("input[name=DEX]")).to_have_value("9")
    expect(page.locator('[data-derived="DEF"]')).to_have_text("4")
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    assert stored()["attributes"]["DEX"] == 9


def test_rows_added_and_removed_then_reloaded_at_once_are_all_kept(building):
    page = building
    for name in ("Pilot", "Navigation", "Medical"):
        enter_in(page, "[data-add=skill]", name)
    page.locator('[data-skill-row][data-skill="Navigation"] [data-action=remove]').click()
    enter_in(page, "#id_trait-notation", "[PF-H-R -2]")
    page.get_by_role("button", name="Add an item").click()
    page.locator("[data-item-row] select").select_option("Dagger|1")
    page.reload()  # at once

    expect(page.locator("[data-skill-row]")).to_have_count(2)
    expect(page.locator("[data-trait-row]")).to_have_count(1)
    expect(page.locator('[data-item-row="Dagger"]')).to_have_count(1)
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    assert stored_skill_names() == ["Pilot", "Medical"]
    assert [entry["item"] for entry in stored()["equipment"]] == ["Dagger"]


def test_a_page_drawn_before_the_last_pages_save_landed_sends_it_again(building):
    """Reloaded right after an edit, the page sends its last save as it goes; the page drawn
    next may reach the server first (here the last save never lands at all): it must show the
    edit, and store it, rather than the character as it was."""
    page = building
    page.route(
        "**/edit/",
        lambda route: (
            route.abort()
            if route.request.method == "POST" and "hx-request" not in route.request.headers
            else route.continue_()
        ),
    )
    page.fill("input[name=DEX]", "9")
    enter_in(page, "[data-add=skill]", "Pilot")
    page.reload()

    expect(page.locator("input[name=DEX]")).to_have_value("9")
    expect(page.locator('[data-skill-row][data-skill="Pilot"]')).to_have_count(1)
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    assert (stored()["attributes"]["DEX"], stored_skill_names()) == (9, ["Pilot"])
    page.fill("input[name=STR]", "8")  # the page goes on from there, in no conflict
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    assert stored()["attributes"]["STR"] == 8


def test_an_edit_is_stored_when_the_tab_closes_without_asking_first(building):
    """A phone's tab switcher (and iOS always) closes a page without beforeunload: only
    pagehide tells it."""
    page = building
    page.fill("input[name=DEX]", "9")
    page.close()  # at once, and without beforeunload

    deadline = time.monotonic() + 5  # the save outlives the page: give it time to land
    while stored()["attributes"]["DEX"] != 9 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert stored()["attributes"]["DEX"] == 9


def test_back_from_the_sheet_shows_the_figures_of_what_is_stored(building):
    page = building
    page.fill("input[name=STR]", "15")
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)

    page.get_by_role("link", name="Sheet", exact=True).click()
    expect(page).to_have_url(re.compile(r"/characters/\d+/$"))
    page.go_back()

    expect(page.locator("input[name=STR]")).to_have_value("15")
    expect(page.locator('[data-points="remaining"]')).to_have_text("60")
    expect(page.locator('[data-problem="attribute_above_max"]')).to_have_count(0)


def test_a_page_restored_by_back_from_the_browsers_cache_shows_what_another_tab_stored(
    cached_page,
):
    """Restored from the back/forward cache, the page is as it was left; a tab that saved
    meanwhile must not be overwritten by it, nor hidden."""
    page = cached_page
    page.add_init_script(
        "addEventListener('pageshow', e => { if (e.persisted) sessionStorage.restored = 'yes' })"
    )
    UserFactory(username="player1")
    log_in(page, "player1")
    start_building(page, "Mara")
    # Opened again: the page that followed the new character's form came as the session (an
    # HttpOnly cookie, the welcome message in it) changed, and Chrome keeps no such page.
    page.goto(page.url)
    page.fill("input[name=STR]", "9")
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    page.get_by_role("link", name="Sheet").click()
    other = page.context.new_page()
    other.goto(f"/characters/{Character.objects.get(name='Mara').pk}/edit/")
    other.fill("input[name=STR]", "11")
    expect(other.locator("[data-save-state]")).to_have_text(SAVED)
    other.close()

    page.go_back(wait_until="commit")  # a page restored from the cache fires no load event

    expect(page.locator("input[name=STR]")).to_have_value("11")
    assert page.evaluate("() => sessionStorage.restored") == "yes"  # from the cache indeed
    page.fill("input[name=DEX]", "10")
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    assert (stored()["attributes"]["STR"], stored()["attributes"]["DEX"]) == (11, 10)


def test_the_sheet_opened_right_after_an_edit_shows_that_edit(building):
    page = building
    page.fill("input[name=STR]", "12")
    page.get_by_role("link", name="Sheet", exact=True).click()  # at once: no pause to save in

    expect(page).to_have_url(re.compile(r"/characters/\d+/$"))
    expect(page.locator("[data-upp]")).to_have_text("C77-777-777")


def test_the_sheet_followed_on_a_slow_network_opens_once_the_edit_is_stored(building):
    page = building
    held = _hold_saves(page)
    enter_in(page, "[data-add=skill]", "Pilot")
    _until_asked(page, held)
    page.get_by_role("link", name="Sheet", exact=True).click()
    page.wait_for_timeout(300)  # time for the sheet to overtake the save, were it asked for
    expect(page).to_have_url(re.compile(r"/edit/$"))
    held[0].continue_()

    expect(page).to_have_url(re.compile(r"/characters/\d+/$"))
    expect(page.locator("main")).to_contain_text("Pilot-1")


def test_forward_to_the_sheet_after_an_edit_shows_that_edit(building):
    page = building
    page.get_by_role("link", name="Sheet", exact=True).click()
    expect(page).to_have_url(re.compile(r"/characters/\d+/$"))
    page.go_back()
    expect(page).to_have_url(re.compile(r"/edit/$"))
    page.wait_for_load_state("load")

    page.fill("input[name=homeworld]", "Regina")
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    page.go_forward()

    expect(page).to_have_url(re.compile(r"/characters/\d+/$"))
    expect(page.locator("main")).to_contain_text("Regina")


def test_submitting_right_after_an_edit_submits_that_edit(page):
    mara = character_in_campaign(character_document(name="Mara"))
    log_in(page, "player1")
    page.goto(f"/characters/{mara.pk}/edit/")
    page.wait_for_load_state("load")
    held = _hold_saves(page)  # a slow network: the edit's save takes its time

    page.fill("input[name=DEX]", "9")
    page.locator("[data-action=submit]").click()  # at once: no pause to save in
    _until_asked(page, held)
    page.wait_for_timeout(300)  # time for the submission to overtake the save, were it sent
    held[0].continue_()

    expect(page.locator(".message--success")).to_contain_text("submitted to the referee")
    expect(page.locator("input[name=DEX]")).to_have_value("9")
    mara.refresh_from_db()
    assert (mara.status, mara.document["attributes"]["DEX"]) == (Character.Status.SUBMITTED, 9)


def test_logging_out_right_after_an_edit_stores_it_first(building):
    page = building
    held = _hold_saves(page)  # a slow network: the edit's save takes its time

    page.fill("input[name=DEX]", "9")
    page.get_by_role("button", name="Log out").click()  # at once: no pause to save in
    _until_asked(page, held)
    page.wait_for_timeout(300)  # time for the logout to overtake the save, were it sent
    held[0].continue_()

    expect(page.get_by_role("button", name="Log out")).to_have_count(0)
    assert stored()["attributes"]["DEX"] == 9


def test_a_save_that_reaches_the_server_after_save_was_pressed_changes_nothing(building):
    """The save on its way when the player pressed Save may reach the server after Save's
    post (two workers take them in either order): the page numbers its saves."""
    page = building
    held = _hold_saves(page)
    page.fill("input[name=DEX]", "9")
    _until_asked(page, held)

    page.fill("input[name=DEX]", "10")
    page.locator("main button[data-action=save]").click()
    expect(page.locator(".message--success")).to_contain_text("saved (version")
    late = held[0].request  # now it arrives
    answer = page.context.request.post(
        late.url,
        headers={
            name: late.headers[name] for name in ("content-type", "x-csrftoken", "hx-request")
        },
        data=late.post_data_buffer,
    )

    assert json.loads(answer.headers["hx-trigger-after-settle"])["builder:saved"]["state"] == (
        "saved"
    )
    assert stored()["attributes"]["DEX"] == 10
    expect(page.locator("input[name=DEX]")).to_have_value("10")


def test_a_tab_that_fell_behind_says_so_and_save_shows_both_versions(building):
    page = building
    other = page.context.new_page()
    other.goto(page.url)
    other.wait_for_load_state("load")

    page.fill("input[name=DEX]", "9")
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    other.fill("input[name=STR]", "4")

    expect(other.locator("[data-save-state]")).to_contain_text(
        "Not saved: this character was saved elsewhere"
    )
    other.locator("[data-action=save]").click()
    expect(other.locator("#conflict")).to_contain_text("changed in another tab")
    assert (stored()["attributes"]["DEX"], stored()["attributes"]["STR"]) == (9, 7)


def test_rows_come_at_once_on_a_slow_network_and_are_all_stored_when_it_answers(building):
    page = building
    held = _hold_saves(page)

    enter_in(page, "[data-add=skill]", "Pilot")
    expect(page.locator('[data-skill-row][data-skill="Pilot"]')).to_have_count(1)
    page.get_by_role("button", name="Combat experience").click()
    page.get_by_role("button", name="Add an item").click()
    expect(page.locator("[data-trait-row]")).to_have_count(1)
    expect(page.locator("[data-item-row]")).to_have_count(1)
    enter_in(page, "[data-add=skill]", "Medical")
    expect(page.locator("[data-save-state]")).to_have_text("Saving…")
    _until_asked(page, held)
    page.unroute("**/edit/")
    _let_go(held)

    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    assert stored_skill_names() == ["Pilot", "Medical"]
    assert [trait["name"] for trait in stored()["traits"]] == ["Combat experience"]


def test_an_edit_the_network_loses_is_saved_again_and_the_save_state_says_so(building):
    page = building
    lost = _hold_saves(page, lose=True)

    enter_in(page, "[data-add=skill]", "Pilot")
    _until_asked(page, lost)

    expect(page.locator("[data-save-state]")).to_have_text(
        "Not saved: the server could not be reached. Retrying…"
    )
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)  # retried after a pause
    assert stored_skill_names() == ["Pilot"]


def test_enter_in_the_add_skill_box_adds_it_and_enter_elsewhere_removes_nothing(building):
    page = building
    enter_in(page, "[data-add=skill]", "Pilot")
    expect(page.locator('[data-skill-row][data-skill="Pilot"]')).to_have_count(1)
    page.locator("[data-skill-row] [data-field=level]").fill("3")

    for field in (
        "input[name=STR]",
        "input[name=homeworld]",
        "[data-skill-row] [data-field=level]",
        "#id_species",
    ):
        page.locator(field).press("Enter")
    page.wait_for_timeout(300)

    expect(page.locator("[data-skill-row]")).to_have_count(1)
    expect(page.locator("[data-skill-row] [data-field=level]")).to_have_value("3")
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    assert stored()["skills"] == [{"skill": "Pilot", "level": 3}]


def test_skills_filled_in_one_after_another_are_all_added(building):
    page = building
    add_skills(page, "Pilot", "Navigation", "Medical", "Streetwise", "Vacc Suit")
    assert stored_skill_names() == ["Pilot", "Navigation", "Medical", "Streetwise", "Vacc Suit"]


def test_names_typed_as_fast_as_a_player_types_are_all_added_and_a_refused_one_is_replaced(
    building,
):
    """Typed key by key with Enter after each, a name the catalog lacks among them: it stays,
    selected, beside what it may stand for, and the next name typed takes its place (it used to
    be glued to it: "Ground Vehicle (ATV)-1Demolitions-1")."""
    page = building
    box = page.locator("[data-add=skill]")
    box.focus()
    for name in ("Ground Vehicle-1 (ATV)", "Ground Vehicle (ATV)-1", "Demolitions-1", "Pilot"):
        page.keyboard.type(name)
        page.keyboard.press("Enter")

    expect(page.locator("[data-skill-row]")).to_have_count(3)
    expect(box).to_have_value("")
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    assert stored_skill_names() == ["Ground Vehicle", "Demolitions", "Pilot"]
    assert stored()["skills"][0]["specialties"] == ["ATV"]


def test_a_name_not_in_the_catalog_stays_in_the_box_selected_with_what_it_may_be(building):
    page = building
    enter_in(page, "[data-add=skill]", "Pilto")

    message = page.locator("#new-skill-message")
    expect(message).to_contain_text("'Pilto' is not a skill in the catalog. Did you mean Pilot?")
    box = page.locator("[data-add=skill]")
    expect(box).to_be_focused()
    expect(box).to_have_value("Pilto")
    assert page.evaluate("() => getSelection().toString() || document.activeElement.value.slice("
                         "document.activeElement.selectionStart, "
                         "document.activeElement.selectionEnd)") == "Pilto"  # fmt: skip
    expect(page.locator('[data-problem="unreadable_field"]')).to_have_count(0)


@pytest.mark.parametrize(
    ("box", "typo", "backspaces", "typed", "row"),
    [
        ("[data-add=skill]", "Pilto", 2, "ot", '[data-skill-row][data-skill="Pilot"]'),
        ("#id_trait-notation", "[PP-C-X 2]", 4, "S 2]", "[data-trait-row]"),
    ],
    ids=["skill", "notation"],
)
def test_a_typo_is_mended_at_its_end(building, box, typo, backspaces, typed, row):
    page = building
    enter_in(page, box, typo)
    expect(page.locator(".picker .errorlist")).to_be_visible()
    expect(page.locator(box)).to_be_focused()

    # A hurried player mends the end of what they typed, without reaching for the mouse.
    page.keyboard.press("End")
    for _ in range(backspaces):
        page.keyboard.press("Backspace")
    page.keyboard.type(typed)
    page.keyboard.press("Enter")

    expect(page.locator(row)).to_have_count(1)
    expect(page.locator(box)).to_have_value("")
    expect(page.locator(".picker .errorlist")).to_have_count(0)


def test_a_near_name_is_offered_and_one_press_adds_it(building):
    page = building
    enter_in(page, "[data-add=skill]", "Medic")
    offer = page.get_by_role("button", name="Add Medical")
    expect(offer).to_be_visible()

    offer.click()

    expect(page.locator('[data-skill-row][data-skill="Medical"]')).to_have_count(1)
    expect(page.locator("[data-add=skill]")).to_have_value("")
    expect(page.locator("[data-add=skill]")).to_be_focused()  # for the next name
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    page.reload()
    expect(page.locator('[data-skill-row][data-skill="Medical"]')).to_have_count(1)


def test_a_classic_traveller_name_is_offered_the_skills_it_became(building):
    page = building
    enter_in(page, "[data-add=skill]", "Gun Combat")

    for name in ("Handgun", "Rifleman", "SMG", "Shotgun", "Laser"):
        expect(page.get_by_role("button", name=f"Add {name}", exact=True)).to_be_visible()
