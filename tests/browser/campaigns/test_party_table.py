"""The referee reaches every review action in the party table at desktop and phone width."""

import pytest

from characters.builder import services as builder_services
from characters.play import services as play_services
from characters.review import services as review_services
from tests.browser.pages import log_in
from tests.dice import Scripted
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


def test_on_a_laptop_the_whole_party_table_shows_without_scrolling_sideways(page):
    # A submitted character with problems and skills, and a hurt one with a wound: the widest
    # cells the table has (actions, problems, LIF now with its wound and state, key skills).
    mara = character_in_campaign(medic_document(name="Mara Quill"))
    review_services.submit_character(character=mara, by=mara.owner)
    hurt = builder_services.create_character(
        owner=mara.owner,
        document=medic_document(name="Ilse Varga", budget=120),
        campaign=mara.campaign,
    )
    play_services.take_damage(character=hurt, by=mara.owner, amount=9, form="L", rng=Scripted([3]))
    page.set_viewport_size({"width": 1280, "height": 900})
    log_in(page, "referee")
    page.goto(f"/campaigns/{mara.campaign_id}/")

    box = page.locator("[data-party=pc]").locator("xpath=..")
    assert box.evaluate("e => e.scrollWidth <= e.clientWidth"), box.evaluate(
        "e => [e.scrollWidth, e.clientWidth]"
    )
    lif_now = page.locator(f"[data-character='{hurt.pk}'] [data-lif-now]").bounding_box()
    assert lif_now is not None
    assert lif_now["x"] + lif_now["width"] <= 1280
