"""What the PDF prints of a character in play, and what the pencil sheet leaves blank.

The rule, figure by figure (docs/features/sheets.md, "Pen or pencil"): a running figure (LIF and
its marks, wounds and states, the derived attributes as wounds and load move them, the credits
held) prints as it stands now in pen and is left blank for pencil; the gear carried and the
armor worn are belongings, printed as they are now either way. The armor worn and a specialty's
DM come from the same engine figures as the play sheet's.
"""

import random

import pytest
from django.urls import reverse

from characters.builder import services as builder_services
from characters.campaigns import services as campaigns_services
from characters.models import Character
from characters.pdf import rendering as pdf_rendering
from characters.pdf import sheet as pdf_sheet
from characters.play import services as play_services
from rules import catalog, check_document
from tests.factories import UserFactory
from tests.integration import sheet_documents as docs
from tests.integration.pdf.rendered import (
    _assert_nothing_overlaps_or_leaves_the_page,
    pdf_text,
    poppler_tool,
    stored_pilot,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("poppler")]


def pdf_of(client, character: Character, query: str = "") -> bytes:
    client.force_login(character.owner)
    response = client.get(reverse("character_pdf", args=[character.pk]) + query)
    assert response.status_code == 200
    return response.content


@pytest.fixture
def hurt_pilot() -> Character:
    """The pilot after a fight and a bribe: 5 stunning and 9 lethal damage (LIF 10 of 24, a
    light wound that bleeds: DEF 4 from 5), Cr500 paid out of the Cr79,800 left."""
    pilot = stored_pilot()
    play_services.take_damage(character=pilot, by=pilot.owner, amount=5, form="S")
    play_services.take_damage(
        character=pilot, by=pilot.owner, amount=9, form="L", rng=random.Random(1)
    )
    play_services.record_credits(character=pilot, by=pilot.owner, amount=-500, note="bribe")
    return pilot


# -- running figures: now in pen, blank for pencil --------------------------------------------
def test_the_pen_pdf_prints_every_running_figure_as_it_stands_now(client, hurt_pilot, tmp_path):
    text = pdf_text(pdf_of(client, hurt_pilot), tmp_path)

    # Box 11: each derived attribute, then its value now.
    assert "DEF 5 4 Defensive target number" in text
    assert "MOV 8 6 Move" in text
    assert "LIF 24 10 Life" in text
    assert "TGH 3 3 Toughness" in text
    assert "In play: LIF now 10 of 24" in text  # box 14, under the marked track
    assert "credits now Cr79,300" in text
    assert "Cr79,300 DEF 5" in text  # the stat block's credits


def test_the_pencil_pdf_leaves_every_running_figure_blank(client, hurt_pilot, tmp_path):
    text = pdf_text(pdf_of(client, hurt_pilot, "?pencil=1"), tmp_path)

    blank = pdf_sheet.PENCIL_CELL
    assert f"DEF 5 {blank} Defensive target number" in text
    assert f"LIF 24 {blank} Life" in text
    for running in ("In play", "LIF now", "wound (", "Cr79,300", "Cr79,800"):
        assert running not in text, running
    assert f"credits {pdf_sheet.PENCIL_BLANK}" in text
    assert f"Cr{pdf_sheet.PENCIL_BLANK} DEF 5" in text


def test_the_party_summary_follows_the_same_rule(client, hurt_pilot, tmp_path):
    referee = UserFactory(username="referee")
    campaign = campaigns_services.create_campaign(referee=referee, name="Marches")
    campaigns_services.join_campaign(user=hurt_pilot.owner, code=campaign.invite_code)
    campaigns_services.attach_character(
        character=hurt_pilot, campaign=campaign, by=hurt_pilot.owner
    )
    client.force_login(referee)

    def summary(query: str) -> str:
        url = reverse("campaign_pdf", args=[campaign.pk]) + "?all=1" + query
        raw = poppler_tool(
            "pdftotext", "-f", "1", "-l", "1", "-raw", content=client.get(url).content,
            tmp_path=tmp_path,
        )  # fmt: skip
        return " ".join(raw.split())

    pen, pencil = summary(""), summary("&pencil=1")
    assert "DEF 4 (from 5)" in pen
    assert "LIF 10 of 24" in pen
    assert "DEF 5 " in pencil
    assert "(from" not in pencil
    assert "LIF 24" in pencil


