"""The attack command's input (docs/combat.md): one JSON object read into an attack plan and
its dice, or refused with :class:`~rules.fighters.InputRefused` naming every faulty field.

Whatever JSON arrives, reading it raises nothing but :class:`~rules.fighters.CombatRefused`: a
wrong type, an unknown name or a malformed character document is named by its field.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from .animals import animal, fighter_from_animal
from .attack import AttackPlan, Situation, plan_attack, situation_from_mapping
from .condition import Condition, ConditionUnreadable, condition_from_dict
from .document import MalformedDocument, parse_document
from .fighters import (
    CombatRefused,
    Fighter,
    InputRefused,
    Refusals,
    Weapon,
    band_index,
    field_name,
    fighter_from_document,
    weapon_named,
)

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
_REQUIRED = ("attacker", "target", "weapon", "range")
# Animal figures above these are no animal's (the guard keeps every figure JSON can write).
_LARGEST_FIGURE = 10**6

_T = TypeVar("_T")


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
    if value is None:  # the key's default; a type or weight is refused as missing
        return None
    if isinstance(value, bool) or not isinstance(value, kinds):
        raise CombatRefused(field, f"has the wrong type for {key}")
    # Infinity and NaN are floats only; an int too large for a float is refused by its size.
    if isinstance(value, int | float) and (
        (isinstance(value, float) and not math.isfinite(value)) or abs(value) > _LARGEST_FIGURE
    ):
        raise CombatRefused(field, f"must be a number of at most {_LARGEST_FIGURE}")
    if isinstance(value, list) and not all(isinstance(name, str) for name in value):
        raise CombatRefused(field, "must be a list of natural weapons' names")
    return value


def _animal(data: Any, field: str) -> Fighter:
    described = _object(data, field)
    values: dict[str, Any] = {}
    refusals = Refusals()
    for key, value in described.items():
        if key in _ANIMAL_KEYS:
            values[key] = refusals.attempt(_animal_field, key, value, f"{field}.{key}")
        else:
            refusals.add(
                f"{field}.{field_name(key)}", f"unknown key; use {', '.join(_ANIMAL_KEYS)}"
            )
    for key in ("type", "weight_kg"):
        if described.get(key) is None:
            refusals.add(f"{field}.{key}", "missing")
    refusals.raise_any()
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


def _condition(data: Any, field: str) -> Condition:
    try:
        return condition_from_dict(_object(data, field))
    except ConditionUnreadable as unreadable:
        raise InputRefused(
            CombatRefused(f"{field}.{path}" if path else field, message)
            for path, message in unreadable.problems
        ) from None


def _condition_of(fighter: Fighter, condition: Condition, field: str) -> Condition:
    if (condition.maximum, condition.wnd) != (fighter.LIF, fighter.WND):
        raise CombatRefused(
            field,
            f"its LIF {condition.maximum} and WND {condition.wnd} are not {fighter.name}'s "
            f"(LIF {fighter.LIF}, WND {fighter.WND})",
        )
    return condition


def _weapon_name(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise CombatRefused(field, "must be a weapon's name")
    return value


def _range(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise CombatRefused(field, "must be a range band's name")
    band_index(value)
    return value


def _situation(value: Any, field: str) -> Situation:
    return situation_from_mapping(_object(value, field))


def _dice(value: Any, field: str) -> list[int]:
    if not isinstance(value, list):
        raise CombatRefused(field, "must be a list of dice, e.g. [5, 3]")
    return value


def _read(
    refusals: Refusals, request: Mapping[str, Any], key: str, reader: Callable[[Any, str], _T]
) -> _T | None:
    """What ``reader`` makes of the value under ``key``; None when it is absent, null or
    refused (the refusal kept)."""
    value = request.get(key)
    return None if value is None else refusals.attempt(reader, value, key)


def _weapon(refusals: Refusals, request: Mapping[str, Any]) -> Weapon | None:
    name = _read(refusals, request, "weapon", _weapon_name)
    tl = _read(refusals, request, "tl", _whole)
    # A TL refused is named once: the weapon is looked up only with a TL that was read.
    if name is None or (tl is None and request.get("tl") is not None):
        return None
    return refusals.attempt(weapon_named, name, tl)


def _condition_for(
    refusals: Refusals, request: Mapping[str, Any], who: str, fighter: Fighter | None
) -> Condition | None:
    """The condition given for ``who``, checked against the fighter when it could be read."""
    field = f"{who}_condition"
    condition = _read(refusals, request, field, _condition)
    if condition is None or fighter is None:
        return condition
    return refusals.attempt(_condition_of, fighter, condition, field)


def read_attack(data: Any) -> tuple[AttackPlan, list[int] | None]:
    """The attack an input object describes, and its dice (None: throw them).

    :class:`~rules.fighters.InputRefused` names every fault of the input at once; an attack
    the rules refuse (which only readable input shows) is refused on its own afterwards."""
    request = _object(data, "")
    refusals = Refusals()
    for key in request:
        if key not in ATTACK_KEYS:
            refusals.add(field_name(key), f"unknown key; use {', '.join(sorted(ATTACK_KEYS))}")
    for key in _REQUIRED:
        if request.get(key) is None:
            refusals.add(key, "missing")
    attacker = _read(refusals, request, "attacker", _fighter)
    target = _read(refusals, request, "target", _fighter)
    weapon = _weapon(refusals, request)
    range_band = _read(refusals, request, "range", _range)
    situation = _read(refusals, request, "situation", _situation)
    attacker_condition = _condition_for(refusals, request, "attacker", attacker)
    target_condition = _condition_for(refusals, request, "target", target)
    dice = _read(refusals, request, "dice", _dice)
    refusals.raise_any()
    # Whatever is missing was refused just above.
    assert attacker is not None
    assert target is not None
    assert weapon is not None
    assert range_band is not None
    plan = plan_attack(
        attacker,
        weapon,
        target,
        range_band,
        situation or Situation(),
        attacker_condition=attacker_condition,
        target_condition=target_condition,
    )
    return plan, dice
