"""A downloaded sheet or document is named after its character, in the character's own letters:
a referee printing the party gets one file per character, not several "character.pdf"."""

import re
from urllib.parse import quote

import pytest
from django.urls import reverse

from characters.history import services as history_services
from tests.factories import character_in_campaign, medic_document

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("name", "stem"),
    [("Ælfgifu Þórsdóttir", "ælfgifu-þórsdóttir"), ("中村 «the Unquiet»", "中村-the-unquiet")],
)
@pytest.mark.parametrize(
    ("view", "suffix"),
    [
        ("character_pdf", "-letter.pdf"),
        ("character_export", ".json"),
        ("character_export_foundry", "-twodsix.json"),
    ],
)
def test_a_download_keeps_the_letters_of_a_name_outside_ascii(client, name, stem, view, suffix):
    character = character_in_campaign(medic_document(name=name))
    client.force_login(character.owner)

    response = client.get(reverse(view, args=[character.pk]))

    assert response.status_code == 200
    assert f"filename*=utf-8''{quote(stem + suffix)}" in response["Content-Disposition"]


def test_an_ascii_name_is_still_a_plain_quoted_filename(client):
    character = character_in_campaign(medic_document(name="Mara Tolven"))
    client.force_login(character.owner)

    response = client.get(reverse("character_pdf", args=[character.pk]))

    assert response["Content-Disposition"] == 'inline; filename="mara-tolven-letter.pdf"'


@pytest.mark.parametrize(
    ("query", "filename"),
    [
        ("", "mara-tolven-letter.pdf"),
        ("?size=a4", "mara-tolven-a4.pdf"),
        ("?size=letter", "mara-tolven-letter.pdf"),
        ("?pencil=1", "mara-tolven-pencil-letter.pdf"),
        ("?size=a4&pencil=1", "mara-tolven-pencil-a4.pdf"),
    ],
)
def test_each_pdf_is_named_for_its_paper_and_whether_it_is_for_pencil(client, query, filename):
    character = character_in_campaign(medic_document(name="Mara Tolven"))
    client.force_login(character.owner)

    response = client.get(reverse("character_pdf", args=[character.pk]) + query)

    assert response["Content-Disposition"] == f'inline; filename="{filename}"'


def test_the_party_pdf_and_a_share_links_pdf_are_named_the_same_way(client):
    character = character_in_campaign(medic_document(name="Mara"), approved=True)
    client.force_login(character.campaign.referee)
    party = client.get(reverse("campaign_pdf", args=[character.campaign.pk]) + "?size=a4&pencil=1")
    assert party["Content-Disposition"] == 'inline; filename="spinward-marches-party-pencil-a4.pdf"'

    client.force_login(character.owner)
    link = history_services.create_share_link(character=character, by=character.owner)
    shared = client.get(reverse("shared_sheet_pdf", args=[link.token]) + "?size=a4")
    assert shared["Content-Disposition"] == 'inline; filename="mara-a4.pdf"'


@pytest.mark.parametrize(
    "name",
    ["../../etc/passwd", 'Mara "Quote" Tolven\r\nX-Injected: 1', "...", "<script>"],
)
def test_any_name_gives_a_safe_filename(client, name):
    character = character_in_campaign(medic_document(name=name))
    client.force_login(character.owner)

    header = client.get(reverse("character_pdf", args=[character.pk]))["Content-Disposition"]

    filename = header.removeprefix('inline; filename="').removesuffix('"')
    assert re.fullmatch(r"[a-z0-9][a-z0-9-]*-letter\.pdf", filename), header
