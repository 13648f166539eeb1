"""A fight most encounter tests need: Kira (player1) and Dorn (player2) against four Vargr
corsairs fielded from one NPC stat block, initiative thrown with scripted dice so that the
order is Kira, Dorn, corsairs 1 to 4."""

import pytest

from characters.encounters import services
from characters.models import Combatant, Encounter
from tests.dice import Scripted
from tests.encounter_people import party_against_corsairs, start

# One initiative die per combatant in the order they were added, highest first: no ties.
INITIATIVE_DICE = [6, 5, 4, 3, 2, 1]


@pytest.fixture
def people():
    return party_against_corsairs()


@pytest.fixture
def campaign(people):
    return people[0]


@pytest.fixture
def kira(people):
    return people[1]


@pytest.fixture
def dorn(people):
    return people[2]


@pytest.fixture
def corsair(people):
    return people[3]


@pytest.fixture
def referee(campaign):
    return campaign.referee


@pytest.fixture
def player1(kira):
    return kira.owner


@pytest.fixture
def player2(dorn):
    return dorn.owner


@pytest.fixture
def encounter(campaign, kira, dorn, corsair):
    """The fight, before initiative."""
    return start(campaign, kira, dorn, corsair)


@pytest.fixture
def fight(encounter, referee):
    """The fight in round 1, Kira to act."""
    services.throw_initiative(encounter=encounter, by=referee, rng=Scripted(INITIATIVE_DICE))
    encounter.refresh_from_db()
    return encounter


def combatant(encounter: Encounter, name: str) -> Combatant:
    return encounter.combatants.get(name=name)
