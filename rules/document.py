"""Reading and writing the character document (format 1).

``parse_document`` turns a decoded JSON value into a :class:`~rules.model.Character` or raises
:class:`MalformedDocument` naming the path that is wrong. Rule problems (a skill level too
high, an unknown skill) are not malformations: they are reported by the engine.
``to_document`` writes the canonical form back, so ``normalise_document`` is idempotent.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from decimal import Decimal
from functools import cache, lru_cache
from typing import Any, NamedTuple, TypeVar

from .catalog import Catalog, DocumentBounds, SkillDef, catalog
from .model import (
    FORMAT,
    Character,
    EquipmentEntry,
    HouseRules,
    Psionics,
    SkillEntry,
    TraitEntry,
    control_by_default,
)

TOP_LEVEL_FIELDS = (
    "format",
    "name",
    "kind",
    "budget",
    "species",
    "homeworld",
    "native_language",
    "native_culture",
    "service",
    "terms",
    "rank",
    "age",
    "attributes",
    "skills",
    "traits",
    "package_flaws_bought_off",
    "psionics",
    "mustering_out",
    "equipment",
    "house_rules",
    "notes",
)
# A name is read with its runs of spaces made one before its length is judged: the raw text
# may be this many times longer (a pasted name with line breaks), never more.
_RAW_TEXT_SLACK = 4
# The largest whole number a document may hold, of either sign: the largest integer a JSON number
# keeps exactly everywhere (a JavaScript number, I-JSON). Far above any figure of the rules, and
# small enough that every sum and message the engine makes of it stays cheap and short.
WHOLE_MAX = 2**53 - 1
# Digits of an attribute level written as text ("07"): enough for any whole number above.
_DIGITS_MAX = len(str(WHOLE_MAX))
_LOG10_2 = 0.30102999566398120


class MalformedDocument(ValueError):
    """The document cannot be read: not the format's shape. ``path`` names the field."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.message = message


def describe_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f'the text "{printable(shown)}"'
    if isinstance(value, int) and abs(value) > WHOLE_MAX:
        return f"a number of {_digits(value)} digits"
    if isinstance(value, _UnkeptNumber):
        written = value.text if len(value.text) <= 40 else value.text[:37] + "..."
        return f"the number {written}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def printable(text: Any) -> str:
    """``text`` for a one-line message: a line break, a control character or a lone surrogate
    is written as its escape."""
    written = str(text)
    if written.isprintable():
        return written
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in written)


def _digits(value: int) -> int:
    """How many decimal digits ``value`` has, without writing it out (Python refuses to write
    integers of more than a few thousand digits)."""
    magnitude = abs(value)
    digits = int((magnitude.bit_length() - 1) * _LOG10_2) + 1
    return digits + 1 if magnitude >= 10**digits else digits


class _Fields(NamedTuple):
    """The fields an object of the document may have: in order (for messages) and as a set."""

    names: tuple[str, ...]
    known: frozenset[str]


def _fields(*names: str) -> _Fields:
    return _Fields(names=names, known=frozenset(names))


_TOP_LEVEL = _fields(*TOP_LEVEL_FIELDS)
_SKILL = _fields("skill", "level", "cascade", "specialties")
_TRAIT = _fields("type", "name", "level", "frequency", "derived", "control")
_EQUIPMENT = _fields("item", "quantity", "tl", "worn")
_PSIONICS = _fields("strength", "talents")
_MUSTERING_OUT = _fields("rolls", "credits")
_HOUSE_RULES = _fields("one_trait_per_term")


# Where a value is in the document: a path ("psionics.strength"), or an item of a list as the
# list's path and the item's index, written out ("skills[3]") only for a message: a path made
# for every entry of every list read would be made for nothing nearly every time.
Path = str | tuple[str, int]
_Entry = TypeVar("_Entry", SkillEntry, TraitEntry, EquipmentEntry)


def _written(path: Path) -> str:
    return path if isinstance(path, str) else f"{path[0]}[{path[1]}]"


def _at(path: Path, field: Path | None) -> str:
    """The path of ``field`` inside the object at ``path`` (the object itself without one)."""
    if field is None:
        return _written(path)
    written = _written(path)
    return f"{written}.{_written(field)}" if written else _written(field)


