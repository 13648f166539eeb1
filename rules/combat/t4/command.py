"""``python -m rules attack --system t4``: the input read into a :class:`T4Attack` (every fault
named by its field), and the result as the command prints it (docs/combat-t4.md, "The
command")."""

from __future__ import annotations

from typing import Any

from ...attack import chance_percent
from ...fighters import CombatRefused
from .. import reading
from ..request import read_request
from ..sheet import FighterSheet
from ..throws import GivenDice
from .condition import DAMAGED, T4Condition, condition_as_dict, condition_from_dict, current, state
from .locations import BODY_PARTS
from .plan import (
    ACCESSORIES,
    BANDS,
    COVERS,
    HANDS,
    LIGHTING,
    MOVEMENTS,
    ROUTINES,
    TARGET_MOVEMENTS,
    TARGET_SIZES,
    T4Attack,
    T4Situation,
)
from .resolve import T4Result, chance_of_any_hit, group_hits

SYSTEM = "t4"
DICE_NAMES: tuple[str, ...] = ("attack", "defense", "location", "damage", "random_stat")


SITUATION_READERS: dict[str, reading.Reader[Any]] = {
    "movement": lambda v, f: reading.one_of(v, f, MOVEMENTS),
    "target_movement": lambda v, f: reading.one_of(v, f, TARGET_MOVEMENTS),
    "target_evading": reading.boolean,
    "target_prone": reading.boolean,
    "cover": lambda v, f: reading.one_of(v, f, COVERS),
    "cover_regions": lambda v, f: reading.names_of(v, f, BODY_PARTS),
    "concealed": reading.boolean,
    "into_melee": reading.boolean,
    "lighting": lambda v, f: reading.one_of(v, f, LIGHTING),
    "target_size": lambda v, f: reading.one_of(v, f, TARGET_SIZES),
    "burst": lambda v, f: reading.whole(v, f, least=1),
    "accessories": lambda v, f: reading.names_of(v, f, ACCESSORIES),
    "pistol_braced": reading.boolean,
    "drew_this_round": reading.boolean,
    "two_weapons": lambda v, f: reading.one_of(v, f, HANDS),
    "target_index": lambda v, f: reading.whole(v, f, least=1, most=3),
    "location_skew": lambda v, f: reading.whole(v, f, least=-reading.LARGEST),
    "snipe_shift": lambda v, f: reading.whole(v, f, least=-reading.LARGEST),
    "weakened": reading.boolean,
    "to_stun": reading.boolean,
    "target_weapon": reading.weapon,
    "pure_defense": reading.boolean,
    "with_surprise": reading.boolean,
    "first_round": reading.boolean,
    "weapon_used_at_contact": reading.boolean,
    "dm": lambda v, f: reading.whole(v, f, least=-reading.LARGEST),
}


def _allocation(value: Any, field: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise CombatRefused(field, f"must be a list of {', '.join(DAMAGED)}")
    return tuple(reading.one_of(item, f"{field}[{i}]", DAMAGED) for i, item in enumerate(value))


def read_t4_attack(data: Any) -> tuple[T4Attack, GivenDice | None]:
    """The attack an input object describes, and its dice (None: throw them).
    :class:`~rules.fighters.InputRefused` names every fault of the input at once."""
    return read_request(
        data,
        SYSTEM,
        T4Attack,
        bands=BANDS,
        dice_names=DICE_NAMES,
        readers={
            "routine": lambda v, f: reading.one_of(v, f, ROUTINES),
            "situation": reading.record(T4Situation, SITUATION_READERS),
            "attacker_condition": condition_from_dict,
            "target_condition": condition_from_dict,
            "allocation": _allocation,
        },
    )


def stats_now(sheet: FighterSheet, condition: T4Condition) -> dict[str, int]:
    """Current STR DEX END INT EDU (and PSI) of a character."""
    return {code: current(sheet, condition, code) for code in DAMAGED if code in sheet.levels}


def t4_result_as_dict(result: T4Result) -> dict[str, Any]:
    """The command's JSON (docs/combat-t4.md, "Output")."""
    plan = result.plan
    attack = plan.attack
    target = attack.target
    effects = [
        {"location": hit.location.name, "effect": hit.effect.effect}
        for hit in result.hits
        if hit.effect is not None
    ]
    spectacular = [t.spectacular for t in result.throws if t.spectacular is not None]
    out: dict[str, Any] = {
        "system": SYSTEM,
        "attacker": attack.attacker.name,
        "target": target.name,
        "weapon": attack.weapon.label,
        "range": attack.range_band,
        "range_number": plan.range_number,
        "routine": plan.routine,
        "burst": plan.burst,
        "difficulty": plan.difficulty.name,
        "dice_rule": plan.difficulty.rule,
        "skill": {
            "name": plan.skill.name,
            "level": plan.skill_level,
            "specialty": plan.skill.specialty,
        },
        "attribute": {"name": plan.attribute, "value": plan.attribute_value},
        "to_hit_base": plan.to_hit_base,
        "dms": [m.as_dict() for m in plan.dms],
        "dm": plan.dm,
        "to_hit": plan.to_hit,
        "chance": str(plan.chance),
        "chance_percent": chance_percent(plan.chance),
        # Of at least one hit among the throws (a burst's several; one throw: the same).
        "chance_of_any_hit_percent": chance_percent(chance_of_any_hit(plan)),
        "planned_throws": plan.throws,
        "throws": [t.as_dict() for t in result.throws],
        "defense": result.defense.as_dict() if result.defense is not None else None,
        "hit": result.hit,
        "hit_count": len(result.hits),
        "jammed": result.jammed,
        "hits": [hit.as_dict() for hit in result.hits],
        "locations": [hit.location.name for hit in result.hits],
        "damage": result.damage,
        "wound": result.condition_after.wound,
        "location_effects": effects,
        "bleeding_per_round": sum(b.per_round for b in result.condition_after.bleeding),
        "state": state(target, result.condition_after),
        "stats_after": stats_now(target, result.condition_after),
        "blocked_by_cover": result.blocked_by_cover[0] if result.blocked_by_cover else None,
        "attacker_damage": result.attacker_damage,
        "attacker_stats_after": stats_now(attack.attacker, result.attacker_condition_after),
        "attacker_fatigue_after": result.attacker_condition_after.fatigue,
        "group_hits": group_hits(plan),
        "condition_after": condition_as_dict(result.condition_after),
        "attacker_condition_after": condition_as_dict(result.attacker_condition_after),
        "events": [{"code": e.code, "message": e.message} for e in result.events],
    }
    if spectacular:
        out["spectacular"] = spectacular
    return out
