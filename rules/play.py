"""In-play rules: damage and wounds, healing and recovery, and improvement points, gathered
from their modules: :mod:`rules.injury` (the tables), :mod:`rules.condition`, :mod:`rules.healing`
and :mod:`rules.improvement`. Import from here or from those; the names are the same.

Everything here is a pure function over frozen dataclasses: a :class:`Condition` in, a new
``Condition`` (and the events that explain it) out; a :class:`~rules.model.Character` and a
purchase in, a new ``Character`` out. Numbers from the rulebook's tables live in
``data/injury.json`` and ``data/improvement.json``; dice come from :mod:`rules.dice`.

Where the rulebook is silent or garbled this module follows ``docs/in-play-rulings.md``:
wounds come from lethal damage only; with several wounds the worst wound's penalty applies;
damage is marked one point at a time, so the replacement rule applies within a single blow;
a fumble on a medical test is a critical failure even when the total reaches the TN; the
attribute improvement cost is set by the referee; a light wound bleeds only on as many days
as were thrown for it when it was taken.

Typical use::

    condition = condition_for(report)                  # LIF and WND from the engine's report
    severity = blow_severity(condition, amount=9, form="L")   # None: the blow makes no wound
    lasts = severity_rules(severity).bleed_lasts if severity else None  # light wounds only
    thrown = lasts.roll(rng) if lasts else None
    condition, events = take_damage(condition, amount=9, form="L", bleed_lasts=thrown)
    test = action_test(rng=rng, skill_level=2, attribute_dm=1,
                       dm=healing_dm(supplies="kit"), tn=stabilisation_tn("light"))
    condition, events = stabilise(condition, 0, test)
    effective(report, condition).derived               # DEF, INI, MOV of the wounded character
"""

from .condition import (
    Condition,
    ConditionUnreadable,
    Effective,
    Event,
    Events,
    Incapacity,
    Wound,
    WoundBand,
    bleed,
    blow_severity,
    boxes,
    carried_load,
    condition_as_dict,
    condition_for,
    condition_from_dict,
    condition_states,
    damage_after_protection,
    dying_turn,
    effective,
    end_stun,
    incapacity,
    out_of_action,
    rescale,
    take_damage,
    wound_bands,
    wound_penalties,
    wound_penalty,
    wound_severity,
)
from .healing import (
    clear_wound,
    recover,
    recovery_dv,
    stabilise,
    treat,
    untreated_wound,
)
from .improvement import (
    NOT_PURCHASE_PROBLEMS,
    AddPerk,
    AddSpecialty,
    BuyOffFlaw,
    BuyOffPackageFlaw,
    ImprovementCosts,
    ImprovementError,
    Purchase,
    RaiseAttribute,
    RaisePerk,
    RaiseSkill,
    apply_improvement,
    check_improvement,
    creation_points_added,
    improvement_cost,
    improvement_costs,
)
from .injury import (
    LETHAL,
    SPECIAL,
    STUN,
    InjuryRules,
    Period,
    RolledPeriod,
    SeverityRules,
    healing_dm,
    injury_rules,
    recovery_period,
    severity_rules,
    stabilisation_tn,
    treatment_tn,
    xeno_medicine_dm,
    xeno_medicine_level,
)

__all__ = [
    "LETHAL",
    "NOT_PURCHASE_PROBLEMS",
    "SPECIAL",
    "STUN",
    "AddPerk",
    "AddSpecialty",
    "BuyOffFlaw",
    "BuyOffPackageFlaw",
    "Condition",
    "ConditionUnreadable",
    "Effective",
    "Event",
    "Events",
    "ImprovementCosts",
    "ImprovementError",
    "Incapacity",
    "InjuryRules",
    "Period",
    "Purchase",
    "RaiseAttribute",
    "RaisePerk",
    "RaiseSkill",
    "RolledPeriod",
    "SeverityRules",
    "Wound",
    "WoundBand",
    "apply_improvement",
    "bleed",
    "blow_severity",
    "boxes",
    "carried_load",
    "check_improvement",
    "clear_wound",
    "condition_as_dict",
    "condition_for",
    "condition_from_dict",
    "condition_states",
    "creation_points_added",
    "damage_after_protection",
    "dying_turn",
    "effective",
    "end_stun",
    "healing_dm",
    "improvement_cost",
    "improvement_costs",
    "incapacity",
    "injury_rules",
    "out_of_action",
    "recover",
    "recovery_dv",
    "recovery_period",
    "rescale",
    "severity_rules",
    "stabilisation_tn",
    "stabilise",
    "take_damage",
    "treat",
    "treatment_tn",
    "untreated_wound",
    "wound_bands",
    "wound_penalties",
    "wound_penalty",
    "wound_severity",
    "xeno_medicine_dm",
    "xeno_medicine_level",
]