def _object(value: Any, path: Path, fields: _Fields) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise MalformedDocument(_at(path, None), f"expected an object, got {describe_value(value)}")
    # A set asked of a dict is quicker than the dict's key view compared with a set.
    if not fields.known.issuperset(value):
        key = _key_written(next(key for key in value if key not in fields.known))
        raise MalformedDocument(
            _at(path, key), f"unknown field '{key}' (allowed: {', '.join(fields.names)})"
        )
    return value


# The most of an unknown key a message repeats: enough to recognise a typo, and a key of any
# length still makes a message of one short line.
_KEY_SHOWN = 40


def _key_written(key: str) -> str:
    """An unknown key as a path and a message write it: escaped onto one line, cut short."""
    written = printable(key)
    return written if len(written) <= _KEY_SHOWN else written[: _KEY_SHOWN - 3] + "..."


def _list(value: Any, path: Path, field: str | None = None, *, most: int) -> list[Any]:
    """A list of at most ``most`` items."""
    if not isinstance(value, list):
        raise MalformedDocument(_at(path, field), f"expected a list, got {describe_value(value)}")
    if len(value) > most:
        raise MalformedDocument(_at(path, field), f"at most {most} entries, got {len(value):,}")
    return value


def read_int(
    value: Any,
    path: Path,
    field: str | None = None,
    *,
    minimum: int = -WHOLE_MAX,
    maximum: int = WHOLE_MAX,
) -> int:
    """A whole number (a float without a fraction is one) from ``minimum`` to ``maximum``."""
    # A bool is not a number here, though Python counts it as one.
    number: int = value if type(value) is int else _whole_float(value, path, field)
    if minimum <= number <= maximum:
        return number
    raise MalformedDocument(
        _at(path, field),
        f"expected a whole number {_whole_range(minimum, maximum)}, got {describe_value(number)}",
    )


def _whole_range(minimum: int, maximum: int) -> str:
    """The whole numbers a field takes, in words: "from 0 to 15", or "of at most 9,007,..." for
    a field that takes any whole number a document may hold (of either sign)."""
    if minimum <= -WHOLE_MAX and maximum >= WHOLE_MAX:
        return f"of at most {WHOLE_MAX:,}"
    return f"from {minimum} to {maximum}"


def _whole_float(value: Any, path: Path, field: str | None) -> int:
    """A float without a fraction as the whole number it is; anything else is malformed."""
    if isinstance(value, float) and value.is_integer() and not isinstance(value, _UnkeptNumber):
        return int(value)
    raise MalformedDocument(
        _at(path, field), f"expected a whole number, got {describe_value(value)}"
    )


def read_text(value: Any, path: Path, field: Path | None = None, *, longest: int) -> str:
    """Text of at most ``longest`` characters, holding characters only (no lone surrogate, no
    NUL)."""
    if not isinstance(value, str):
        raise MalformedDocument(_at(path, field), f"expected text, got {describe_value(value)}")
    if len(value) > longest:
        raise MalformedDocument(
            _at(path, field), f"at most {longest:,} characters, got {len(value):,}"
        )
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise MalformedDocument(
                _at(path, field),
                "contains a lone surrogate (\\ud800-\\udfff), which is not a character",
            ) from None
    if "\x00" in value:
        raise MalformedDocument(
            _at(path, field), "contains a NUL character (\\u0000), which text may not"
        )
    return value


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


_BYTE_ORDER_MARK = "\ufeff"
_UTF16_MARKS = (b"\xff\xfe", b"\xfe\xff")


def decode_json(data: str | bytes) -> Any:
    """Decode a document's JSON text; raises MalformedDocument in one sentence a person can act on.

    The command line and the web import both read documents through here, so a bad file gets
    the same message wherever it is checked. The app's own Foundry VTT export is read too: it
    carries the character document it was made from (see :func:`_document_in_foundry_actor`).
    """
    return _document_in_foundry_actor(_decoded_json(data))


# The file name the app gives a character's own JSON export, and the button that downloads it.
_JSON_EXPORT = '"Export JSON" on the character\'s sheet (<name>.json)'


