"""The PDF character sheet (characters/pdf.py), read back with poppler-utils.

The PDF tests need ``pdftotext`` and friends from Debian's poppler-utils. Without them they are
skipped on a workstation, but in CI (CI=true) they run and fail, so a missing package is noticed.
Most need no database: their sheets are built straight from character documents. Those about a
character in play store one, change it through the play services and fetch its PDF over HTTP.
"""

import dataclasses
import http.server
import itertools
import re
import shutil
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
import weasyprint
from django.core.cache import caches
from django.db import connection
from django.template.loader import render_to_string
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from PIL import Image

from characters.builder import services as builder_services
from characters.campaigns import services as campaigns_services
from characters.core import wording
from characters.models import Character
from characters.pdf import rendering as pdf_rendering
from characters.pdf import sheet as pdf_sheet
from characters.pdf.selectors import sheet_for_character
from characters.play import selectors as play_selectors
from characters.play import services as play_services
from rules import HouseRules, catalog, check_document, play
from tests.ci import running_in_ci
from tests.dice import Scripted
from tests.factories import AVERAGE_DOCUMENT, UserFactory, character_document
from tests.integration import sheet_documents as docs
from tests.pdf_structure import structure, untagged_content

IN_CI = running_in_ci()
POPPLER = ("pdftotext", "pdfinfo", "pdfimages", "pdfdetach", "pdffonts")
STATIC = Path(__file__).resolve().parents[3] / "static"


@pytest.fixture
def poppler() -> None:
    missing = [tool for tool in POPPLER if shutil.which(tool) is None]
    if missing and IN_CI:
        pytest.fail(f"{', '.join(missing)} missing: CI must install poppler-utils")
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (apt-get install poppler-utils)")


def poppler_tool(tool: str, *options: str, content: bytes, tmp_path: Path) -> str:
    """What a poppler-utils tool prints about a PDF."""
    path = tmp_path / "sheet.pdf"
    path.write_bytes(content)
    output = ["-"] if tool == "pdftotext" else []
    result = subprocess.run(
        [tool, *options, str(path), *output], capture_output=True, text=True, check=True
    )
    return result.stdout


def pdf_text(content: bytes, tmp_path: Path) -> str:
    """The PDF's text in drawing order, whitespace collapsed, words split at a line end rejoined."""
    raw = poppler_tool("pdftotext", "-raw", content=content, tmp_path=tmp_path)
    raw = raw.replace("\u200b", "")  # the renderer's break opportunities in long words
    return " ".join(re.sub(r"-\n", "-", raw).split())


def page_count(content: bytes, tmp_path: Path) -> int:
    info = poppler_tool("pdfinfo", content=content, tmp_path=tmp_path)
    return int(re.search(r"^Pages:\s+(\d+)", info, re.MULTILINE).group(1))


def render(*documents: dict, page_size: str = "letter", **extras) -> pdf_rendering.RenderedPdf:
    return pdf_rendering.render_sheets(
        [pdf_sheet.sheet_for_document(document, **extras) for document in documents],
        page_size=page_size,
    )


# -- what a sheet says -----------------------------------------------------------------------------


@pytest.mark.usefixtures("poppler")
def test_a_sheet_carries_the_whole_character(tmp_path):
    document = docs.navy_pilot()
    report = check_document(document)

    text = pdf_text(render(document, player="player1", status="Approved").content, tmp_path)

    assert "Ensign Mara Tolven" in text
    assert report.upp == "6B7-979-A89"
    assert report.upp in text
    for line in report.skills.lines:
        assert line.name in text, line.name
    for trait in report.traits:
        assert trait.notation in text, trait.notation
        assert trait.name in text, trait.name
    assert "control score 4" in text  # the cockpit flaw's CS
    for code, value in report.derived.as_dict().items():
        name = catalog().derived_names[code]
        assert f"{code} {value} {name}" in text, code
    for attribute in report.attributes:
        assert f"{attribute.code} {attribute.level} {attribute.hex} " in text, attribute.code
    assert "Member · TAS membership [MP-E-S 5]" in text
    assert "Not trained." in text  # psionics
    assert "2 · Lieutenant" in text  # former rank and its title
    assert "Cr80,000" in text  # mustering-out cash
    assert f"credits Cr{report.equipment.credits_remaining:,}" in text
    assert "player player1 · Approved" in text
    assert "Automatic pistol 6 6 P/L 0 +1 90 m 1 15 Handgun · SA" in text  # a weapon row
    assert "Traveller is a registered trademark of Far Future Enterprises" in text


@pytest.mark.usefixtures("poppler")
def test_a_level_no_hex_digit_writes_is_marked_in_the_upp_as_the_engine_writes_it(tmp_path):
    # Vargr take 2 off STR: a STR of 1 bought comes to -1.
    document = character_document(
        species="vargr", attributes=AVERAGE_DOCUMENT["attributes"] | {"STR": 1}
    )

    text = pdf_text(render(document).content, tmp_path)

    assert "UPP ?95-777-777" in text
    assert "STR -1 ? " in text


@pytest.mark.usefixtures("poppler")
def test_wound_thresholds_are_multiples_of_wnd(tmp_path):
    report = check_document(docs.navy_pilot())
    wnd = report.derived.WND
    assert wnd == 6

    text = pdf_text(render(docs.navy_pilot()).content, tmp_path)

    times, dash = "\u00d7", "\u2013"  # the multiplication sign, the en dash
    assert f"Superficial ≤ 1{times}WND 1{dash}6" in text
    assert f"Light ≤ 2{times}WND 7{dash}12" in text
    assert f"Serious ≤ 3{times}WND 13{dash}18" in text
    assert f"Critical ≤ 4{times}WND 19{dash}24" in text
    assert f"Fatal > 4{times}WND 25+" in text


@pytest.mark.usefixtures("poppler")
def test_one_box_per_life_point(tmp_path):
    lif = check_document(docs.navy_pilot()).derived.LIF

    text = pdf_text(render(docs.navy_pilot()).content, tmp_path)

    assert text.count("□") == lif
    assert f"LIF {lif} · ONE BOX A POINT: MARK STUNNING DAMAGE /, LETHAL DAMAGE X" in text


@pytest.mark.usefixtures("poppler")
def test_a_light_wound_thrown_to_bleed_for_days_shows_the_days_left(tmp_path):
    report = check_document(docs.navy_pilot())
    condition, _events = play.take_damage(
        play.condition_for(report), amount=9, form="L", bleed_lasts=play.Period(3, "day")
    )
    condition, _events = play.bleed(condition, 0)

    text = pdf_text(render(docs.navy_pilot(), condition=condition).content, tmp_path)

    assert "Light wound (9 damage, not stabilised, bleeds 2 days more)" in " ".join(text.split())


