"""Reading a document's entries (skills, traits, psionics, mustering out, equipment, house
rules) in the catalog's spelling; equal entries are one object, built once."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, lru_cache
from typing import Any

from ..catalog import Catalog, DocumentBounds, SkillDef
from ..model import EquipmentEntry, HouseRules, Psionics, SkillEntry, TraitEntry, control_by_default
from .values import (
    _DIGITS_MAX,
    _EQUIPMENT,
    _HOUSE_RULES,
    _MUSTERING_OUT,
    _PSIONICS,
    _SKILL,
    _TRAIT,
    MalformedDocument,
    Path,
    _at,
    _Entry,
    _Fields,
    _fields,
    _list,
    _object,
    describe_value,
    printable,
    read_int,
    read_text,
)

# The caches of the parser are bounded, as every value in them comes from a document.
_CACHE_SIZE = 4096


# Splitting and joining a name makes a list and new strings, where a cache hit is one look-up
# of a string whose hash is already known; most names of a document are read on every parse.
@lru_cache(maxsize=_CACHE_SIZE)
def _name(text: str) -> str:
    """A name as the document keeps it: runs of spaces, tabs and line breaks made one space."""
    return " ".join(text.split())


def _optional_name(value: Any, key: str, longest: int) -> str | None:
    """A top-level name that may be left out: None when it is, or when it is only spaces."""
    if value is None:
        return None
    return _name(read_text(value, "", key, longest=longest)) or None


def _attribute_text(value: str, key: str, cat: Catalog) -> int:
    """An attribute level written as text: a hex digit, or the digits 0-9."""
    stripped = value.strip()
    level = cat.from_hex(stripped)
    # Only the digits 0-9: str.isdigit also accepts "²" and "①", which int() refuses.
    if level is None and stripped.isascii() and stripped.isdigit():
        if len(stripped) > _DIGITS_MAX:
            raise MalformedDocument(
                _at("attributes", key), f"expected a level, got a number of {len(stripped)} digits"
            )
        level = read_int(int(stripped), "attributes", key, minimum=0, maximum=cat.bounds.attribute)
    if level is None:
        raise MalformedDocument(
            _at("attributes", key),
            f"expected a level as a number or a hex digit (I and O are not used), "
            f"got {describe_value(value)}",
        )
    return level


@cache
def _attribute_fields(cat: Catalog) -> _Fields:
    return _fields(*cat.attribute_order, *cat.attribute_aliases)


def _attributes(value: Any, cat: Catalog) -> tuple[int, ...]:
    raw = _object(value, "attributes", _attribute_fields(cat))
    aliases = cat.attribute_aliases
    highest = cat.bounds.attribute
    levels: dict[str, int] = {}
    for key, level in raw.items():
        code = aliases.get(key, key)
        if code in levels:
            raise MalformedDocument(f"attributes.{key}", f"{code} is given twice")
        if isinstance(level, str):
            levels[code] = _attribute_text(level, key, cat)
        else:
            levels[code] = read_int(level, "attributes", key, minimum=-highest, maximum=highest)
    if len(levels) < len(cat.attribute_order):
        missing = next(code for code in cat.attribute_order if code not in levels)
        raise MalformedDocument(
            f"attributes.{missing}",
            f"missing; all nine attributes are required ({', '.join(cat.attribute_order)})",
        )
    return tuple([levels[code] for code in cat.attribute_order])


def _skill(value: Any, path: Path, cat: Catalog) -> SkillEntry:
    raw = _object(value, path, _SKILL)
    if "skill" not in raw:
        raise MalformedDocument(_at(path, "skill"), "missing; name the skill")
    if "level" not in raw:
        raise MalformedDocument(_at(path, "level"), "missing; give the skill level (0 or more)")
    bounds = cat.bounds
    skill = read_text(raw["skill"], path, "skill", longest=bounds.label_length)
    # From 0: a level below it is no level (a skill not had is left out). At most as many dice
    # as the odds of a throw are worked out for: every attack and test of the skill throws them.
    level = read_int(raw["level"], path, "level", minimum=0, maximum=bounds.skill_level)
    cascade = raw.get("cascade")
    return _skill_entry(
        cat,
        skill,
        level,
        None
        if cascade is None
        else read_text(cascade, path, "cascade", longest=bounds.label_length),
        _specialty_texts(raw["specialties"], path, bounds) if "specialties" in raw else (),
    )


def _specialty_texts(value: Any, path: Path, bounds: DocumentBounds) -> tuple[str, ...]:
    items = _list(value, path, "specialties", most=bounds.specialties)
    return tuple(
        [
            read_text(item, path, ("specialties", index), longest=bounds.label_length)
            for index, item in enumerate(items)
        ]
    )


# An entry is read in two steps: its values are checked where the document holds them (a
# malformed one is named by its path), then named in the catalog's spelling and built by a
# cache. Entries are immutable, so equal entries may be one object: the builder parses the
# same document again on every keystroke, and an entry written as before is looked up rather
# than spelled and built anew.
@lru_cache(maxsize=_CACHE_SIZE)
def _skill_entry(
    cat: Catalog, skill: str, level: int, cascade: str | None, specialties: tuple[str, ...]
) -> SkillEntry:
    """A skill entry in the catalog's spelling: the skill found however it is spaced, a fixed
    list's cascade, and each specialty once (matched without case)."""
    definition = cat.find_skill(skill)
    return SkillEntry(
        skill=definition.name if definition is not None else _name(skill),
        level=level,
        cascade=None if cascade is None else cascade_name(definition, cascade) or None,
        specialties=_specialties(definition, specialties),
    )


