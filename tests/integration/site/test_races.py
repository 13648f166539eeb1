"""A request on a character that another request deleted meanwhile is a 404, never a 500, and a
character's history is bounded."""

import pytest
from django.urls import reverse
from django.utils import timezone

from characters.builder import services as builder_services
from characters.builder import views as builder_views
from characters.core import services as core_services
from characters.models import Character, Revision
from characters.play import views as play_views
from tests.factories import builder_post, character_document

pytestmark = pytest.mark.django_db


def _deleted_right_after_the_access_check(monkeypatch, views_module):
    """Every view of ``views_module`` finds the character, then another request deletes it."""
    find = views_module.character_for_user

    def find_then_lose(request, pk, **options):
        found = find(request, pk, **options)
        Character.objects.filter(pk=pk).update(deleted_at=timezone.now())
        return found

    monkeypatch.setattr(views_module, "character_for_user", find_then_lose)


@pytest.mark.parametrize("htmx", [{}, {"HTTP_HX_REQUEST": "true"}], ids=["save", "as-you-go"])
def test_a_save_of_a_character_deleted_meanwhile_is_a_404(owner_client, owner, monkeypatch, htmx):
    character = builder_services.create_character(owner=owner, document=character_document())
    _deleted_right_after_the_access_check(monkeypatch, builder_views)

    response = owner_client.post(
        reverse("character_edit", args=[character.pk]),
        builder_post(character, action="save", DEX="8"),
        **htmx,
    )

    assert response.status_code == 404
    assert Character.all_objects.get(pk=character.pk).document["attributes"]["DEX"] == 7


def test_an_action_in_play_on_a_character_deleted_meanwhile_is_a_404(
    owner_client, owner, monkeypatch
):
    character = builder_services.create_character(owner=owner, document=character_document())
    _deleted_right_after_the_access_check(monkeypatch, play_views)

    response = owner_client.post(
        reverse("character_credits", args=[character.pk]),
        {"action": "income", "amount": "100", "note": "Pay"},
    )

    assert response.status_code == 404


def test_the_history_keeps_the_newest_revisions_up_to_its_bound(owner, monkeypatch):
    monkeypatch.setattr(core_services, "MAX_REVISIONS", 3)
    character = builder_services.create_character(owner=owner, document=character_document())
    for dex in (8, 9, 10, 11):
        character = builder_services.save_character(
            character=character,
            document=character_document(
                attributes={**character.document["attributes"], "DEX": dex}
            ),
            expected_version=character.version,
            by=owner,
        )

    numbers = list(Revision.objects.filter(character=character).values_list("number", flat=True))
    assert sorted(numbers) == [3, 4, 5]
