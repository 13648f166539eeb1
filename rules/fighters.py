"""Who fights and with what: the combat view of a character (or an animal, :mod:`rules.animals`),
its weapons and its armor, and the vocabularies of a fight read from ``data/combat.json``.

A :class:`Fighter` holds every figure an attack needs, so :mod:`rules.attack` never looks at a
character document: DEF, INI, TGH, WND and LIF, the DEX DM and the STR DV that wields weapons,
the skills that throw the dice, the weapons and the armor worn.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ParamSpec, TypeVar

from .catalog import Catalog, EquipmentItem, catalog, match_key
from .engine import check, worn_armor
from .model import Character, EquipmentEntry
from .report import Report, SkillLine


class CombatRefused(ValueError):
    """An attack the rules do not allow, or input that cannot be read: ``field`` names what
    is wrong (``weapon``, ``range``, ``situation.cover``, ``dice``, ``attacker``...)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message


_P = ParamSpec("_P")
_T = TypeVar("_T")


class InputRefused(CombatRefused):
    """Input with one or more faults, all named at once: ``problems`` holds each as a
    :class:`CombatRefused` of its own, in the input's order."""

    def __init__(self, problems: Iterable[CombatRefused]) -> None:
        self.problems = tuple(problems)
        super().__init__("", "; ".join(str(problem) for problem in self.problems))


class Refusals:
    """The faults found while reading one input, to be refused together rather than one a run."""

    def __init__(self) -> None:
        self.found: list[CombatRefused] = []

    def add(self, field: str, message: str) -> None:
        self.found.append(CombatRefused(field, message))

    def attempt(
        self, reader: Callable[_P, _T], /, *args: _P.args, **kwargs: _P.kwargs
    ) -> _T | None:
        """What ``reader`` reads, or None with its refusal kept."""
        try:
            return reader(*args, **kwargs)
        except InputRefused as refused:
            self.found.extend(refused.problems)
        except CombatRefused as refused:
            self.found.append(refused)
        return None

    def raise_any(self) -> None:
        if self.found:
            raise InputRefused(self.found)


def field_name(key: object) -> str:
    """A key of the input as a field name a person can read (unprintable ones escaped)."""
    text = str(key)
    return text if text.isprintable() else ascii(text)


def combat_tables(cat: Catalog | None = None) -> Mapping[str, Any]:
    """The personal-combat tables of ``data/combat.json``."""
    return (cat or catalog()).combat


def _names(rows: Any) -> tuple[str, ...]:
    return tuple(row["name"] for row in rows)


def _dms(rows: Any) -> Mapping[str, int]:
    return MappingProxyType({row["name"]: row["dm"] for row in rows})


_TABLES = combat_tables()
RANGE_BANDS: tuple[str, ...] = _names(_TABLES["range_bands"]["bands"])
RANGE_DMS: Mapping[str, int] = _dms(_TABLES["range_bands"]["bands"])
COVER: tuple[str, ...] = _names(_TABLES["cover"])
LIGHTING: tuple[str, ...] = _names(_TABLES["lighting"])
VISIBILITY: tuple[str, ...] = _names(_TABLES["visibility"])
TARGET_SIZES: tuple[str, ...] = _names(_TABLES["target_size"])
FACINGS: tuple[str, ...] = _names(_TABLES["facing"])
MOVEMENTS: tuple[str, ...] = _names(_TABLES["movements"])
# Each situation key with a table, and that table's DM by name.
SITUATION_DMS: Mapping[str, Mapping[str, int]] = MappingProxyType(
    {
        "cover": _dms(_TABLES["cover"]),
        "lighting": _dms(_TABLES["lighting"]),
        "visibility": _dms(_TABLES["visibility"]),
        "target_size": _dms(_TABLES["target_size"]),
        "facing": _dms(_TABLES["facing"]),
    }
)


def band_index(band: str) -> int:
    """The position of a range band, nearest first; CombatRefused names the bands."""
    if band not in RANGE_BANDS:
        raise CombatRefused("range", f"unknown range {band!r}; use one of {', '.join(RANGE_BANDS)}")
    return RANGE_BANDS.index(band)