# -- the party summary ------------------------------------------------------------------------
def marine_in_reflec() -> dict:
    document = docs.marine()
    document["name"] = "Sergeant Aldous Maximilian Featherstonehaugh-Worthington III"
    document["equipment"] = [
        {"item": "Cutlass", "quantity": 1},
        {"item": "Flak jacket", "quantity": 1, "worn": True},
        {"item": "Reflec", "quantity": 1, "worn": True},
        {"item": "ACR", "quantity": 1},
        {"item": "Accelerator rifle", "quantity": 1},
    ]
    return document


def test_the_party_summary_keeps_every_column_apart_with_long_names_and_weapons(tmp_path):
    documents = [marine_in_reflec(), docs.navy_pilot(), docs.vargr_scout(), docs.longest()]
    sheets = [
        pdf_sheet.sheet_for_document(document, player=f"a_player_with_a_long_name_{index}")
        for index, document in enumerate(documents)
    ]

    content = pdf_rendering.render_sheets(sheets, summary=True, page_size="a4").content

    _assert_nothing_overlaps_or_leaves_the_page(content, tmp_path)


def test_the_party_summary_gives_the_av_of_reflec_worn_under_armor(tmp_path):
    sheets = [pdf_sheet.sheet_for_document(marine_in_reflec())]

    content = pdf_rendering.render_sheets(sheets, summary=True).content
    raw = poppler_tool(
        "pdftotext", "-f", "1", "-l", "1", "-raw", content=content, tmp_path=tmp_path
    )

    assert "Flak jacket (TL 6) (AV 9), with Reflec (TL 10) (AV 30) under it" in " ".join(
        raw.split()
    )


# -- the armor worn and the specialties -------------------------------------------------------
def test_the_pdf_shows_the_armor_worn_as_the_document_marks_it(tmp_path):
    equipment = check_document(marine_in_reflec()).equipment

    text = pdf_text(
        pdf_rendering.render_sheets([pdf_sheet.sheet_for_document(marine_in_reflec())]).content,
        tmp_path,
    )

    assert "Flak jacket · worn 6 9" in text
    assert "Reflec · worn 10 30" in text
    assert (
        f"Worn: {equipment.armor_worn} (AV 9), with {equipment.armor_under} (AV 30) under it; "
        "each blow meets the better AV"
    ) in text


def test_the_pdf_shows_the_armor_the_play_sheet_chose(client, owner, tmp_path):
    marine = builder_services.create_character(owner=owner, document=marine_in_reflec())
    play_services.wear_armor(character=marine, by=owner, worn=[("Reflec", None)])

    text = pdf_text(pdf_of(client, marine), tmp_path)

    assert "Flak jacket 6 9" in text
    assert "Reflec · worn 10 30" in text
    assert "Worn: Reflec (TL 10) (AV 30)" in text


def test_a_specialty_prints_with_its_dm_in_the_skills_and_on_the_weapon_it_names(
    client, owner, tmp_path
):
    document = docs.navy_pilot()
    document["skills"][4] = {"skill": "Handgun", "level": 1, "specialties": ["auto pistol"]}
    pilot = builder_services.create_character(owner=owner, document=document)
    dm = catalog().limits.specialty_dm
    assert dm == 1

    text = pdf_text(pdf_of(client, pilot), tmp_path)

    assert "Handgun: auto pistol (+1) 1" in text
    assert "Pilot: small craft (+1) 3" in text
    assert "Automatic pistol 6 6 P/L 0 +1 90 m 1 15 Handgun · specialty auto pistol (+1) · SA" in (
        text
    )
    # The play sheet's weapon table says the same, from the same engine figures.
    play_page = client.get(reverse("character_play", args=[pilot.pk])).content.decode()
    assert "Handgun · specialty auto pistol (+1) · SA" in play_page
