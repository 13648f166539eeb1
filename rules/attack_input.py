"""The attack command's input (docs/combat.md): one JSON object read into an attack plan and
its dice, or refused with :class:`~rules.fighters.CombatRefused` naming the field.

Whatever JSON arrives, reading it raises nothing else: a wrong type, an unknown name or a
malformed character document is named by its field.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from .animals import animal, fighter_from_animal
from .attack import AttackPlan, plan_attack, situation_from_mapping
from .condition import Condition, condition_from_dict
from .document import MalformedDocument, parse_document
from .fighters import CombatRefused, Fighter, field_name, fighter_from_document, weapon_named

ATTACK_KEYS = frozenset(
    {
        "attacker",
        "target",
        "weapon",
        "tl",
        "range",
        "situation",
        "dice",
        "attacker_condition",
        "target_condition",
    }
)
# The animal object's keys and the JSON type each takes (int | float: a number).
_ANIMAL_KEYS: Mapping[str, tuple[type, ...]] = {
    "type": (str,),
    "weight_kg": (int, float),
    "speed": (int,),
    "weapons": (list,),
    "name": (str,),
    "armor": (str,),
    "armor_tl": (int,),
    "armor_modifier": (int,),
    "av": (int,),
    "damage": (int,),
    "lif": (int,),
    "wnd": (int,),
    "tgh": (int,),
}
# Animal figures above these are no animal's (the guard keeps every figure JSON can write).
_LARGEST_FIGURE = 10**6


def _object(value: Any, field: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise CombatRefused(field, "must be a JSON object")
    return value


def _whole(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise CombatRefused(field, "must be a whole number")
    if abs(value) > _LARGEST_FIGURE:
        raise CombatRefused(field, f"must be between -{_LARGEST_FIGURE} and {_LARGEST_FIGURE}")
    return value


def _animal_field(key: str, value: Any, field: str) -> Any:
    kinds = _ANIMAL_KEYS[key]
    if value is None and key != "type":
        return None
    if isinstance(value, bool) or not isinstance(value, kinds):
        raise CombatRefused(field, f"has the wrong type for {key}")
    if isinstance(value, int | float) and (
        not math.isfinite(value) or abs(value) > _LARGEST_FIGURE
    ):
        raise CombatRefused(field, f"must be a number of at most {_LARGEST_FIGURE}")
    if isinstance(value, list) and not all(isinstance(name, str) for name in value):
        raise CombatRefused(field, "must be a list of natural weapons' names")
    return value


def _animal(data: Any, field: str) -> Fighter:
    described = _object(data, field)
    values: dict[str, Any] = {}
    for key, value in described.items():
        if key not in _ANIMAL_KEYS:
            raise CombatRefused(
                f"{field}.{field_name(key)}", f"unknown key; use {', '.join(_ANIMAL_KEYS)}"
            )
        values[key] = _animal_field(key, value, f"{field}.{key}")
    for key in ("type", "weight_kg"):
        if values.get(key) is None:
            raise CombatRefused(f"{field}.{key}", "missing")
    kind, weight = values.pop("type"), values.pop("weight_kg")
    options = {k: v for k, v in values.items() if v is not None}
    try:
        return fighter_from_animal(animal(kind, weight, **options))
    except CombatRefused as error:
        raise CombatRefused(f"{field}.{error.field}", error.message) from None


def _fighter(data: Any, field: str) -> Fighter:
    """A character document, or ``{"animal": {...}}``."""
    if isinstance(data, dict) and "animal" in data:
        if len(data) != 1:
            raise CombatRefused(field, 'an animal is given as {"animal": {...}} alone')
        return _animal(data["animal"], f"{field}.animal")
    try:
        character = parse_document(data)
    except MalformedDocument as error:
        where = f"{field}.{error.path}" if error.path else field
        raise CombatRefused(where, error.message) from None
    return fighter_from_document(character)


def _condition(data: Any, field: str, fighter: Fighter) -> Condition | None:
    if data is None:
        return None
    try:
        condition = condition_from_dict(_object(data, field))
    except (ValueError, TypeError, KeyError) as error:
        raise CombatRefused(field, str(error)) from None
    if (condition.maximum, condition.wnd) != (fighter.LIF, fighter.WND):
        raise CombatRefused(
            field,
            f"its LIF {condition.maximum} and WND {condition.wnd} are not {fighter.name}'s "
            f"(LIF {fighter.LIF}, WND {fighter.WND})",
        )
    return condition


def read_attack(data: Any) -> tuple[AttackPlan, list[int] | None]:
    """The attack an input object describes, and its dice (None: throw them)."""
    request = _object(data, "")
    for key in request:
        if key not in ATTACK_KEYS:
            raise CombatRefused(
                field_name(key), f"unknown key; use {', '.join(sorted(ATTACK_KEYS))}"
            )
    for key in ("attacker", "target", "weapon", "range"):
        if key not in request:
            raise CombatRefused(key, "missing")
    attacker = _fighter(request["attacker"], "attacker")
    target = _fighter(request["target"], "target")
    if not isinstance(request["weapon"], str):
        raise CombatRefused("weapon", "must be a weapon's name")
    tl = request.get("tl")
    weapon = weapon_named(request["weapon"], None if tl is None else _whole(tl, "tl"))
    if not isinstance(request["range"], str):
        raise CombatRefused("range", "must be a range band's name")
    situation = situation_from_mapping(_object(request.get("situation") or {}, "situation"))
    plan = plan_attack(
        attacker,
        weapon,
        target,
        request["range"],
        situation,
        attacker_condition=_condition(
            request.get("attacker_condition"), "attacker_condition", attacker
        ),
        target_condition=_condition(request.get("target_condition"), "target_condition", target),
    )
    dice = request.get("dice")
    if dice is None:
        return plan, None
    if not isinstance(dice, list):
        raise CombatRefused("dice", "must be a list of dice, e.g. [5, 3]")
    return plan, list(dice)
