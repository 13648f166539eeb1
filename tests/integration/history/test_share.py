"""Read-only share links: made and revoked by the owner; they show the sheet to anyone, say
nothing about the owner, and stop at once when revoked or when the character is deleted."""

import pytest
from django.http import HttpResponse
from django.urls import reverse

from characters.builder import services as builder_services
from characters.core import services as core_services
from characters.history import services as history_services
from characters.models import CharacterEvent, ShareLink
from characters.pdf import rendering as pdf_rendering
from characters.play import services as play_services
from tests.factories import UserFactory, character_document, character_in_campaign

pytestmark = pytest.mark.django_db


@pytest.fixture
def player():
    return UserFactory(username="secret_player")


@pytest.fixture
def referee():
    return UserFactory(username="secret_referee")


@pytest.fixture
def character(player, referee):
    return character_in_campaign(
        character_document(name="Mara Tolven", notes="Carries a locket."),
        referee=referee.username,
        player=player.username,
        campaign="Hidden Campaign",
    )


@pytest.fixture
def link(character, player):
    return history_services.create_share_link(character=character, by=player)


def test_a_share_link_shows_the_sheet_to_anyone_read_only(client, character, link):
    response = client.get(reverse("shared_sheet", args=[link.token]))

    html = response.content.decode()
    assert response.status_code == 200
    assert "Mara Tolven" in html
    assert "Carries a locket." in html
    assert "data-upp" in html
    assert "data-shared" in html
    # Nothing about the owner or the campaign, and nothing that changes anything.
    for secret in ("secret_player", "secret_referee", "Hidden Campaign"):
        assert secret not in html
    for link_to in ("edit", "play", "history", "delete", "export.json"):
        assert f"/characters/{character.pk}/{link_to}" not in html
    assert '<form method="post" action="/characters' not in html
    assert response["X-Robots-Tag"] == "noindex, nofollow"
    assert "no-cache" in response["Cache-Control"]


def test_the_shared_sheet_shows_the_current_condition(client, character, player, link):
    play_services.take_damage(character=character, by=player, amount=9, form="L")

    html = client.get(reverse("shared_sheet", args=[link.token])).content.decode()

    assert html.count('data-lif-box="x"') == 9
    assert "Light wound" in html


def test_a_token_is_long_and_random(character, player, link):
    other = history_services.create_share_link(character=character, by=player)
    assert len(link.token) >= 32
    assert link.token != other.token


def test_a_revoked_link_is_404_for_good(client, character, player, link):
    url = reverse("shared_sheet", args=[link.token])

    history_services.revoke_share_link(link=link, by=player)

    assert client.get(url).status_code == 404
    assert client.get(reverse("shared_sheet_pdf", args=[link.token])).status_code == 404
    history_services.revoke_share_link(link=link, by=player)  # again: nothing changes
    assert CharacterEvent.objects.filter(kind=CharacterEvent.Kind.SHARE).count() == 2


def test_a_deleted_characters_links_are_404_until_it_is_restored(client, character, player, link):
    url = reverse("shared_sheet", args=[link.token])

    builder_services.delete_character(character=character, by=player)
    assert client.get(url).status_code == 404

    history_services.restore_deleted_character(character=character, by=player)
    assert client.get(url).status_code == 200


def test_an_unknown_token_is_404(client, link):
    assert client.get(reverse("shared_sheet", args=[link.token + "x"])).status_code == 404


def test_only_the_owner_makes_and_revokes_links(client, character, referee, link):
    with pytest.raises(core_services.Refused):
        history_services.create_share_link(character=character, by=referee)
    with pytest.raises(core_services.Refused):
        history_services.revoke_share_link(link=link, by=referee)
    client.force_login(referee)
    revoke = reverse("character_share_revoke", args=[character.pk, link.pk])
    assert client.post(revoke).status_code == 404
    assert ShareLink.objects.get(pk=link.pk).revoked_at is None


def test_the_owner_makes_and_revokes_links_on_the_sheet(client, character, player):
    client.force_login(player)

    client.post(reverse("character_share", args=[character.pk]))
    made = ShareLink.objects.get()
    sheet = client.get(reverse("character_detail", args=[character.pk])).content.decode()
    client.post(reverse("character_share_revoke", args=[character.pk, made.pk]))

    assert f"/s/{made.token}/" in sheet
    assert ShareLink.objects.get().revoked_at is not None
    after = client.get(reverse("character_detail", args=[character.pk])).content.decode()
    assert f"/s/{made.token}/" not in after


def test_the_shared_pdf_has_no_player_name(client, monkeypatch, character, link):

    calls = []

    def fake_response(request, sheets, *, page_size, filename):
        calls.append(sheets)
        return HttpResponse(b"%PDF-fake", content_type="application/pdf")

    monkeypatch.setattr(pdf_rendering, "pdf_response", fake_response)

    response = client.get(reverse("shared_sheet_pdf", args=[link.token]))

    assert response.status_code == 200
    [sheet] = calls[0]
    assert (sheet.player, sheet.status, sheet.document["name"]) == (None, None, "Mara Tolven")
