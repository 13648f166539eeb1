"""The sheet page prints for the table as the PDF does: the sheet only, the attributes, skills
and traits on the front page, the belongings, notes and stat block on the reverse; a typical
character on two pages."""

import re
import subprocess

import pytest
from django.core.management import call_command

from characters.models import Character
from tests.browser.pages import log_in
from tests.factories import character_in_campaign, medic_document
from tests.integration import sheet_documents

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


def _page_texts(pdf: bytes, tmp_path) -> list[str]:
    """The text of each printed page, its white space made single spaces."""
    path = tmp_path / "printed.pdf"
    path.write_bytes(pdf)
    texts = []
    for number in range(1, _pages(pdf, tmp_path) + 1):
        text = subprocess.run(
            ["pdftotext", "-f", str(number), "-l", str(number), str(path), "-"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        texts.append(" ".join(text.split()))
    return texts


def _printed(page, character: Character, paper: str) -> bytes:
    page.goto(f"/characters/{character.pk}/")
    page.emulate_media(media="print")
    return page.pdf(format=paper)


def test_the_sheet_prints_without_the_page_around_it(page, typical):
    log_in(page, "player1")
    page.goto(f"/characters/{typical.pk}/")
    page.emulate_media(media="print")

    shown = {selector: page.locator(selector).first.is_visible() for selector in HIDDEN_IN_PRINT}

    assert shown == dict.fromkeys(HIDDEN_IN_PRINT, False)
    assert page.get_by_role("heading", name=typical.name).is_visible()


def _front_and_reverse(texts: list[str]) -> tuple[str, str]:
    """The first printed page and the rest, which must start on the second page."""
    front, *reverse = texts
    assert reverse, "the sheet printed on a single page"
    return front, " ".join(reverse)


def _assert_read_like_the_pdf(front: str, reverse: str, *, front_has, reverse_has) -> None:
    """The front holds the attributes, traits and skills; the reverse the belongings, notes
    and stat block (which repeats the front's figures), none of them begun on the front."""
    for heading in ("ATTRIBUTES", "TRAITS", "SKILLS"):
        assert heading in front, f"{heading} is not on the front"
    for heading in ("MUSTERING OUT", "NOTES", "STAT BLOCK"):
        assert heading in reverse, f"{heading} is not on the reverse"
        assert heading not in front, f"{heading} is on the front"
    for text in front_has:
        assert text in front, f"{text!r} is not on the front"
    for text in reverse_has:
        assert text in reverse, f"{text!r} is not on the reverse"
        assert text not in front, f"{text!r} is on the front"


@pytest.mark.parametrize("paper", ["Letter", "A4"])
def test_a_typical_character_prints_on_two_pages_front_and_reverse(page, typical, tmp_path, paper):
    log_in(page, "player1")

    texts = _page_texts(_printed(page, typical, paper), tmp_path)

    assert len(texts) == 2
    _assert_read_like_the_pdf(
        *_front_and_reverse(texts),
        front_has=("Medical-2", "Owes a debt [PF-H-R"),
        reverse_has=("Cold weather clothing", "Owes a Vilani broker money"),
    )


@pytest.mark.parametrize("paper", ["Letter", "A4"])
def test_the_demo_vargr_prints_its_attributes_skills_and_traits_together_on_the_front(
    page, tmp_path, paper
):
    """The demo Vargr corsair, whose stat block is long: its attributes, traits and skills
    whole on the first page (on A4 they were split over two pages; on Letter the first page
    held only the stat block), its belongings, notes and stat block on the second."""
    call_command("load_demo")
    vargr = Character.objects.get(name="Vargr corsair")
    log_in(page, "referee")

    texts = _page_texts(_printed(page, vargr, paper), tmp_path)

    assert len(texts) == 2
    _assert_read_like_the_pdf(
        *_front_and_reverse(texts),
        front_has=("UPP 6B5-778-668", "WND", "Vacc Suit-1", "Thought untrustworthy [HF-H-R -2]"),
        reverse_has=("Revolver ammunition", "boarding party"),
    )


@pytest.mark.parametrize("paper", ["Letter", "A4"])
def test_the_longest_realistic_character_keeps_its_front_on_the_first_page(page, tmp_path, paper):
    """Twenty-four skills and eleven traits still fit the front; the reverse, a dozen
    belongings and long notes, goes on over a third page as the PDF's does on Letter."""
    longest = character_in_campaign(sheet_documents.longest())
    log_in(page, "player1")

    texts = _page_texts(_printed(page, longest, paper), tmp_path)

    _assert_read_like_the_pdf(
        *_front_and_reverse(texts),
        front_has=("Pilot-3", "Communications-0", "Former rank 5 (Captain, Navy)"),
        reverse_has=("Body pistol", "bureaucrats"),
    )
