"""The people most integration tests need: a referee, a player, and the referee's campaign the
player has joined; an owner of characters, logged in."""

import pytest

from characters.campaigns import services as campaigns_services
from tests.factories import PASSWORD, UserFactory


@pytest.fixture(autouse=True)
def _django_defaults(django_test_defaults):
    """Every test here goes through Django: tests/conftest.py's defaults for that."""


@pytest.fixture
def referee():
    return UserFactory(username="referee")


@pytest.fixture
def player():
    return UserFactory(username="player1")


@pytest.fixture
def campaign(referee, player):
    campaign = campaigns_services.create_campaign(referee=referee, name="Spinward Marches")
    campaigns_services.join_campaign(user=player, code=campaign.invite_code)
    return campaign


@pytest.fixture
def owner():
    return UserFactory(username="owner")


@pytest.fixture
def owner_client(client, owner):
    client.login(username=owner.username, password=PASSWORD)
    return client
