"""A downloaded sheet or document is named after its character, in the character's own letters:
a referee printing the party gets one file per character, not several "character.pdf"."""

from urllib.parse import quote

import pytest
from django.urls import reverse

from tests.factories import character_in_campaign, medic_document

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("name", "stem"),
    [("Ælfgifu Þórsdóttir", "ælfgifu-þórsdóttir"), ("中村 «the Unquiet»", "中村-the-unquiet")],
)
@pytest.mark.parametrize(
    ("view", "suffix"),
    [
        ("character_pdf", ".pdf"),
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

    assert response["Content-Disposition"] == 'inline; filename="mara-tolven.pdf"'