@dataclass(frozen=True, slots=True)
class Armor:
    """The armor a fighter wears: its AV and what its notes do to that AV.

    ``half_against``: ``"blunt"`` (half AV against blunt damage), ``"all"`` (half AV against
    any weapon but those whose notes are in ``full_against_notes``: ablat and reflec against
    lasers) or None. ``armors_hands``: punches and kicks in it are B/L (combat armor, battle
    dress). ``provides_str``: the STR level it gives its wearer (battle dress).
    """

    name: str
    av: int
    half_against: str | None = None
    full_against_notes: frozenset[str] = frozenset()
    armors_hands: bool = False
    provides_str: int | None = None
    # The name of its row, without the tech level, that a weapon made for it names.
    catalog_name: str = ""


def armor_from_item(item: EquipmentItem) -> Armor:
    row = item.row
    return Armor(
        name=item.label,
        av=item.av or 0,
        half_against=row.get("half_av_against"),
        full_against_notes=frozenset(row.get("full_av_against_notes", ())),
        armors_hands=bool(row.get("armors_hands")),
        provides_str=item.provides_str,
        catalog_name=item.name,
    )


def armor_against(
    armor: Armor, *, blunt: bool, notes: frozenset[str]
) -> tuple[int, tuple[str, ...]]:
    """The AV ``armor`` has against an attack (FFA reading 13), and why it differs from the
    table's, in words: halved against blunt (B/x) damage where the armor says so, or against
    all but the notes it meets at full AV (ablat and reflec against lasers); divided by each of
    the weapon's ``notes`` divisors (AP and LZ ½, XR ¼) but those; rounded down once. T4 and 2D6
    armor start from this AV too (docs/combat-t4.md, "Armor")."""
    divisors = combat_tables()["weapon_notes"]
    divisor = 1
    why: list[str] = []
    met_in_full = notes & armor.full_against_notes
    if armor.half_against == "blunt" and blunt:
        divisor *= 2
        why.append(f"{armor.name}: half AV against blunt damage")
    if armor.half_against == "all" and not met_in_full:
        divisor *= 2
        why.append(
            f"{armor.name}: half AV against all but {'/'.join(sorted(armor.full_against_notes))}"
        )
    for code in sorted(notes - armor.full_against_notes):
        by = divisors.get(code, {}).get("armor_divisor")
        if by:
            divisor *= by
            why.append(f"{code}: AV divided by {by}")
    if met_in_full:
        why.append(f"{armor.name}: full AV against {'/'.join(sorted(met_in_full))}")
    return armor.av // divisor, tuple(why)


@dataclass(frozen=True, slots=True)
class Weapon:
    """One weapon as an attack uses it, from a row of the melee or ranged weapons table.

    ``dmg``: the damage multiplier; for melee and natural weapons the figure added to the
    wielder's STR DV. ``notes``: the codes of the weapon's notes (AP, LZ, SH, AF...; those
    written as alternatives, "SA/AF" or "TR/GS/EX/HEAP", each on its own).
    ``size``: a melee weapon's size (S, M, L, S/M; "var" for natural weapons whose reach is the
    body's). ``armored_type``: the damage type of a punch or kick in armor that armors hands.
    """

    name: str
    tl: int | None
    skill: str
    dmg: int
    damage_type: str
    acc: int
    rmod: int
    str_min: int | None
    rof: str | None
    ammo: int | None
    notes: frozenset[str]
    melee: bool
    natural: bool
    size: str | None = None
    max_range_m: float | None = None
    armored_type: str | None = None
    requires_armor: str | None = None  # fired only from this armor (battle dress)
    # The specialty of its skill that names it ("assault rifle"), which adds to its attacks.
    specialty: str | None = None
    # A thrown weapon's MAX is its thrower's STR times this (a thrown spear: STR x 5 m).
    max_range_str_multiple: int | None = None

    @property
    def label(self) -> str:
        return f"{self.name} (TL {self.tl})" if self.tl is not None else self.name

    @property
    def ranged(self) -> bool:
        return not self.melee

    def damage_per_effect(self, str_dv: int) -> int:
        """What a hit does for each point of its effect number (reading 4): a ranged weapon's
        DMG; a melee or natural weapon's bonus on top of the wielder's STR DV."""
        return self.dmg + str_dv if self.melee else self.dmg

    @property
    def most_rounds(self) -> int:
        """The most rounds one attack fires: the largest figure of the RoF ("1:4:10" is 10);
        1 for a weapon that fires once in several turns ("1/2")."""
        if not self.rof:
            return 1
        figures = [int(part) for part in re.split(r"[:/]", self.rof) if part.isdigit()]
        return max(figures) if ":" in self.rof else 1


