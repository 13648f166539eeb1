"""Reference data of the rulebook, read once from ``rules/data/*.json``.

Every number taken from a rulebook table lives in those files; the engine and the
web app both read them through :func:`catalog`, so nothing is typed twice.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

DATA_DIR = Path(__file__).with_name("data")
# Written for an attribute level no hex digit writes ("-1" would read as a group's dash).
NO_DIGIT = "?"

_PARENTHESISED = re.compile(r"\s*\([^)]*\)")


def match_key(text: str) -> str:
    """Key used to match user-typed names: case, spacing and explanations ignored."""
    return " ".join(_PARENTHESISED.sub("", text).lower().split())


def _words_of(texts: Iterable[tuple[str, str]], *, shortest: int = 1) -> dict[str, list[str]]:
    """Each word (in lower case, of ``shortest`` letters or more) of the texts, each given with
    a name: the names whose text has it."""
    words: dict[str, list[str]] = {}
    for text, name in texts:
        for word in dict.fromkeys(re.findall(r"[a-z]+", text.lower())):
            if len(word) >= shortest:
                words.setdefault(word, []).append(name)
    return words


def _plain_key(text: str) -> str:
    return " ".join(text.lower().split())


@dataclass(frozen=True, slots=True)
class SpecialtyDef:
    name: str
    label: str


@dataclass(frozen=True, slots=True)
class SkillDef:
    name: str
    kind: str  # "plain", "cascade" or "spec"
    group: str
    summary: str  # what the skill is for, in one line (the builder shows it)
    # The attribute the dice roller suggests for the skill: a ruling (in-play ruling 5a), the
    # rulebook leaving it to what the character does; the player may choose another.
    governing: str
    open: bool
    cascades: tuple[str, ...]
    cascade_labels: tuple[str, ...]
    specialties: tuple[SpecialtyDef, ...]
    suggested: tuple[str, ...]
    automatic: str | None
    cascade_names: frozenset[str]
    specialty_names: frozenset[str]
    _cascade_index: Mapping[str, str]
    _specialty_index: Mapping[str, str]

    @property
    def is_cascade(self) -> bool:
        return self.kind == "cascade"

    @property
    def is_spec(self) -> bool:
        return self.kind == "spec"

    def find_cascade(self, text: str) -> str | None:
        """The catalog spelling of a cascade of a fixed list, or None."""
        if text in self.cascade_names:
            return text
        return _lookup_with_plural(self._cascade_index, text)

    def find_specialty(self, text: str) -> str | None:
        """The catalog spelling of a specialty of the skill's list, or None."""
        if text in self.specialty_names:
            return text
        return _lookup_with_plural(self._specialty_index, text)


def _lookup_with_plural(index: Mapping[str, str], text: str) -> str | None:
    """The name ``text`` stands for in ``index``: as written, then without its explanations in
    brackets, in the singular or the plural."""
    found = _lookup_key(index, _plain_key(text))
    return found if found is not None else _lookup_key(index, match_key(text))


def _lookup_key(index: Mapping[str, str], key: str) -> str | None:
    found = index.get(key) or index.get(key + "s")
    if found is None and key.endswith("s"):
        found = index.get(key[:-1])
    return found


def _index(entries: list[dict[str, Any]]) -> Mapping[str, str]:
    index: dict[str, str] = {}
    for entry in entries:
        name = entry["name"]
        for text in (name, entry.get("label", name), *entry.get("aliases", ())):
            index.setdefault(_plain_key(text), name)
            index.setdefault(match_key(text), name)
    return MappingProxyType(index)


def _skill(raw: dict[str, Any]) -> SkillDef:
    cascades = raw.get("cascades", [])
    specialties = raw.get("specialties", [])
    return SkillDef(
        name=raw["name"],
        kind=raw["kind"],
        group=raw.get("group", ""),
        summary=raw["summary"],
        governing=raw["governing"],
        open=bool(raw.get("open", False)),
        cascades=tuple(c["name"] for c in cascades),
        cascade_labels=tuple(c.get("label", c["name"]) for c in cascades),
        specialties=tuple(SpecialtyDef(s["name"], s.get("label", s["name"])) for s in specialties),
        suggested=tuple(raw.get("suggested", ())),
        automatic=raw.get("automatic"),
        cascade_names=frozenset(c["name"] for c in cascades),
        specialty_names=frozenset(s["name"] for s in specialties),
        _cascade_index=_index(cascades),
        _specialty_index=_index(specialties),
    )


