"""A mistyped blow taken back from the play sheet, at desktop and phone widths."""

import pytest
from playwright.sync_api import expect

from characters.core import dice as server_dice
from tests.browser.pages import log_in
from tests.dice import Scripted
from tests.factories import character_in_campaign, medic_document

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("width", [1280, 390])
def test_a_mistyped_blow_is_undone_from_the_play_sheet(page, monkeypatch, width):
    mara = character_in_campaign(medic_document(), approved=True)
    monkeypatch.setattr(server_dice, "dice_source", lambda: Scripted([2]))
    page.set_viewport_size({"width": width, "height": 900})
    log_in(page, "player1")
    page.goto(f"/characters/{mara.pk}/play/")
    expect(page.locator('[data-action="undo"]')).to_have_count(0)

    # 7 lethal typed where 1 was meant: a light wound and 7 boxes marked.
    page.fill("#damage-amount", "7")
    page.locator('[data-action="damage"]').click()
    expect(page.locator('[data-lif-box="x"]')).to_have_count(7)
    undo = page.locator('[data-action="undo"]')
    expect(undo).to_have_text("Undo: Took 7 lethal damage")

    undo.click()

    expect(page.locator("[data-notice]")).to_contain_text("Undone: Took 7 lethal damage.")
    expect(page.locator('[data-lif-box="x"]')).to_have_count(0)
    expect(page.locator("[data-no-wounds]")).to_be_visible()
    expect(page.locator("[data-play-log]")).to_contain_text("Undone: Took 7 lethal damage.")
    expect(page.locator('[data-action="undo"]')).to_have_count(0)