_NOTE_CODE = re.compile(r"[A-Z]{2,4}")


def _note_codes(notes: str) -> frozenset[str]:
    """The codes of a ranged weapon's notes: "SA/AF; AP" gives SA, AF and AP."""
    return frozenset(
        code
        for code in (part.strip() for part in re.split(r"[;:/]", notes))
        if _NOTE_CODE.fullmatch(code)
    )


def weapon_from_item(item: EquipmentItem) -> Weapon:
    """The weapon of a melee or ranged table row (natural weapons included)."""
    row = item.row
    melee = item.table == "melee"
    return Weapon(
        name=item.name,
        tl=item.tl,
        skill=row["skill"],
        dmg=row["dmg_bonus"] if melee else row["dmg"],
        damage_type=row["damage_type"],
        acc=row.get("acc") or 0,
        rmod=row.get("rmod") or 0,
        str_min=item.str_min,
        rof=row.get("rof"),
        ammo=row.get("ammo"),
        notes=frozenset() if melee else _note_codes(row.get("notes") or ""),
        melee=melee,
        natural=bool(row.get("natural")),
        size=row.get("size"),
        max_range_m=row.get("max_range_m"),
        armored_type=row.get("armored_type"),
        requires_armor=item.requires_armor,
        specialty=row.get("specialty"),
        max_range_str_multiple=row.get("max_range_str_multiple"),
    )


def _catalog_weapons(cat: Catalog) -> tuple[EquipmentItem, ...]:
    return (*cat.natural_weapons, *(item for item in cat.equipment if item.is_weapon))


def weapon_named(name: str, tl: int | None = None, *, cat: Catalog | None = None) -> Weapon:
    """The catalog weapon ``name`` (natural weapons too: "Hands", "Feet", "Teeth"), at tech
    level ``tl`` where several TLs carry the name; CombatRefused otherwise. A name is the
    table's, in any case and spacing (or an alias): "Spear" is the melee spear and "Spear
    (thrown)" the ranged one. Only a name no weapon has is matched without its explanation in
    brackets."""
    cat = cat or catalog()
    weapons = _catalog_weapons(cat)
    key = _plain(name)
    found = [item for item in weapons if key in _names_of(item, _plain)]
    if not found:
        key = match_key(name)
        found = [item for item in weapons if key in _names_of(item, match_key)]
    if not found:
        raise CombatRefused("weapon", f"no weapon is called {name!r} in the weapons tables")
    if tl is not None:
        found = [item for item in found if item.tl == tl]
        if not found:
            raise CombatRefused("tl", f"{name} is not made at TL {tl}")
    if len(found) > 1:
        named = {item.name for item in found}
        if len(named) > 1:
            raise CombatRefused(
                "weapon", f"{name!r} names {' and '.join(sorted(named))}: give the full name"
            )
        tls = ", ".join(str(item.tl) for item in found)
        raise CombatRefused("tl", f"{found[0].name} is made at TL {tls}: give the TL")
    return weapon_from_item(found[0])


def _plain(text: str) -> str:
    """A name in any case and spacing."""
    return " ".join(text.lower().split())


def _names_of(item: EquipmentItem, key: Callable[[str], str]) -> set[str]:
    return {key(name) for name in (item.name, *item.row.get("aliases", ()))}


