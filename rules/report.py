"""The rules report: what a character costs, what it can do and what is wrong with it.

Report parts are NamedTuples: immutable like the input dataclasses, and several times cheaper
to build, which matters because the builder re-checks a character on every keystroke.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from rules.catalog import catalog

ERROR = "error"
WARNING = "warning"


class Problem(NamedTuple):
    code: str
    severity: str
    path: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {
            "code": self.code,
            "severity": self.severity,
            "path": self.path,
            "message": self.message,
        }


class AttributeValue(NamedTuple):
    code: str
    purchased: int
    level: int
    hex: str
    dm: int
    dv: int
    cost: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "hex": self.hex,
            "dm": self.dm,
            "dv": self.dv,
            "purchased": self.purchased,
            "cost": self.cost,
        }


class Derived(NamedTuple):
    DEF: int
    INI: int
    MOV: int
    TGH: int
    LIF: int
    WND: int

    def as_dict(self) -> dict[str, int]:
        return {
            "DEF": self.DEF,
            "INI": self.INI,
            "MOV": self.MOV,
            "TGH": self.TGH,
            "LIF": self.LIF,
            "WND": self.WND,
        }


class Points(NamedTuple):
    attributes: int
    skills: int
    perks: int
    flaws: int
    rank: int
    psionics: int
    package: int
    total: int
    budget: int
    remaining: int

    def as_dict(self) -> dict[str, int]:
        return {
            "attributes": self.attributes,
            "skills": self.skills,
            "perks": self.perks,
            "flaws": self.flaws,
            "rank": self.rank,
            "psionics": self.psionics,
            "package": self.package,
            "total": self.total,
            "budget": self.budget,
            "remaining": self.remaining,
        }


class SkillLine(NamedTuple):
    name: str  # the rulebook's notation
    skill: str
    cascade: str | None
    level: int
    specialties: tuple[str, ...]
    cost: int
    counted: int  # levels counted toward the EDU + EXP total
    automatic: bool  # an automatic or species-package skill, perhaps bought higher
    free_level: int  # the level that came without points (automatic or package)
    source: str  # "player", "automatic" or "package"

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "skill": self.skill,
            "cascade": self.cascade,
            "level": self.level,
            "specialties": list(self.specialties),
            "cost": self.cost,
            "counted": self.counted,
            "automatic": self.automatic,
            "free_level": self.free_level,
            "source": self.source,
        }


class Skills(NamedTuple):
    max_level: int
    total_allowed: int
    total_used: int
    zero_level_free: int
    zero_level_used: int
    lines: tuple[SkillLine, ...]

    @property
    def zero_level_left(self) -> int:
        """Free level-0 skills not yet assigned, which the player may name in play."""
        return max(0, self.zero_level_free - self.zero_level_used)

    def as_dict(self) -> dict[str, Any]:
        return {
            "max_level": self.max_level,
            "total_allowed": self.total_allowed,
            "total_used": self.total_used,
            "zero_level_free": self.zero_level_free,
            "zero_level_used": self.zero_level_used,
            "list": [line.as_dict() for line in self.lines],
        }


class TraitLine(NamedTuple):
    notation: str
    name: str
    points: int
    type: str
    source: str  # "player", "rank" or "package"
    control_score: int | None
    valid: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "notation": self.notation,
            "name": self.name,
            "points": self.points,
            "type": self.type,
            "source": self.source,
            "control_score": self.control_score,
        }

    @property
    def title(self) -> str:
        """The trait's name; for a trait written without one (notation alone), its kind in the
        catalog's words ("Personal perk"): what a list that names each item shows for it."""
        if self.name.strip():
            return self.name
        cat = catalog()
        return cat.perk_types.get(self.type) or cat.flaw_types.get(self.type) or "Trait"


class Rank(NamedTuple):
    level: int
    title: str | None

    def as_dict(self) -> dict[str, Any]:
        return {"level": self.level, "title": self.title}


class PsionicsSummary(NamedTuple):
    strength: int
    max_strength: int
    talents: tuple[tuple[str, int], ...]
    points: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "trained": True,
            "strength": self.strength,
            "max_strength": self.max_strength,
            "talents": dict(self.talents),
            "points": self.points,
        }


class MusteringRoll(NamedTuple):
    die: int
    modifier: int
    row: int
    credits: int

    def as_dict(self) -> dict[str, int]:
        return {
            "die": self.die,
            "modifier": self.modifier,
            "row": self.row,
            "credits": self.credits,
        }


class MusteringOut(NamedTuple):
    rolls_allowed: int
    modifier: int
    credits: int
    rolls: tuple[MusteringRoll, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "rolls_allowed": self.rolls_allowed,
            "credits": self.credits,
            "modifier": self.modifier,
            "rolls": [r.as_dict() for r in self.rolls],
        }


class EquipmentLine(NamedTuple):
    item: str
    tl: int | None
    table: str | None  # None when the item is not in the catalog
    quantity: int
    cost: int
    weight_kg: float
    # A weapon's DM to its attacks for a STR DV below its STRmin (0 for anything else).
    attack_dm: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "item": self.item,
            "tl": self.tl,
            "table": self.table,
            "quantity": self.quantity,
            "cost": self.cost,
            "weight_kg": self.weight_kg,
            "attack_dm": self.attack_dm,
        }


