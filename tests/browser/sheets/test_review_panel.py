"""The review panel on a character's sheet, as its player sees it."""

import pytest

from tests.browser.pages import DESKTOP, PHONE, log_in
from tests.factories import character_in_campaign, medic_document

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_taking_a_character_out_of_its_campaign_lines_up_with_the_panels_other_actions(
    page, viewport
):
    mara = character_in_campaign(medic_document())
    page.set_viewport_size(viewport)
    log_in(page, "player1")
    page.goto(f"/characters/{mara.pk}/")

    button = page.get_by_role("button", name="Take it out of Spinward Marches")
    take_out = button.bounding_box()
    form = button.locator("xpath=..").bounding_box()
    comment = page.locator("[data-action=comment]").bounding_box()

    assert take_out is not None
    assert form is not None
    assert comment is not None
    # It was stretched across its form's grid cell with its words centred, half a column in.
    assert take_out["width"] < form["width"]
    assert take_out["x"] == comment["x"]