def cascade_name(definition: SkillDef | None, text: str) -> str:
    """How a cascade is written in a document: spacing collapsed, and the catalog's spelling
    where the skill's fixed list has it ("sword" on Blade Combat is "swords")."""
    cascade = _name(text)
    if cascade and definition is not None and definition.is_cascade and not definition.open:
        return definition.find_cascade(cascade) or cascade
    return cascade


def _specialties(definition: SkillDef | None, texts: tuple[str, ...]) -> tuple[str, ...]:
    """The specialties, each once (matched without case), in the catalog's spelling."""
    specialties: list[str] = []
    seen: set[str] = set()
    for raw in texts:
        text = specialty_name(definition, raw)
        if text and text.lower() not in seen:
            seen.add(text.lower())
            specialties.append(text)
    return tuple(specialties)


def specialty_name(definition: SkillDef | None, text: str) -> str:
    """How a specialty is written in a document: spacing collapsed, and the catalog's spelling
    where the skill's list has it ("Lasers" on Gunnery is "ship's lasers")."""
    text = _name(text)
    if definition is not None and definition.is_spec:
        return definition.find_specialty(text) or text
    return text


def read_trait(value: Any, path: Path, cat: Catalog) -> TraitEntry:
    raw = _object(value, path, _TRAIT)
    if "type" not in raw:
        raise MalformedDocument(_at(path, "type"), "missing; use PP, MP, HP, PF, MF or HF")
    if "name" not in raw:
        raise MalformedDocument(_at(path, "name"), "missing; describe the trait in a few words")
    bounds = cat.bounds
    trait_type = read_text(raw["type"], path, "type", longest=bounds.label_length)
    name = read_text(raw["name"], path, "name", longest=bounds.trait_name_length)
    level = raw.get("level")
    if level is not None:
        level = read_text(level, path, "level", longest=bounds.label_length)
    frequency = raw.get("frequency")
    if frequency is not None:
        frequency = _frequency_text(frequency, path, bounds)
    derived = raw.get("derived")
    derived = () if derived is None else _derived_changes(derived, path, bounds)
    if "control" in raw and not isinstance(raw["control"], bool):
        raise MalformedDocument(
            _at(path, "control"), f"expected true or false, got {describe_value(raw['control'])}"
        )
    return _trait_entry(cat, trait_type, name, level, frequency, derived, raw.get("control"))