@dataclass(frozen=True, slots=True)
class Service:
    key: str
    name: str
    source: str
    retirement_dm: bool
    cash: tuple[int, ...]  # credits for table rows 1..7
    ranks: Mapping[int, str]  # rank number -> title, for the ranks that have one
    highest_rank: int  # the top of the service's rank table; 0 for a service without ranks

    def rank_title(self, rank: int) -> str | None:
        return self.ranks.get(rank)


@dataclass(frozen=True, slots=True)
class SpeciesTrait:
    type: str
    level: str
    frequency: str
    name: str
    control: bool
    # A trait that gives a natural weapon (the Vargr's teeth and claws), and the range band
    # where that weapon is at its optimal distance.
    natural_weapon: str | None = None
    reach: str | None = None


@dataclass(frozen=True, slots=True)
class SpeciesSkill:
    skill: str
    cascade: str | None
    level: int


@dataclass(frozen=True, slots=True)
class Species:
    key: str
    name: str
    native_language: str
    native_culture: str
    attribute_changes: Mapping[str, int]
    traits: tuple[SpeciesTrait, ...]
    skills: tuple[SpeciesSkill, ...]
    attribute_deltas: tuple[int, ...]  # the changes by attribute position


# The tables of things a character wields; a weapon's STRmin lowers its attacks.
WEAPON_TABLES = frozenset({"melee", "ranged"})
# What a ranged weapon's ammunition is called in the catalog: one magazine (a set of rounds for
# a revolver, a power pack for a laser), or one round of a bow, crossbow or sling.
AMMUNITION = "{weapon} ammunition"


@dataclass(frozen=True, slots=True, eq=False)
class EquipmentItem:
    """One row of an equipment table. ``row`` keeps every figure of the table.

    Each item is one object of the catalog, equal only to itself (so it can key a cache).
    """

    table: str  # "armor", "melee", "ranged", "accessories" or "ammunition"
    name: str
    tl: int | None
    cost: int | None
    weight_kg: float
    row: Mapping[str, Any]
    # The least STR DV that wears the armor or wields the weapon unhindered (None: no minimum).
    str_min: int | None = None
    # The STR level armor gives its wearer (battle dress); None for anything else.
    provides_str: int | None = None
    # Armor: its AV (None where the table gives none). Ammunition: the weapon it loads.
    av: int | None = None
    weapon: str | None = None
    # A weapon fired only from armor of this name (battle dress); None for the rest.
    requires_armor: str | None = None

    @property
    def is_weapon(self) -> bool:
        return self.table in WEAPON_TABLES

    @property
    def is_worn_armor(self) -> bool:
        """Armor worn as armor, not an add-on to other armor (chameleon surface)."""
        return self.table == "armor" and not self.row.get("add_on")

    @property
    def is_body_armor(self) -> bool:
        """Armor worn on the body: not a helmet, which FFA personal combat, having no hit
        locations, never counts (combat reading 8)."""
        return self.is_worn_armor and not self.row.get("head")

    @property
    def is_head_armor(self) -> bool:
        return self.is_worn_armor and bool(self.row.get("head"))

    @property
    def worn_under(self) -> bool:
        """Body armor that can be worn under another (reflec): each attack meets the better AV."""
        return bool(self.row.get("worn_under"))

    @property
    def label(self) -> str:
        return f"{self.name} (TL {self.tl})" if self.tl is not None else self.name


@dataclass(frozen=True, slots=True)
class DocumentBounds:
    """The most a character document may hold: text lengths, list sizes and the largest
    numbers, from ``creation.json``'s "document" section (the app's guards, not the rulebook's;
    far above any real character, low enough that no page or PDF does unbounded work).
    Attribute levels are bounded by the hex digits: a level no UPP can write is no level."""

    name_length: int
    label_length: int
    trait_name_length: int
    notes_length: int
    skills: int
    traits: int
    equipment: int
    specialties: int
    package_flaws: int
    talents: int
    derived_changes: int
    mustering_rolls: int
    terms: int
    age: int
    level: int
    # A skill's level: from 0, and at most as many dice as the odds of a throw enumerate.
    skill_level: int
    quantity: int
    tl: int
    credits: int
    attribute: int


