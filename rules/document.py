"""Reading and writing the character document (format 1).

``parse_document`` turns a decoded JSON value into a :class:`~rules.model.Character` or raises
:class:`MalformedDocument` naming the path that is wrong. Rule problems (a skill level too
high, an unknown skill) are not malformations: they are reported by the engine.
``to_document`` writes the canonical form back, so ``normalise_document`` is idempotent.
"""

from __future__ import annotations

import json
from typing import Any

from .catalog import Catalog, SkillDef, catalog
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
NAME_MAX = 100
NOTES_MAX = 20_000
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


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f'the text "{_printable(shown)}"'
    if isinstance(value, int) and abs(value) > WHOLE_MAX:
        return f"a number of {_digits(value)} digits"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _printable(text: Any) -> str:
    """``text`` for a one-line message: a line break, a control character or a lone surrogate
    is written as its escape."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _digits(value: int) -> int:
    """How many decimal digits ``value`` has, without writing it out (Python refuses to write
    integers of more than a few thousand digits)."""
    magnitude = abs(value)
    digits = int((magnitude.bit_length() - 1) * _LOG10_2) + 1
    return digits + 1 if magnitude >= 10**digits else digits


def _object(value: Any, path: str, allowed: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise MalformedDocument(path, f"expected an object, got {_describe(value)}")
    for key in value:
        if key not in allowed:
            where = f"{path}.{_printable(key)}" if path else _printable(key)
            raise MalformedDocument(where, f"unknown field {key!r} (allowed: {', '.join(allowed)})")
    return value


def _list(value: Any, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise MalformedDocument(path, f"expected a list, got {_describe(value)}")
    return value


def _int(value: Any, path: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise MalformedDocument(path, f"expected a whole number, got {_describe(value)}")
    if not -WHOLE_MAX <= value <= WHOLE_MAX:
        raise MalformedDocument(
            path, f"expected a whole number of at most {WHOLE_MAX:,}, got {_describe(value)}"
        )
    if minimum is not None and value < minimum:
        bounds = f"at least {minimum}" if maximum is None else f"{minimum}-{maximum}"
        raise MalformedDocument(path, f"expected a whole number {bounds}, got {value}")
    if maximum is not None and value > maximum:
        raise MalformedDocument(path, f"expected a whole number {minimum}-{maximum}, got {value}")
    return value


def _text(value: Any, path: str, *, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise MalformedDocument(path, f"expected text, got {_describe(value)}")
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise MalformedDocument(
                path, "contains a lone surrogate (\\ud800-\\udfff), which is not a character"
            ) from None
    if "\x00" in value:
        raise MalformedDocument(path, "contains a NUL character (\\u0000), which text may not")
    return value


def _optional_name(doc: dict[str, Any], key: str) -> str | None:
    text = _text(doc.get(key), key, optional=True)
    if text is None:
        return None
    text = " ".join(text.split())
    return text or None


def _attribute_level(value: Any, path: str, cat: Catalog) -> int:
    if isinstance(value, str):
        stripped = value.strip()
        level = cat.from_hex(stripped)
        # Only the digits 0-9: str.isdigit also accepts "²" and "①", which int() refuses.
        if level is None and stripped.isascii() and stripped.isdigit():
            if len(stripped) > _DIGITS_MAX:
                raise MalformedDocument(
                    path, f"expected a level, got a number of {len(stripped)} digits"
                )
            level = _int(int(stripped), path)
        if level is None:
            raise MalformedDocument(
                path,
                f"expected a level as a number or a hex digit (I and O are not used), "
                f"got {_describe(value)}",
            )
        return level
    return _int(value, path)


def _attributes(value: Any, cat: Catalog) -> tuple[int, ...]:
    order = cat.attribute_order
    aliases = cat.attribute_aliases
    raw = _object(value, "attributes", (*order, *aliases))
    levels: dict[str, int] = {}
    for key, level in raw.items():
        code = aliases.get(key, key)
        if code in levels:
            raise MalformedDocument(f"attributes.{key}", f"{code} is given twice")
        levels[code] = _attribute_level(level, f"attributes.{key}", cat)
    missing = [code for code in order if code not in levels]
    if missing:
        raise MalformedDocument(
            f"attributes.{missing[0]}",
            f"missing; all nine attributes are required ({', '.join(order)})",
        )
    return tuple(levels[code] for code in order)


def _skill(value: Any, path: str, cat: Catalog) -> SkillEntry:
    raw = _object(value, path, ("skill", "level", "cascade", "specialties"))
    if "skill" not in raw:
        raise MalformedDocument(f"{path}.skill", "missing; name the skill")
    if "level" not in raw:
        raise MalformedDocument(f"{path}.level", "missing; give the skill level (0 or more)")
    name = " ".join(_text(raw["skill"], f"{path}.skill").split())
    level = _int(raw["level"], f"{path}.level")
    definition = cat.find_skill(name)
    if definition is not None:
        name = definition.name
    cascade = _text(raw.get("cascade"), f"{path}.cascade", optional=True)
    if cascade is not None:
        cascade = " ".join(cascade.split()) or None
        if cascade and definition is not None and definition.is_cascade and not definition.open:
            cascade = definition.find_cascade(cascade) or cascade
    specialties: list[str] = []
    seen: set[str] = set()
    for index, item in enumerate(_list(raw.get("specialties", []), f"{path}.specialties")):
        text = specialty_name(definition, _text(item, f"{path}.specialties[{index}]"))
        if text and text.lower() not in seen:
            seen.add(text.lower())
            specialties.append(text)
    return SkillEntry(skill=name, level=level, cascade=cascade, specialties=tuple(specialties))


def specialty_name(definition: SkillDef | None, text: str) -> str:
    """How a specialty is written in a document: spacing collapsed, and the catalog's spelling
    where the skill's list has it ("Lasers" on Gunnery is "ship's lasers")."""
    text = " ".join(text.split())
    if definition is not None and definition.is_spec:
        return definition.find_specialty(text) or text
    return text


