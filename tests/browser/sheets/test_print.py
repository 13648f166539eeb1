"""The sheet page prints for the table: the sheet only, no box split across a page, and a
typical character on two pages."""

import re
import subprocess

import pytest

from tests.browser.pages import log_in
from tests.factories import character_in_campaign, medic_document

pytestmark = pytest.mark.django_db(transaction=True)

HIDDEN_IN_PRINT = ["header.masthead", "#review", "#share", ".page-head__actions", "footer"]


@pytest.fixture
def typical(tmp_path):
    """A typical player character in a campaign, with gear and notes."""
    return character_in_campaign(
        medic_document(
            equipment=[
                {"item": "Dagger", "quantity": 1},
                {"item": "Cold weather clothing", "quantity": 1},
            ],
            notes="Served two terms in the Scouts.\nOwes a Vilani broker money.",
        )
    )


def _pages(pdf: bytes, tmp_path) -> int:
    path = tmp_path / "printed.pdf"
    path.write_bytes(pdf)
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True)
    return int(re.search(r"^Pages:\s+(\d+)", info.stdout, re.MULTILINE).group(1))


def test_the_sheet_prints_without_the_page_around_it(page, typical):
    log_in(page, "player1")
    page.goto(f"/characters/{typical.pk}/")
    page.emulate_media(media="print")

    shown = {selector: page.locator(selector).first.is_visible() for selector in HIDDEN_IN_PRINT}

    assert shown == dict.fromkeys(HIDDEN_IN_PRINT, False)
    assert page.get_by_role("heading", name=typical.name).is_visible()


@pytest.mark.parametrize("paper", ["Letter", "A4"])
def test_a_typical_character_prints_on_two_pages_with_no_box_split(page, typical, tmp_path, paper):
    log_in(page, "player1")
    page.goto(f"/characters/{typical.pk}/")
    page.emulate_media(media="print")

    boxes = page.locator("main .box").evaluate_all(
        "boxes => boxes.map(box => getComputedStyle(box).breakInside)"
    )
    printed = page.pdf(format=paper)

    assert set(boxes) == {"avoid"}
    assert _pages(printed, tmp_path) <= 2
