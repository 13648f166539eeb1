"""Fighters for the combat tests: average humans (DEX 7: DM 0, DEF 3; STR 7: DV 3; TGH 3,
LIF 21, WND 6) changed only where a test says."""

from __future__ import annotations

from typing import Any

from rules import Situation, fighter_from_document, parse_document, plan_attack, weapon_named
from rules.combat import AttackPlan, Fighter

from .builders import document


def fighter(**changes: Any) -> Fighter:
    """An average human with ``changes`` to its document; ``armor="Mesh"`` adds worn armor,
    ``carrying=[...]`` items."""
    armor = changes.pop("armor", None)
    carrying = list(changes.pop("carrying", ()))
    if armor is not None:
        carrying.append(armor)
    equipment = [
        item if isinstance(item, dict) else {"item": item, "quantity": 1} for item in carrying
    ]
    return fighter_from_document(parse_document(document(equipment=equipment, **changes)))


def skilled(skill: str, level: int, cascade: str | None = None, **changes: Any) -> Fighter:
    entry: dict[str, Any] = {"skill": skill, "level": level}
    if cascade:
        entry["cascade"] = cascade
    return fighter(skills=[entry], **changes)


AVERAGE = fighter()


def plan(
    weapon: str = "Rifle",
    band: str = "medium",
    *,
    attacker: Fighter | None = None,
    target: Fighter | None = None,
    tl: int | None = None,
    **situation: Any,
) -> AttackPlan:
    return plan_attack(
        attacker or AVERAGE,
        weapon_named(weapon, tl),
        target or AVERAGE,
        band,
        Situation(**situation),
    )


def dm_of(attack: AttackPlan, label_start: str) -> int | None:
    """The DM whose label starts with ``label_start``; None when no such DM applies."""
    found = [m.dm for m in attack.dms if m.label.startswith(label_start)]
    assert len(found) <= 1, attack.dms
    return found[0] if found else None