@pytest.mark.usefixtures("poppler")
def test_the_sheet_of_a_character_hurt_in_play_shows_the_marks_and_wounds(tmp_path):
    report = check_document(docs.navy_pilot())
    condition, _events = play.take_damage(play.condition_for(report), amount=9, form="L")
    condition, _events = play.take_damage(condition, amount=2, form="S")

    text = pdf_text(render(docs.navy_pilot(), condition=condition).content, tmp_path)

    assert text.count("□") == report.derived.LIF - 11
    assert re.search(r"x\s*x", text)
    assert f"In play: LIF now {report.derived.LIF - 11} of {report.derived.LIF}" in text
    # The engine's states, worst first, then the wound.
    assert "Bleeding; Wounded; Light wound (9 damage, not stabilised)" in " ".join(text.split())
    assert "DEF 4 (from 5)" in text


@pytest.mark.usefixtures("poppler")
def test_the_in_play_box_takes_encumbrance_off_def_after_the_wounds(tmp_path):
    report = check_document(docs.navy_pilot())
    condition, _events = play.take_damage(play.condition_for(report), amount=9, form="L")
    wounded = pdf_sheet.sheet_for_document(docs.navy_pilot(), condition=condition)
    laden = dataclasses.replace(wounded, encumbrance_penalty=1)

    text = pdf_text(pdf_rendering.render_sheets([laden]).content, tmp_path)

    assert "DEF 3 (from 5)" in text
    assert pdf_rendering.sheets_etag([laden]) != pdf_rendering.sheets_etag([wounded])


def test_a_change_in_play_gives_a_new_pdf():
    report = check_document(docs.navy_pilot())
    hurt, _events = play.take_damage(play.condition_for(report), amount=3, form="S")
    unhurt = render(docs.navy_pilot(), condition=play.condition_for(report))

    assert render(docs.navy_pilot(), condition=hurt).etag != unhurt.etag


@pytest.mark.usefixtures("poppler")
def test_psionics_noble_title_and_species_package(tmp_path):
    longest = check_document(docs.longest())
    vargr = check_document(docs.vargr_scout())

    text = pdf_text(render(docs.longest(), docs.vargr_scout()).content, tmp_path)

    assert "PSI 3 · trained (maximum 7) · Telepathy-2, Awareness-1" in text
    assert longest.noble_title == "Baron"
    assert "998-B9A-CCB Baron 5 · Captain" in text
    for trait in vargr.traits:
        assert trait.notation in text
    assert "Teeth (optimal distance 0 squares) (species package)" in text


@pytest.mark.usefixtures("poppler")
def test_skills_too_wide_for_a_column_still_show_in_full(tmp_path):
    document = docs.navy_pilot()
    specialties = ["jump drive", "maneuver drive", "power plant"]
    document["skills"][-1] = {"skill": "Engineering", "level": 2, "specialties": specialties}
    document["traits"][0]["name"] = "A trait whose name is far too long for one line " * 4
    report = check_document(document)
    content = render(document).content
    text = pdf_text(content, tmp_path)

    for line in report.skills.lines:
        assert line.name in text, line.name
    assert "Engineering-2 (jump drive, maneuver drive, power plant)" in text  # the stat block
    assert "Engineering: jump drive, maneuver drive, power plant 2" in text  # the skills box
    assert page_count(content, tmp_path) == 2
    _assert_nothing_overlaps_or_leaves_the_page(content, tmp_path)


@pytest.mark.usefixtures("poppler")
def test_an_ordinary_character_takes_two_pages(tmp_path):
    for document in (docs.navy_pilot(), docs.marine(), docs.vargr_scout()):
        for page_size in ("letter", "a4"):
            assert page_count(render(document, page_size=page_size).content, tmp_path) == 2


@pytest.mark.usefixtures("poppler")
@pytest.mark.parametrize("page_size", ["letter", "a4"])
def test_the_longest_character_fits_without_losing_anything(tmp_path, page_size):
    document = docs.longest()
    report = check_document(document)
    assert report.valid, report.problems

    content = render(document, page_size=page_size).content
    text = pdf_text(content, tmp_path)

    assert page_count(content, tmp_path) in (2, 3)
    for line in report.skills.lines:
        assert line.name in text, line.name
    for trait in report.traits:
        assert trait.notation in text, trait.notation
    for line in report.equipment.lines:
        assert line.item in text, line.item
    assert "Laser carbine 8 12 P/L +3 +3 1,500 m 1 50 Laser · LZ; IS" in text
    assert "Mesh 7 12 3 2 ½ AV vs. blunt damage" in text
    assert "encumbrance none" in text
    assert "patience for bureaucrats." in text  # the end of the notes
    assert "Sworn enemy of a Zhodani agent [PF-P-R CS5 -5]" in text  # the stat block's traits
    _assert_nothing_overlaps_or_leaves_the_page(content, tmp_path)


@pytest.mark.usefixtures("poppler")
def test_notes_at_the_length_limit_flow_onto_further_pages(tmp_path):
    document = docs.navy_pilot()
    paragraph = "The patrol cruiser jumped to Regina, where the crew heard rumours of war. " * 10
    document["notes"] = "\n\n".join([paragraph] * 40)[: 20_000 - 4] + " END"

    content = render(document).content
    text = pdf_text(content, tmp_path)

    assert page_count(content, tmp_path) > 2
    assert text.count("rumours of war") == document["notes"].count("rumours of war")
    assert " END 23. STAT BLOCK" in text  # the notes' last word, then the next box
    _assert_nothing_overlaps_or_leaves_the_page(content, tmp_path)


def page_lines(content: bytes, tmp_path: Path) -> list[list[str]]:
    """Each page's non-blank lines of text, top to bottom, in the page's layout."""
    pages = []
    for number in range(1, page_count(content, tmp_path) + 1):
        text = poppler_tool(
            "pdftotext", "-layout", "-f", str(number), "-l", str(number),
            content=content, tmp_path=tmp_path,
        )  # fmt: skip
        pages.append([line.strip() for line in text.splitlines() if line.strip()])
    return pages


CONTINUED = re.compile(r"^(\d+\. .+) \(CONTINUED\)$")


@pytest.mark.usefixtures("poppler")
def test_a_box_that_runs_onto_another_page_repeats_its_heading_there(tmp_path):
    document = docs.navy_pilot()
    document["notes"] = "\n".join(f"Log entry {day}: patrol, no contacts." for day in range(150))

    pages = page_lines(render(document).content, tmp_path)

    assert len(pages) > 2
    assert [page[0] for page in pages[2:-1]] == ["22. NOTES (CONTINUED)"] * (len(pages) - 3)
    assert not any(CONTINUED.match(line) for page in pages[:2] for line in page)


