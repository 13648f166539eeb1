"""Personal combat, gathered from its modules: :mod:`rules.fighters` (who fights, with what, and
the vocabularies of a fight), :mod:`rules.animals` (animals by the conversion notes),
:mod:`rules.attack` (planning and resolving one attack) and :mod:`rules.encounter` (initiative,
surprise, morale). Import from here or from those; the names are the same.

Every table lives in ``data/combat.json``; where the chapter is unclear the code follows
``docs/combat.md``. Typical use::

    attacker = fighter_from_document(parse_document(doc))
    target = fighter_from_animal(animal("hunter", 150, speed=2, weapons=["Teeth", "Claws"]))
    plan = plan_attack(attacker, weapon_named("Rifle"), target, "medium", Situation(aim_turns=1))
    plan.chance                                          # exact odds of a hit
    result = resolve_attack(plan, [rng.randint(1, 6) for _ in range(dice_needed(plan))])
    result.condition_after                               # the target's LIF track now
"""

from .animals import ANIMAL_TYPES, NATURAL_WEAPONS, Animal, animal, fighter_from_animal
from .attack import (
    SITUATION_KEYS,
    AttackPlan,
    AttackResult,
    Damage,
    Modifier,
    Situation,
    armor_after_notes,
    attack_damage,
    attack_result_as_dict,
    chance_percent,
    dice_needed,
    hit_chance,
    plan_attack,
    read_dice,
    resolve_attack,
    situation_from_mapping,
    throw_dice,
)
from .encounter import (
    InitiativeRoll,
    MoraleResult,
    SurpriseResult,
    delay,
    morale_check,
    morale_dms,
    morale_test,
    surprise,
    throw_initiative,
)
from .fighters import (
    COVER,
    FACINGS,
    LIGHTING,
    MOVEMENTS,
    RANGE_BANDS,
    RANGE_DMS,
    SITUATION_DMS,
    TARGET_SIZES,
    VISIBILITY,
    Armor,
    CombatRefused,
    Fighter,
    Weapon,
    combat_tables,
    fighter_from_document,
    weapon_from_item,
    weapon_named,
    weapons_for,
)

__all__ = [
    "ANIMAL_TYPES",
    "COVER",
    "FACINGS",
    "LIGHTING",
    "MOVEMENTS",
    "NATURAL_WEAPONS",
    "RANGE_BANDS",
    "RANGE_DMS",
    "SITUATION_DMS",
    "SITUATION_KEYS",
    "TARGET_SIZES",
    "VISIBILITY",
    "Animal",
    "Armor",
    "AttackPlan",
    "AttackResult",
    "CombatRefused",
    "Damage",
    "Fighter",
    "InitiativeRoll",
    "Modifier",
    "MoraleResult",
    "Situation",
    "SurpriseResult",
    "Weapon",
    "animal",
    "armor_after_notes",
    "attack_damage",
    "attack_result_as_dict",
    "chance_percent",
    "combat_tables",
    "delay",
    "dice_needed",
    "fighter_from_animal",
    "fighter_from_document",
    "hit_chance",
    "morale_check",
    "morale_dms",
    "morale_test",
    "plan_attack",
    "read_dice",
    "resolve_attack",
    "situation_from_mapping",
    "surprise",
    "throw_dice",
    "throw_initiative",
    "weapon_from_item",
    "weapon_named",
    "weapons_for",
]
