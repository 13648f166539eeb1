"""Personal combat, gathered from its modules: :mod:`rules.fighters` (who fights, with what, and
the vocabularies of a fight), :mod:`rules.animals` (animals by the conversion notes),
:mod:`rules.attack` (planning and resolving one attack), :mod:`rules.magazines` (the rounds a
weapon has loaded) and :mod:`rules.encounter` (initiative, turns, surprise, morale). Import
from here or from those; the names are the same.

Every table lives in ``data/combat.json``; where the chapter is unclear the code follows
``docs/combat.md``. Typical use::

    attacker = fighter_from_document(parse_document(doc))
    target = fighter_from_animal(animal("hunter", 150, speed=2, weapons=["Teeth", "Claws"]))
    plan = plan_attack(attacker, weapon_named("Rifle"), target, "medium", Situation(aim_turns=1))
    plan.chance                                          # exact odds of a hit
    result = resolve_attack(plan, [rng.randint(1, 6) for _ in range(dice_needed(plan))])
    result.condition_after                               # the target's LIF track now

The other combat systems a campaign may choose live beside FFA's: :mod:`rules.combat.t4` (T4
basic combat, docs/combat-t4.md) and :mod:`rules.combat.twod6` (2D6 combat, docs/combat-2d6.md),
with what they share (:mod:`rules.combat.sheet`, the FFA character as they read it, and
:mod:`rules.combat.conversion`, the catalog's figures in them).
"""

from ..animals import ANIMAL_TYPES, NATURAL_WEAPONS, Animal, animal, fighter_from_animal
from ..attack import (
    SITUATION_KEYS,
    AttackPlan,
    AttackResult,
    Damage,
    FiguresNow,
    Modifier,
    Situation,
    armor_after_notes,
    attack_damage,
    attack_result_as_dict,
    autofire_bursts,
    chance_percent,
    dice_needed,
    figures_now,
    hit_chance,
    plan_attack,
    read_dice,
    resolve_attack,
    situation_from_mapping,
    throw_dice,
    usual_band,
)
from ..encounter import (
    InitiativeRoll,
    MoraleResult,
    SideFighters,
    SurpriseResult,
    delay,
    delay_keys,
    join_initiative,
    leader_killed,
    leader_present,
    morale_check,
    morale_dms,
    morale_leader,
    morale_test,
    spotter,
    surprise,
    surprise_lasts,
    takes_turn,
    throw_initiative,
)
from ..fighters import (
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
    InputRefused,
    Weapon,
    combat_tables,
    fighter_from_document,
    weapon_from_item,
    weapon_named,
)
from ..magazines import Fired, ammunition_for, fire_rounds

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
    "FiguresNow",
    "Fired",
    "InitiativeRoll",
    "InputRefused",
    "Modifier",
    "MoraleResult",
    "SideFighters",
    "Situation",
    "SurpriseResult",
    "Weapon",
    "ammunition_for",
    "animal",
    "armor_after_notes",
    "attack_damage",
    "attack_result_as_dict",
    "autofire_bursts",
    "chance_percent",
    "combat_tables",
    "delay",
    "delay_keys",
    "dice_needed",
    "fighter_from_animal",
    "fighter_from_document",
    "figures_now",
    "fire_rounds",
    "hit_chance",
    "join_initiative",
    "leader_killed",
    "leader_present",
    "morale_check",
    "morale_dms",
    "morale_leader",
    "morale_test",
    "plan_attack",
    "read_dice",
    "resolve_attack",
    "situation_from_mapping",
    "spotter",
    "surprise",
    "surprise_lasts",
    "takes_turn",
    "throw_dice",
    "throw_initiative",
    "usual_band",
    "weapon_from_item",
    "weapon_named",
]