@dataclass(frozen=True, slots=True)
class Limits:
    """The character-creation numbers of ``creation.json`` and ``psionics.json`` as attributes."""

    default_budget: int
    max_budget: int
    npc_citizen_budget: int
    npc_mercenary_budget: int
    attribute_average: int
    points_per_attribute_level: int
    purchase_min: int
    purchase_max: int
    npc_soc_max: int
    final_min: int
    points_per_skill_level: int
    points_per_specialty: int
    specialty_min_level: int
    specialty_dm: int  # added to an action test (an attack too) the specialty is involved in
    points_per_extra_zero_level: int
    points_per_rank: int
    rank_max: int
    age_base: int
    years_per_term: int
    max_mustering_rolls: int
    die_min: int
    die_max: int
    gambling_dm: int
    gambling_min_level: int
    retirement_dm: int
    retirement_terms: int
    unencumbered_str_multiple: int
    lift_capacity_multiple: int
    drag_lift_multiple: int
    gravity_size_divisor: int
    gravity_max_capacity_multiple: int
    armor_body_levels_per_point: int
    armor_derived_per_point: int
    weapon_dm_per_point: int
    psi_training: int
    psi_per_strength: int
    psi_per_talent: int
    psi_per_talent_level: int
    psi_max_base: int
    psi_max_cap: int

    @classmethod
    def from_data(cls, creation: dict[str, Any], psionics: dict[str, Any]) -> Limits:
        attributes, skills, muster = (
            creation["attributes"],
            creation["skills"],
            creation["mustering_out"],
        )
        return cls(
            default_budget=creation["budget"]["pc"],
            max_budget=creation["budget"]["max"],
            npc_citizen_budget=creation["budget"]["npc_citizen"],
            npc_mercenary_budget=creation["budget"]["npc_mercenary"],
            attribute_average=attributes["average"],
            points_per_attribute_level=attributes["points_per_level"],
            purchase_min=attributes["purchase_min"],
            purchase_max=attributes["purchase_max"],
            npc_soc_max=attributes["npc_soc_max"],
            final_min=attributes["final_min"],
            points_per_skill_level=skills["points_per_level"],
            points_per_specialty=skills["points_per_specialty"],
            specialty_min_level=skills["specialty_min_level"],
            specialty_dm=skills["specialty_dm"],
            points_per_extra_zero_level=skills["points_per_extra_zero_level"],
            points_per_rank=creation["rank"]["points_per_rank"],
            rank_max=creation["rank"]["max"],
            age_base=creation["age"]["base"],
            years_per_term=creation["age"]["years_per_term"],
            max_mustering_rolls=muster["max_rolls"],
            die_min=muster["die_min"],
            die_max=muster["die_max"],
            gambling_dm=muster["gambling_dm"],
            gambling_min_level=muster["gambling_min_level"],
            retirement_dm=muster["retirement_dm"],
            retirement_terms=muster["retirement_terms"],
            unencumbered_str_multiple=creation["encumbrance"]["unencumbered_str_multiple"],
            lift_capacity_multiple=creation["encumbrance"]["lift_capacity_multiple"],
            drag_lift_multiple=creation["encumbrance"]["drag_lift_multiple"],
            gravity_size_divisor=creation["encumbrance"]["gravity_size_divisor"],
            gravity_max_capacity_multiple=creation["encumbrance"]["gravity_max_capacity_multiple"],
            armor_body_levels_per_point=creation["str_minimum"]["armor_body_levels_per_point"],
            armor_derived_per_point=creation["str_minimum"]["armor_derived_per_point"],
            weapon_dm_per_point=creation["str_minimum"]["weapon_dm_per_point"],
            psi_training=psionics["training_points"],
            psi_per_strength=psionics["points_per_strength"],
            psi_per_talent=psionics["points_per_talent"],
            psi_per_talent_level=psionics["points_per_talent_level"],
            psi_max_base=psionics["max_strength_base"],
            psi_max_cap=psionics["max_strength_cap"],
        )