@pytest.mark.usefixtures("poppler")
@pytest.mark.parametrize(
    ("note_lines", "third_page_starts"),
    [
        (12, "The Traveller game"),  # the small print
        (16, "23. STAT BLOCK (CONTINUED)"),
        (24, "23. STAT BLOCK"),  # the box starts at the top: nothing continues
        (28, "22. NOTES (CONTINUED)"),
    ],
)
def test_only_a_page_that_starts_inside_a_box_says_continued(
    tmp_path, note_lines, third_page_starts
):
    document = docs.longest()
    document["notes"] = "\n".join(f"Note {line}." for line in range(note_lines))

    pages = page_lines(render(document).content, tmp_path)

    # The lengths were chosen for these starts; if the layout moves, choose them again.
    assert pages[2][0].startswith(third_page_starts), pages[2][:2]
    assert ("(CONTINUED)" in pages[2][0]) == ("(CONTINUED)" in third_page_starts), pages[2][0]
    for previous, page in itertools.pairwise(pages):
        continued = CONTINUED.match(page[0])
        if continued:
            heading = continued.group(1)
            assert heading in previous, (heading, previous[-3:])
            assert not page[1].startswith(heading), page[:2]
        else:
            assert page[0].startswith(("Travellers' Aid Society", "The Traveller game")) or (
                re.match(r"^\d+\. [A-Z]", page[0])
            ), page[:2]


def test_a_huge_unbroken_word_does_not_hold_up_the_renderer():
    # Breaking a word anywhere costs WeasyPrint time growing with the square of its length:
    # 20,000 characters without a space took eight times as long as 20,000 in words before
    # the renderer cut long words up. Timed against such a render, so a slow machine is fair.
    def seconds(notes: str) -> float:
        document = docs.navy_pilot()
        document["notes"] = notes
        # A render of the same sheet again would be a cache hit, not a render.
        caches["pdf"].clear()
        start = time.perf_counter()
        assert render(document).content.startswith(b"%PDF-")
        return time.perf_counter() - start

    # The best of two each, taken in turns: a busy spell on a shared machine slows one render,
    # not both of a pair.
    in_words, one_word = float("inf"), float("inf")
    for _ in range(2):
        in_words = min(in_words, seconds(("a word " * 3000)[:20_000]))
        one_word = min(one_word, seconds("y" * 20_000))

    assert one_word < 3 * in_words


def _assert_nothing_overlaps_or_leaves_the_page(content: bytes, tmp_path: Path) -> None:
    """Every word inside its page, and no two words on top of each other."""
    xml = poppler_tool("pdftotext", "-bbox", content=content, tmp_path=tmp_path)
    for page in re.finditer(r'<page width="([\d.]+)" height="([\d.]+)">(.*?)</page>', xml, re.S):
        width, height = float(page.group(1)), float(page.group(2))
        word = r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*?)</'
        boxes = [
            (float(x0), float(y0), float(x1), float(y1), text)
            for x0, y0, x1, y1, text in re.findall(word, page.group(3))
        ]
        assert boxes
        for x0, y0, x1, y1, text in boxes:
            assert x0 >= 0, text
            assert y0 >= 0, text
            assert x1 <= width, text
            assert y1 <= height, text
        for i, (ax0, ay0, ax1, ay1, a) in enumerate(boxes):
            for bx0, by0, bx1, by1, b in boxes[i + 1 :]:
                across = min(ax1, bx1) - max(ax0, bx0)
                down = min(ay1, by1) - max(ay0, by0)
                # Glyph boxes of neighbouring lines may touch; text drawn over text does not.
                assert across <= 1 or down <= 0.35 * min(ay1 - ay0, by1 - by0), (a, b)


def test_no_table_of_a_sheet_is_laid_out_by_measuring_its_cells(monkeypatch):
    """Each table has fixed columns: WeasyPrint's automatic table layout measures the narrowest
    and widest text of every cell first, which made the tables most of a sheet's render time
    and put a sheet at the document's bounds (60 skills, 40 traits, 100 items) past its time
    budget."""
    from weasyprint.layout import table as table_layout

    measured = []
    automatic = table_layout.auto_table_layout

    def spy(context, wrapper, containing_block):
        measured.append(wrapper.get_wrapped_table().element.get("class"))
        return automatic(context, wrapper, containing_block)

    monkeypatch.setattr(table_layout, "auto_table_layout", spy)
    sheets = [pdf_sheet.sheet_for_document(d) for d in (docs.largest_legal(), docs.longest())]
    pdf_rendering.clear_cache()

    pdf_rendering.render_sheets(sheets, summary=True)

    assert measured == []


def every_weapon_and_armor() -> dict:
    """The typical pilot carrying one of every weapon and armor of the catalog, with a flaw that
    changes all six derived attributes (the longest trait notation)."""
    document = docs.navy_pilot()
    cat = catalog()
    named = Counter(item.name for item in cat.equipment)
    document["equipment"] = [
        {"item": item.name, "quantity": 1} | ({"tl": item.tl} if named[item.name] > 1 else {})
        for item in cat.equipment
        if item.table in ("melee", "ranged", "armor")
    ]
    document["traits"].append(
        {"type": "PF", "name": "Frail", "derived": dict.fromkeys(cat.derived_order, -1)}
    )
    return document


@pytest.mark.usefixtures("poppler")
@pytest.mark.parametrize("page_size", ["letter", "a4"])
def test_the_widest_figures_of_the_catalog_stay_inside_their_columns(tmp_path, page_size):
    content = render(every_weapon_and_armor(), page_size=page_size).content

    text = pdf_text(content, tmp_path)
    assert "FGMP-15" in text
    assert "[PF DEF-1 INI-1 MOV-1 TGH-1 LIF-1 WND-1" in text
    _assert_nothing_overlaps_or_leaves_the_page(content, tmp_path)


@pytest.mark.usefixtures("poppler")
def test_a_party_pdf_holds_every_sheet(tmp_path):
    members = [docs.navy_pilot(), docs.marine(), docs.vargr_scout()]

    content = render(*members).content
    text = pdf_text(content, tmp_path)

    assert page_count(content, tmp_path) == 3 * 2
    for document in members:
        report = check_document(document)
        assert report.name in text
        assert report.upp in text
    assert "Page 6 of 6" in text


@pytest.mark.usefixtures("poppler")
@pytest.mark.parametrize(
    ("page_size", "expected"), [("letter", "612 x 792 pts (letter)"), ("a4", "(A4)")]
)
def test_page_size(tmp_path, page_size, expected):
    content = render(docs.navy_pilot(), page_size=page_size).content

    info = poppler_tool("pdfinfo", content=content, tmp_path=tmp_path)

    assert expected in info


def test_an_unknown_page_size_is_refused():
    sheet = pdf_sheet.sheet_for_document(docs.navy_pilot())

    with pytest.raises(ValueError, match="page size"):
        pdf_rendering.render_sheets([sheet], page_size="legal; } body { display: none")


@pytest.mark.usefixtures("poppler")
def test_the_shipped_font_is_embedded(tmp_path):
    fonts = poppler_tool("pdffonts", content=render(docs.navy_pilot()).content, tmp_path=tmp_path)
    rows = fonts.strip().splitlines()[2:]

    assert rows
    for row in rows:
        assert "Sheet-Sans" in row, row  # the OFL font in static/fonts, nothing from the system
        assert row.split()[-5:-3] == ["yes", "yes"], row  # embedded, subset
    assert (STATIC / "fonts" / "OFL.txt").is_file()


