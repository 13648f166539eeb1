"""One attack, planned and then resolved: the TN and every DM with its reason, the exact chance
of a hit before the dice are thrown, then the dice, the damage through armor and TGH, the wound
and the target's new condition.

The figures come from ``data/combat.json`` (the situation tables), ``data/equipment.json`` (the
weapons and armor) and ``data/injury.json`` (wounds); where the chapter is unclear this package
follows ``docs/combat.md``. ``situation`` reads what the referee says, ``plan`` works out the
TN, the DMs and the chance, ``resolve`` reads the dice and the damage. Typical use::

    plan = plan_attack(attacker, weapon, target, "medium", Situation(aim_turns=1))
    plan.chance                                  # Fraction: the odds the web shows
    dice = [rng.randint(1, 6) for _ in range(dice_needed(plan))]
    result = resolve_attack(plan, dice)
    attack_result_as_dict(result)                # the CLI's JSON
"""

from __future__ import annotations

from .plan import (
    AttackPlan,
    FiguresNow,
    autofire_bursts,
    chance_percent,
    figures_now,
    hit_chance,
    max_range_m,
    plan_attack,
    usual_band,
)
from .resolve import (
    ArmorMet,
    AttackResult,
    Damage,
    DamageParts,
    armor_after_notes,
    attack_damage,
    attack_result_as_dict,
    dice_needed,
    dice_reading,
    read_dice,
    resolve_attack,
    throw_dice,
)
from .situation import (
    LARGEST_SITUATION_FIGURE,
    SITUATION_KEYS,
    Modifier,
    Situation,
    situation_from_mapping,
)

# What the rest of the code imports from here.
__all__ = [
    "LARGEST_SITUATION_FIGURE",
    "SITUATION_KEYS",
    "ArmorMet",
    "AttackPlan",
    "AttackResult",
    "Damage",
    "DamageParts",
    "FiguresNow",
    "Modifier",
    "Situation",
    "armor_after_notes",
    "attack_damage",
    "attack_result_as_dict",
    "autofire_bursts",
    "chance_percent",
    "dice_needed",
    "dice_reading",
    "figures_now",
    "hit_chance",
    "max_range_m",
    "plan_attack",
    "read_dice",
    "resolve_attack",
    "situation_from_mapping",
    "throw_dice",
    "usual_band",
]
