"""factory_boy factories for the app's models."""

import copy
from datetime import timedelta

import factory
from django.contrib.auth import get_user_model
from django.utils import timezone

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


def builder_post(character: Character, **changes: str) -> dict[str, str | list[str]]:
    """The builder form as a browser posts it for the stored character, with ``changes``
    (input names: ``DEX``, ``notes``, ``skill-0-level``…)."""
    document = character.document
    data: dict[str, str | list[str]] = {
        "version": str(character.version),
        "name": document["name"],
        "kind": document.get("kind", "pc"),
        "budget": str(document.get("budget", 100)),
        "species": document.get("species", "human"),
        "homeworld": document.get("homeworld", ""),
        "terms": str(document.get("terms", 0)),
        "rank": str(document.get("rank", 0)),
        "one_trait_per_term": "on",
        **{code: str(level) for code, level in document["attributes"].items()},
    }
    for index, skill in enumerate(document.get("skills", [])):
        data[f"skill-{index}-skill"] = skill["skill"]
        data[f"skill-{index}-level"] = str(skill["level"])
        if skill.get("specialties"):
            data[f"skill-{index}-specialties"] = list(skill["specialties"])
    if "credits" in (document.get("mustering_out") or {}):
        data["npc-credits"] = str(document["mustering_out"]["credits"])
    for index, trait in enumerate(document.get("traits", [])):
        for field in ("type", "name", "level", "frequency"):
            if field in trait:
                data[f"trait-{index}-{field}"] = trait[field]
    return data | changes


def character_in_campaign(
    document: dict,
    *,
    approved: bool = False,
    referee: str = "referee",
    player: str = "player1",
    campaign: str = "Spinward Marches",
) -> Character:
    """A player's character in the referee's campaign, which the player joined; submitted and
    approved by the referee when ``approved``."""
    from characters.builder import services as builder_services
    from characters.campaigns import services as campaigns_services
    from characters.review import services as review_services

    referee_user = UserFactory(username=referee)
    player_user = UserFactory(username=player)
    joined = campaigns_services.create_campaign(referee=referee_user, name=campaign)
    campaigns_services.join_campaign(user=player_user, code=joined.invite_code)
    character = builder_services.create_character(
        owner=player_user, document=document, campaign=joined
    )
    if approved:
        review_services.submit_character(character=character, by=player_user)
        character = review_services.approve_character(character=character, by=referee_user)
    return character


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"traveller{n}")
    password = factory.django.Password(PASSWORD)
    # Users of the tests have been around a while; a test of the first visit signs one up.
    date_joined = factory.LazyFunction(lambda: timezone.now() - timedelta(days=30))


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