def _trait(value: Any, path: str, cat: Catalog) -> TraitEntry:
    raw = _object(value, path, ("type", "name", "level", "frequency", "derived", "control"))
    if "type" not in raw:
        raise MalformedDocument(f"{path}.type", "missing; use PP, MP, HP, PF, MF or HF")
    if "name" not in raw:
        raise MalformedDocument(f"{path}.name", "missing; describe the trait in a few words")
    trait_type = _text(raw["type"], f"{path}.type").strip().upper()
    name = " ".join(_text(raw["name"], f"{path}.name").split())
    level = _text(raw.get("level"), f"{path}.level", optional=True)
    if level is not None:
        level = level.strip().upper()
    frequency_raw = raw.get("frequency")
    if isinstance(frequency_raw, int) and not isinstance(frequency_raw, bool):
        frequency_raw = str(_int(frequency_raw, f"{path}.frequency"))
    frequency = _text(frequency_raw, f"{path}.frequency", optional=True)
    if frequency is not None:
        frequency = frequency.strip().upper()
        frequency = cat.frequency_aliases.get(frequency, frequency)
    derived: list[tuple[str, int]] = []
    if raw.get("derived") is not None:
        changes = raw["derived"]
        if not isinstance(changes, dict):
            raise MalformedDocument(
                f"{path}.derived",
                f'expected an object such as {{"INI": 1}}, got {_describe(changes)}',
            )
        for key, amount in changes.items():
            code = _text(key, f"{path}.derived").strip().upper()
            derived.append((code, _int(amount, f"{path}.derived.{_printable(key)}")))
    control = raw.get("control", control_by_default(trait_type))
    if not isinstance(control, bool):
        raise MalformedDocument(
            f"{path}.control", f"expected true or false, got {_describe(control)}"
        )
    return TraitEntry(
        type=trait_type,
        name=name,
        level=level or None,
        frequency=frequency or None,
        derived=tuple(derived),
        control=control,
    )


