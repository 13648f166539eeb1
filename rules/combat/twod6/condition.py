"""A character's condition under 2D6 (docs/combat-2d6.md, "The 2D6 condition"): the points
taken off END, STR and DEX. Initiative changes live in the encounter, not here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ...fighters import InputRefused, Refusals
from .. import reading
from ..sheet import PHYSICAL, FighterSheet
from ..tables import twod6_tables

SYSTEM = "2d6"
CONSCIOUS, UNCONSCIOUS, DEAD = "conscious", "unconscious", "dead"
FIRST_DAMAGED: str = twod6_tables()["first_damaged"]
OVERFLOW: tuple[str, ...] = tuple(code for code in PHYSICAL if code != FIRST_DAMAGED)


@dataclass(frozen=True, slots=True)
class TwoD6Condition:
    """``damage``: the points taken off STR, DEX and END."""

    damage: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))


def current(sheet: FighterSheet, condition: TwoD6Condition, code: str) -> int:
    """A characteristic now: the document's level less the damage taken, never below 0."""
    return max(sheet.levels.get(code, 0) - condition.damage.get(code, 0), 0)


def state(sheet: FighterSheet, condition: TwoD6Condition) -> str:
    """All three at 0: dead; STR or DEX at 0: unconscious (reading 2D-10: until raised)."""
    zeros = {code for code in PHYSICAL if current(sheet, condition, code) == 0}
    if len(zeros) == len(PHYSICAL):
        return DEAD
    return UNCONSCIOUS if zeros & set(OVERFLOW) else CONSCIOUS


def default_overflow(sheet: FighterSheet, condition: TwoD6Condition) -> str:
    """Where damage past END goes when the target does not say (reading 2D-5): the higher of
    STR and DEX now, STR on a tie."""
    return max(OVERFLOW, key=lambda code: (current(sheet, condition, code), -OVERFLOW.index(code)))


def take_damage(
    sheet: FighterSheet, condition: TwoD6Condition, points: int, overflow_to: str | None = None
) -> tuple[TwoD6Condition, dict[str, int]]:
    """``points`` applied (the seed's "Damage"): END first, then the characteristic the target
    chooses (``overflow_to``; reading 2D-5) until it reaches 0, then the other; points beyond
    are lost. Returns the condition and the points each characteristic took."""
    first = overflow_to or default_overflow(sheet, condition)
    order = (FIRST_DAMAGED, first, *(code for code in OVERFLOW if code != first))
    damage = dict(condition.damage)
    applied = dict.fromkeys(PHYSICAL, 0)
    for code in order:
        taken = min(points, max(sheet.levels.get(code, 0) - damage.get(code, 0), 0))
        damage[code] = damage.get(code, 0) + taken
        applied[code] += taken
        points -= taken
    return TwoD6Condition(MappingProxyType(damage)), applied


def restore(condition: TwoD6Condition, code: str, points: int) -> TwoD6Condition:
    """``points`` given back to ``code`` (healing or the referee; reading 2D-10)."""
    left = max(condition.damage.get(code, 0) - points, 0)
    return TwoD6Condition(MappingProxyType({**condition.damage, code: left}))


def condition_as_dict(condition: TwoD6Condition) -> dict[str, Any]:
    return {"system": SYSTEM, "damage": {code: condition.damage.get(code, 0) for code in PHYSICAL}}


def condition_from_dict(value: Any, field: str) -> TwoD6Condition:
    """A 2D6 condition from its JSON; :class:`InputRefused` names every fault under
    ``field``."""
    refusals = Refusals()
    values = reading.read_fields(
        reading.obj(value, field),
        field,
        {
            "system": lambda v, f: reading.system_of(v, f, SYSTEM),
            "damage": reading.points(PHYSICAL),
        },
        refusals,
    )
    if refusals.found:
        raise InputRefused(refusals.found)
    return TwoD6Condition(values.get("damage", MappingProxyType({})))
