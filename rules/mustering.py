"""Rolling mustering-out cash on the server, with dice from a random source the caller gives."""

from __future__ import annotations

import random
from dataclasses import dataclass

from .catalog import Catalog, catalog
from .engine import cash_for, check, mustering_modifier
from .model import Character


@dataclass(frozen=True, slots=True)
class CashRoll:
    die: int
    modifier: int
    row: int
    credits: int


class MusteringOutError(ValueError):
    """The character may not roll (no service, no terms, or the rolls are already made)."""


def rolls_allowed(character: Character, *, cat: Catalog | None = None) -> int:
    cat = cat or catalog()
    return min(cat.limits.max_mustering_rolls, character.terms)


def roll_mustering_out(
    character: Character, rng: random.Random, *, cat: Catalog | None = None
) -> tuple[CashRoll, ...]:
    """Roll every allowed cash roll once; ``rng`` is seeded in tests, system-random in the app."""
    cat = cat or catalog()
    service = cat.find_service(character.service) if character.service else None
    if service is None:
        raise MusteringOutError("Choose a known service before rolling for mustering-out cash.")
    if character.mustering_rolls:
        raise MusteringOutError("Mustering-out cash has already been rolled for this character.")
    allowed = rolls_allowed(character, cat=cat)
    if allowed == 0:
        raise MusteringOutError("A character with no terms of service has no mustering-out rolls.")
    rules = cat.creation["mustering_out"]
    effective: dict[str, int] = {}
    for line in check(character, cat=cat).skills.lines:
        definition = cat.find_skill(line.skill)
        name = definition.name if definition is not None else line.skill
        effective[name] = max(line.level, effective.get(name, -1))
    modifier = mustering_modifier(character, service, effective, cat)
    rolls = []
    for _ in range(allowed):
        die = rng.randint(rules["die_min"], rules["die_max"])
        row, credits = cash_for(service, die, modifier, cat)
        rolls.append(CashRoll(die, modifier, row, credits))
    return tuple(rolls)