class Catalog:
    """All reference data, loaded once. Attributes are read-only mappings and tuples."""

    def __init__(self, data_dir: Path = DATA_DIR) -> None:
        def load(name: str) -> Any:
            with (data_dir / name).open(encoding="utf-8") as handle:
                return json.load(handle)

        attributes = load("attributes.json")
        self.attribute_order: tuple[str, ...] = tuple(attributes["order"])
        self.attribute_groups: Mapping[str, tuple[str, ...]] = MappingProxyType(
            {k: tuple(v) for k, v in attributes["groups"].items()}
        )
        self.attribute_names = MappingProxyType(attributes["names"])
        # Positions of the attributes in UPP order: body, mind, background.
        self.upp_positions: tuple[int, ...] = tuple(
            self.attribute_order.index(code)
            for group in ("body", "mind", "background")
            for code in attributes["groups"][group]
        )
        self.attribute_aliases = MappingProxyType(attributes["aliases"])
        self.hex_digits: str = attributes["hex_digits"]
        self._attribute_rows = {row[0]: (row[1], row[2]) for row in attributes["table"]["rows"]}
        self.attribute_table_top: int = max(self._attribute_rows)
        beyond = attributes["table"]["beyond_last_row"]
        self._dm_rises_on_odd = beyond["dm_rises_on"] == "odd"
        self._dv_rises_on_odd = beyond["dv_rises_on"] == "odd"
        self.noble_titles = MappingProxyType({row[0]: row[1] for row in attributes["noble_titles"]})
        self.noble_fiefs = MappingProxyType({row[0]: row[2] for row in attributes["noble_titles"]})
        derived = attributes["derived"]
        self.derived_order: tuple[str, ...] = tuple(derived["order"])
        self.derived_names = MappingProxyType(derived["names"])
        self.derived_floors = MappingProxyType(derived["floors"])
        self.derived_floor_values: tuple[int, ...] = tuple(
            derived["floors"][code] for code in self.derived_order
        )
        # No derived-attribute flaw may take a derived attribute below this (ruling 15a).
        self.derived_flaw_floor: int = derived["lowest_after_flaws"]

        creation = load("creation.json")
        self.creation = _freeze(creation)
        self.bounds = DocumentBounds(**creation["document"], attribute=len(self.hex_digits) - 1)
        self.level_rows: tuple[tuple[int, int, str], ...] = tuple(
            (*self.dm_dv(level), self.to_hex(level)) for level in range(len(self.hex_digits))
        )
        purchase = creation["attributes"]
        self._pc_maxima = tuple(purchase["purchase_max"] for _ in self.attribute_order)
        self._npc_maxima = tuple(
            purchase["npc_soc_max"] if code == "SOC" else purchase["purchase_max"]
            for code in self.attribute_order
        )

        traits = load("traits.json")
        self.perk_types = MappingProxyType(traits["perk_types"])
        self.flaw_types = MappingProxyType(traits["flaw_types"])
        self.frequencies = MappingProxyType(traits["frequencies"])
        self.frequency_aliases = MappingProxyType(traits["frequency_aliases"])
        self.perk_levels = _freeze(traits["perk_levels"])
        self.flaw_levels = _freeze(traits["flaw_levels"])
        self.derived_trait_points = MappingProxyType(traits["derived_points_per_point"])
        # (type, level, frequency) -> (signed points, control score or None): the perk cost and
        # flaw value tables as one look-up, for the engine's pass over a character's traits.
        self.trait_table = MappingProxyType(
            {
                (trait_type, level, frequency): (
                    sign * row["points"][frequency],
                    row.get("control_score"),
                )
                for types, levels, sign in (
                    (traits["perk_types"], traits["perk_levels"], 1),
                    (traits["flaw_types"], traits["flaw_levels"], -1),
                )
                for trait_type in types
                for level, row in levels.items()
                for frequency in traits["frequencies"]
            }
        )
        self.example_traits: tuple[Mapping[str, Any], ...] = tuple(
            MappingProxyType(t) for t in traits["examples"]
        )

        # The in-play tables (dice, injury and healing, improvement costs) are read by
        # rules.dice, rules.injury and rules.improvement into their own structures.
        self.play_tables = MappingProxyType(
            {name: load(f"{name}.json") for name in ("dice", "injury", "improvement")}
        )
        psionics = load("psionics.json")
        self.psionics = _freeze(psionics)
        self.limits = Limits.from_data(creation, psionics)
        self.talents: tuple[str, ...] = tuple(self.psionics["talents"])
        self._talent_index = {t.lower(): t for t in self.talents}

        services = load("services.json")
        self.cash_table_rows: tuple[int, ...] = tuple(services["cash_table_rows"])
        # Rolls past the table's last row read that row (rulings: "read at most 7").
        self.services = MappingProxyType(
            {
                key: Service(
                    key=key,
                    name=raw["name"],
                    source=raw["source"],
                    retirement_dm=raw["retirement_dm"],
                    cash=tuple(raw["cash"]),
                    # The rank table: each rank the service has, with its title or null.
                    ranks=MappingProxyType(
                        {int(r): t for r, t in raw["ranks"].items() if t is not None}
                    ),
                    highest_rank=max(map(int, raw["ranks"]), default=0),
                )
                for key, raw in services["services"].items()
            }
        )

        self.species = MappingProxyType(
            {
                key: Species(
                    key=key,
                    name=raw["name"],
                    native_language=raw["native_language"],
                    native_culture=raw["native_culture"],
                    attribute_changes=MappingProxyType(raw["attribute_changes"]),
                    traits=tuple(
                        SpeciesTrait(
                            t["type"],
                            t["level"],
                            t["frequency"],
                            t["name"],
                            t.get("control", t["type"] == "PF"),
                            t.get("natural_weapon"),
                            t.get("reach"),
                        )
                        for t in raw["traits"]
                    ),
                    skills=tuple(
                        SpeciesSkill(s["skill"], s.get("cascade"), s["level"])
                        for s in raw["skills"]
                    ),
                    attribute_deltas=tuple(
                        raw["attribute_changes"].get(code, 0) for code in self.attribute_order
                    ),
                )
                for key, raw in load("species.json").items()
            }
        )

        skills = load("skills.json")
        self.skills: tuple[SkillDef, ...] = tuple(_skill(s) for s in skills["skills"])
        # Names of classic Traveller's skills that FFA splits or renames ("Gun Combat"): a name
        # typed from an older sheet is offered the skills it became.
        self._classic_names = {
            _plain_key(name): tuple(became) for name, became in skills["classic_names"].items()
        }
        self._skill_index = {_plain_key(s.name): s for s in self.skills}
        self._skill_name_words = _words_of((s.name, s.name) for s in self.skills)
        # A short word of a summary ("of", "and", "the") says nothing of its skill.
        self._skill_summary_words = _words_of(
            ((s.summary, s.name) for s in self.skills), shortest=4
        )
        self._skills_by_name = {s.name: s for s in self.skills}
        self.skills_by_name = MappingProxyType(self._skills_by_name)
        self.automatic_skills: tuple[tuple[str, str], ...] = tuple(
            (s.name, s.automatic) for s in self.skills if s.automatic
        )

        equipment = load("equipment.json")
        items: list[EquipmentItem] = []
        for table in ("armor", "melee", "ranged", "accessories"):
            items.extend(
                _equipment_item(table, raw) for raw in equipment[table] if not raw.get("natural")
            )  # natural weapons (hands, claws) are part of a body, never bought
        items.extend(_ammunition(raw) for raw in equipment["ranged"] if _has_ammunition(raw))
        self.equipment: tuple[EquipmentItem, ...] = tuple(items)
        # Hands, feet, claws and teeth: weapons in a fight (rules.combat), never in the shop.
        self.natural_weapons: tuple[EquipmentItem, ...] = tuple(
            _equipment_item("melee", raw) for raw in equipment["melee"] if raw.get("natural")
        )
        # The personal-combat tables (range bands, situation DMs, morale, animals), read by
        # rules.combat and rules.animals.
        self.combat: Mapping[str, Any] = _freeze(load("combat.json"))
        by_name: dict[str, list[EquipmentItem]] = {}
        for item in items:
            # Other names a row gives (the rulebook's misprint "Alblat", either half of
            # "Staff/cudgel") find the same item; the sheet writes its own name.
            for name in (item.name, *item.row.get("aliases", ())):
                by_name.setdefault(_plain_key(name), []).append(item)
        self._equipment_index = {k: tuple(v) for k, v in by_name.items()}

    # -- attributes ---------------------------------------------------------------------------

    def dm_dv(self, level: int) -> tuple[int, int]:
        """DM and DV of an attribute level, including the G+ rule above the table."""
        row = self._attribute_rows.get(level)
        if row is not None:
            return row
        if level < 0:
            return self._attribute_rows[0]
        top = self.attribute_table_top
        dm, dv = self._attribute_rows[top]
        odd_levels = (level - top + (top % 2 == 0)) // 2 if level > top else 0
        even_levels = (level - top) - odd_levels
        dm += odd_levels if self._dm_rises_on_odd else even_levels
        dv += odd_levels if self._dv_rises_on_odd else even_levels
        return dm, dv

    def level_row(self, level: int) -> tuple[int, int, str]:
        """DM, DV and hex digit of a level (the table, then the G+ rule, precomputed)."""
        if 0 <= level < len(self.level_rows):
            return self.level_rows[level]
        dm, dv = self.dm_dv(level)
        return dm, dv, self.to_hex(level)

    def purchase_maxima(self, kind: str) -> tuple[int, ...]:
        """Highest purchasable level per attribute position for a PC or an NPC."""
        return self._npc_maxima if kind == "npc" else self._pc_maxima

    def to_hex(self, level: int) -> str:
        """The hex digit of a level; :data:`NO_DIGIT` for a level no digit writes (below 0 or
        past the last), already a rule error, so that a UPP keeps one character an attribute
        and its dashes between groups."""
        if 0 <= level < len(self.hex_digits):
            return self.hex_digits[level]
        return NO_DIGIT

    def from_hex(self, text: str) -> int | None:
        """Level of a hex digit (I and O are not digits); None when it is not one."""
        if len(text) == 1:
            index = self.hex_digits.find(text.upper())
            return index if index >= 0 else None
        return None

    # -- look-ups ------------------------------------------------------------------------------

    def find_skill(self, name: str) -> SkillDef | None:
        """The skill ``name`` stands for: as the catalog spells it, or without regard to case
        and spacing."""
        found = self._skills_by_name.get(name)
        if found is not None:
            return found
        found = self._skill_index.get(name.lower())
        return found if found is not None else self._skill_index.get(_plain_key(name))

    def skills_like(self, name: str) -> tuple[str, ...]:
        """The catalog's names for a skill it does not know as written: the skills a classic
        Traveller name became ("Gun Combat": the gun skills); else those the name begins
        ("Medic" for Medical), then the closest spellings ("Streetwize"), best first, at most
        three; failing those, the names with a word close to it ("Animals" for Animal
        Handling), then those whose summary has one ("Pistol" for Handgun, whose summary says
        pistols); none when nothing is near. The builder's script reads names the same way,
        from :meth:`typed_names_index`."""
        key = _plain_key(name)
        if not key:
            return ()
        if key in self._classic_names:
            return self._classic_names[key]
        # A letter or two begins too many names to be a guess at one.
        begun = [s.name for s in self.skills if len(key) > 2 and s.name.lower().startswith(key)]
        close = difflib.get_close_matches(key, self._skill_index, n=3, cutoff=0.75)
        found = dict.fromkeys([*begun, *(self._skill_index[k].name for k in close)])
        # A summary has many more words to stumble on than the names: only a nearer one counts.
        for words, cutoff in ((self._skill_name_words, 0.75), (self._skill_summary_words, 0.85)):
            if found:
                break
            near = difflib.get_close_matches(key, words, n=3, cutoff=cutoff)
            found = dict.fromkeys(skill for word in near for skill in words[word])
        return tuple(found)[:3]

    def typed_names_index(self) -> dict[str, Any]:
        """What the builder's script needs to read a typed skill or trait notation as this
        catalog does, without asking the server: every key a skill, cascade or specialty is
        known by, the words :meth:`skills_like` compares, the classic names, and the trait
        tables a notation is checked against. Plain data, for JSON."""
        return {
            "skills": {
                s.name: {
                    "kind": s.kind,
                    "open": s.open,
                    "cascades": dict(s._cascade_index),
                    "specialties": dict(s._specialty_index),
                    "first_specialty": s.specialties[0].name if s.specialties else "",
                }
                for s in self.skills
            },
            "keys": {key: skill.name for key, skill in self._skill_index.items()},
            "name_words": self._skill_name_words,
            "summary_words": self._skill_summary_words,
            "classic_names": {key: list(names) for key, names in self._classic_names.items()},
            "traits": {
                "perk_types": list(self.perk_types),
                "flaw_types": list(self.flaw_types),
                "points": {
                    "-".join(key): points for key, (points, _cs) in self.trait_table.items()
                },
                "control_scores": {
                    level: row["control_score"] for level, row in self.flaw_levels.items()
                },
                "frequency_aliases": dict(self.frequency_aliases),
                "derived_points": dict(self.derived_trait_points),
            },
        }

    def find_talent(self, name: str) -> str | None:
        return self._talent_index.get(name.strip().lower())

    def find_service(self, name: str) -> Service | None:
        """The service of a key, matched without case and in either number: the keys are Book
        1's plurals ("scouts") and Supplement 4's singulars ("pirate"), and people write
        "Pirates" and "scout" too."""
        key = name.strip().lower()
        found = self.services.get(key)
        if found is None and key:
            found = self.services.get(key[:-1] if key.endswith("s") else key + "s")
        return found

    def find_species(self, name: str) -> Species | None:
        return self.species.get(name.strip().lower())

    def equipment_named(self, name: str) -> tuple[EquipmentItem, ...]:
        found = self._equipment_index.get(name.lower())
        return found if found is not None else self._equipment_index.get(_plain_key(name), ())

    def natural_weapon_named(self, name: str) -> EquipmentItem | None:
        key = _plain_key(name)
        return next((w for w in self.natural_weapons if _plain_key(w.name) == key), None)

    def equipment_item(self, name: str, tl: int | None = None) -> EquipmentItem | None:
        """The item of that name at tech level ``tl``; without a TL, the item if it is the only
        one of that name (several TLs of one name need the TL to tell them apart)."""
        candidates = self.equipment_named(name)
        if tl is None:
            return candidates[0] if len(candidates) == 1 else None
        return next((item for item in candidates if item.tl == tl), None)

    def noble_title(self, soc: int) -> str | None:
        return self.noble_titles.get(soc)

    def trait_points(self, trait_type: str, level: str, frequency: str) -> int | None:
        """Signed points of a trait by the perk cost and flaw value tables, None if off-table."""
        if trait_type in self.perk_types:
            row = self.perk_levels.get(level)
            sign = 1
        elif trait_type in self.flaw_types:
            row = self.flaw_levels.get(level)
            sign = -1
        else:
            return None
        if row is None or frequency not in row["points"]:
            return None
        points: int = row["points"][frequency]
        return sign * points

    def control_score(self, level: str) -> int | None:
        row = self.flaw_levels.get(level)
        score: int | None = row["control_score"] if row else None
        return score