@pytest.mark.usefixtures("poppler")
@pytest.mark.parametrize(
    ("name", "homeworld"),
    [("山田 花子", "東京"), ("김민준", "서울"), ("Ольга Петрова", "Θήβα")],
    ids=["japanese", "korean", "cyrillic-and-greek"],
)
def test_a_name_in_any_common_script_prints_as_letters_not_empty_boxes(
    name, homeworld, tmp_path, caplog
):
    document = docs.navy_pilot() | {"name": name, "homeworld": homeworld}

    with caplog.at_level("WARNING", logger="weasyprint"):
        content = render(document).content

    # WeasyPrint draws a font's empty box for a letter no font has, and says so.
    assert not [r for r in caplog.records if ".notdef" in r.getMessage()]
    text = pdf_text(content, tmp_path)
    assert name in text
    assert homeworld in text


# -- a character in play: the gear it carries and the credits it has now --------------------------


def stored_pilot() -> Character:
    """The navy pilot stored for a player: Cr80,000 mustering-out cash, an automatic pistol
    (Cr200) bought at creation, so Cr79,800 left; STR 6, so unencumbered up to 12 kg."""
    owner = UserFactory(username="player1")
    return builder_services.create_character(owner=owner, document=docs.navy_pilot())


def fetch_pdf(client, character: Character, **headers):
    client.force_login(character.owner)
    return client.get(reverse("character_pdf", args=[character.pk]), **headers)


@pytest.fixture
def pilot_in_play(db) -> Character:
    """The pilot after shopping in play: a rifle (Cr220, 4 kg), a TL 8 vacc suit (Cr10,000,
    10 kg) and two cold weather clothing (Cr400, 8 kg) bought, the pistol sold for Cr100."""
    pilot = stored_pilot()
    for item, tl, quantity in (
        ("Rifle", None, 1),
        ("Vacc suit", 8, 1),
        ("Cold weather clothing", None, 2),
    ):
        play_services.buy_gear(character=pilot, by=pilot.owner, item=item, tl=tl, quantity=quantity)
    play_services.give_up_gear(character=pilot, by=pilot.owner, item="Automatic pistol", price=100)
    return pilot


@pytest.mark.usefixtures("poppler")
def test_the_pdf_lists_the_weapons_armor_and_possessions_carried_now(
    client, pilot_in_play, tmp_path
):
    text = pdf_text(fetch_pdf(client, pilot_in_play).content, tmp_path)

    assert "Rifle 5 8 P/L +2 +3 900 m 1 20 Rifleman · SA" in text  # the catalog's figures
    assert "Vacc suit 8 " in text
    assert "may carry any <1kg communicator" in text
    assert f"Cold weather clothing {wording.TIMES}2 1 " in text
    assert "protection from frigid weather" in text
    assert "1 8 10 Cr10,000 Vacc suit" in text  # a possession row: Qty, TL, kg, cost
    # The stat block; a vacc suit is made at several TLs, so it says which.
    assert "Belongings: Rifle, Vacc suit (TL 8), Cold weather clothing" in text
    assert "Automatic pistol" not in text


@pytest.mark.usefixtures("poppler")
def test_the_pdf_weighs_the_gear_carried_now(client, pilot_in_play, tmp_path):
    text = pdf_text(fetch_pdf(client, pilot_in_play).content, tmp_path)

    # 22 kg is 10 kg over 2 x STR 6: one whole STR over, so DEF, INI and MOV lose 1.
    assert (
        f"Total Cr10,620, 22 kg · unencumbered up to 12 kg (2 {wording.TIMES} STR) · "
        f"capacity 36 kg (STR²) · encumbrance {wording.MINUS}1 (DEF 4, INI 3, MOV 7)"
    ) in text


@pytest.mark.usefixtures("poppler")
def test_the_pdf_flags_a_load_over_the_carrying_capacity(client, pilot_in_play, tmp_path):
    play_services.buy_gear(
        character=pilot_in_play, by=pilot_in_play.owner, item="Cold weather clothing", quantity=4
    )

    text = pdf_text(fetch_pdf(client, pilot_in_play).content, tmp_path)

    # 22 kg and 16 kg more: 38 kg, above STR 6 squared.
    assert "38 kg · unencumbered up to 12 kg" in text
    assert "capacity 36 kg (STR²) · OVER CAPACITY · encumbrance" in text


@pytest.mark.usefixtures("poppler")
def test_the_pdf_prints_the_credits_the_character_has_now(client, pilot_in_play, tmp_path):
    content = fetch_pdf(client, pilot_in_play).content
    text = pdf_text(content, tmp_path)

    # Cr79,800 left after creation, less Cr10,620 for the gear, plus Cr100 for the pistol.
    assert play_selectors.credit_balance(pilot_in_play) == 69_280
    assert (
        "Mustering-out cash Cr80,000 · spent on equipment Cr200 · credits after creation "
        "Cr79,800 · credits now Cr69,280"
    ) in text
    assert "Cr69,280 DEF 5 INI 4" in text  # the stat block
    # The longer money row still fits the sheet's two pages.
    assert page_count(content, tmp_path) == 2
    _assert_nothing_overlaps_or_leaves_the_page(content, tmp_path)


@pytest.mark.django_db
@pytest.mark.usefixtures("poppler")
def test_a_character_with_an_empty_ledger_prints_its_creation_equipment_and_credits(
    client, tmp_path
):
    text = pdf_text(fetch_pdf(client, stored_pilot()).content, tmp_path)

    assert "Automatic pistol 6 6 P/L 0 +1 90 m 1 15 Handgun · SA" in text
    assert "spent on equipment Cr200 · credits Cr79,800" in text
    assert "credits now" not in text
    assert "Total Cr200, 0.75 kg" in text


@pytest.mark.django_db
def test_credits_received_in_play_change_the_credits_printed_but_not_the_gear():
    def sheet_context(character: Character) -> dict:
        # Loaded afresh, as each request loads it.
        return pdf_sheet.sheet_context(sheet_for_character(Character.objects.get(pk=character.pk)))

    pilot = stored_pilot()
    before = sheet_context(pilot)

    play_services.record_credits(character=pilot, by=pilot.owner, amount=500, note="Pay")
    after = sheet_context(pilot)

    assert after["money_row"].endswith("credits after creation Cr79,800 · credits now Cr80,300")
    changed = {key for key in before if before[key] != after[key]}
    assert changed == {"money_row", "stat_block"}


@pytest.mark.django_db
def test_buying_and_giving_up_gear_gives_the_pdf_a_new_etag(client):
    pilot = stored_pilot()

    def etag() -> str:
        # "*" matches any version: a 304 carrying the current ETag, without a render.
        return fetch_pdf(client, pilot, HTTP_IF_NONE_MATCH="*")["ETag"]

    before = etag()
    play_services.buy_gear(character=pilot, by=pilot.owner, item="Rifle")
    bought = etag()
    play_services.give_up_gear(character=pilot, by=pilot.owner, item="Rifle", price=0)

    assert len({before, bought, etag()}) == 3
    refetched = fetch_pdf(client, pilot, HTTP_IF_NONE_MATCH=before)
    assert refetched.status_code == 200
    assert refetched.content.startswith(b"%PDF-")