def _package_flaws_bought_off(value: Any, species: str, cat: Catalog) -> tuple[str, ...]:
    """The package flaws bought off, named as the species package names them where it does
    (an unknown name is the engine's to report, like an unknown skill)."""
    if value is None:
        return ()
    field = "package_flaws_bought_off"
    package = cat.species.get(species)
    known = {t.name.lower(): t.name for t in package.traits} if package is not None else {}
    names: list[str] = []
    for index, item in enumerate(_list(value, field)):
        path = f"{field}[{index}]"
        name = " ".join(_text(item, path).split())
        if not name:
            raise MalformedDocument(path, "empty; name the package flaw bought off")
        name = known.get(name.lower(), name)
        if name in names:
            raise MalformedDocument(path, f"{_printable(name)} is given twice")
        names.append(name)
    return tuple(names)


def _psionics(value: Any, cat: Catalog) -> Psionics | None:
    if value is None:
        return None
    raw = _object(value, "psionics", ("strength", "talents"))
    if "strength" not in raw:
        raise MalformedDocument("psionics.strength", "missing; give the PSI strength (0 or more)")
    strength = _int(raw["strength"], "psionics.strength", minimum=0)
    # null is no talents; any other value that is not an object ([], "", false, 0) is malformed.
    talents_raw = raw.get("talents")
    if talents_raw is None:
        talents_raw = {}
    if not isinstance(talents_raw, dict):
        raise MalformedDocument(
            "psionics.talents",
            f'expected an object such as {{"Telepathy": 2}}, got {_describe(talents_raw)}',
        )
    talents: dict[str, int] = {}
    for name, level in talents_raw.items():
        text = _text(name, "psionics.talents")
        canonical = cat.find_talent(text) or " ".join(text.split())
        if canonical in talents:
            raise MalformedDocument(
                f"psionics.talents.{_printable(name)}", f"{canonical} is given twice"
            )
        talents[canonical] = _int(level, f"psionics.talents.{_printable(name)}", minimum=0)
    return Psionics(strength=strength, talents=tuple(talents.items()))


def _mustering_rolls(value: Any) -> tuple[int, ...]:
    if value is None:
        return ()
    raw = _object(value, "mustering_out", ("rolls",))
    rolls = _list(raw.get("rolls", []), "mustering_out.rolls")
    return tuple(_int(r, f"mustering_out.rolls[{i}]") for i, r in enumerate(rolls))


def _equipment(value: Any, path: str, cat: Catalog) -> EquipmentEntry:
    raw = _object(value, path, ("item", "quantity", "tl"))
    if "item" not in raw:
        raise MalformedDocument(f"{path}.item", "missing; name the item")
    name = " ".join(_text(raw["item"], f"{path}.item").split())
    known = cat.equipment_named(name)
    if known:
        name = known[0].name
    quantity = _int(raw.get("quantity", 1), f"{path}.quantity", minimum=1)
    tl = raw.get("tl")
    tl = None if tl is None else _int(tl, f"{path}.tl", minimum=0)
    return EquipmentEntry(item=name, quantity=quantity, tl=tl)


def decode_json(data: str | bytes) -> Any:
    """Decode a document's JSON text; raises MalformedDocument in one sentence a person can act on.

    The command line and the web import both read documents through here, so a bad file gets
    the same message wherever it is checked.
    """
    if isinstance(data, bytearray | memoryview):
        data = bytes(data)
    if not isinstance(data, str | bytes):
        raise MalformedDocument("", f"is not JSON text, got {_describe(data)}")
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise MalformedDocument("", "is not UTF-8 text") from None
    try:
        return json.loads(data)
    except json.JSONDecodeError as error:
        raise MalformedDocument(
            "", f"is not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})"
        ) from None
    except ValueError:
        # Python refuses to read an integer of thousands of digits (its int-string limit).
        raise MalformedDocument("", "holds a number too long to read") from None
    except RecursionError:
        raise MalformedDocument("", "is nested too deeply to be a character document") from None