def _document_in_foundry_actor(value: Any) -> Any:
    """The character document a Foundry VTT actor made by this app carries under
    ``flags.ffa.document``; any other Foundry actor is refused with a message naming the file to
    use instead. Anything else is returned as it is, for parse_document to judge.

    What was changed in Foundry is not read back: Twodsix's fields cannot hold FFA's rules.
    """
    # A Foundry actor keeps its data in a "system" object; an attack's input names its combat
    # system there as a word.
    if (
        not isinstance(value, dict)
        or "format" in value
        or not isinstance(value.get("system"), dict)
    ):
        return value
    flags = value.get("flags")
    ffa = flags.get("ffa") if isinstance(flags, dict) else None
    document = ffa.get("document") if isinstance(ffa, dict) else None
    if isinstance(document, dict):
        return document
    raise MalformedDocument(
        "",
        "is a Foundry VTT actor, not a character document; import the character's own JSON "
        f"export instead: {_JSON_EXPORT}",
    )


def _decoded_json(data: str | bytes) -> Any:
    if isinstance(data, bytearray | memoryview):
        data = bytes(data)
    if not isinstance(data, str | bytes):
        raise MalformedDocument("", f"is not JSON text, got {describe_value(data)}")
    if isinstance(data, bytes):
        if data.startswith(_UTF16_MARKS):  # Windows Notepad's "Unicode"
            raise MalformedDocument("", "is UTF-16 text, not UTF-8; save it as UTF-8")
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise MalformedDocument("", "is not UTF-8 text") from None
    # A byte-order mark first is how Windows Notepad marks UTF-8 text, not part of the text; the
    # JSON standard lets a reader pass over it, so the file is read as its author sees it.
    data = data.removeprefix(_BYTE_ORDER_MARK)
    if not data.strip():  # the decoder would say it expected a value at line 1, column 1
        raise MalformedDocument("", "is empty; a character document is a JSON object")
    if data.lstrip().startswith(_BYTE_ORDER_MARK):  # Python would advise a Python decoder
        raise MalformedDocument(
            "",
            "is not valid JSON: a byte-order mark (U+FEFF) is only read as the first "
            "character; remove this one",
        )
    try:
        return _decoded(_DECODER, data)
    except _RepeatedKey:
        fault: type = _Repeated
    except _NumberTooLong:
        fault = _LongNumber
    # Decoded again, marking each object that repeats a key and each number too long to read,
    # to name where the first fault of the kind found is.
    marked = _decoded(_MARKING_DECODER, data)
    try:
        path, found = _marked_path(marked, "", fault) or ("", None)
    except RecursionError:  # nested almost as deep as the decoder goes: name no path
        path, found = "", None
    if fault is _LongNumber:
        digits = f" ({found.digits:,} digits)" if found is not None else ""
        raise MalformedDocument(path, f"holds a number too long to read{digits}")
    raise MalformedDocument(path, "is given twice; give each field once")


def _decoded(decoder: json.JSONDecoder, text: str) -> Any:
    try:
        return decoder.decode(text)
    except json.JSONDecodeError as error:
        raise MalformedDocument(
            "", f"is not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})"
        ) from None
    except ValueError:
        # Python refuses to read an integer of thousands of digits (its int-string limit).
        raise _NumberTooLong from None
    except RecursionError:
        raise MalformedDocument("", "is nested too deeply to be a character document") from None


class _RepeatedKey(Exception):
    """An object of the JSON text gives a key twice."""


class _NumberTooLong(Exception):
    """The JSON text holds an integer of more digits than Python will read."""


class _LongNumber:
    """An integer of the JSON text too long to read, as the marking decoder keeps it: its
    length, so the message can say which number it is."""

    def __init__(self, digits: int) -> None:
        self.digits = digits


def _marked_int(text: str) -> int | _LongNumber:
    try:
        return int(text)
    except ValueError:
        return _LongNumber(len(text.lstrip("-")))


def _object_of_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object of the JSON text. JSON would keep only the last value of a key given twice,
    dropping the others without a word, so a repeated key stops the decoding."""
    decoded = dict(pairs)
    if len(decoded) != len(pairs):
        raise _RepeatedKey
    return decoded


class _UnkeptNumber(float):
    """A number of the JSON text that a float does not keep, as Python reads it (1e400 as inf,
    1e-400 as 0, 30.0000000000000001 as 30, NaN), with the text it was written as: no field
    takes it, and a message quotes the text rather than a number nobody wrote."""

    text: str

    def __new__(cls, value: float, text: str) -> _UnkeptNumber:
        number = super().__new__(cls, value)
        number.text = text
        return number


def _float_of(text: str) -> float:
    """A JSON number with a fraction or an exponent; one a float does not keep is marked."""
    value = float(text)
    # A float that is whole where the text is not (a fraction too small to keep) is the only
    # finite one that matters: a fraction a float keeps roughly is refused as a fraction still.
    if math.isfinite(value) and not (value.is_integer() and not _whole_text(text)):
        return value
    return _UnkeptNumber(value, text)


def _whole_text(text: str) -> bool:
    """Whether a JSON number's text is a whole number, exactly."""
    try:
        written = Decimal(text)
        return written == written.to_integral_value()
    except ArithmeticError:  # an exponent of more digits than Decimal takes: no figure of ours
        return False


