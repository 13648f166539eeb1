"""``python -m rules attack --system 2d6``: the input read into a :class:`TwoD6Attack` (every
fault named by its field), and the result as the command prints it (docs/combat-2d6.md, "The
command")."""

from __future__ import annotations

from typing import Any

from ...attack import chance_percent
from .. import reading
from ..request import read_request
from ..sheet import PHYSICAL
from ..throws import GivenDice
from .attack import (
    ACCESSORIES,
    BANDS,
    COVERS,
    DARKNESS,
    FIRE_MODES,
    FULL_AUTO,
    MELEE_CHARACTERISTICS,
    REACTIONS,
    SMOKE,
    STANCES,
    TwoD6Attack,
    TwoD6Result,
    TwoD6Situation,
)
from .condition import (
    OVERFLOW,
    condition_as_dict,
    condition_from_dict,
    current,
    state,
)

SYSTEM = "2d6"
DICE_NAMES: tuple[str, ...] = ("attack", "damage", "stray")

SITUATION_READERS: dict[str, reading.Reader[Any]] = {
    "fire": lambda v, f: reading.one_of(v, f, FIRE_MODES),
    "aim_actions": lambda v, f: reading.whole(v, f, most=6),
    "hasty": reading.boolean,
    "attacker_reactions": reading.whole,
    "target_reaction": lambda v, f: reading.one_of(v, f, REACTIONS),
    "target_weapon": reading.weapon,
    "cover": lambda v, f: reading.one_of(v, f, COVERS),
    "target_stance": lambda v, f: reading.one_of(v, f, STANCES),
    "target_movement_m": reading.whole,
    "darkness": lambda v, f: reading.one_of(v, f, DARKNESS),
    "smoke": lambda v, f: reading.one_of(v, f, SMOKE),
    "weather": reading.boolean,
    "into_combat": reading.boolean,
    "characteristic": lambda v, f: reading.one_of(v, f, MELEE_CHARACTERISTICS),
    "overflow_to": lambda v, f: reading.one_of(v, f, OVERFLOW),
    "accessories": lambda v, f: reading.names_of(v, f, ACCESSORIES),
    "dm": lambda v, f: reading.whole(v, f, least=-reading.LARGEST),
}


def read_2d6_attack(data: Any) -> tuple[TwoD6Attack, GivenDice | None]:
    """The attack an input object describes, and its dice (None: throw them).
    :class:`~rules.fighters.InputRefused` names every fault of the input at once."""
    return read_request(
        data,
        SYSTEM,
        TwoD6Attack,
        bands=BANDS,
        dice_names=DICE_NAMES,
        readers={
            "situation": reading.record(TwoD6Situation, SITUATION_READERS),
            "attacker_condition": condition_from_dict,
            "target_condition": condition_from_dict,
        },
    )


def twod6_result_as_dict(result: TwoD6Result) -> dict[str, Any]:
    """The command's JSON (docs/combat-2d6.md, "Output")."""
    plan = result.plan
    attack = plan.attack
    target = attack.target
    effects = [t.effect for t in result.throws]
    out: dict[str, Any] = {
        "system": SYSTEM,
        "attacker": attack.attacker.name,
        "target": target.name,
        "weapon": attack.weapon.label,
        "range": attack.range_band,
        "fire": plan.fire,
        "skill": {
            "name": plan.skill.name,
            "level": plan.skill.level,
            "used": plan.skill_dm,
            "specialty": plan.skill.specialty,
        },
        "characteristic": {
            "name": plan.characteristic,
            "value": plan.characteristic_value,
            "dm": plan.characteristic_dm,
        },
        "dms": [m.as_dict() for m in plan.dms],
        "dm": plan.dm,
        "total_dm": plan.total_dm,
        "chance": str(plan.chance),
        "chance_percent": chance_percent(plan.chance),
        "attacks": [
            {"dice": list(t.dice), "total": t.total, "hit": t.hit, "effect": t.effect}
            for t in result.throws
        ],
        "unused_die": list(result.unused_die),
        "hit": bool(result.hits),
        "hit_count": len(result.hits),
        "damage": result.damage,
        "hits": [
            {
                "dice": list(hit.dice),
                "rolled": hit.rolled,
                "effect": hit.effect,
                "auto": hit.auto,
                "armour": hit.armour,
                "after_armour": hit.after_armour,
            }
            for hit in result.hits
        ],
        "applied": dict(result.applied),
        "stats_after": {code: current(target, result.condition_after, code) for code in PHYSICAL},
        "state": state(target, result.condition_after),
        "attacker_initiative_change": plan.attacker_initiative_change,
        "target_initiative_change": result.target_initiative_change,
        "rounds": plan.rounds,
        "condition_after": condition_as_dict(result.condition_after),
        "events": [{"code": e.code, "message": e.message} for e in result.events],
    }
    if plan.fire == FULL_AUTO:
        out["effects"] = effects
    else:
        out["effect"] = effects[0]
    return out
