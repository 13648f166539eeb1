"""Character documents (format 1) for the PDF sheet tests and the PDF benchmark.

Each is valid under the rules engine (``python -m rules check`` exits 0) unless its name says
otherwise. Functions return fresh copies, so a test may change what it gets.
"""

import copy
from typing import Any

from rules import FORMAT, catalog

_NAVY_PILOT: dict[str, Any] = {
    "format": "ffa-character/1",
    "name": "Ensign Mara Tolven",
    "budget": 100,
    "homeworld": "Regina",
    "service": "navy",
    "terms": 3,
    "rank": 2,
    "attributes": {"STR": 6, "DEX": "B", "END": 7, "INT": 9, "PRE": 7, "AWA": 9, "EDU": "A",
                   "SOC": 8, "EXP": 9},
    "skills": [
        {"skill": "Pilot", "level": 3, "specialties": ["small craft"]},
        {"skill": "Navigation", "level": 2},
        {"skill": "Vacc Suit", "level": 1},
        {"skill": "Gunnery", "level": 2, "specialties": ["ship's lasers"]},
        {"skill": "Handgun", "level": 1},
        {"skill": "Gambling", "level": 1},
        {"skill": "Area Knowledge", "cascade": "Regina", "level": 5},
        {"skill": "Carousing", "level": 0},
        {"skill": "Engineering", "level": 0},
    ],
    "traits": [
        {"type": "PP", "level": "E", "frequency": "O", "name": "Combat experience"},
        {"type": "PF", "level": "H", "frequency": "S", "name": "Reckless in a cockpit"},
        {"type": "MP", "level": "E", "frequency": "S", "name": "TAS membership"},
    ],
    "mustering_out": {"rolls": [6, 3, 4]},
    "equipment": [{"item": "Automatic pistol", "quantity": 1}],
}  # fmt: skip

_VARGR_SCOUT: dict[str, Any] = {
    "format": "ffa-character/1",
    "name": "Gvoudzon",
    "species": "vargr",
    "homeworld": "Lair",
    "service": "scouts",
    "terms": 2,
    "attributes": {"STR": 8, "DEX": 9, "END": 8, "INT": 8, "PRE": 7, "AWA": 9, "EDU": 7,
                   "SOC": 5, "EXP": 8},
    "skills": [
        {"skill": "Pilot", "level": 2},
        {"skill": "Survey", "level": 2},
        {"skill": "Language", "cascade": "Anglic", "level": 4},
        {"skill": "Brawling", "level": 1},
    ],
    "traits": [
        {"type": "HF", "level": "H", "frequency": "R", "name": "Left a pack in disgrace"},
        {"type": "PP", "level": "C", "frequency": "R", "name": "Good with engines"},
    ],
    "mustering_out": {"rolls": [1, 5]},
}  # fmt: skip

_MARINE: dict[str, Any] = {
    "format": "ffa-character/1",
    "name": "Tamsin Okoro",
    "kind": "pc",
    "budget": 100,
    "homeworld": "Efate",
    "service": "marines",
    "terms": 3,
    "rank": 2,
    "attributes": {"STR": 10, "DEX": 9, "END": 10, "INT": 7, "PRE": 8, "AWA": 9, "EDU": 7,
                   "SOC": 7, "EXP": 9},
    "skills": [
        {"skill": "Rifleman", "level": 3},
        {"skill": "Blade Combat", "cascade": "swords", "level": 2},
        {"skill": "Battle Dress", "level": 2},
        {"skill": "Vacc Suit", "level": 1},
        {"skill": "Tactics", "cascade": "ground", "level": 1},
        {"skill": "Leadership", "level": 1},
        {"skill": "Brawling", "level": 1},
        {"skill": "Handgun", "level": 1},
        {"skill": "Demolitions", "level": 1},
        {"skill": "Survival", "level": 1},
        {"skill": "Gambling", "level": 0},
    ],
    "traits": [
        {"type": "PP", "level": "E", "frequency": "O", "name": "Combat veteran"},
        {"type": "PF", "level": "H", "frequency": "S", "name": "Blunt to a fault"},
    ],
    "mustering_out": {"rolls": [4, 6]},
    "equipment": [{"item": "Cutlass", "quantity": 1}, {"item": "Flak jacket", "quantity": 1}],
    "notes": "A marine sergeant-turned-captain, submitted for the referee's review.",
}  # fmt: skip