def _equipment_item(table: str, raw: dict[str, Any]) -> EquipmentItem:
    if "weight_kg" in raw:
        weight = float(raw["weight_kg"] or 0)
    else:
        # Weights in the weapon tables are grams; a gravitic model's figure is the one carried.
        weight = (raw.get("weight_g_gravitic", raw.get("weight_g")) or 0) / 1000
    return EquipmentItem(
        table=table,
        name=raw["name"],
        tl=raw.get("tl"),
        cost=raw.get("cost"),
        weight_kg=weight,
        row=MappingProxyType(raw),
        str_min=raw.get("str_min"),
        provides_str=raw.get("provides_str"),
        av=raw.get("av"),
        requires_armor=raw.get("requires_armor"),
    )


def _has_ammunition(raw: dict[str, Any]) -> bool:
    """Whether a ranged weapon's ammunition is bought apart from it: it has a price and a
    weight (a thrown spear is its own ammunition)."""
    weight = raw.get("ammo_weight_g_gravitic", raw.get("ammo_weight_g"))
    return raw.get("ammo_cost") is not None and weight is not None


def _ammunition(raw: dict[str, Any]) -> EquipmentItem:
    """A ranged weapon's ammunition as an item of its own, priced and weighed by the weapon's
    row (AMM Cr, AMMwt; the gravitic figure where there is one), holding its AMM rounds."""
    grams = raw.get("ammo_weight_g_gravitic", raw.get("ammo_weight_g")) or 0
    row = {
        "weapon": raw["name"],
        "tl": raw.get("tl"),
        "rounds": raw.get("ammo"),
        "unlimited": bool(raw.get("ammo_unlimited")),
        "recharge_cost": raw.get("recharge_cost"),
    }
    return EquipmentItem(
        table="ammunition",
        name=AMMUNITION.format(weapon=raw["name"]),
        tl=raw.get("tl"),
        cost=raw.get("ammo_cost"),
        weight_kg=grams / 1000,
        row=MappingProxyType(row),
        weapon=raw["name"],
    )


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return MappingProxyType({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


@cache
def catalog() -> Catalog:
    """The shared catalog, read from disk on first use."""
    return Catalog()
