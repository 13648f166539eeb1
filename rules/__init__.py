"""Far Future Action character creation as plain Python: frozen dataclasses in, a report out.

The package imports nothing outside the standard library. Typical use::

    from rules import check_document
    report = check_document(json.load(open("navy-pilot.json")))
    report.valid, report.points.total, report.as_dict()
"""

from .catalog import Catalog, catalog
from .dice import ActionTest, action_test, result_distribution, success_chance
from .document import MalformedDocument, normalise_document, parse_document, to_document
from .engine import check, check_document
from .model import (
    FORMAT,
    Character,
    EquipmentEntry,
    HouseRules,
    Psionics,
    SkillEntry,
    TraitEntry,
)
from .mustering import CashRoll, MusteringOutError, roll_mustering_out, rolls_allowed
from .notation import NotationError, format_skill, format_trait, parse_skill, parse_trait
from .play import (
    Condition,
    Effective,
    Event,
    Period,
    Wound,
    bleed,
    boxes,
    clear_wound,
    condition_for,
    damage_after_protection,
    dying_turn,
    effective,
    end_stun,
    healing_dm,
    recover,
    recovery_period,
    stabilisation_tn,
    stabilise,
    take_damage,
    treat,
    treatment_tn,
    wound_severity,
)
from .report import Problem, Report
from .statblock import stat_block

__all__ = [
    "FORMAT",
    "ActionTest",
    "CashRoll",
    "Catalog",
    "Character",
    "Condition",
    "Effective",
    "EquipmentEntry",
    "Event",
    "HouseRules",
    "MalformedDocument",
    "MusteringOutError",
    "NotationError",
    "Period",
    "Problem",
    "Psionics",
    "Report",
    "SkillEntry",
    "TraitEntry",
    "Wound",
    "action_test",
    "bleed",
    "boxes",
    "catalog",
    "check",
    "check_document",
    "clear_wound",
    "condition_for",
    "damage_after_protection",
    "dying_turn",
    "effective",
    "end_stun",
    "format_skill",
    "format_trait",
    "healing_dm",
    "normalise_document",
    "parse_document",
    "parse_skill",
    "parse_trait",
    "recover",
    "recovery_period",
    "result_distribution",
    "roll_mustering_out",
    "rolls_allowed",
    "stabilisation_tn",
    "stabilise",
    "stat_block",
    "success_chance",
    "take_damage",
    "to_document",
    "treat",
    "treatment_tn",
    "wound_severity",
]