# The longest realistic character: a six-term naval officer on a high-powered campaign's budget,
# with specialties and cascades, ten traits, psionics, three cash rolls, a dozen lines of gear
# (weapons, armor, accessories) and long notes.
_LONGEST: dict[str, Any] = {
    "format": "ffa-character/1",
    "name": "Dame Aurelia Konstantina Vasquez-Hohenstaufen",
    "kind": "pc",
    "budget": 300,
    "species": "human",
    "homeworld": "Glisten",
    "service": "navy",
    "terms": 6,
    "rank": 5,
    "age": 46,
    "attributes": {"STR": 9, "DEX": 9, "END": 8, "INT": 11, "PRE": 9, "AWA": 10, "EDU": 12,
                   "SOC": 12, "EXP": 11},
    "skills": [
        {"skill": "Pilot", "level": 3, "specialties": ["small craft", "starships and spaceships"]},
        {"skill": "Navigation", "level": 2},
        {"skill": "Engineering", "level": 2, "specialties": ["jump drive"]},
        {"skill": "Gunnery", "level": 2, "specialties": ["ship's lasers", "ship's missiles"]},
        {"skill": "Computer", "level": 2, "specialties": ["programming"]},
        {"skill": "Handgun", "level": 2, "specialties": ["auto pistol"]},
        {"skill": "Blade Combat", "cascade": "swords", "level": 2},
        {"skill": "Tactics", "cascade": "space", "level": 2},
        {"skill": "Strategy", "cascade": "space", "level": 1},
        {"skill": "Leadership", "level": 2},
        {"skill": "Liaison", "level": 0},
        {"skill": "Administration", "level": 1},
        {"skill": "Vacc Suit", "level": 1},
        {"skill": "Medical", "level": 0},
        {"skill": "Language", "cascade": "Vilani", "level": 1},
        {"skill": "Grav Vehicle", "level": 0},
        {"skill": "Carousing", "level": 0},
        {"skill": "Gambling", "level": 0},
        {"skill": "Brawling", "level": 0},
        {"skill": "Sensor", "level": 0},
        {"skill": "Communications", "level": 0},
    ],
    "traits": [
        {"type": "HP", "level": "E", "frequency": "O", "name": "Veteran of the Fifth Frontier War"},
        {"type": "MP", "level": "E", "frequency": "S", "name": "TAS membership"},
        {"type": "PP", "level": "C", "frequency": "S", "name": "Unflappable under fire"},
        {"type": "PP", "level": "E", "frequency": "R", "name": "Eidetic memory for star charts"},
        {"type": "MP", "level": "C", "frequency": "R", "name": "Ship's share in a far trader"},
        {"type": "PP", "name": "Lightning reflexes", "derived": {"INI": 1}},
        {"type": "PF", "level": "H", "frequency": "S", "name": "Overconfident in her own piloting"},
        {"type": "HF", "level": "I", "frequency": "R", "name": "Court-martialled once, acquitted"},
        {"type": "MF", "level": "I", "frequency": "S", "name": "Owes a debt to a Vilani broker"},
        {"type": "PF", "level": "P", "frequency": "R", "name": "Sworn enemy of a Zhodani agent"},
    ],
    "psionics": {"strength": 3, "talents": {"Telepathy": 2, "Awareness": 1}},
    "mustering_out": {"rolls": [6, 5, 4]},
    "equipment": [
        {"item": "Automatic pistol", "quantity": 1},
        {"item": "Laser carbine", "tl": 8, "quantity": 1},
        {"item": "Cutlass", "quantity": 1},
        {"item": "Dagger", "quantity": 2},
        {"item": "Vacc suit", "tl": 12, "quantity": 1},
        {"item": "Mesh", "quantity": 1},
        {"item": "Helmet", "quantity": 1},
        {"item": "Cold weather clothing", "quantity": 1},
        {"item": "Telescopic sights", "quantity": 1},
        {"item": "Silencer", "quantity": 1},
        {"item": "Shotgun", "quantity": 1},
        {"item": "Body pistol", "quantity": 1},
    ],
    "notes": (
        "Born on Glisten to a minor noble house that had fallen on hard times, Aurelia enlisted"
        " in the Imperial Navy at eighteen over the objections of her family.\n\n"
        "She served six terms, mostly aboard patrol cruisers on the Spinward Main, and commanded"
        " a system defence boat during the Fifth Frontier War. A court-martial after the loss of"
        " a convoy ended in acquittal, but her promotion to Commodore never came.\n\n"
        "On mustering out she bought a share in a far trader and an old laser carbine she"
        " refuses to part with. She keeps a small notebook of Zhodani call signs, and she still"
        " owes a considerable sum to a Vilani broker on Regina who financed her first ship's"
        " share. She trusts her instincts in a cockpit more than she should, and she has little"
        " patience for bureaucrats."
    ),
}  # fmt: skip


def navy_pilot() -> dict[str, Any]:
    """A typical player character (the navy pilot of the format's worked examples)."""
    return copy.deepcopy(_NAVY_PILOT)


def vargr_scout() -> dict[str, Any]:
    """A Vargr: the species package adds skills and traits of its own."""
    return copy.deepcopy(_VARGR_SCOUT)


def marine() -> dict[str, Any]:
    """A marine with a melee weapon and armor."""
    return copy.deepcopy(_MARINE)


def longest() -> dict[str, Any]:
    """The longest realistic character."""
    return copy.deepcopy(_LONGEST)


def largest_legal() -> dict[str, Any]:
    """A document with every bound of the catalog at its most: the most a PDF or a page is
    ever asked to show (far over budget, which the parser allows and the engine reports)."""
    cat = catalog()
    bounds = cat.bounds
    return {
        "format": FORMAT,
        "name": "W" * bounds.name_length,
        "homeworld": "H" * bounds.label_length,
        "attributes": dict.fromkeys(cat.attribute_order, bounds.attribute),
        "skills": [
            {
                "skill": "Knowledge",
                "cascade": f"Topic {n} ".ljust(bounds.label_length, "k"),
                "level": bounds.skill_level,
            }
            for n in range(bounds.skills)
        ],
        "traits": [
            {
                "type": "PP",
                "level": "E",
                "frequency": "O",
                "name": f"Trait {n} ".ljust(bounds.trait_name_length, "w"),
            }
            for n in range(bounds.traits)
        ],
        "equipment": [
            {"item": f"Item {n} ".ljust(bounds.label_length, "i"), "quantity": bounds.quantity}
            for n in range(bounds.equipment)
        ],
        "notes": ("Lorem ipsum dolor sit amet. " * 1000)[: bounds.notes_length],
    }


def party(size: int) -> list[dict[str, Any]]:
    """``size`` party members, the typical characters in turn, each with its own name."""
    makers = (navy_pilot, marine, vargr_scout, longest)
    members = []
    for index in range(size):
        document = makers[index % len(makers)]()
        if index >= len(makers):
            document["name"] = f"{document['name']} {index + 1}"
        members.append(document)
    return members
