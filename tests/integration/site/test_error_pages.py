"""Error pages in the site's style: a 404 says what a person can do and names no model or query,
a revoked share link says it was revoked, and a 500 needs nothing that may have failed."""

import pytest
from django.test import Client, RequestFactory
from django.urls import reverse
from django.views.defaults import server_error

from characters.builder import services as builder_services
from characters.history import services as history_services
from tests.factories import PASSWORD, UserFactory, character_document

pytestmark = pytest.mark.django_db


def test_a_missing_page_is_a_404_in_the_sites_style(owner_client):
    response = owner_client.get("/no/such/page/")
    assert response.status_code == 404
    html = response.content.decode()
    assert "<h1>Not found</h1>" in html
    assert "nothing you may see" in html


def test_another_players_character_looks_like_nothing_and_names_no_model(client, owner):
    character = builder_services.create_character(
        owner=owner, document=character_document(name="Mine")
    )
    UserFactory(username="stranger")
    client.login(username="stranger", password=PASSWORD)

    response = client.get(reverse("character_detail", args=[character.pk]))

    assert response.status_code == 404
    html = response.content.decode()
    assert "nothing you may see" in html
    assert "matches the given query" not in html
    assert "Mine" not in html


def test_a_revoked_share_link_says_it_was_revoked(client, owner):
    character = builder_services.create_character(
        owner=owner, document=character_document(name="Mara")
    )
    link = history_services.create_share_link(character=character, by=owner)
    history_services.revoke_share_link(link=link, by=owner)

    response = client.get(reverse("shared_sheet", args=[link.token]))

    assert response.status_code == 404
    assert "This share link no longer works: its owner revoked it" in response.content.decode()


def test_the_500_page_is_drawn_without_a_request_context():
    response = server_error(RequestFactory().get("/"))
    assert response.status_code == 500
    assert "Something went wrong" in response.content.decode()


def test_a_form_refused_by_the_csrf_check_from_elsewhere_is_a_403_in_the_sites_style(owner):
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(owner)

    response = csrf_client.post(
        reverse("campaign_list"), {}, HTTP_REFERER="https://elsewhere.example/attack"
    )

    assert response.status_code == 403
    html = response.content.decode()
    assert "nothing was done" in html
    assert "style=" not in html
    assert "<style" not in html


def test_a_stale_tab_of_the_site_goes_back_to_its_page_with_the_refusal_among_its_messages(
    owner,
):
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(owner)
    page = "http://testserver" + reverse("campaign_list")

    plain = csrf_client.post(reverse("campaign_list"), {}, HTTP_REFERER=page)
    assert (plain.status_code, plain["Location"]) == (302, page)
    shown = csrf_client.get(page).content.decode()
    assert "This page was out of date" in shown

    # htmx: the refusal at the top of the page, with a link to reload it; no 4xx for the
    # browser to report.
    swapped = csrf_client.post(
        reverse("campaign_list"), {}, HTTP_HX_REQUEST="true", HTTP_HX_CURRENT_URL=page
    )
    assert swapped.status_code == 200
    assert (swapped["HX-Retarget"], swapped["HX-Reswap"]) == (
        "#main",
        "afterbegin show:window:top",
    )
    notice = swapped.content.decode()
    assert "nothing was done" in notice
    assert f'<a href="{page}">Reload the page</a>' in notice
