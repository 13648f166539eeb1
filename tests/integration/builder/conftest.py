"""The fixtures the tests of this folder share."""

import pytest

from characters.builder import services as builder_services
from tests.factories import character_document


@pytest.fixture
def character(owner):
    return builder_services.create_character(
        owner=owner, document=character_document(name="Jamison")
    )