def _constant_of(text: str) -> float:
    """NaN, Infinity and -Infinity, which Python reads though JSON has no such numbers."""
    return _UnkeptNumber(float(text), text)


# One decoder for every document, as json.loads keeps its own: making one per call would cost
# more than the decoding of a character.
_DECODER = json.JSONDecoder(
    object_pairs_hook=_object_of_pairs, parse_float=_float_of, parse_constant=_constant_of
)


class _Repeated(dict[str, Any]):
    """A decoded object that gives ``key`` more than once."""

    key: str


def _marked_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    decoded = dict(pairs)
    if len(decoded) == len(pairs):
        return decoded
    marked = _Repeated(decoded)
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            marked.key = key
            break
        seen.add(key)
    return marked


# Decodes as the document's decoder does, but marks what that one stops at instead.
_MARKING_DECODER = json.JSONDecoder(
    object_pairs_hook=_marked_object,
    parse_int=_marked_int,
    parse_float=_float_of,
    parse_constant=_constant_of,
)


def _marked_path(value: Any, path: str, fault: type) -> tuple[str, Any] | None:
    """The path of the first ``fault`` (a ``_Repeated`` object: its key given twice; a
    ``_LongNumber``) inside ``value`` (at ``path``) in document order, and the fault; None
    when there is none."""
    if isinstance(value, _Repeated) and fault is _Repeated:
        return _at(path, _key_written(value.key)), value
    if isinstance(value, _LongNumber):
        return (path, value) if fault is _LongNumber else None
    if not isinstance(value, dict | list):
        return None
    children = value.items() if isinstance(value, dict) else enumerate(value)
    for key, child in children:
        inner = _at(path, _key_written(key)) if isinstance(key, str) else f"{path}[{key}]"
        found = _marked_path(child, inner, fault)
        if found is not None:
            return found
    return None


def _name_length(length: int, longest: int) -> MalformedDocument:
    return MalformedDocument("name", f"must be 1-{longest} characters, got {length:,}")


def parse_document(doc: Any, *, cat: Catalog | None = None) -> Character:
    """Build the engine's character from a decoded document, or raise MalformedDocument."""
    cat = cat or catalog()
    doc = _object(doc, "", _TOP_LEVEL)
    if "format" not in doc:
        raise MalformedDocument("format", f'missing; it must be "{FORMAT}"')
    if doc["format"] != FORMAT:
        raise MalformedDocument(
            "format", f'must be "{FORMAT}", got {describe_value(doc["format"])}'
        )
    if "name" not in doc:
        raise MalformedDocument("name", "missing; give the character a name")
    bounds = cat.bounds
    written = doc["name"]
    # Far past the slack, the name is refused as written, before its spacing is collapsed; the
    # message names the one limit a player can act on either way.
    if isinstance(written, str) and len(written) > _RAW_TEXT_SLACK * bounds.name_length:
        raise _name_length(len(written), bounds.name_length)
    name = _name(read_text(written, "", "name", longest=_RAW_TEXT_SLACK * bounds.name_length))
    if not 1 <= len(name) <= bounds.name_length:
        raise _name_length(len(name), bounds.name_length)
    kind = doc.get("kind", "pc")
    if kind not in ("pc", "npc"):
        raise MalformedDocument("kind", f'must be "pc" or "npc", got {describe_value(kind)}')
    lim = cat.limits
    budget = read_int(
        doc.get("budget", lim.default_budget), "", "budget", minimum=0, maximum=lim.max_budget
    )
    label = bounds.label_length
    species = (
        read_text(doc.get("species", "human"), "", "species", longest=label).strip().lower()
        or "human"
    )
    service = _optional_name(doc.get("service"), "service", label)
    if service is not None:
        known = cat.find_service(service)
        service = known.key if known else service
    if "attributes" not in doc:
        raise MalformedDocument("attributes", "missing; all nine attributes are required")
    age = doc.get("age")
    notes = doc.get("notes")
    notes = "" if notes is None else read_text(notes, "", "notes", longest=bounds.notes_length)
    house_rules = _house_rules(doc.get("house_rules"))
    mustering_rolls, mustering_credits = _mustering_out(doc.get("mustering_out"), bounds)
    return Character(
        name=name,
        attributes=_attributes(doc["attributes"], cat),
        kind=kind,
        budget=budget,
        species=species,
        homeworld=_optional_name(doc.get("homeworld"), "homeworld", label),
        native_language=_optional_name(doc.get("native_language"), "native_language", label),
        native_culture=_optional_name(doc.get("native_culture"), "native_culture", label),
        service=service,
        terms=read_int(doc.get("terms", 0), "", "terms", minimum=0, maximum=bounds.terms),
        rank=read_int(doc.get("rank", 0), "", "rank", minimum=-bounds.level, maximum=bounds.level),
        age=None if age is None else read_int(age, "", "age", minimum=0, maximum=bounds.age),
        skills=_entries(doc, "skills", _skill, cat, most=bounds.skills),
        traits=_entries(doc, "traits", read_trait, cat, most=bounds.traits),
        package_flaws_bought_off=_package_flaws_bought_off(
            doc.get("package_flaws_bought_off"), species, cat
        ),
        psionics=_psionics(doc.get("psionics"), cat),
        mustering_rolls=mustering_rolls,
        mustering_credits=mustering_credits,
        equipment=_entries(doc, "equipment", _equipment, cat, most=bounds.equipment),
        house_rules=house_rules,
        notes=notes,
    )


