"""An FFA character as T4 and 2D6 read it (docs/combat-t4.md and docs/combat-2d6.md, "The FFA
character"): the six classic characteristics at their final FFA levels, the skills with their
specialties, the derived-attribute traits that carry over, and the armor worn piece by piece.

Everything comes from the FFA engine's report of the document, so a sheet under T4 or 2D6 is
the same sheet the builder shows. FFA's DEF, LIF, WND, TGH and MOV, its encumbrance and its
STRmin penalties are not carried (reading X-3)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from ..catalog import Catalog, EquipmentItem, catalog, match_key
from ..engine import check
from ..fighters import Weapon
from ..model import Character
from ..report import Report
from .figures import ArmorFigures, WeaponFigures, armor_figures
from .tables import twod6_tables

PHYSICAL: tuple[str, ...] = ("STR", "DEX", "END")
# The classic six, in UPP order (reading X-1).
CHARACTERISTICS: tuple[str, ...] = ("STR", "DEX", "END", "INT", "EDU", "SOC")
PSI = "PSI"


@dataclass(frozen=True, slots=True)
class SkillUse:
    """The skill an attack throws: its FFA name, the level (None: the fighter has none) and the
    specialty naming the weapon when the fighter has that specialty (+1 DM)."""

    name: str
    level: int | None
    specialty: str | None = None


@dataclass(frozen=True, slots=True)
class FighterSheet:
    """A character under T4 or 2D6.

    ``levels``: the final FFA levels of STR, DEX, END, INT, EDU and SOC (and PSI with a psionic
    strength), the unhurt values every damage record counts from; ``attribute_levels``: all
    nine FFA attributes, for the 2D6 checks of skills governed by PRE or AWA (reading 2D-3).
    ``body_penalty``: the levels armor too heavy for its wearer takes off STR, DEX and END for
    attacking and initiative (creation ruling 25b). ``armor_str``: battle dress's STR, which
    attacks with (T4 to-hit, 2D6 melee DM, Recoil and Heft). ``skills``: level by the skill as
    the weapon tables write it ("Blade Combat (swords)"); ``specialties``: by skill name.
    ``ini_dm`` and ``def_dm``: the derived-attribute traits INI and DEF. ``armor``: each piece
    worn (reading X-5); ``armored_hands``: the body armor armors the hands (combat armor,
    battle dress), so a punch or kick is B/L (FFA reading 16).
    """

    name: str
    levels: Mapping[str, int]
    attribute_levels: Mapping[str, int]
    body_penalty: int
    armor_str: int | None
    skills: Mapping[str, int]
    specialties: Mapping[str, frozenset[str]]
    jack_of_all_trades: bool
    ini_dm: int
    def_dm: int
    service: str | None
    armor: tuple[ArmorFigures, ...]
    armored_hands: bool
    upp: str

    def skill_level(self, skill: str) -> int | None:
        return self.skills.get(skill)

    def weapon_skill(self, weapon: Weapon, figures: WeaponFigures) -> SkillUse:
        """The weapon's own FFA skill (its cascade included) and, when the fighter has the
        specialty that names the weapon, that specialty."""
        base = weapon.skill.split(" (")[0]
        specialty = figures.specialty
        has = specialty is not None and specialty in self.specialties.get(base, frozenset())
        return SkillUse(weapon.skill, self.skills.get(weapon.skill), specialty if has else None)

    def attacking(self, code: str, current: int) -> int:
        """A characteristic as it attacks and throws initiative: the current value lowered by
        armor too heavy (STR, DEX, END), STR raised to battle dress's (§1.1)."""
        if code not in PHYSICAL:
            return current
        value = max(current - self.body_penalty, 0)
        if code == "STR" and self.armor_str is not None:
            value = max(value, self.armor_str)
        return value

    @property
    def body_armor(self) -> ArmorFigures | None:
        return body_armor(self.armor)

    def wears(self, armor_name: str) -> bool:
        return any(piece.name == armor_name for piece in self.armor)


def body_armor(pieces: Iterable[ArmorFigures]) -> ArmorFigures | None:
    """The armor worn on the body: the piece that covers the torso and is not worn under
    another."""
    return next((p for p in pieces if "torso" in p.covers and not p.worn_under), None)


def _carried(character: Character, cat: Catalog) -> list[EquipmentItem]:
    items = (cat.equipment_item(entry.item, entry.tl) for entry in character.equipment)
    return [item for item in items if item is not None and item.table == "armor"]


def armor_worn(items: Iterable[EquipmentItem]) -> tuple[ArmorFigures, ...]:
    """The armor a character wears of the armor it carries (reading X-5): the body armor with
    the best FFA AV (the first listed of equals), reflec beneath it, and a helmet."""
    pieces = [f for f in (armor_figures(item.label) for item in items) if f is not None]
    body = [p for p in pieces if "torso" in p.covers and not p.worn_under]
    best = max(body, key=lambda p: p.ffa_av, default=None)  # the first of equals
    others = [p for p in pieces if p.worn_under or "torso" not in p.covers]
    worn = ([best] if best is not None else []) + others
    return tuple({piece.label: piece for piece in worn}.values())


def _specialties(report: Report, cat: Catalog) -> Mapping[str, frozenset[str]]:
    found: dict[str, set[str]] = {}
    for line in report.skills.lines:
        skill = cat.find_skill(line.skill)
        for text in line.specialties:
            spelled = skill.find_specialty(text) if skill is not None else None
            found.setdefault(line.skill, set()).add(spelled or text)
    return MappingProxyType({name: frozenset(values) for name, values in found.items()})


def _derived_trait(character: Character, code: str) -> int:
    return sum(amount for t in character.traits for c, amount in t.derived if c == code)


def fighter_sheet(
    character: Character, *, cat: Catalog | None = None, report: Report | None = None
) -> FighterSheet:
    """The T4 and 2D6 view of a character (``report``: the engine's report of it, when the
    caller has it already)."""
    cat = cat or catalog()
    report = report or check(character, cat=cat)
    levels = {code: report.attribute(code).level for code in CHARACTERISTICS}
    if report.psionics is not None:
        levels[PSI] = report.psionics.strength
    armor = armor_worn(_carried(character, cat))
    body = body_armor(armor)
    body_item = cat.equipment_item(body.name, body.tl) if body is not None else None
    jack = match_key(twod6_tables()["conversion"]["jack_of_all_trades_trait"])
    return FighterSheet(
        name=character.name,
        levels=MappingProxyType(levels),
        attribute_levels=MappingProxyType({a.code: a.level for a in report.attributes}),
        body_penalty=report.equipment.armor_body_penalty,
        armor_str=body_item.provides_str if body_item is not None else None,
        skills=MappingProxyType(
            {
                f"{line.skill} ({line.cascade})" if line.cascade else line.skill: line.level
                for line in report.skills.lines
            }
        ),
        specialties=_specialties(report, cat),
        jack_of_all_trades=any(match_key(line.name) == jack for line in report.traits),
        ini_dm=_derived_trait(character, "INI"),
        def_dm=_derived_trait(character, "DEF"),
        service=character.service,
        armor=armor,
        armored_hands=body_item is not None and bool(body_item.row.get("armors_hands")),
        upp="".join(cat.to_hex(levels[code]) for code in CHARACTERISTICS),
    )