def _frequency_text(value: Any, path: Path, bounds: DocumentBounds) -> str:
    """A trait's frequency as written: text, or the digit 0 as a number (0.0 too, as a whole
    number is read in any field)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(read_int(value, path, "frequency"))
    return read_text(value, path, "frequency", longest=bounds.label_length)


@lru_cache(maxsize=_CACHE_SIZE)
def _trait_entry(
    cat: Catalog,
    trait_type: str,
    name: str,
    level: str | None,
    frequency: str | None,
    derived: tuple[tuple[str, int], ...],
    control: bool | None,
) -> TraitEntry:
    """A trait entry as the tables write it: type, level and frequency letters in capitals
    (the digit 0 is the frequency O), and a flaw's control by its type unless the document
    says (``control`` None)."""
    trait_type = trait_type.strip().upper()
    return TraitEntry(
        type=trait_type,
        name=_name(name),
        level=None if level is None else level.strip().upper() or None,
        frequency=None if frequency is None else _frequency(frequency, cat),
        derived=derived,
        control=control_by_default(trait_type) if control is None else control,
    )


def _frequency(text: str, cat: Catalog) -> str | None:
    frequency = text.strip().upper()
    return cat.frequency_aliases.get(frequency, frequency) or None


def _derived_changes(value: Any, path: Path, bounds: DocumentBounds) -> tuple[tuple[str, int], ...]:
    if not isinstance(value, dict):
        raise MalformedDocument(
            _at(path, "derived"),
            f'expected an object such as {{"INI": 1}}, got {describe_value(value)}',
        )
    if len(value) > bounds.derived_changes:
        raise MalformedDocument(
            _at(path, "derived"), f"at most {bounds.derived_changes} changes, got {len(value):,}"
        )
    changes: dict[str, int] = {}
    for key, amount in value.items():
        code = read_text(key, path, "derived", longest=bounds.label_length).strip().upper()
        field = f"derived.{printable(key)}"
        # "def" and "DEF" are one attribute: kept as two changes, both would be credited but
        # only one written back, and the document would change its report on a round trip.
        if code in changes:
            raise MalformedDocument(_at(path, field), f"{printable(code)} is given twice")
        changes[code] = read_int(amount, path, field, minimum=-bounds.level, maximum=bounds.level)
    return tuple(changes.items())


def _package_flaws_bought_off(value: Any, species: str, cat: Catalog) -> tuple[str, ...]:
    """The package flaws bought off, named as the species package names them where it does
    (an unknown name is the engine's to report, like an unknown skill)."""
    if value is None:
        return ()
    field = "package_flaws_bought_off"
    package = cat.species.get(species)
    known = {t.name.lower(): t.name for t in package.traits} if package is not None else {}
    names: list[str] = []
    for index, item in enumerate(_list(value, field, most=cat.bounds.package_flaws)):
        path = f"{field}[{index}]"
        name = _name(read_text(item, path, longest=cat.bounds.trait_name_length))
        if not name:
            raise MalformedDocument(path, "empty; name the package flaw bought off")
        name = known.get(name.lower(), name)
        if name in names:
            raise MalformedDocument(path, f"{printable(name)} is given twice")
        names.append(name)
    return tuple(names)


def _psionics(value: Any, cat: Catalog) -> Psionics | None:
    if value is None:
        return None
    raw = _object(value, "psionics", _PSIONICS)
    if "strength" not in raw:
        raise MalformedDocument("psionics.strength", "missing; give the PSI strength (0 or more)")
    # Bounded like the other levels, not by the rulebook's cap of 15: a strength or talent past
    # 15 is the rule error psi_strength_above_max or talent_above_strength, not a malformation.
    most = cat.bounds.level
    strength = read_int(raw["strength"], "psionics", "strength", minimum=0, maximum=most)
    # null is no talents; any other value that is not an object ([], "", false, 0) is malformed.
    talents_raw = raw.get("talents")
    if talents_raw is None:
        talents_raw = {}
    if not isinstance(talents_raw, dict):
        raise MalformedDocument(
            "psionics.talents",
            f'expected an object such as {{"Telepathy": 2}}, got {describe_value(talents_raw)}',
        )
    if len(talents_raw) > cat.bounds.talents:
        raise MalformedDocument(
            "psionics.talents", f"at most {cat.bounds.talents} talents, got {len(talents_raw):,}"
        )
    talents: dict[str, int] = {}
    for name, level in talents_raw.items():
        text = read_text(name, "psionics.talents", longest=cat.bounds.label_length)
        canonical = cat.find_talent(text) or _name(text)
        path = f"psionics.talents.{printable(name)}"
        if canonical in talents:
            raise MalformedDocument(path, f"{printable(canonical)} is given twice")
        talents[canonical] = read_int(level, path, minimum=0, maximum=most)
    # In the catalog's order, whatever order the document keeps its keys in (PostgreSQL's
    # jsonb keeps none), so a character reads the same from every store.
    order = {name: position for position, name in enumerate(cat.talents)}
    ordered = sorted(talents.items(), key=lambda item: (order.get(item[0], len(order)), item[0]))
    return Psionics(strength=strength, talents=tuple(ordered))


def _mustering_out(value: Any, bounds: DocumentBounds) -> tuple[tuple[int, ...], int | None]:
    """The rolls, or the credits given instead of them (an NPC's: the engine says whose)."""
    if value is None:
        return (), None
    raw = _object(value, "mustering_out", _MUSTERING_OUT)
    rolls = _list(raw.get("rolls", []), "mustering_out", "rolls", most=bounds.mustering_rolls)
    credits = raw.get("credits")
    if credits is None:
        return tuple(
            [
                read_int(r, ("mustering_out.rolls", i), minimum=-bounds.level, maximum=bounds.level)
                for i, r in enumerate(rolls)
            ]
        ), None
    if rolls:
        raise MalformedDocument(
            "mustering_out", "give the rolls or the credits, not both (credits stand for rolls)"
        )
    return (), read_int(credits, "mustering_out", "credits", minimum=0, maximum=bounds.credits)


def _equipment(value: Any, path: Path, cat: Catalog) -> EquipmentEntry:
    raw = _object(value, path, _EQUIPMENT)
    if "item" not in raw:
        raise MalformedDocument(_at(path, "item"), "missing; name the item")
    bounds = cat.bounds
    tl = raw.get("tl")
    worn = raw.get("worn", False)
    if not isinstance(worn, bool):
        raise MalformedDocument(
            _at(path, "worn"), f"expected true or false, got {describe_value(worn)}"
        )
    return _equipment_entry(
        cat,
        read_text(raw["item"], path, "item", longest=bounds.label_length),
        read_int(raw.get("quantity", 1), path, "quantity", minimum=1, maximum=bounds.quantity),
        None if tl is None else read_int(tl, path, "tl", minimum=0, maximum=bounds.tl),
        worn,
    )


@lru_cache(maxsize=_CACHE_SIZE)
def _equipment_entry(
    cat: Catalog, item: str, quantity: int, tl: int | None, worn: bool
) -> EquipmentEntry:
    """An equipment entry, the item named as the catalog names it where it has the item."""
    name = _name(item)
    known = cat.equipment_named(name)
    return EquipmentEntry(
        item=known[0].name if known else name, quantity=quantity, tl=tl, worn=worn
    )


# The rulebook's rules, as a document without house rules keeps them.
_NO_HOUSE_RULES = HouseRules()


def _house_rules(value: Any) -> HouseRules:
    if value is None:
        return _NO_HOUSE_RULES
    raw = _object(value, "house_rules", _HOUSE_RULES)
    one_per_term = raw.get("one_trait_per_term", True)
    if not isinstance(one_per_term, bool):
        raise MalformedDocument(
            "house_rules.one_trait_per_term",
            f"expected true or false, got {describe_value(one_per_term)}",
        )
    return HouseRules(one_trait_per_term=one_per_term)


def _entries(
    doc: dict[str, Any],
    field: str,
    read: Callable[[Any, Path, Catalog], _Entry],
    cat: Catalog,
    *,
    most: int,
) -> tuple[_Entry, ...]:
    """The entries of a list field of the document, each read by ``read`` at its index."""
    items = _list(doc.get(field, []), "", field, most=most)
    # Here and wherever a tuple is made of a loop, a list comprehension runs in one call where
    # a generator is resumed once per item.
    return tuple([read(item, (field, index), cat) for index, item in enumerate(items)])