def to_document(character: Character, *, cat: Catalog | None = None) -> dict[str, Any]:
    """The canonical character document of a character (what export writes)."""
    cat = cat or catalog()
    doc: dict[str, Any] = {
        "format": FORMAT,
        "name": character.name,
        "kind": character.kind,
        "budget": character.budget,
        "species": character.species,
    }
    for key in ("homeworld", "native_language", "native_culture", "service"):
        value = getattr(character, key)
        if value is not None:
            doc[key] = value
    doc["terms"] = character.terms
    doc["rank"] = character.rank
    if character.age is not None:
        doc["age"] = character.age
    doc["attributes"] = dict(zip(cat.attribute_order, character.attributes, strict=True))
    doc["skills"] = [_skill_document(s) for s in character.skills]
    doc["traits"] = [trait_document(t) for t in character.traits]
    if character.package_flaws_bought_off:
        doc["package_flaws_bought_off"] = list(character.package_flaws_bought_off)
    if character.psionics is not None:
        doc["psionics"] = {
            "strength": character.psionics.strength,
            "talents": dict(character.psionics.talents),
        }
    if character.mustering_rolls:
        doc["mustering_out"] = {"rolls": list(character.mustering_rolls)}
    elif character.mustering_credits is not None:
        doc["mustering_out"] = {"credits": character.mustering_credits}
    doc["equipment"] = [_equipment_document(e) for e in character.equipment]
    if not character.house_rules.one_trait_per_term:
        doc["house_rules"] = {"one_trait_per_term": False}
    if character.notes:
        doc["notes"] = character.notes
    return doc


def _skill_document(skill: SkillEntry) -> dict[str, Any]:
    out: dict[str, Any] = {"skill": skill.skill}
    if skill.cascade is not None:
        out["cascade"] = skill.cascade
    out["level"] = skill.level
    if skill.specialties:
        out["specialties"] = list(skill.specialties)
    return out


def trait_document(trait: TraitEntry) -> dict[str, Any]:
    out: dict[str, Any] = {"type": trait.type, "name": trait.name}
    if trait.level is not None:
        out["level"] = trait.level
    if trait.frequency is not None:
        out["frequency"] = trait.frequency
    if trait.derived:
        out["derived"] = dict(trait.derived)
    if trait.control != control_by_default(trait.type):
        out["control"] = trait.control
    return out


def _equipment_document(entry: EquipmentEntry) -> dict[str, Any]:
    out: dict[str, Any] = {"item": entry.item, "quantity": entry.quantity}
    if entry.tl is not None:
        out["tl"] = entry.tl
    if entry.worn:  # false is the default, left out so that a document has one form
        out["worn"] = True
    return out


def normalise_document(doc: Any) -> dict[str, Any]:
    """Parse and write back: canonical names, hex levels as numbers, defaults made explicit."""
    return to_document(parse_document(doc))