@dataclass(frozen=True, slots=True)
class Fighter:
    """A character or an animal as a fight sees it.

    ``DEF``, ``INI`` and ``MOV`` are the unhurt figures after the load and the armor worn;
    an attack recomputes them under the fighter's wounds (through ``report``; an animal's
    are not recomputed). ``str_dv`` is the STR DV that wields weapons and adds to melee
    damage (battle dress's where it is worn). ``skills`` maps a weapon's skill as the tables
    write it ("Blade Combat (swords)", "Brawling") to the level; a skill not there is thrown
    unskilled. ``size_dm``: the DM to hit this fighter for its size (an animal's weight);
    ``reach``: the range band where an animal's natural weapons are at optimal distance;
    ``reaches``: a character's natural weapons' (by name) where its species gives them;
    ``damage``: an animal's listed damage per EN, which replaces DMG + STR DV.
    ``armor``: the body armor worn; ``armor_under``: reflec worn under it (each attack meets
    the better of the two). ``specialties``: the specialties of each skill, by the skill's key
    in ``skills``. ``str_level``: the STR level that throws (None for an animal).
    ``combat_experience``, ``tactical_skill``, ``leadership``: the trait, the skill and the
    Leadership level (None: none) a side's morale counts (reading 28); ``chameleon``: a
    chameleon surface on the armor worn (an encounter range DM, reading 27).
    """

    name: str
    kind: str  # "character" or "animal"
    DEF: int
    INI: int
    MOV: int
    TGH: int
    WND: int
    LIF: int
    dex_dm: int
    str_dv: int
    awa_dm: int
    exp_dm: int | None
    skills: Mapping[str, int]
    weapons: tuple[Weapon, ...]
    armor: Armor | None
    size_dm: int = 0
    reach: str | None = None
    damage: int | None = None
    combat_experience: bool = False
    tactical_skill: bool = False
    leadership: int | None = None
    report: Report | None = None
    armor_under: Armor | None = None
    specialties: Mapping[str, frozenset[str]] = field(default_factory=dict)
    str_level: int | None = None
    chameleon: bool = False
    # A natural weapon's optimal distance as the species gives it, by the weapon's name.
    reaches: Mapping[str, str] = field(default_factory=dict)

    def skill_level(self, weapon: Weapon) -> int | None:
        """The level the fighter throws for ``weapon`` (None: no level, thrown unskilled)."""
        return self.skills.get(weapon.skill)

    def has_specialty(self, weapon: Weapon) -> bool:
        """Whether the fighter has the specialty that names ``weapon`` (reading 35)."""
        return names_specialty(weapon, self.specialties)

    @property
    def leadership_skill(self) -> bool:
        return self.leadership is not None


def _skill_key(skill: str, cascade: str | None) -> str:
    return f"{skill} ({cascade})" if cascade else skill


def skill_specialties(lines: Iterable[SkillLine]) -> Mapping[str, frozenset[str]]:
    """The specialties of each skill of a report, by the skill as a weapon names it."""
    return MappingProxyType(
        {
            _skill_key(line.skill, line.cascade): frozenset(line.specialties)
            for line in lines
            if line.specialties
        }
    )


def names_specialty(weapon: Weapon, specialties: Mapping[str, frozenset[str]]) -> bool:
    """Whether one of ``specialties`` (``skill_specialties``) names ``weapon``: its attacks
    then take the specialty's DM on their own (reading 35)."""
    return weapon.specialty is not None and match_key(weapon.specialty) in {
        match_key(name) for name in specialties.get(weapon.skill, ())
    }


def _carried(character: Character, cat: Catalog) -> list[tuple[EquipmentEntry, EquipmentItem]]:
    """Each entry of the character's equipment the catalog has, with its item."""
    pairs = ((entry, cat.equipment_item(entry.item, entry.tl)) for entry in character.equipment)
    return [(entry, item) for entry, item in pairs if item is not None]


def _natural_for(report: Report, cat: Catalog) -> list[Weapon]:
    """A natural weapon (claws, teeth) for a character with a trait of that name (the Vargr
    package's claws and teeth), then hands and feet, which everyone has: the weapons a
    character was given come before those of everyone."""
    traits = {match_key(line.name) for line in report.traits}
    tables = combat_tables(cat)
    everyone = {match_key(name) for name in tables["natural_weapons_of_everyone"]}
    given = [item for item in cat.natural_weapons if match_key(item.name) in traits - everyone]
    common = [item for item in cat.natural_weapons if match_key(item.name) in everyone]
    return [weapon_from_item(item) for item in (*given, *common)]


