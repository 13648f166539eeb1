"""The fixtures the tests of this folder share."""

import pytest

from characters.builder import services as builder_services
from tests.integration.campaigns.characters_in_campaigns import navy_document


@pytest.fixture
def character(campaign, player):
    return builder_services.create_character(
        owner=player, document=navy_document(), campaign=campaign
    )
