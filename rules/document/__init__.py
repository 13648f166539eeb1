"""Reading and writing the character document (format 1).

``parse_document`` turns a decoded JSON value into a :class:`~rules.model.Character` or raises
:class:`MalformedDocument` naming the path that is wrong. Rule problems (a skill level too
high, an unknown skill) are not malformations: they are reported by the engine.
``to_document`` writes the canonical form back, so ``normalise_document`` is idempotent.

``values`` reads one value where the document holds it, ``entries`` the skills, traits and
equipment (and the other parts), ``decoding`` the JSON text a person uploads or pastes.
"""

from __future__ import annotations

from typing import Any

from ..catalog import Catalog, catalog
from ..model import FORMAT, Character, EquipmentEntry, SkillEntry, TraitEntry, control_by_default
from .decoding import decode_json
from .entries import (
    _attributes,
    _entries,
    _equipment,
    _house_rules,
    _mustering_out,
    _name,
    _optional_name,
    _package_flaws_bought_off,
    _psionics,
    _skill,
    cascade_name,
    read_trait,
    specialty_name,
)
from .values import (
    _RAW_TEXT_SLACK,
    _TOP_LEVEL,
    TOP_LEVEL_FIELDS,
    WHOLE_MAX,
    MalformedDocument,
    _name_length,
    _object,
    describe_value,
    printable,
    read_int,
    read_text,
)

# What the rest of rules/ and the app import from the document.
__all__ = [
    "TOP_LEVEL_FIELDS",
    "WHOLE_MAX",
    "MalformedDocument",
    "cascade_name",
    "decode_json",
    "describe_value",
    "normalise_document",
    "parse_document",
    "printable",
    "read_int",
    "read_text",
    "read_trait",
    "specialty_name",
    "to_document",
    "trait_document",
]


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