def _species_reaches(character: Character, cat: Catalog) -> dict[str, str]:
    """The optimal distance of each natural weapon the character's species gives it, by the
    weapon's name (the Vargr's claws reach close, its teeth contact: reading 11)."""
    package = cat.species.get(character.species)
    return {
        trait.natural_weapon: trait.reach
        for trait in (package.traits if package is not None else ())
        if trait.natural_weapon is not None and trait.reach is not None
    }


def has_combat_experience(trait_names: Iterable[str], cat: Catalog | None = None) -> bool:
    """Whether a trait says the character has combat experience: its name holds the words
    ("Combat experience", "Veteran, combat-experienced"), in any case (reading 28)."""
    words = combat_tables(cat)["combat_experience_trait"].split()
    pattern = re.compile(r"\b" + r"[\s-]+".join(map(re.escape, words)), re.IGNORECASE)
    return any(pattern.search(name) for name in trait_names)


def fighter_from_document(
    character: Character, *, cat: Catalog | None = None, report: Report | None = None
) -> Fighter:
    """The combat view of a character, from the engine's report of it (``report``: that
    report, when the caller has it already)."""
    cat = cat or catalog()
    report = report or check(character, cat=cat)
    carried = _carried(character, cat)
    worn = worn_armor([entry for entry, _ in carried], [item for _, item in carried])
    armor = armor_from_item(worn.body) if worn.body is not None else None
    weapons: list[Weapon] = []
    for _, item in carried:
        if item.is_weapon and all(w.label != item.label for w in weapons):
            weapons.append(weapon_from_item(item))
    weapons.extend(_natural_for(report, cat))
    attributes = {value.code: value for value in report.attributes}
    equipment = report.equipment
    encumbered = equipment.encumbered_derived
    # The armor too heavy for its wearer lowers the body attributes (2 levels a point); battle
    # dress wields weapons with its own STR.
    dex_level = attributes["DEX"].level - equipment.armor_body_penalty
    strength = attributes["STR"].level - equipment.armor_body_penalty
    if armor is not None and armor.provides_str is not None:
        strength = max(strength, armor.provides_str)
    tables = combat_tables(cat)
    tactical = {match_key(name) for name in tables["morale"]["tactical_skills"]}
    leading = {match_key(name) for name in tables["morale"]["leader_skills"]}
    lines = report.skills.lines
    leadership = [line.level for line in lines if match_key(line.skill) in leading]
    fits = {match_key(name) for name in tables["encounter_range"]["chameleon"]["fits"]}
    return Fighter(
        name=character.name,
        kind="character",
        DEF=encumbered.DEF,
        INI=encumbered.INI,
        MOV=encumbered.MOV,
        TGH=report.derived.TGH,
        WND=report.derived.WND,
        LIF=report.derived.LIF,
        dex_dm=cat.dm_dv(max(dex_level, 0))[0],
        str_dv=cat.dm_dv(max(strength, 0))[1],
        awa_dm=attributes["AWA"].dm,
        exp_dm=attributes["EXP"].dm,
        skills=MappingProxyType(
            {_skill_key(line.skill, line.cascade): line.level for line in lines}
        ),
        weapons=tuple(weapons),
        armor=armor,
        armor_under=armor_from_item(worn.under) if worn.under is not None else None,
        combat_experience=has_combat_experience((line.name for line in report.traits), cat),
        tactical_skill=any(match_key(line.skill) in tactical for line in lines),
        leadership=max(leadership) if leadership else None,
        report=report,
        specialties=skill_specialties(lines),
        str_level=max(strength, 0),
        reaches=MappingProxyType(_species_reaches(character, cat)),
        chameleon=armor is not None
        and match_key(armor.catalog_name) in fits
        and any(
            match_key(item.name) == match_key(tables["encounter_range"]["chameleon"]["item"])
            for _, item in carried
        ),
    )
