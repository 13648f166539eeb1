"""``python -m rules attack --system t4|2d6``: one attack of another combat system, from the
command's JSON input to its JSON result (docs/combat-t4.md, docs/combat-2d6.md). Without dice
in the input the attack throws them with ``rng``."""

from __future__ import annotations

import random
from typing import Any

from .t4.command import read_t4_attack, t4_result_as_dict
from .t4.plan import plan_t4_attack
from .t4.resolve import resolve_t4_attack
from .throws import RandomDice
from .twod6.attack import plan_2d6_attack, resolve_2d6_attack
from .twod6.command import read_2d6_attack, twod6_result_as_dict

FFA, T4, TWOD6 = "ffa", "t4", "2d6"
SYSTEMS: tuple[str, ...] = (FFA, T4, TWOD6)


def resolve_command(system: str, data: Any, rng: random.Random) -> dict[str, Any]:
    """The result of the attack ``data`` describes under ``system`` (t4 or 2d6).
    :class:`~rules.fighters.CombatRefused` (or InputRefused) names what is wrong."""
    if system == T4:
        attack, given = read_t4_attack(data)
        t4_plan = plan_t4_attack(attack)
        return t4_result_as_dict(resolve_t4_attack(t4_plan, given or RandomDice(rng)))
    twod6_attack, dice = read_2d6_attack(data)
    plan = plan_2d6_attack(twod6_attack)
    return twod6_result_as_dict(resolve_2d6_attack(plan, dice or RandomDice(rng)))
