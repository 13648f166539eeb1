"""The play sheet answers where the player clicked: marking damage or throwing the dice leaves
the page where it was, with the result beside the button, at desktop and phone widths, with
and without JavaScript. The roller suggests each skill's attribute as it is chosen."""

import re
from itertools import pairwise

import pytest
from playwright.sync_api import expect

from characters.core import dice as server_dice
from characters.play import services as play_services
from rules import BuyOffFlaw
from tests.browser.pages import log_in
from tests.dice import Scripted
from tests.factories import PASSWORD, character_in_campaign, medic_document

pytestmark = pytest.mark.django_db(transaction=True)

VIEWPORTS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.fixture
def mara():
    return character_in_campaign(medic_document(), approved=True)


def open_play_sheet(page, character) -> None:
    """The player's play sheet of ``character``, logged in as its owner, player1."""
    log_in(page, "player1")
    page.goto(f"/characters/{character.pk}/play/")
    page.wait_for_load_state("load")


def scroll_y(page) -> float:
    return page.evaluate("() => window.scrollY")


def top_of(locator) -> float:
    return locator.evaluate("(element) => element.getBoundingClientRect().top")


def assert_in_view(page, locator) -> None:
    box = locator.evaluate(
        "(element) => { const r = element.getBoundingClientRect(); return [r.top, r.bottom]; }"
    )
    height = page.evaluate("() => window.innerHeight")
    assert box[0] >= 0, f"{box} starts above the window"
    assert box[1] <= height, f"{box} ends below the window ({height} px)"


