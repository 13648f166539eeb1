"""The PDF's condition box under the campaign's combat system: a character whose campaign fights
under T4 or 2D6 gets that system's record in boxes 14 and 15, worded as the play sheet words it
(docs/features/sheets.md, "The condition box"); in pen as it stands now, for pencil with the
figures blank. FFA campaigns and characters outside a campaign keep FFA's LIF track and wound
thresholds."""

import pytest
from django.urls import reverse

from characters.builder import services as builder_services
from characters.campaigns import services as campaigns_services
from characters.models import Character, CombatSystem
from characters.pdf import rendering as pdf_rendering
from characters.pdf import sheet as pdf_sheet
from characters.play import record_services
from characters.play.selectors import record_view
from rules import check_document, parse_document
from rules.combat.sheet import fighter_sheet
from rules.combat.t4.condition import Bleeding, Injury, T4Condition
from tests.factories import character_document
from tests.integration.pdf.rendered import pdf_text
from tests.pdf_structure import structure

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("poppler")]

T4, TWOD6 = CombatSystem.T4, CombatSystem.TWOD6
BLANK, DASH = pdf_sheet.PENCIL_CELL, pdf_sheet.DASH


@pytest.fixture
def vera(campaign, player) -> Character:
    """An average human (every attribute 7), in the player's campaign (FFA until it changes)."""
    document = character_document(name="Vera Oslo")
    return builder_services.create_character(owner=player, document=document, campaign=campaign)


def fights_under(campaign, system) -> None:
    campaigns_services.update_campaign_rules(
        campaign=campaign, combat_system=system, by=campaign.referee
    )


def sheet_text(client, character: Character, tmp_path, query: str = "") -> str:
    client.force_login(character.owner)
    response = client.get(reverse("character_pdf", args=[character.pk]) + query)
    assert response.status_code == 200
    return pdf_text(response.content, tmp_path)


@pytest.fixture
def vera_hurt_under_t4(campaign, vera, player) -> Character:
    """Under T4: 3 lethal off STR and 2 stun off DEX."""
    fights_under(campaign, T4)
    record_services.take_points(character=vera, by=player, system=T4, points=3, stat="STR")
    record_services.take_points(
        character=vera, by=player, system=T4, points=2, stat="DEX", stun=True
    )
    return vera


def test_the_pen_pdf_prints_the_t4_record_as_it_stands(client, vera_hurt_under_t4, tmp_path):
    text = sheet_text(client, vera_hurt_under_t4, tmp_path)

    assert "14. CONDITION UNDER T4 BASIC COMBAT" in text
    assert "CHARACTERISTIC LEVEL DAMAGE STUN NOW" in text
    assert f"STR 7 3 {DASH} 4" in text
    assert f"DEX 7 {DASH} 2 5" in text
    assert f"END 7 {DASH} {DASH} 7" in text
    assert "15. STATE UNDER T4 BASIC COMBAT" in text
    assert "Superficial wound End-pool fatigue 0 · worst wound since healed: superficial" in text
    # FFA's life track and wound thresholds do not apply under T4.
    assert "LIFE · LIF" not in text
    assert "WOUND THRESHOLDS" not in text


def test_the_pencil_pdf_leaves_the_t4_figures_blank(client, vera_hurt_under_t4, tmp_path):
    text = sheet_text(client, vera_hurt_under_t4, tmp_path, "?pencil=1")

    assert "14. CONDITION UNDER T4 BASIC COMBAT" in text
    assert f"STR 7 {BLANK} {BLANK} {BLANK}" in text
    assert "STR 7 3" not in text
    assert "Superficial wound" not in text
    assert "End-pool fatigue 0" not in text
    assert f"End-pool fatigue {pdf_sheet.PENCIL_BLANK}" in text


def test_an_unhurt_character_under_t4_is_unhurt_in_pen(client, campaign, vera, tmp_path):
    fights_under(campaign, T4)

    text = sheet_text(client, vera, tmp_path)

    assert f"STR 7 {DASH} {DASH} 7" in text
    assert "Unhurt" in text


