"""A level no hex digit writes (already a rule error) is marked in the UPP, the same on the sheet
and in the Foundry notes as the engine writes it, so the UPP keeps its three groups of three."""

import re
from html import unescape

import pytest
from django.urls import reverse

from tests.factories import AVERAGE_DOCUMENT, character_document, character_in_campaign

pytestmark = pytest.mark.django_db


@pytest.fixture
def weak_vargr():
    # Vargr take 2 off STR: a STR of 1 bought comes to -1.
    return character_in_campaign(
        character_document(
            name="Gvoerr", species="vargr", attributes=AVERAGE_DOCUMENT["attributes"] | {"STR": 1}
        )
    )


def test_the_sheet_marks_the_digit_in_the_upp_and_the_attribute_table(client, weak_vargr):
    client.force_login(weak_vargr.owner)

    html = client.get(reverse("character_detail", args=[weak_vargr.pk])).content.decode()

    assert "UPP <strong data-upp>?95-777-777</strong>" in html
    assert '<th scope="row">STR</th><td>-1</td><td>?</td>' in html
    assert "1 rule error" in html


def test_the_foundry_notes_carry_the_same_upp(client, weak_vargr):
    client.force_login(weak_vargr.owner)

    actor = client.get(reverse("character_export_foundry", args=[weak_vargr.pk])).json()

    notes = unescape(re.sub(r"<[^>]+>", "\n", actor["system"]["notes"]))
    assert "UPP ?95-777-777" in notes
    assert "STR -1 (?)" in notes