def click_in_place(page, action: str) -> tuple[float, float]:
    """Bring the button to the middle of the window, click it, wait for the answer; returns how
    far the page scrolled and how far the button moved on the screen."""
    button = page.locator(f'[data-action="{action}"]')
    button.evaluate("(element) => element.scrollIntoView({block: 'center'})")
    before, top = scroll_y(page), top_of(button)
    button.click()
    expect(page.locator("[data-notice]")).to_be_visible()
    expect(page.locator(f'[data-action="{action}"]')).to_be_focused()
    return scroll_y(page) - before, top_of(page.locator(f'[data-action="{action}"]')) - top


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_damage_and_dice_answer_beside_the_button_and_the_page_stays(
    page, mara, monkeypatch, viewport
):
    monkeypatch.setattr(server_dice, "dice_source", lambda: Scripted([4, 2]))
    page.set_viewport_size(VIEWPORTS[viewport])
    open_play_sheet(page, mara)
    allowed = VIEWPORTS[viewport]["height"] / 2

    page.fill("#damage-amount", "3")
    scrolled, moved = click_in_place(page, "damage")
    notice = page.locator("[data-notice]")
    expect(notice).to_have_attribute("data-place", "damage")
    assert_in_view(page, notice)
    assert abs(scrolled) < allowed, f"the page scrolled {scrolled} px"
    assert abs(moved) < allowed, f"the button moved {moved} px on the screen"

    # The roller suggests DEX for Pilot as it is chosen, and keeps it after the throw.
    page.select_option("#roll-skill", label="Pilot-1 (DEX)")
    expect(page.locator("#roll-attribute")).to_have_value("DEX")
    expect(page.locator("#odds")).to_contain_text("Pilot-1 DEX")
    scrolled, moved = click_in_place(page, "roll")
    notice = page.locator("[data-notice]")
    expect(notice).to_have_attribute("data-place", "dice")
    expect(notice.locator("[data-roll]")).to_contain_text("Pilot-1 DEX")
    assert_in_view(page, notice)
    assert abs(scrolled) < allowed, f"the page scrolled {scrolled} px"
    assert abs(moved) < allowed, f"the button moved {moved} px on the screen"
    expect(page.locator("#roll-skill")).to_have_value("Pilot::")
    expect(page.locator("#roll-attribute")).to_have_value("DEX")


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_without_javascript_the_answer_is_in_view_after_the_redirect(
    browser, live_server, mara, viewport
):
    context = browser.new_context(
        base_url=live_server.url, java_script_enabled=False, viewport=VIEWPORTS[viewport]
    )
    page = context.new_page()
    page.goto("/accounts/login/")
    page.fill("input[name=username]", "player1")
    page.fill("input[name=password]", PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.goto(f"/characters/{mara.pk}/play/")

    page.fill("#damage-amount", "3")
    page.locator('[data-action="damage"]').click()

    notice = page.locator("[data-notice]")
    expect(notice).to_contain_text("A superficial wound")
    assert page.url.endswith("#outcome")
    assert_in_view(page, notice)
    assert_in_view(page, page.locator('[data-action="damage"]'))
    context.close()


def test_damage_refused_as_another_tab_acted_first_keeps_what_was_typed(page, second_page, mara):
    for tab in (page, second_page):
        open_play_sheet(tab, mara)
    page.fill("#damage-amount", "3")
    page.locator('[data-action="damage"]').click()
    expect(page.locator("[data-lif]")).to_have_text("20")

    second_page.fill("#damage-amount", "5")
    second_page.select_option("select[name=form]", "S")
    second_page.locator('[data-action="damage"]').click()

    expect(second_page.locator("[data-notice][data-refused]")).to_contain_text("changed")
    expect(second_page.locator("[data-lif]")).to_have_text("20")  # the other tab's damage
    expect(second_page.locator("#damage-amount")).to_have_value("5")
    expect(second_page.locator("select[name=form]").first).to_have_value("S")
    second_page.locator('[data-action="damage"]').click()  # sent again: now it counts
    expect(second_page.locator("[data-notice][data-refused]")).to_have_count(0)
    expect(second_page.locator("[data-lif]")).to_have_text("15")
    expect(second_page.locator("#damage-amount")).to_have_value("")


def test_back_from_the_sheet_shows_the_damage_marked_in_place(page, mara):
    # The region was swapped in place: the browser's cached copy of the page is from before.
    page.set_viewport_size(VIEWPORTS["phone"])
    open_play_sheet(page, mara)
    page.fill("#damage-amount", "3")
    page.locator('[data-action="damage"]').click()
    expect(page.locator("[data-lif]")).to_have_text("20")

    page.get_by_role("link", name="Sheet", exact=True).click()
    expect(page).to_have_url(re.compile(rf"/characters/{mara.pk}/$"))
    page.go_back()

    expect(page.locator("[data-lif]")).to_have_text("20")
    expect(page.locator('[data-lif-box="x"]')).to_have_count(3)


def test_on_a_phone_a_wounds_care_opens_the_width_of_its_card(page, mara):
    play_services.take_damage(character=mara, by=None, amount=9, form="L", rng=Scripted([3]))
    page.set_viewport_size(VIEWPORTS["phone"])
    open_play_sheet(page, mara)
    wound = page.locator('[data-wound="0"]')

    wound.locator('[data-action="open-treat"]').click()

    card, form = wound.bounding_box(), wound.locator("form:has([data-action=treat])").bounding_box()
    assert form["x"] >= card["x"]
    assert form["x"] + form["width"] <= card["x"] + card["width"]
    assert form["width"] > card["width"] * 0.8, f"the form is {form['width']} px of {card['width']}"
    throw = wound.get_by_role("button", name="Throw to treat")
    throw.scroll_into_view_if_needed()
    expect(throw).to_be_in_viewport(ratio=1)


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_the_damage_types_choices_are_read_whole(page, mara, viewport):
    page.set_viewport_size(VIEWPORTS[viewport])
    open_play_sheet(page, mara)
    choices = page.locator("select[name=damage_type]")
    # The widest choice's text, in the select's own font, against the room the select gives it.
    text_width, room = choices.evaluate(
        """select => {
            const style = getComputedStyle(select);
            const context = document.createElement("canvas").getContext("2d");
            context.font = style.font;
            const widths = [...select.options].map(o => context.measureText(o.text).width);
            const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
            const arrow = 20; // the select's own drop-down arrow, inside its box
            return [Math.max(...widths), select.clientWidth - padding - arrow];
        }"""
    )
    assert text_width < room, f"{text_width:.0f} px of text in {room:.0f} px"


def test_on_a_phone_a_wounds_severity_and_state_each_read_as_one_text(page, mara):
    # A phone's card lays a cell's parts out as columns of their own: "Light" stood far from
    # "9 damage", and "Bleeding" beside its note squeezed onto two lines.
    play_services.take_damage(character=mara, by=None, amount=9, form="L", rng=Scripted([3]))
    page.set_viewport_size(VIEWPORTS["phone"])
    open_play_sheet(page, mara)

    for label in ("Wound", "State"):
        cell = page.locator(f'[data-wound] td[data-label="{label}"]').first
        # Each line of each piece of text, in reading order: [top, left, right].
        boxes = cell.evaluate(
            """(td) => {
                 const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
                 const boxes = [];
                 for (let text = walker.nextNode(); text; text = walker.nextNode()) {
                   if (!text.textContent.trim()) continue;
                   const range = document.createRange();
                   range.selectNodeContents(text);
                   for (const box of range.getClientRects()) {
                     boxes.push([Math.round(box.top), box.left, box.right]);
                   }
                 }
                 return boxes;
               }"""
        )
        assert len(boxes) > 1, f"{label}: one piece of text only, nothing to compare"
        for before, after in pairwise(boxes):
            if after[0] == before[0]:  # on the same line: a space apart, not a column apart
                assert after[1] - before[2] < 12, f"{label}: a gap between its words: {boxes}"
            else:
                assert after[0] > before[0], f"{label}: a piece beside the one before: {boxes}"


def test_on_a_phone_an_empty_ledger_says_so_from_the_left_of_its_card(page, mara):
    page.set_viewport_size(VIEWPORTS["phone"])
    open_play_sheet(page, mara)

    for words in ("No improvement points yet", "Nothing since creation"):
        cell = page.locator("td", has_text=words)
        text = cell.evaluate(
            "(td) => { const r = document.createRange(); r.selectNodeContents(td);"
            " return r.getBoundingClientRect().left - td.getBoundingClientRect().left; }"
        )
        assert text < 20, f"{words!r} starts {text} px into its card"


def test_on_a_phone_a_purchase_in_the_ledger_reads_as_one_text_with_its_revision_whole(page, mara):
    # A phone's card lays a cell's parts side by side: the purchase, its creation points and
    # the link to its revision stood in three narrow columns, and the link broke mid-word.
    referee = mara.campaign.referee
    play_services.award_improvement_points(character=mara, by=referee, amount=5, reason="Tour")
    request = play_services.spend_improvement_points(
        character=mara, by=mara.owner, purchase=BuyOffFlaw(1)
    )
    play_services.decide_request(entry=request, by=referee, approve=True)
    page.set_viewport_size(VIEWPORTS["phone"])
    open_play_sheet(page, mara)

    what = page.locator('[data-ip-entry="purchase"] td[data-label="What"]')
    link = what.get_by_role("link", name=re.compile(r"^revision \d+$"))
    expect(link).to_be_visible()
    # Read in order, each part begins no higher than the line where the one before it ends.
    lines = what.evaluate(
        """(td) => {
             const lines = (node) => {
               const range = document.createRange();
               range.selectNodeContents(node);
               const tops = [...range.getClientRects()].map((box) => Math.round(box.top));
               return [Math.min(...tops), Math.max(...tops)];
             };
             const text = document.createTreeWalker(td, NodeFilter.SHOW_TEXT).nextNode();
             return [lines(text), lines(td.querySelector(".hint")), lines(td.querySelector("a"))];
           }"""
    )
    for (_, ends), (begins, _) in pairwise(lines):
        assert begins >= ends, f"a part starts above the line where the one before it ends: {lines}"
    assert lines[-1][0] == lines[-1][1], "the link to the revision breaks over two lines"
