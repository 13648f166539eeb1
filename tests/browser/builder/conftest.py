"""The fixtures the tests of this folder share."""

import pytest

from tests.browser.pages import log_in, start_building
from tests.factories import UserFactory


@pytest.fixture
def building(page):
    """A player's page in the builder of a new character, Mara, ready for edits."""
    UserFactory(username="player1")
    log_in(page, "player1")
    start_building(page, "Mara")
    return page
