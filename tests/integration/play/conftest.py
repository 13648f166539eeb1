"""The fixtures the tests of this folder share."""

import pytest

from characters.builder import services as builder_services
from characters.models import Character
from characters.review import services as review_services
from tests.factories import medic_document


@pytest.fixture
def mara(campaign, player, referee):
    """Approved in the campaign, as characters are in play."""
    character = builder_services.create_character(
        owner=player, document=medic_document(), campaign=campaign
    )
    review_services.submit_character(character=character, by=player)
    review_services.approve_character(character=character, by=referee)
    return Character.objects.get(pk=character.pk)
