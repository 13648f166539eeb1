"""The characters the campaign tests bring into a campaign, and how they read its status."""

from characters.builder import services as builder_services
from characters.models import Campaign, Character, CharacterEvent
from characters.review import services as review_services
from tests.factories import character_document

Status = Character.Status


def navy_document(**fields) -> dict:
    """Valid under the rulebook: navy, one term, rank 1, a perk, two skills and psionics."""
    return (
        character_document(
            name="Jamison",
            service="navy",
            terms=1,
            rank=1,
            homeworld="Regina",
            traits=[{"type": "PP", "level": "C", "frequency": "R", "name": "Steady"}],
            skills=[
                {"skill": "Pilot", "level": 2, "specialties": ["small craft"]},
                {"skill": "Navigation", "level": 1},
            ],
            psionics={"strength": 2, "talents": {"Telepathy": 1}},
        )
        | fields
    )


def statuses(character: Character) -> list[tuple[str, str]]:
    return [
        (e.from_status, e.to_status)
        for e in character.events.filter(kind=CharacterEvent.Kind.STATUS)
    ]


def builder_post(character: Character, **changes) -> dict:
    document = character.document
    data = {
        "version": str(character.version),
        "name": document["name"],
        "kind": document.get("kind", "pc"),
        "budget": str(document.get("budget", 100)),
        "species": document.get("species", "human"),
        "service": document.get("service", ""),
        "terms": str(document.get("terms", 0)),
        "rank": str(document.get("rank", 0)),
        "homeworld": document.get("homeworld", ""),
        "one_trait_per_term": "on",
        **{code: str(level) for code, level in document["attributes"].items()},
    }
    for i, trait in enumerate(document.get("traits", [])):
        data |= {f"trait-{i}-{key}": value for key, value in trait.items()}
    for i, skill in enumerate(document.get("skills", [])):
        data |= {f"skill-{i}-skill": skill["skill"], f"skill-{i}-level": str(skill["level"])}
        if skill.get("specialties"):
            data[f"skill-{i}-specialties"] = skill["specialties"]
    if document.get("psionics"):
        data["psi_strength"] = str(document["psionics"]["strength"])
        data |= {f"talent-{t}": str(level) for t, level in document["psionics"]["talents"].items()}
    data.update(changes)
    return data


def approved(campaign: Campaign, player, referee, name: str) -> Character:
    """A character of ``player``'s in the campaign, submitted and approved by ``referee``."""
    character = builder_services.create_character(
        owner=player, document=navy_document(name=name), campaign=campaign
    )
    review_services.submit_character(character=character, by=player)
    return review_services.approve_character(character=character, by=referee)