def parse_document(doc: Any, *, cat: Catalog | None = None) -> Character:
    """Build the engine's character from a decoded document, or raise MalformedDocument."""
    cat = cat or catalog()
    doc = _object(doc, "", TOP_LEVEL_FIELDS)
    if "format" not in doc:
        raise MalformedDocument("format", f'missing; it must be "{FORMAT}"')
    if doc["format"] != FORMAT:
        raise MalformedDocument("format", f'must be "{FORMAT}", got {_describe(doc["format"])}')
    if "name" not in doc:
        raise MalformedDocument("name", "missing; give the character a name")
    name = " ".join(_text(doc["name"], "name").split())
    if not 1 <= len(name) <= NAME_MAX:
        raise MalformedDocument("name", f"must be 1-{NAME_MAX} characters, got {len(name)}")
    kind = doc.get("kind", "pc")
    if kind not in ("pc", "npc"):
        raise MalformedDocument("kind", f'must be "pc" or "npc", got {_describe(kind)}')
    default_budget = cat.creation["budget"]["pc"]
    budget = _int(
        doc.get("budget", default_budget),
        "budget",
        minimum=0,
        maximum=cat.creation["budget"]["max"],
    )
    species = _text(doc.get("species", "human"), "species").strip().lower() or "human"
    service = _optional_name(doc, "service")
    if service is not None:
        known = cat.find_service(service)
        service = known.key if known else service
    if "attributes" not in doc:
        raise MalformedDocument("attributes", "missing; all nine attributes are required")
    age = doc.get("age")
    notes = _text(doc.get("notes", ""), "notes", optional=True) or ""
    if len(notes) > NOTES_MAX:
        raise MalformedDocument("notes", f"at most {NOTES_MAX} characters, got {len(notes)}")
    house_rules = HouseRules()
    if doc.get("house_rules") is not None:
        rules_raw = _object(doc["house_rules"], "house_rules", ("one_trait_per_term",))
        one_per_term = rules_raw.get("one_trait_per_term", True)
        if not isinstance(one_per_term, bool):
            raise MalformedDocument(
                "house_rules.one_trait_per_term",
                f"expected true or false, got {_describe(one_per_term)}",
            )
        house_rules = HouseRules(one_trait_per_term=one_per_term)
    return Character(
        name=name,
        attributes=_attributes(doc["attributes"], cat),
        kind=kind,
        budget=budget,
        species=species,
        homeworld=_optional_name(doc, "homeworld"),
        native_language=_optional_name(doc, "native_language"),
        native_culture=_optional_name(doc, "native_culture"),
        service=service,
        terms=_int(doc.get("terms", 0), "terms", minimum=0),
        rank=_int(doc.get("rank", 0), "rank"),
        age=None if age is None else _int(age, "age", minimum=0),
        skills=tuple(
            _skill(s, f"skills[{i}]", cat)
            for i, s in enumerate(_list(doc.get("skills", []), "skills"))
        ),
        traits=tuple(
            _trait(t, f"traits[{i}]", cat)
            for i, t in enumerate(_list(doc.get("traits", []), "traits"))
        ),
        package_flaws_bought_off=_package_flaws_bought_off(
            doc.get("package_flaws_bought_off"), species, cat
        ),
        psionics=_psionics(doc.get("psionics"), cat),
        mustering_rolls=_mustering_rolls(doc.get("mustering_out")),
        equipment=tuple(
            _equipment(e, f"equipment[{i}]", cat)
            for i, e in enumerate(_list(doc.get("equipment", []), "equipment"))
        ),
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
    doc["traits"] = [_trait_document(t) for t in character.traits]
    if character.package_flaws_bought_off:
        doc["package_flaws_bought_off"] = list(character.package_flaws_bought_off)
    if character.psionics is not None:
        doc["psionics"] = {
            "strength": character.psionics.strength,
            "talents": dict(character.psionics.talents),
        }
    if character.mustering_rolls:
        doc["mustering_out"] = {"rolls": list(character.mustering_rolls)}
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


def _trait_document(trait: TraitEntry) -> dict[str, Any]:
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
    return out


def normalise_document(doc: Any) -> dict[str, Any]:
    """Parse and write back: canonical names, hex levels as numbers, defaults made explicit."""
    return to_document(parse_document(doc))
