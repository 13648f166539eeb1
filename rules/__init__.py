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
from .report import Problem, Report
from .statblock import stat_block

__all__ = [
    "FORMAT",
    "ActionTest",
    "CashRoll",
    "Catalog",
    "Character",
    "EquipmentEntry",
    "HouseRules",
    "MalformedDocument",
    "MusteringOutError",
    "NotationError",
    "Problem",
    "Psionics",
    "Report",
    "SkillEntry",
    "TraitEntry",
    "action_test",
    "catalog",
    "check",
    "check_document",
    "format_skill",
    "format_trait",
    "normalise_document",
    "parse_document",
    "parse_skill",
    "parse_trait",
    "result_distribution",
    "roll_mustering_out",
    "rolls_allowed",
    "stat_block",
    "success_chance",
    "to_document",
]