class Carrying(NamedTuple):
    """What a STR carries at a gravity: the rulebook's figures at 1 g, scaled by 1 / gravity
    (at most 400% of them)."""

    strength: int  # the STR level that carries (battle dress's where it is worn)
    gravity: float  # in g
    scale: float  # the share of the 1-g figures: 1 / gravity, at most the rulebook's limit
    unencumbered_kg: float  # carried without penalty
    step_kg: float  # each whole step of this beyond the unencumbered load costs 1
    capacity_kg: float  # the most that can be carried at all
    lift_kg: float  # lifted to waist height without moving
    drag_kg: float  # dragged or pulled

    def as_dict(self) -> dict[str, Any]:
        return {
            "strength": self.strength,
            "gravity": self.gravity,
            "scale": self.scale,
            "unencumbered_kg": self.unencumbered_kg,
            "step_kg": self.step_kg,
            "capacity_kg": self.capacity_kg,
            "lift_kg": self.lift_kg,
            "drag_kg": self.drag_kg,
        }


class Equipment(NamedTuple):
    cost: int
    credits_remaining: int
    load_kg: float
    unencumbered_kg: float
    capacity_kg: float
    # Whether the load is more than the character can carry at all: an error at creation, in
    # play a burden the sheets flag.
    over_capacity: bool
    encumbrance_penalty: int
    # DEF, INI and MOV after the encumbrance penalty and the worn armor's STRmin penalty.
    encumbered_derived: Derived
    lines: tuple[EquipmentLine, ...]
    carrying_str: int  # the STR level that carries the load: battle dress gives 15
    lift_kg: float
    drag_kg: float
    # The body armor worn: the one marked worn, else the best AV among the body armor carried.
    armor_worn: str | None
    armor_av: int  # that armor's AV; 0 without armor
    armor_under: str | None  # reflec worn under it (each attack meets the better AV)
    armor_under_av: int  # its AV; 0 without
    helmet_worn: str | None  # a helmet, which FFA personal combat does not count
    armor_str_short: int  # how far the wearer's STR DV is below the worn armor's STRmin
    armor_body_penalty: int  # levels off STR, DEX and END while that armor is worn

    def as_dict(self) -> dict[str, Any]:
        return {
            "cost": self.cost,
            "credits_remaining": self.credits_remaining,
            "load_kg": self.load_kg,
            "unencumbered_kg": self.unencumbered_kg,
            "capacity_kg": self.capacity_kg,
            "over_capacity": self.over_capacity,
            "encumbrance_penalty": self.encumbrance_penalty,
            "encumbered_derived": self.encumbered_derived.as_dict(),
            "items": [line.as_dict() for line in self.lines],
            "carrying_str": self.carrying_str,
            "lift_kg": self.lift_kg,
            "drag_kg": self.drag_kg,
            "armor_worn": self.armor_worn,
            "armor_av": self.armor_av,
            "armor_under": self.armor_under,
            "armor_under_av": self.armor_under_av,
            "helmet_worn": self.helmet_worn,
            "armor_str_short": self.armor_str_short,
            "armor_body_penalty": self.armor_body_penalty,
        }


class Report(NamedTuple):
    name: str
    kind: str
    species: str
    service: str | None
    terms: int
    valid: bool
    upp: str
    attributes: tuple[AttributeValue, ...]
    derived: Derived
    points: Points
    skills: Skills
    traits: tuple[TraitLine, ...]
    rank: Rank
    noble_title: str | None
    age: int | None
    age_minimum: int | None
    psionics: PsionicsSummary | None
    mustering_out: MusteringOut
    equipment: Equipment
    problems: tuple[Problem, ...]

    @property
    def errors(self) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if p.severity == ERROR)

    @property
    def warnings(self) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if p.severity == WARNING)

    def attribute(self, code: str) -> AttributeValue:
        for value in self.attributes:
            if value.code == code:
                return value
        raise KeyError(code)

    def as_dict(self) -> dict[str, Any]:
        """The JSON report of the character format document."""
        return {
            "name": self.name,
            "valid": self.valid,
            "upp": self.upp,
            "attributes": {a.code: a.as_dict() for a in self.attributes},
            "derived": self.derived.as_dict(),
            "points": self.points.as_dict(),
            "skills": self.skills.as_dict(),
            "traits": [t.as_dict() for t in self.traits],
            "age_minimum": self.age_minimum,
            "mustering_out": self.mustering_out.as_dict(),
            "equipment": self.equipment.as_dict(),
            "problems": [p.as_dict() for p in self.problems],
            "kind": self.kind,
            "species": self.species,
            "service": self.service,
            "terms": self.terms,
            "rank": self.rank.as_dict(),
            "noble_title": self.noble_title,
            "age": self.age,
            "psionics": self.psionics.as_dict() if self.psionics else None,
        }