@pytest.mark.django_db
def test_the_party_pdf_reads_the_ledgers_with_the_party(client):
    referee, player = UserFactory(username="referee"), UserFactory(username="player1")
    campaign = campaigns_services.create_campaign(referee=referee, name="Spinward Marches")
    campaigns_services.join_campaign(user=player, code=campaign.invite_code)
    client.force_login(referee)

    def member() -> None:
        character = builder_services.create_character(
            owner=player, document=docs.navy_pilot(), campaign=campaign
        )
        play_services.buy_gear(character=character, by=player, item="Rifle")
        play_services.record_credits(character=character, by=player, amount=50, note="Pay")

    def queries() -> int:
        url = reverse("campaign_pdf", args=[campaign.pk])
        with CaptureQueriesContext(connection) as captured:
            # Every sheet is built for the ETag; "*" then answers 304 without a render.
            assert client.get(url, {"all": "1"}, HTTP_IF_NONE_MATCH="*").status_code == 304
        return len(captured)

    member()
    one = queries()
    member()
    member()

    # Each further member costs one query, for its condition; its ledger comes with the party's.
    assert queries() - one == 2


# -- the cache and the ETag ------------------------------------------------------------------------


def test_an_unchanged_sheet_comes_from_the_cache():
    sheet = pdf_sheet.sheet_for_document(docs.navy_pilot())
    first = pdf_rendering.render_sheets([sheet])

    start = time.perf_counter()
    again = pdf_rendering.render_sheets([pdf_sheet.sheet_for_document(docs.navy_pilot())])
    elapsed = time.perf_counter() - start

    assert not first.from_cache
    assert again.from_cache
    assert again.content == first.content
    assert again.etag == first.etag
    assert elapsed < 0.1
    assert first.content.startswith(b"%PDF-")


def test_the_etag_follows_everything_that_shapes_the_pdf():
    def etag(document, *, page_size="letter", **extras):
        return pdf_rendering.sheets_etag(
            [pdf_sheet.sheet_for_document(document, **extras)], page_size=page_size
        )

    base = etag(docs.navy_pilot())
    changed = docs.navy_pilot()
    changed["notes"] = "A new note."

    assert base == etag(docs.navy_pilot())
    assert re.fullmatch(r'"[0-9a-f]{64}"', base)
    assert base != etag(changed)
    assert base != etag(docs.navy_pilot(), page_size="a4")
    assert base != etag(docs.navy_pilot(), house_rules=HouseRules(budget=120))
    assert base != etag(docs.navy_pilot(), status="Approved")
    assert base != etag(docs.navy_pilot(), rolls=[{"die": 6, "rolled_at": "2026-01-02T03:04"}])
    assert (
        base == pdf_rendering.render_sheets([pdf_sheet.sheet_for_document(docs.navy_pilot())]).etag
    )


def test_pdf_response_answers_304_to_a_client_that_has_the_pdf():
    sheets = [pdf_sheet.sheet_for_document(docs.navy_pilot())]
    factory = RequestFactory()

    response = pdf_rendering.pdf_response(
        factory.get("/"), sheets, page_size="a4", filename="Mara T!"
    )
    repeat = pdf_rendering.pdf_response(
        factory.get("/", HTTP_IF_NONE_MATCH=response["ETag"]), sheets, page_size="a4"
    )

    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"] == 'inline; filename="Mara-T.pdf"'
    assert response["Cache-Control"] == "private, no-cache"
    assert response.content.startswith(b"%PDF-")
    assert repeat.status_code == 304
    assert repeat["ETag"] == response["ETag"]


def test_a_sheet_rendered_by_one_worker_is_served_from_the_cache_by_every_other():
    # Without Redis the cache is files under FFA_VAR_DIR: another cache connection, as another
    # worker process holds, reads the same store.
    sheet = pdf_sheet.sheet_for_document(docs.navy_pilot())
    first_worker = pdf_rendering.render_sheets([sheet])

    other_worker = caches.create_connection("pdf")

    assert other_worker.get(first_worker.etag.strip('"')) == first_worker.content
    assert pdf_rendering.render_sheets([sheet]).from_cache


def test_a_pdf_larger_than_a_cache_entry_is_not_cached(monkeypatch):
    monkeypatch.setattr(pdf_rendering, "CACHE_MAX_BYTES", 10)
    sheet = pdf_sheet.sheet_for_document(docs.navy_pilot())
    pdf_rendering.render_sheets([sheet])
    assert not pdf_rendering.render_sheets([sheet]).from_cache


# -- security: nothing is fetched, nothing user-typed reaches markup or CSS ------------------------


class _Recorder(http.server.BaseHTTPRequestHandler):
    requests: list[str] = []

    def do_GET(self) -> None:
        self.requests.append(self.path)
        # A redirect to a local file, in case anything follows it.
        self.send_response(302)
        self.send_header("Location", "file:///etc/passwd")
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def listener() -> Iterator[str]:
    """An HTTP server on the loopback interface that records every request it gets."""
    _Recorder.requests = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _bait(origin: str, tag: str) -> str:
    return (
        f'<img src="{origin}/{tag}.png"><link rel="attachment" href="{origin}/{tag}.txt">'
        f'<div style="background: url({origin}/{tag}-css.png)">x</div>'
        f'<img src="file:///etc/passwd"><link rel=attachment href="file:///etc/passwd">'
    )


@pytest.mark.usefixtures("poppler")
def test_markup_typed_into_a_character_fetches_and_embeds_nothing(tmp_path, listener):
    document = docs.navy_pilot()
    document["name"] = f'<img src="{listener}/name.png">url({listener}/n)'[:100]
    document["notes"] = _bait(listener, "notes")
    # Names are short (the catalog's bounds), so they get the shorter baits.
    document["traits"][0]["name"] = (
        f'<img src="{listener}/trait.png"><link rel="attachment" href="{listener}/trait.txt">'
    )
    document["equipment"].append({"item": f'<img src="{listener}/item.png">', "quantity": 1})
    document["homeworld"] = f"url({listener}/home)"

    content = render(document, player=_bait(listener, "player"), status="url(x)").content
    time.sleep(0.2)  # let any request that was made arrive

    assert _Recorder.requests == []
    images = poppler_tool("pdfimages", "-list", content=content, tmp_path=tmp_path)
    assert len(images.strip().splitlines()) == 2, images  # the header only: no image
    attachments = poppler_tool("pdfdetach", "-list", content=content, tmp_path=tmp_path)
    assert attachments.startswith("0 embedded files"), attachments
    # The markup is there, as text: escaped, not interpreted. (Long words may wrap anywhere.)
    text = "".join(pdf_text(content, tmp_path).split())
    assert "root:" not in text
    assert f'<imgsrc="{listener}/notes.png">' in text
    assert f'<linkrel="attachment"href="{listener}/trait.txt">' in text
    assert f"url({listener}/home)" in text


