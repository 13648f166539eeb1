"""The referee reaches every review action in the party table at desktop and phone width."""

import pytest

from characters.review import services as review_services
from tests.browser.pages import log_in
from tests.factories import character_in_campaign, medic_document

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("width", [390, 1280])
def test_approve_and_return_are_on_screen_for_a_submitted_character(page, width):
    mara = character_in_campaign(medic_document())
    review_services.submit_character(character=mara, by=mara.owner)
    page.set_viewport_size({"width": width, "height": 900})
    log_in(page, "referee")
    page.goto(f"/campaigns/{mara.campaign_id}/")

    approve = page.locator("[data-action=approve]").bounding_box()
    ret = page.locator(".party__return summary").bounding_box()

    assert approve is not None
    assert ret is not None
    assert approve["x"] + approve["width"] <= width
    assert ret["x"] + ret["width"] <= width
    assert page.evaluate("document.documentElement.scrollWidth") <= width