def test_the_pen_pdf_prints_the_2d6_record_now_of_its_full_values(
    client, campaign, vera, player, tmp_path
):
    fights_under(campaign, TWOD6)
    record_services.take_points(character=vera, by=player, system=TWOD6, points=2)

    text = sheet_text(client, vera, tmp_path)

    assert "14. CONDITION UNDER 2D6 COMBAT" in text
    assert "CHARACTERISTIC LEVEL DAMAGE NOW" in text
    assert "END 7 2 5" in text
    assert f"STR 7 {DASH} 7" in text
    assert "LIFE · LIF" not in text

    pencil = sheet_text(client, vera, tmp_path, "?pencil=1")
    assert f"END 7 {BLANK} {BLANK}" in pencil
    assert "END 7 2 5" not in pencil


def test_an_ffa_campaign_keeps_the_life_track_and_wound_thresholds(client, vera, tmp_path):
    text = sheet_text(client, vera, tmp_path)

    assert "14. LIFE · LIF" in text
    assert "15. WOUND THRESHOLDS" in text
    assert "CONDITION UNDER" not in text


def test_the_party_pdf_prints_each_sheet_under_the_campaigns_system(
    client, campaign, vera_hurt_under_t4, tmp_path
):
    client.force_login(campaign.referee)
    url = reverse("campaign_pdf", args=[campaign.pk]) + "?all=1"
    text = pdf_text(client.get(url).content, tmp_path)

    assert "14. CONDITION UNDER T4 BASIC COMBAT" in text
    assert f"STR 7 3 {DASH} 4" in text
    assert "LIFE · LIF" not in text


def test_the_record_box_is_a_heading_and_a_table_with_header_cells(
    client, vera_hurt_under_t4, tmp_path
):
    client.force_login(vera_hurt_under_t4.owner)
    content = client.get(reverse("character_pdf", args=[vera_hurt_under_t4.pk])).content
    text = pdf_text(content, tmp_path)

    tree = structure(content)

    # Boxes 10 to 23, numbered as under FFA, each title a heading.
    assert [number for number in range(10, 25) if f"{number}. " in text] == list(range(10, 24))
    assert len(tree.find("H2")) == 14
    record = next(
        table
        for table in tree.find("Table")
        if [cell.tag for cell in table.kids("THead")[0].kids("TR")[0].children] == ["TH"] * 5
        and len(table.kids("TBody")[0].kids("TR")) == 5  # STR, DEX, END, INT, EDU
    )
    for row in record.kids("TBody")[0].kids("TR"):
        assert [cell.tag for cell in row.children] == ["TH", "TD", "TD", "TD", "TD"]
        assert row.children[0].scope == "Row"


def test_t4_bleeding_injuries_and_fatigue_print_as_the_play_sheet_words_them(tmp_path):
    document = character_document(name="Vera Oslo")
    report = check_document(document)
    record = T4Condition(
        damage={"STR": 7},
        fatigue=3,
        wound="serious",
        stunned_rounds=2,
        bleeding=(Bleeding(location="left arm", effect="cut artery", per_round=2),),
        injuries=(Injury(location="right leg", effect="broken bone"),),
    )
    shown = {
        "system": T4,
        "system_label": CombatSystem(T4).label,
        "record": record_view(T4, fighter_sheet(parse_document(document)), record),
    }

    def text_of(pencil: bool) -> str:
        sheet = pdf_sheet.Sheet(document=document, report=report, record=shown, pencil=pencil)
        return pdf_text(pdf_rendering.render_sheets([sheet]).content, tmp_path)

    pen = text_of(pencil=False)
    assert "Bleeding 2 a round · Serious wound" in pen
    assert (
        "End-pool fatigue 3 · stunned for 2 more rounds · worst wound since healed: serious" in pen
    )
    assert "Bleeding 2 a round: cut artery (left arm)" in pen
    assert "broken bone (right leg)" in pen
    pencil = text_of(pencil=True)
    assert "cut artery" not in pencil
    assert f"Injuries: {pdf_sheet.PENCIL_BLANK}" in pencil
