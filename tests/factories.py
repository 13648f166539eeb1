"""factory_boy factories for the app's models."""

import copy

import factory
from django.contrib.auth import get_user_model

from characters.models import Campaign, CampaignMembership, Character

PASSWORD = "traveller"

# The rulebook's average human: all nine attributes at 7, nothing else bought. Valid, 0 points.
AVERAGE_DOCUMENT = {
    "format": "ffa-character/1",
    "name": "Average Citizen",
    "attributes": dict.fromkeys(("STR", "DEX", "END", "INT", "PRE", "AWA", "EDU", "SOC", "EXP"), 7),
}


def character_document(**fields) -> dict:
    """A fresh copy of the average character document with the given fields replaced."""
    return copy.deepcopy(AVERAGE_DOCUMENT) | fields


def medic_document(**fields) -> dict:
    """A scout medic: Medical-2 (EDU 9, DM +1), Pilot-1, a perk and a flaw; LIF 23, WND 6."""
    return (
        character_document(
            name="Mara Tolven",
            terms=1,
            service="scouts",
            homeworld="Regina",
            attributes={
                "STR": 7,
                "DEX": 9,
                "END": 7,
                "INT": 8,
                "PRE": 7,
                "AWA": 7,
                "EDU": 9,
                "SOC": 7,
                "EXP": 8,
            },
            skills=[{"skill": "Medical", "level": 2}, {"skill": "Pilot", "level": 1}],
            traits=[
                {"type": "PP", "level": "C", "frequency": "S", "name": "Keen eyes"},
                {"type": "PF", "level": "H", "frequency": "R", "name": "Owes a debt"},
            ],
        )
        | fields
    )


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"traveller{n}")
    password = factory.django.Password(PASSWORD)


class CampaignFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Campaign

    name = factory.Sequence(lambda n: f"Campaign {n}")
    referee = factory.SubFactory(UserFactory)


class CampaignMembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = CampaignMembership

    campaign = factory.SubFactory(CampaignFactory)
    user = factory.SubFactory(UserFactory)


class CharacterFactory(factory.django.DjangoModelFactory):
    """A stored character; the listing columns match the average document's report."""

    class Meta:
        model = Character

    owner = factory.SubFactory(UserFactory)
    name = factory.Sequence(lambda n: f"Character {n}")
    document = factory.LazyAttribute(lambda o: character_document(name=o.name))
    kind = Character.Kind.PC
    is_valid = True
    points_total = 0
    budget = 100
