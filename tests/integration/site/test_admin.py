"""The admin shows every model, and never lets anyone rewrite what happened."""

import pytest
from django.apps import apps
from django.contrib import admin
from django.urls import reverse

from characters.builder import services as builder_services
from characters.models import Revision
from tests.factories import UserFactory, character_document

HISTORY_MODELS = [
    "Revision",
    "CharacterEvent",
    "MusteringRoll",
    "DiceRoll",
    "ImprovementEntry",
    "CreditEntry",
    "PlayState",
    "ConditionChange",
    "ShareLink",
    "Encounter",
    "Combatant",
    "EncounterEntry",
]


def test_every_model_of_the_app_is_in_the_admin():
    models = apps.get_app_config("characters").get_models()
    assert [m.__name__ for m in models if m not in admin.site._registry] == []


@pytest.mark.django_db
@pytest.mark.parametrize("name", HISTORY_MODELS)
def test_a_record_of_what_happened_cannot_be_added_changed_or_deleted(rf, name):
    model_admin = admin.site._registry[apps.get_model("characters", name)]
    request = rf.get("/")
    request.user = UserFactory(is_staff=True, is_superuser=True)
    assert not model_admin.has_add_permission(request)
    assert not model_admin.has_change_permission(request)
    assert not model_admin.has_delete_permission(request)


@pytest.mark.django_db
def test_a_superuser_reads_a_revision_but_gets_no_save_button(client):
    staff = UserFactory(is_staff=True, is_superuser=True)
    character = builder_services.create_character(owner=staff, document=character_document())
    revision = Revision.objects.get(character=character)
    client.force_login(staff)

    listing = client.get(reverse("admin:characters_revision_changelist"))
    page = client.get(reverse("admin:characters_revision_change", args=[revision.pk]))

    assert listing.status_code == page.status_code == 200
    assert character.name in listing.content.decode()
    assert 'name="_save"' not in page.content.decode()
