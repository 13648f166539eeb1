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
from tests.browser.pages import log_in, log_out, start_building
from tests.factories import UserFactory, character_document, character_in_campaign

pytestmark = pytest.mark.django_db(transaction=True)

SAVED = "All changes saved"


@pytest.fixture
def building(page):
    """A player's page in the builder of a new character, Mara, ready for edits."""
    UserFactory(username="player1")
    log_in(page, "player1")
    start_building(page, "Mara")
    return page


def _stored() -> dict:
    return Character.objects.get(name="Mara").document


def _stored_skill_names() -> list[str]:
    return [skill["skill"] for skill in _stored().get("skills", [])]


def _enter(page, box: str, text: str) -> None:
    """Fill ``box`` with ``text`` and press Enter in it, as a player adds a name."""
    page.locator(box).fill(text)
    page.locator(box).press("Enter")


def _add_skills(page, *names: str) -> None:
    for name in names:
        _enter(page, "[data-add=skill]", name)
    expect(page.locator("[data-skill-row]")).to_have_count(len(names))
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)


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


# -- Stored by themselves, whatever happens next ---------------------------------------------


def test_an_edit_is_stored_without_save_and_survives_a_reload_right_away(building):
    page = building
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)

    page.fill("input[name=DEX]", "9")
    page.reload()  # at once: the save is still waiting for the player to pause

    expect(page.locator("input[name=DEX]")).to_have_value("9")
    expect(page.locator('[data-derived="DEF"]')).to_have_text("4")
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    assert _stored()["attributes"]["DEX"] == 9


def test_rows_added_and_removed_then_reloaded_at_once_are_all_kept(building):
    page = building
    for name in ("Pilot", "Navigation", "Medical"):
        _enter(page, "[data-add=skill]", name)
    page.locator('[data-skill-row][data-skill="Navigation"] [data-action=remove]').click()
    _enter(page, "#id_trait-notation", "[PF-H-R -2]")
    page.get_by_role("button", name="Add an item").click()
    page.locator("[data-item-row] select").select_option("Dagger|1")
    page.reload()  # at once

    expect(page.locator("[data-skill-row]")).to_have_count(2)
    expect(page.locator("[data-trait-row]")).to_have_count(1)
    expect(page.locator('[data-item-row="Dagger"]')).to_have_count(1)
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    assert _stored_skill_names() == ["Pilot", "Medical"]
    assert [entry["item"] for entry in _stored()["equipment"]] == ["Dagger"]


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
    _enter(page, "[data-add=skill]", "Pilot")
    page.reload()

    expect(page.locator("input[name=DEX]")).to_have_value("9")
    expect(page.locator('[data-skill-row][data-skill="Pilot"]')).to_have_count(1)
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    assert (_stored()["attributes"]["DEX"], _stored_skill_names()) == (9, ["Pilot"])
    page.fill("input[name=STR]", "8")  # the page goes on from there, in no conflict
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    assert _stored()["attributes"]["STR"] == 8


def test_an_edit_is_stored_when_the_tab_closes_without_asking_first(building):
    """A phone's tab switcher (and iOS always) closes a page without beforeunload: only
    pagehide tells it."""
    page = building
    page.fill("input[name=DEX]", "9")
    page.close()  # at once, and without beforeunload

    deadline = time.monotonic() + 5  # the save outlives the page: give it time to land
    while _stored()["attributes"]["DEX"] != 9 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _stored()["attributes"]["DEX"] == 9


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
    assert (_stored()["attributes"]["STR"], _stored()["attributes"]["DEX"]) == (11, 10)


def test_the_sheet_opened_right_after_an_edit_shows_that_edit(building):
    page = building
    page.fill("input[name=STR]", "12")
    page.get_by_role("link", name="Sheet", exact=True).click()  # at once: no pause to save in

    expect(page).to_have_url(re.compile(r"/characters/\d+/$"))
    expect(page.locator("[data-upp]")).to_have_text("C77-777-777")


def test_the_sheet_followed_on_a_slow_network_opens_once_the_edit_is_stored(building):
    page = building
    held = _hold_saves(page)
    _enter(page, "[data-add=skill]", "Pilot")
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
    assert _stored()["attributes"]["DEX"] == 9


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
    assert _stored()["attributes"]["DEX"] == 10
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
    assert (_stored()["attributes"]["DEX"], _stored()["attributes"]["STR"]) == (9, 7)


# -- Rows at once, whatever the network --------------------------------------------------------


def test_rows_come_at_once_on_a_slow_network_and_are_all_stored_when_it_answers(building):
    page = building
    held = _hold_saves(page)

    _enter(page, "[data-add=skill]", "Pilot")
    expect(page.locator('[data-skill-row][data-skill="Pilot"]')).to_have_count(1)
    page.get_by_role("button", name="Combat experience").click()
    page.get_by_role("button", name="Add an item").click()
    expect(page.locator("[data-trait-row]")).to_have_count(1)
    expect(page.locator("[data-item-row]")).to_have_count(1)
    _enter(page, "[data-add=skill]", "Medical")
    expect(page.locator("[data-save-state]")).to_have_text("Saving…")
    _until_asked(page, held)
    page.unroute("**/edit/")
    _let_go(held)

    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    assert _stored_skill_names() == ["Pilot", "Medical"]
    assert [trait["name"] for trait in _stored()["traits"]] == ["Combat experience"]


def test_an_edit_the_network_loses_is_saved_again_and_the_save_state_says_so(building):
    page = building
    lost = _hold_saves(page, lose=True)

    _enter(page, "[data-add=skill]", "Pilot")
    _until_asked(page, lost)

    expect(page.locator("[data-save-state]")).to_have_text(
        "Not saved: the server could not be reached. Retrying…"
    )
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)  # retried after a pause
    assert _stored_skill_names() == ["Pilot"]


