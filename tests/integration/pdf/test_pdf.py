"""The PDF character sheet (characters/pdf.py), read back with poppler-utils.

The PDF tests need ``pdftotext`` and friends from Debian's poppler-utils. Without them they are
skipped on a workstation, but in CI (CI=true) they run and fail, so a missing package is noticed.
Most need no database: their sheets are built straight from character documents. Those about a
character in play store one, change it through the play services and fetch its PDF over HTTP.
"""

import dataclasses
import itertools
import re
import time
from collections import Counter
from pathlib import Path

import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from characters.builder import services as builder_services
from characters.campaigns import services as campaigns_services
from characters.core import wording
from characters.models import Character
from characters.pdf import rendering as pdf_rendering
from characters.pdf import sheet as pdf_sheet
from characters.pdf.selectors import sheet_for_character
from characters.play import selectors as play_selectors
from characters.play import services as play_services
from rules import catalog, check_document, play
from tests.factories import AVERAGE_DOCUMENT, UserFactory, character_document
from tests.integration import sheet_documents as docs
from tests.integration.pdf.rendered import (
    STATIC,
    _assert_nothing_overlaps_or_leaves_the_page,
    page_count,
    pdf_text,
    poppler_tool,
    render,
    stored_pilot,
)


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
        assert f"{code} {value} {value} {name}" in text, code  # unhurt: as much now
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
    assert "Engineering: jump drive (+1), maneuver drive (+1), power plant (+1) 2" in text
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
        (10, "The Traveller game"),  # the small print
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


def fetch_pdf(client, character: Character, **headers):
    client.force_login(character.owner)
    return client.get(reverse("character_pdf", args=[character.pk]), **headers)


@pytest.mark.usefixtures("poppler")
def test_the_pdf_lists_the_weapons_armor_and_possessions_carried_now(
    client, pilot_in_play, tmp_path
):
    text = pdf_text(fetch_pdf(client, pilot_in_play).content, tmp_path)

    assert "Rifle 5 8 P/L +2 +3 900 m 1 20 Rifleman · SA" in text  # the catalog's figures
    assert "Vacc suit · worn 8 " in text
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