class _Markup(HTMLParser):
    """The elements and attributes of an HTML document."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes.extend(attrs)


def _markup(sheet: pdf_sheet.Sheet) -> tuple[_Markup, str]:
    html = render_to_string(pdf_rendering.TEMPLATE, {"sheets": [pdf_sheet.sheet_context(sheet)]})
    markup = _Markup()
    markup.feed(html)
    return markup, html


def test_user_text_never_reaches_markup_an_attribute_or_css():
    document = docs.navy_pilot()
    document["name"] = '"><style>*{}</style><p style="x'
    document["notes"] = "</div><img src=x onerror=y>"
    document["traits"][0]["name"] = "<link rel=stylesheet href=x>"
    baited = pdf_sheet.sheet_for_document(document, player="<b>p</b>", status="' style='x")
    harmless = docs.navy_pilot()
    harmless["notes"] = "Notes."
    plain = pdf_sheet.sheet_for_document(harmless, player="p", status="x")

    markup, html = _markup(baited)

    # The same elements as a harmless sheet: the template's, none of the user's.
    assert markup.tags == _markup(plain)[0].tags
    template_attributes = {"class", "charset", "content", "lang", "name", "scope"}
    assert {name for name, _ in markup.attributes} <= template_attributes
    assert "style" not in markup.tags
    assert "&lt;/div&gt;&lt;img src=x onerror=y&gt;" in html
    assert "&lt;b&gt;p&lt;/b&gt;" in html


def test_even_markup_that_reached_the_html_fetches_nothing(listener, tmp_path):
    # Defence in depth: were escaping ever bypassed, the fetcher still refuses the request.
    style = f"<style>p {{ background: url({listener}/style) }}</style>"
    html = _bait(listener, "direct") + style + "<p>x"

    content = weasyprint.HTML(
        string=html,
        base_url=pdf_rendering.ASSET_BASE_URL,
        url_fetcher=pdf_rendering.StaticOnlyFetcher(),
    ).write_pdf()
    time.sleep(0.2)

    assert _Recorder.requests == []
    assert b"root:" not in content


# -- the URL fetcher -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/x.png",
        "https://example.com/font.ttf",
        "https://ffa-static.invalid.example.com/static/css/sheet.css",
        "ftp://127.0.0.1/x",
        "file:///etc/passwd",
        f"file://{STATIC}/css/sheet.css",  # even a static file, by any other way than ours
        pdf_rendering.ASSET_BASE_URL + "../../../../etc/passwd",
        pdf_rendering.ASSET_BASE_URL + "css/..%2f..%2f..%2f..%2f..%2fetc/passwd",
        pdf_rendering.ASSET_BASE_URL + "%2fetc/passwd",
        pdf_rendering.ASSET_BASE_URL + "css/no-such-file.css",
        pdf_rendering.ASSET_BASE_URL + "css",
        "HTTPS://FFA-STATIC.INVALID/static/css/sheet.css",
        "javascript:alert(1)",
    ],
)
def test_the_fetcher_refuses_anything_but_our_static_files(url):
    with pytest.raises(pdf_rendering.UnsafeURL):
        pdf_rendering.StaticOnlyFetcher().fetch(url)


def test_the_fetcher_serves_static_files_and_data_uris():
    fetcher = pdf_rendering.StaticOnlyFetcher()

    css = fetcher.fetch(pdf_rendering.ASSET_BASE_URL + "css/sheet.css")
    font = fetcher.fetch(pdf_rendering.ASSET_BASE_URL + "fonts/LiberationSans-Regular.ttf")
    data = fetcher.fetch("data:text/plain;base64,aGVsbG8=")

    assert css.content_type == "text/css"
    assert b"@font-face" in css.read()
    assert font.read() == (STATIC / "fonts" / "LiberationSans-Regular.ttf").read_bytes()
    assert data.read() == b"hello"
    assert data.content_type == "text/plain"


def test_the_fetcher_does_not_follow_a_link_out_of_the_static_directory(tmp_path):
    root = tmp_path / "static"
    root.mkdir()
    (root / "ok.css").write_text("p {}")
    (tmp_path / "secret.txt").write_text("secret")
    (root / "escape.txt").symlink_to(tmp_path / "secret.txt")
    fetcher = pdf_rendering.StaticOnlyFetcher(roots=[("", root.resolve())])

    assert fetcher.fetch(pdf_rendering.ASSET_BASE_URL + "ok.css").read() == b"p {}"
    with pytest.raises(pdf_rendering.UnsafeURL):
        fetcher.fetch(pdf_rendering.ASSET_BASE_URL + "escape.txt")


# -- the tab grids: every figure fits its column ---------------------------------------------------


def test_every_weapon_and_armor_of_the_catalog_prints_inside_its_table(tmp_path):
    # A document with every weapon and armor of the catalog (far over budget, which is fine).
    cat = catalog()
    document = docs.navy_pilot()
    document["equipment"] = [
        {"item": item.name, "tl": item.tl, "quantity": 2}
        for item in cat.equipment
        if item.table in ("melee", "ranged", "armor")
    ]

    content = render(document, page_size="a4").content

    _assert_nothing_overlaps_or_leaves_the_page(content, tmp_path)


@pytest.mark.usefixtures("poppler")
@pytest.mark.parametrize("page_size", ["letter", "a4"])
def test_the_weapons_heading_says_how_damage_works_in_full_on_one_line(tmp_path, page_size):
    text = poppler_tool(
        "pdftotext",
        "-layout",
        content=render(docs.longest(), page_size=page_size).content,
        tmp_path=tmp_path,
    )
    heading = next(line.strip() for line in text.splitlines() if "19. WEAPONS" in line)

    times = "\N{MULTIPLICATION SIGN}"
    assert heading == f"19. WEAPONS · DAMAGE: MELEE DMG + STR DV 4, RANGED DMG {times} EN"


@pytest.mark.usefixtures("poppler")
def test_the_sheet_is_a_tagged_pdf_a_screen_reader_can_follow(tmp_path):
    info = poppler_tool("pdfinfo", content=render(docs.navy_pilot()).content, tmp_path=tmp_path)

    assert re.search(r"^Tagged:\s+yes$", info, re.MULTILINE)


@pytest.mark.usefixtures("poppler")
@pytest.mark.parametrize("document", [docs.navy_pilot(), docs.vargr_scout(), docs.longest()])
def test_each_box_title_is_a_heading_a_reader_can_jump_to(tmp_path, document):
    content = render(document).content
    text = pdf_text(content, tmp_path)
    # The numbered boxes, 10 to 23 (1 to 9 are the fields at the top, a table of their own).
    boxes = [number for number in range(10, 25) if f"{number}. " in text]

    tree = structure(content)

    assert boxes == list(range(10, 24))
    assert len(tree.find("H1")) == 2  # the front and the reverse
    assert len(tree.find("H2")) == len(boxes)
    assert not tree.find("H3")


@pytest.mark.usefixtures("poppler")
def test_figures_in_rows_and_columns_are_tables_with_header_cells(tmp_path):
    content = render(docs.longest()).content

    tables = structure(content).find("Table")

    with_row_heads = 0
    for table in tables:
        (head,) = table.kids("THead")
        columns = [cell for row in head.kids("TR") for cell in row.children]
        assert {cell.tag for cell in columns} == {"TH"}
        assert {cell.scope for cell in columns} == {"Column"}
        rows = [row for body in table.kids("TBody") for row in body.kids("TR")]
        assert rows
        for row in rows:
            assert len(row.children) == len(columns)
            heads = [cell for cell in row.children if cell.tag == "TH"]
            assert [cell.scope for cell in heads] in ([], ["Row"])
            with_row_heads += bool(heads)
            for cell in row.kids("TD"):
                assert cell.headers >= 1  # its column's head, and its row's where it has one
    # Attributes, derived, wounds, three skill columns, traits, rolls, weapons, armor, gear.
    assert sum(bool(table.kids("TBody")[0].kids("TR")[0].kids("TH")) for table in tables) == 11
    assert len(tables) == 13  # and the two tables of fields under the masthead


@pytest.mark.usefixtures("poppler")
def test_a_row_of_figures_reads_cell_by_cell(tmp_path):
    report = check_document(docs.navy_pilot())
    content = render(docs.navy_pilot()).content

    text = pdf_text(content, tmp_path)
    attributes = structure(content).find("Table")[2]  # after the two tables of fields

    strength = report.attribute("STR")
    dm = f"{wording.MINUS}{-strength.dm}" if strength.dm < 0 else f"+{strength.dm}"
    assert f"STR {strength.level} {strength.hex} {dm} {strength.dv} Strength" in text
    first_row = attributes.kids("TBody")[0].kids("TR")[0]
    assert [cell.tag for cell in first_row.children] == ["TH", "TD", "TD", "TD", "TD", "TD"]


@pytest.mark.usefixtures("poppler")
@pytest.mark.parametrize("summary", [False, True])
def test_the_running_footer_and_continued_headings_are_artifacts(summary):
    document = docs.navy_pilot()
    document["notes"] = "\n".join(f"Log entry {day}: patrol, no contacts." for day in range(150))
    sheets = [pdf_sheet.sheet_for_document(document)]

    content = pdf_rendering.render_sheets(sheets, summary=summary).content

    assert untagged_content(content) == 0


@pytest.mark.usefixtures("poppler")
def test_a_pdf_for_pencil_leaves_marks_wounds_and_credits_blank(client, pilot_in_play, tmp_path):
    play_services.take_damage(
        character=pilot_in_play, by=pilot_in_play.owner, amount=9, form="L", rng=Scripted([2])
    )
    client.force_login(pilot_in_play.owner)
    url = reverse("character_pdf", args=[pilot_in_play.pk])

    pen = pdf_text(client.get(url).content, tmp_path)
    pencil = pdf_text(client.get(url, {"pencil": "1"}).content, tmp_path)

    assert "LIF now" in pen
    assert "credits now Cr" in pen
    assert "LIF now" not in pencil
    assert "wound (9 damage" not in pencil
    assert "credits now" not in pencil
    assert f"Cr200 · credits {pdf_sheet.PENCIL_BLANK}" in pencil


@pytest.mark.usefixtures("poppler")
def test_a_campaign_that_prints_for_pencil_does_so_unless_a_download_asks_for_pen(
    client, pilot_in_play, tmp_path
):
    referee = UserFactory(username="referee")
    campaign = campaigns_services.create_campaign(
        referee=referee, name="Pencil Marches", pencil_pdfs=True
    )
    campaigns_services.join_campaign(user=pilot_in_play.owner, code=campaign.invite_code)
    campaigns_services.attach_character(
        character=pilot_in_play, campaign=campaign, by=pilot_in_play.owner
    )
    client.force_login(pilot_in_play.owner)
    url = reverse("character_pdf", args=[pilot_in_play.pk])

    by_default = pdf_text(client.get(url).content, tmp_path)
    pen = pdf_text(client.get(url, {"pencil": "0"}).content, tmp_path)

    assert "credits now" not in by_default
    assert "credits now Cr" in pen


@pytest.mark.usefixtures("poppler")
def test_a_party_pdf_opens_with_a_one_page_summary_of_the_party(tmp_path):
    documents = [docs.navy_pilot(), docs.marine(), docs.vargr_scout()]
    sheets = [pdf_sheet.sheet_for_document(d, player=f"player{n}") for n, d in enumerate(documents)]
    reports = [check_document(document) for document in documents]

    with_summary = pdf_rendering.render_sheets(sheets, summary=True).content
    without = pdf_rendering.render_sheets(sheets).content
    raw = poppler_tool(
        "pdftotext", "-f", "1", "-l", "1", "-raw", content=with_summary, tmp_path=tmp_path
    )
    first_page = " ".join(raw.split())

    assert page_count(with_summary, tmp_path) == page_count(without, tmp_path) + 1
    assert "PARTY SUMMARY" in first_page
    for n, report in enumerate(reports):
        assert report.name in first_page
        assert f"player{n}" in first_page
        assert report.upp in first_page
        assert f"DEF {report.derived.DEF} INI {report.derived.INI}" in first_page
    assert "Automatic pistol" in first_page  # the navy pilot's weapon
    assert pdf_rendering.sheets_etag(sheets, summary=True) != pdf_rendering.sheets_etag(sheets)


@pytest.mark.usefixtures("poppler")
def test_the_party_summary_table_keeps_within_the_rules_of_its_masthead(tmp_path):
    sheets = [pdf_sheet.sheet_for_document(d) for d in (docs.navy_pilot(), docs.marine())]
    pdf = tmp_path / "party.pdf"
    pdf.write_bytes(pdf_rendering.render_sheets(sheets, summary=True).content)
    subprocess.run(
        ["pdftoppm", "-gray", "-png", "-r", "100", "-f", "1", "-l", "1", "-singlefile", pdf,
         tmp_path / "summary"],
        check=True,
    )  # fmt: skip
    page = Image.open(tmp_path / "summary.png").convert("L")
    pixels = page.tobytes()  # one byte a pixel, row after row
    rows = [pixels[y * page.width : (y + 1) * page.width] for y in range(page.height)]
    dark = [[x for x, value in enumerate(row) if value < 128] for row in rows]
    masthead_rule = next(row for row in dark if row)

    # Looked at as a picture: nothing on the page (the table's rules included) reaches further
    # right than the masthead's heavy rule, which runs from margin to margin.
    assert max(max(row) for row in dark if row) <= max(masthead_rule) + 1


@pytest.mark.usefixtures("poppler")
def test_the_party_summary_gives_a_hurt_characters_life_and_defence_as_they_stand(tmp_path):
    report = check_document(docs.navy_pilot())
    condition, _events = play.take_damage(play.condition_for(report), amount=9, form="L")
    hurt = pdf_sheet.sheet_for_document(docs.navy_pilot(), condition=condition)
    unhurt = pdf_sheet.sheet_for_document(docs.marine())

    pdf = pdf_rendering.render_sheets([hurt, unhurt], summary=True).content
    raw = poppler_tool("pdftotext", "-f", "1", "-l", "1", "-raw", content=pdf, tmp_path=tmp_path)
    first_page = " ".join(raw.split())

    lif = report.derived.LIF
    assert f"LIF {lif - 9} of {lif}" in first_page
    assert f"DEF 4 (from {report.derived.DEF})" in first_page
    marine = check_document(docs.marine()).derived
    assert f"DEF {marine.DEF} INI {marine.INI}" in first_page
    assert f"LIF {marine.LIF} " in first_page


@pytest.mark.usefixtures("poppler")
def test_no_figure_of_the_party_summary_is_split_across_two_lines(tmp_path):
    # 'LIF 11' at the end of one line and 'of 26' on the next read as two figures.
    report = check_document(docs.navy_pilot())
    condition, _events = play.take_damage(play.condition_for(report), amount=15, form="L")
    hurt = pdf_sheet.sheet_for_document(docs.navy_pilot(), condition=condition)

    pdf = pdf_rendering.render_sheets([hurt], summary=True).content
    lines = poppler_tool(
        "pdftotext", "-f", "1", "-l", "1", "-raw", content=pdf, tmp_path=tmp_path
    ).splitlines()

    lif, now = report.derived.LIF, play.effective(report, condition).derived
    for figure in (
        f"LIF {lif - 15} of {lif}",
        f"DEF {now.DEF} (from {report.derived.DEF})",
        f"INI {now.INI} (from {report.derived.INI})",
        f"MOV {now.MOV} (from {report.derived.MOV})",
    ):
        assert any(figure in line for line in lines), figure


@pytest.mark.usefixtures("poppler")
def test_the_party_pdf_is_titled_after_its_campaign_whose_name_heads_the_summary(tmp_path):
    sheets = [pdf_sheet.sheet_for_document(d) for d in (docs.navy_pilot(), docs.marine())]

    content = pdf_rendering.render_sheets(sheets, summary=True, title="Spinward Run").content
    info = poppler_tool("pdfinfo", content=content, tmp_path=tmp_path)
    raw = poppler_tool(
        "pdftotext", "-f", "1", "-l", "1", "-raw", content=content, tmp_path=tmp_path
    )

    assert re.search(r"^Title:\s+Spinward Run · Personal Data and History$", info, re.MULTILINE)
    assert "SPINWARD RUN · PARTY SUMMARY" in " ".join(raw.split())
    untitled = pdf_rendering.sheets_etag(sheets, summary=True)
    assert pdf_rendering.sheets_etag(sheets, summary=True, title="Spinward Run") != untitled


@pytest.mark.usefixtures("poppler")
def test_the_party_summary_gives_each_characters_armor_and_weapon_damage(tmp_path):
    marine = docs.marine()
    sheets = [pdf_sheet.sheet_for_document(d) for d in (docs.longest(), marine)]
    report = check_document(docs.longest())
    str_dv = report.attribute("STR").dv

    content = pdf_rendering.render_sheets(sheets, summary=True).content
    raw = poppler_tool(
        "pdftotext", "-f", "1", "-l", "1", "-raw", content=content, tmp_path=tmp_path
    )
    first_page = " ".join(raw.split())

    assert f"AV {report.equipment.armor_av} {report.equipment.armor_worn}" in first_page
    assert "Laser carbine DMG 12" in first_page  # ranged: the weapon's DMG
    assert f"Cutlass DMG {1 + str_dv}" in first_page  # melee: its bonus on the wielder's STR DV
    marine_armor = check_document(marine).equipment
    assert f"AV {marine_armor.armor_av}" in first_page


@pytest.mark.django_db
@pytest.mark.usefixtures("poppler")
def test_the_campaigns_party_pdf_carries_the_campaigns_name(client, tmp_path):
    referee = UserFactory(username="referee")
    campaign = campaigns_services.create_campaign(referee=referee, name="Spinward Run")
    player = UserFactory(username="player")
    campaigns_services.join_campaign(user=player, code=campaign.invite_code)
    character = builder_services.create_character(owner=player, document=docs.navy_pilot())
    campaigns_services.attach_character(character=character, campaign=campaign, by=player)
    client.force_login(referee)

    pdf = client.get(reverse("campaign_pdf", args=[campaign.pk]), {"all": "1"}).content
    info = poppler_tool("pdfinfo", content=pdf, tmp_path=tmp_path)

    assert re.search(r"^Title:\s+Spinward Run · ", info, re.MULTILINE)


@pytest.mark.usefixtures("poppler")
def test_a_pencil_sheet_prints_no_running_credits_in_its_stat_block(
    client, pilot_in_play, tmp_path
):
    client.force_login(pilot_in_play.owner)
    url = reverse("character_pdf", args=[pilot_in_play.pk])

    pencil = pdf_text(client.get(url, {"pencil": "1"}).content, tmp_path)
    pen = pdf_text(client.get(url, {"pencil": "0"}).content, tmp_path)

    upp = check_document(pilot_in_play.document).upp
    assert re.search(rf"{upp} Cr[\d,]+ DEF", pen)
    assert f"{upp} Cr{pdf_sheet.PENCIL_BLANK} DEF" in pencil
    assert not re.search(r"Cr\d[\d,]* DEF", pencil)


@pytest.mark.django_db
@pytest.mark.usefixtures("poppler")
@pytest.mark.parametrize(("campaign_size", "asked", "expected"), [
    ("letter", "a4", "(A4)"), ("a4", "letter", "(letter)"), ("a4", None, "(A4)"),
])  # fmt: skip
def test_anyone_may_download_the_other_page_size_than_their_campaigns(
    client, tmp_path, campaign_size, asked, expected
):
    referee = UserFactory(username="referee")
    campaign = campaigns_services.create_campaign(referee=referee, name="Sizes")
    campaign.page_size = campaign_size
    campaign.save()
    player = UserFactory(username="player")
    campaigns_services.join_campaign(user=player, code=campaign.invite_code)
    character = builder_services.create_character(owner=player, document=docs.navy_pilot())
    campaigns_services.attach_character(character=character, campaign=campaign, by=player)
    query = {"size": asked} if asked else {}

    client.force_login(player)
    sheet = client.get(reverse("character_pdf", args=[character.pk]), query).content
    client.force_login(referee)
    party = client.get(reverse("campaign_pdf", args=[campaign.pk]), {"all": "1", **query}).content

    for pdf in (sheet, party):
        info = poppler_tool("pdfinfo", content=pdf, tmp_path=tmp_path)
        assert re.search(rf"^Page size:.*{re.escape(expected)}$", info, re.MULTILINE)
