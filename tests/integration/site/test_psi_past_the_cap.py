"""A PSI strength or talent past the rulebook's cap of 15 is a rule error, not a malformed
document: such a character is stored, and every page of it opens and names the problem."""

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import PASSWORD, character_document, character_in_campaign

pytestmark = pytest.mark.django_db

PAGES = (
    "character_detail",
    "character_edit",
    "character_play",
    "character_export",
    "character_pdf",
)


@pytest.fixture
def psionic_past_the_cap():
    document = character_document(
        name="Vessa Orn", psionics={"strength": 16, "talents": {"Telepathy": 17}}
    )
    return character_in_campaign(document)


def _client(username: str) -> Client:
    client = Client()
    assert client.login(username=username, password=PASSWORD)
    return client


@pytest.mark.parametrize("page", PAGES)
def test_every_page_of_a_character_with_psi_past_the_cap_opens(psionic_past_the_cap, page):
    response = _client("player1").get(reverse(page, args=[psionic_past_the_cap.pk]))

    assert response.status_code == 200


@pytest.mark.parametrize(("page", "query"), [("campaign_detail", ""), ("campaign_pdf", "?all=1")])
def test_the_referees_party_pages_open_with_that_character(psionic_past_the_cap, page, query):
    url = reverse(page, args=[psionic_past_the_cap.campaign_id]) + query
    response = _client("referee").get(url)

    assert response.status_code == 200


def test_the_sheet_names_both_psi_problems(psionic_past_the_cap):
    sheet = _client("player1").get(reverse("character_detail", args=[psionic_past_the_cap.pk]))

    assert 'data-problem="psi_strength_above_max"' in sheet.content.decode()
    assert 'data-problem="talent_above_strength"' in sheet.content.decode()