def test_enter_in_the_add_skill_box_adds_it_and_enter_elsewhere_removes_nothing(building):
    page = building
    _enter(page, "[data-add=skill]", "Pilot")
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
    assert _stored()["skills"] == [{"skill": "Pilot", "level": 3}]


def test_skills_filled_in_one_after_another_are_all_added(building):
    page = building
    _add_skills(page, "Pilot", "Navigation", "Medical", "Streetwise", "Vacc Suit")
    assert _stored_skill_names() == ["Pilot", "Navigation", "Medical", "Streetwise", "Vacc Suit"]


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
    assert _stored_skill_names() == ["Ground Vehicle", "Demolitions", "Pilot"]
    assert _stored()["skills"][0]["specialties"] == ["ATV"]


def test_a_name_not_in_the_catalog_stays_in_the_box_selected_with_what_it_may_be(building):
    page = building
    _enter(page, "[data-add=skill]", "Pilto")

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
    _enter(page, box, typo)
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
    _enter(page, "[data-add=skill]", "Medic")
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
    _enter(page, "[data-add=skill]", "Gun Combat")

    for name in ("Handgun", "Rifleman", "SMG", "Shotgun", "Laser"):
        expect(page.get_by_role("button", name=f"Add {name}", exact=True)).to_be_visible()


# -- Figures that follow every edit ------------------------------------------------------------


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
    _enter(page, "input[name=trait-notation]", "[PP-C-S 2]")
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
    assert _stored()["traits"][0]["control"] is False
    kind.select_option("HF")
    expect(box).not_to_be_checked()  # the box the player sees is what is stored
    kind.select_option("PP")
    expect(box).to_be_hidden()
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    page.reload()
    expect(box).to_be_hidden()
    assert "control" not in _stored()["traits"][0]


def test_one_unreadable_field_holds_back_nothing_else_and_says_so(building):
    page = building

    page.fill("input[name=END]", "")
    page.fill("input[name=STR]", "9")
    page.fill("input[name=homeworld]", "Regina")

    state = page.locator("[data-save-state]")
    expect(state).to_have_text(re.compile(r"^Saved all but one field: END: enter a level"))
    assert (_stored()["attributes"]["STR"], _stored()["homeworld"]) == (9, "Regina")
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
    assert _stored()["attributes"]["EDU"] == 15


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


# -- Focus ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("removed", "then_focused"), [("Pilot", "Navigation"), ("Medical", "Navigation")]
)
def test_remove_pressed_from_the_keyboard_keeps_focus_on_the_row_that_stays(
    building, removed, then_focused
):
    page = building
    _add_skills(page, "Pilot", "Navigation", "Medical")
    page.locator(f'[data-skill-row][data-skill="{removed}"] [data-action=remove]').focus()
    page.keyboard.press("Enter")

    level = page.locator(f'[data-skill-row][data-skill="{then_focused}"] [data-field=level]')
    expect(page.locator("[data-skill-row]")).to_have_count(2)
    expect(level).to_be_focused()
    page.keyboard.press("End")
    page.keyboard.press("Backspace")
    page.keyboard.type("3")
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    assert {"skill": "Navigation", "level": 3} in _stored()["skills"]
    assert removed not in _stored_skill_names()


@pytest.mark.parametrize("width", [1280, 390])
def test_the_only_trait_removed_from_the_keyboard_leaves_focus_in_the_notation_box(building, width):
    page = building
    page.set_viewport_size({"width": width, "height": 800})
    _enter(page, "input[name=trait-notation]", "[PF-H-R -2]")
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
    assert [(t["type"], t["level"], t["frequency"]) for t in _stored()["traits"]] == [
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


# -- Signed out, submitted, approved ------------------------------------------------------------


def test_edits_made_while_signed_out_wait_on_the_page_and_are_saved_after_signing_in_again(
    building,
):
    page = building
    other = page.context.new_page()
    other.goto("/")
    log_out(other)

    page.fill("input[name=DEX]", "9")
    _enter(page, "[data-add=skill]", "Pilot")
    expect(page.locator("[data-save-state]")).to_contain_text("you are signed out")
    expect(page).to_have_url(re.compile(r"/characters/\d+/edit/$"))  # not sent to the login
    assert _stored()["attributes"]["DEX"] == 7

    log_in(other, "player1")  # a new CSRF secret: the page's own token is refused from now
    page.fill("input[name=STR]", "12")

    expect(page.locator("[data-upp]")).to_have_text("C97-777-777")
    expect(page.locator("[data-save-state]")).to_have_text(SAVED, timeout=15_000)
    assert (_stored()["attributes"]["DEX"], _stored()["attributes"]["STR"]) == (9, 12)
    assert _stored_skill_names() == ["Pilot"]


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
    assert _stored()["attributes"]["DEX"] == 7


def test_a_character_submitted_elsewhere_waits_and_saves_again_once_returned(building):
    page = building
    page.fill("input[name=DEX]", "9")
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    Character.objects.filter(name="Mara").update(status=Character.Status.SUBMITTED)

    page.fill("input[name=DEX]", "10")
    expect(page.locator("[data-save-state]")).to_contain_text("it is submitted for review")
    assert _stored()["attributes"]["DEX"] == 9

    Character.objects.filter(name="Mara").update(status=Character.Status.RETURNED)
    page.fill("input[name=STR]", "11")
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
    assert (_stored()["attributes"]["DEX"], _stored()["attributes"]["STR"]) == (10, 11)


# -- Without JavaScript, and documents the catalog does not know --------------------------------


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
    assert _stored()["attributes"]["STR"] == 9
    assert _stored_skill_names() == ["Medical"]
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
