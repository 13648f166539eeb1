"""The builder form: a character document as HTML form fields, and back again.

The builder page is one ``<form>``. Its rows (skills, traits, equipment) are named by a key that
stays with the row for as long as the page shows it (``skill-<key>-level``), never by position:
the page adds and removes rows itself, and a row's fields keep their names whatever happens to
the rows around it. The form is read here into a character document, in the order its rows stand
on the page, and the rules engine does the rest: nothing in this module knows a rule.

Field names: the nine attribute codes; ``name``, ``species``, ``terms``…; repeated rows as
``skill-<key>-<field>``, ``trait-<key>-<field>`` and ``item-<key>-<field>``; psionics as
``psi-trained``, ``psi-strength`` and ``talent-<Talent>``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from django import forms
from django.http import QueryDict

from characters.core.equipment import item_key
from characters.core.forms import WholeNumberField, natural_number, whole_number
from rules import FORMAT, catalog
from rules.document import TOP_LEVEL_FIELDS
from rules.model import control_by_default

# A row's key: a few letters and digits, as the page and the server make them. A field name is
# anyone's to write: one that is no row's is ignored.
ROW_KEY = r"[a-z0-9]{1,16}"
_ROW_FIELD = re.compile(rf"^(skill|trait|item)-({ROW_KEY})-([a-z]+(?:-[A-Z]{{3}})?)$")
_PATH_INDEX = re.compile(r"^(skills|traits|equipment)\[(\d+)\](?:\.([a-z_]+))?")


# The document's scalar fields, edited as plain inputs; the lists have their own rows.
IDENTITY_FIELDS = tuple(
    field
    for field in TOP_LEVEL_FIELDS
    if field not in {"format", "attributes", "skills", "traits", "package_flaws_bought_off",
                     "psionics", "mustering_out", "equipment", "house_rules"}
)  # fmt: skip


# Guards of the app against slips of the keyboard, not rules: wide enough for any character the
# rules allow, so that the engine, not the form, names the rule a value breaks.


# The boxes whose text is added as a row (by Enter or their Add button), not part of the
# character: what they cannot add is said beside them.
ADD_BOXES = frozenset({"new-skill", "trait-notation"})


@dataclass(frozen=True)
class FieldBounds:
    """The highest value (for text, the length) each field of the form reads. The server
    refuses more and the page's ``max`` and ``maxlength`` say the same, from this one place.
    The fixed limits of the rulebook come from the catalog; the rest are the app's guards."""

    budget: int
    terms: int
    rank: int
    age: int
    # A derived trait's amount, of either sign.
    amount: int
    # A skill's level, which a document holds from 0 (the engine's limit for the character is
    # lower, and it names the rule a level past it breaks).
    skill_level: int
    psi: int  # PSI strength and each talent's level
    quantity: int
    name: int
    label: int  # a background field's text, or a cascade typed for a skill
    trait_name: int
    notes: int
    credits: int  # an NPC's starting credits, given rather than rolled


def field_bounds() -> FieldBounds:
    """The form's bounds: the catalog's, which the engine's parser enforces on every document."""
    cat = catalog()
    limits, bounds = cat.limits, cat.bounds
    return FieldBounds(
        budget=limits.max_budget,
        terms=bounds.terms,
        rank=limits.rank_max,
        age=bounds.age,
        amount=bounds.level,
        skill_level=bounds.skill_level,
        psi=limits.psi_max_cap,
        quantity=bounds.quantity,
        name=bounds.name_length,
        label=bounds.label_length,
        trait_name=bounds.trait_name_length,
        notes=bounds.notes_length,
        credits=bounds.credits,
    )


@dataclass
class SkillRow:
    key: str
    skill: str = ""
    cascade: str = ""
    level: str = "1"
    specialties: list[str] = field(default_factory=list)


@dataclass
class TraitRow:
    key: str
    type: str = "PP"
    name: str = ""
    level: str = ""
    frequency: str = ""
    control: bool = False
    derived: dict[str, str] = field(default_factory=dict)


@dataclass
class ItemRow:
    key: str
    item: str = ""  # "<name>|<tl>", the key of an equipment choice
    quantity: str = "1"
    worn: bool = False


@dataclass
class BuilderForm:
    """What the form holds, as typed: strings, so a re-rendered form shows exactly that."""

    values: dict[str, str]
    attributes: dict[str, str]
    skills: list[SkillRow]
    traits: list[TraitRow]
    items: list[ItemRow]
    psionics_trained: bool
    psi_strength: str
    talents: dict[str, str]
    one_trait_per_term: bool
    # An NPC's starting credits, given rather than rolled ("" when rolled, or none).
    npc_credits: str = ""
    new_skill: str = ""
    trait_notation: str = ""
    errors: dict[str, str] = field(default_factory=dict)
    # The catalog's names a skill typed in the add box may stand for, each offered as a button.
    skill_suggestions: tuple[str, ...] = ()


@dataclass(frozen=True)
class FormDocument:
    """A form read as a document, with the key of the row each document list entry came from."""

    document: dict[str, Any]
    errors: dict[str, str]
    skill_rows: tuple[str, ...]
    trait_rows: tuple[str, ...]
    item_rows: tuple[str, ...]


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def form_from_document(document: dict[str, Any]) -> BuilderForm:
    cat = catalog()
    values = {key: _text(document.get(key)) for key in IDENTITY_FIELDS}
    values["kind"] = values["kind"] or "pc"
    values["species"] = values["species"] or "human"
    values["budget"] = values["budget"] or str(cat.limits.default_budget)
    values["terms"] = values["terms"] or "0"
    values["rank"] = values["rank"] or "0"
    attributes = {code: _text(document["attributes"].get(code)) for code in cat.attribute_order}
    psionics = document.get("psionics")
    return BuilderForm(
        values=values,
        attributes=attributes,
        skills=[
            SkillRow(
                key=str(key),
                skill=s["skill"],
                cascade=_text(s.get("cascade")),
                level=_text(s.get("level")),
                specialties=list(s.get("specialties", [])),
            )
            for key, s in enumerate(document.get("skills", []))
        ],
        traits=[
            TraitRow(
                key=str(key),
                type=t["type"],
                name=t["name"],
                level=_text(t.get("level")),
                frequency=_text(t.get("frequency")),
                control=t.get("control", control_by_default(t["type"])),
                derived={code: str(amount) for code, amount in (t.get("derived") or {}).items()},
            )
            for key, t in enumerate(document.get("traits", []))
        ],
        items=[
            ItemRow(
                key=str(key),
                item=item_key(e["item"], _resolved_tl(e)),
                quantity=_text(e.get("quantity", 1)),
                worn=e.get("worn") is True,
            )
            for key, e in enumerate(document.get("equipment", []))
        ],
        psionics_trained=psionics is not None,
        psi_strength=_text(psionics["strength"]) if psionics else "",
        talents={k: str(v) for k, v in (psionics or {}).get("talents", {}).items()},
        one_trait_per_term=(document.get("house_rules") or {}).get("one_trait_per_term", True),
        npc_credits=_text((document.get("mustering_out") or {}).get("credits")),
    )


def _resolved_tl(entry: dict[str, Any]) -> int | None:
    """The entry's tech level, or the item's only one, so the form's choice is exact."""
    if entry.get("tl") is not None:
        return entry["tl"]
    item = catalog().equipment_item(entry["item"])
    return item.tl if item else None


def _control(row: dict[str, Any]) -> bool:
    """A trait row's control score: its box, where the page showed one (a flaw's row: the
    builder's script shows and hides it as the type is chosen; a box not shown is not posted)
    and the row is still a flaw's; otherwise the type's default. Without the script a row
    whose type changed keeps the box it was drawn with until the next page, so the box alone
    says nothing of a flaw that was a perk (no box), nor of a perk that was a flaw (a box
    still ticked)."""
    trait_type = row.get("type", "").strip()
    if row.get("controlbox") == "on" and trait_type in catalog().flaw_types:
        return row.get("control") == "on"
    return control_by_default(trait_type)


def form_from_post(post: QueryDict) -> BuilderForm:
    """The posted builder form, as typed (strings), row by row, in the order the rows stand on
    the page (a browser posts fields in the page's order).

    The rows are gathered here rather than by a Django formset: every save reads the whole form,
    and a bound Django form of a row's four fields costs about 0.3 ms to build and clean on the
    development machine, so a typical character's rows would add a third to each save.
    ``document_from_form`` then reads each value: numbers through a Django field
    (``WholeNumberField``), text against the bounds the engine's parser enforces, and either way
    an error names the field and the problem."""
    cat = catalog()
    rows: dict[str, dict[str, dict[str, Any]]] = {"skill": {}, "trait": {}, "item": {}}
    for name in post:
        match = _ROW_FIELD.match(name)
        if match:
            kind, key, field_name = match.group(1), match.group(2), match.group(3)
            value = post.getlist(name) if field_name == "specialties" else post.get(name, "")
            rows[kind].setdefault(key, {})[field_name] = value
    skills = [
        SkillRow(
            key=key,
            skill=r.get("skill", "").strip(),
            cascade=r.get("cascade", "").strip(),
            level=r.get("level", "").strip(),
            specialties=[s for s in r.get("specialties", []) if s],
        )
        for key, r in rows["skill"].items()
    ]
    traits = [
        TraitRow(
            key=key,
            type=r.get("type", "").strip(),
            name=r.get("name", "").strip(),
            level=r.get("level", "").strip(),
            frequency=r.get("frequency", "").strip(),
            control=_control(r),
            derived={
                code: r.get(f"derived-{code}", "").strip()
                for code in cat.derived_order
                if r.get(f"derived-{code}", "").strip()
            },
        )
        for key, r in rows["trait"].items()
    ]
    items = [
        ItemRow(
            key=key,
            item=r.get("item", ""),
            quantity=r.get("quantity", "1").strip(),
            worn=r.get("worn") == "on",
        )
        for key, r in rows["item"].items()
    ]
    return BuilderForm(
        values={
            key: post.get(key, "").strip() if key != "notes" else post.get(key, "")
            for key in IDENTITY_FIELDS
        },
        attributes={code: post.get(code, "").strip() for code in cat.attribute_order},
        skills=skills,
        traits=traits,
        items=items,
        psionics_trained=post.get("psi-trained") == "on",
        psi_strength=post.get("psi-strength", "").strip(),
        talents={
            t: post.get(f"talent-{t}", "").strip()
            for t in cat.talents
            if post.get(f"talent-{t}", "").strip()
        },
        one_trait_per_term=post.get("one_trait_per_term") == "on",
        npc_credits=post.get("npc-credits", "").strip(),
        new_skill=post.get("new-skill", "").strip(),
        trait_notation=post.get("trait-notation", "").strip(),
    )


def _whole(
    value: str,
    field_id: str,
    label: str,
    errors: dict[str, str],
    *,
    minimum: int = 0,
    maximum: int,
    optional: bool = False,
) -> int | None:
    """The whole number typed in a field, or None with the field's error recorded. An emptied
    field is an error unless it is ``optional``, never silently zero: the caller keeps the
    stored value, which is what the save state says it kept."""
    field = WholeNumberField(label=label, minimum=minimum, maximum=maximum, required=not optional)
    try:
        return field.read(value)
    except forms.ValidationError as invalid:
        errors[field_id] = invalid.messages[0]
        return None


def _within(text: str, field_id: str, label: str, longest: int, errors: dict[str, str]) -> str:
    """The first ``longest`` characters of ``text``, with the field's error recorded when it
    was longer: one field the document cannot hold never holds back the rest of a save."""
    if len(text) > longest:
        errors[field_id] = f"{label}: at most {longest:,} characters ({len(text):,} now)."
    return text[:longest]


def _too_many(label: str, most: int) -> str:
    """The error of the first row past the most a document holds of ``label``."""
    return f"{label}: at most {most}; the rest are not saved."


def document_from_form(form: BuilderForm, *, base: dict[str, Any]) -> FormDocument:
    """The document the form describes; ``base`` supplies what the form does not edit.

    Values that cannot be read get a field error and keep the base document's value, so the
    preview still shows a report while the player fixes the field.
    """
    errors = dict(form.errors)
    doc: dict[str, Any] = {"format": FORMAT}
    _read_identity(form, base, doc, errors)
    doc["attributes"] = _read_attributes(form, base, doc["kind"], errors)
    doc["skills"], skill_rows = _read_skills(form, base, errors)
    doc["traits"], trait_rows = _read_traits(form, errors)
    if form.psionics_trained:
        doc["psionics"] = _read_psionics(form, base, errors)
    mustering_out = _read_mustering_out(form, base, doc["kind"], errors)
    if mustering_out:
        doc["mustering_out"] = mustering_out
    # Bought off with improvement points in play; the builder does not edit them.
    if base.get("package_flaws_bought_off"):
        doc["package_flaws_bought_off"] = base["package_flaws_bought_off"]
    doc["equipment"], item_rows = _read_equipment(form, base, errors)
    if not form.one_trait_per_term:
        doc["house_rules"] = {"one_trait_per_term": False}
    notes = _read_notes(form, errors)
    if notes.strip():
        doc["notes"] = notes
    return FormDocument(doc, errors, skill_rows, trait_rows, item_rows)


def _read_identity(
    form: BuilderForm, base: dict[str, Any], doc: dict[str, Any], errors: dict[str, str]
) -> None:
    """Name, kind, budget, species, background, service, terms, former rank and age."""
    cat = catalog()
    bounds = field_bounds()
    values = form.values
    name = " ".join(values.get("name", "").split())
    if not name:
        errors["name"] = "Name: give the character a name."
    doc["name"] = (
        _within(name, "name", "Name", bounds.name, errors) if name else base.get("name", "Unnamed")
    )
    doc["kind"] = (
        values.get("kind") if values.get("kind") in ("pc", "npc") else base.get("kind", "pc")
    )
    budget = _whole(values.get("budget", ""), "budget", "Budget", errors, maximum=bounds.budget)
    doc["budget"] = budget if budget is not None else base.get("budget", cat.limits.default_budget)
    doc["species"] = values.get("species") or "human"
    for key, label in (
        ("homeworld", "Homeworld"),
        ("native_language", "Native language"),
        ("native_culture", "Native culture"),
        ("service", "Service"),
    ):
        text = " ".join(values.get(key, "").split())
        if text:
            doc[key] = _within(text, key, label, bounds.label, errors)
    for key, label, maximum in (
        ("terms", "Terms", bounds.terms),
        ("rank", "Former rank", bounds.rank),
    ):
        number = _whole(values.get(key, ""), key, label, errors, maximum=maximum)
        doc[key] = number if number is not None else base.get(key, 0)
    age = _whole(values.get("age", ""), "age", "Age", errors, maximum=bounds.age, optional=True)
    if age is not None:
        doc["age"] = age


def _read_mustering_out(
    form: BuilderForm, base: dict[str, Any], kind: str, errors: dict[str, str]
) -> dict[str, Any]:
    """The cash rolls as stored (dice are rolled on the server, never typed), or an NPC's
    starting credits, given rather than rolled; an unreadable figure keeps the stored one."""
    stored = base.get("mustering_out") or {}
    if stored.get("rolls") or kind != "npc" or not form.npc_credits:
        return stored if stored.get("rolls") else {}
    credits = _whole(
        form.npc_credits, "npc-credits", "Starting credits", errors, maximum=field_bounds().credits
    )
    if credits is None:
        return stored
    return {"credits": credits}


def _read_attributes(
    form: BuilderForm, base: dict[str, Any], kind: str, errors: dict[str, str]
) -> dict[str, int]:
    """The nine levels, each typed as a number or a hex digit; an unreadable one keeps the
    base document's level."""
    cat = catalog()
    attributes: dict[str, int] = {}
    maxima = cat.purchase_maxima(kind)
    for position, code in enumerate(cat.attribute_order):
        raw = form.attributes.get(code, "")
        level = cat.from_hex(raw) if len(raw) == 1 else None
        if level is None:
            level = whole_number(raw)
        # A level past every hex digit is no level the document can hold ("40" for "4").
        if level is None or abs(level) > cat.bounds.attribute:
            lowest, highest = cat.limits.purchase_min, maxima[position]
            errors[code] = (
                f"{code}: enter a level from {lowest} to {highest}, as a number or as a hex "
                f"digit from {cat.to_hex(lowest)} to {cat.to_hex(highest)}."
            )
            stored = base.get("attributes", {}).get(code, cat.limits.attribute_average)
            level = cat.from_hex(stored) if isinstance(stored, str) else stored
        attributes[code] = level if isinstance(level, int) else cat.limits.attribute_average
    return attributes


def _stored_entry(
    base: dict[str, Any], section: str, key: Callable[[dict[str, Any]], object], wanted: object
) -> dict[str, Any]:
    """The first of the base document's ``section`` entries whose ``key`` is ``wanted``, or
    an empty one: where an unreadable field of a row finds the value it keeps."""
    return next((entry for entry in base.get(section, []) if key(entry) == wanted), {})


def _read_skills(
    form: BuilderForm, base: dict[str, Any], errors: dict[str, str]
) -> tuple[list[dict[str, Any]], tuple[str, ...]]:
    """The skill entries, and the form row each came from; an unreadable level keeps the
    stored level of the same skill."""
    bounds = field_bounds()
    most = catalog().bounds.skills
    skills: list[dict[str, Any]] = []
    skill_rows: list[str] = []
    for skill_row in form.skills:
        row_key = skill_row.key
        if not skill_row.skill:
            continue
        if len(skills) == most:
            errors[f"skill-{row_key}-skill"] = _too_many("Skills", most)
            break
        level = _whole(
            skill_row.level,
            f"skill-{row_key}-level",
            f"{skill_row.skill} level",
            errors,
            maximum=bounds.skill_level,
        )
        if level is None:
            level = _stored_entry(
                base,
                "skills",
                lambda stored: (stored["skill"], stored.get("cascade", "")),
                (skill_row.skill, skill_row.cascade),
            ).get("level", 0)
        entry: dict[str, Any] = {"skill": skill_row.skill, "level": level}
        if skill_row.cascade:
            entry["cascade"] = _within(
                skill_row.cascade,
                f"skill-{row_key}-cascade",
                f"{skill_row.skill} cascade",
                bounds.label,
                errors,
            )
        if skill_row.specialties:
            entry["specialties"] = list(skill_row.specialties)
        skills.append(entry)
        skill_rows.append(row_key)
    return skills, tuple(skill_rows)


def _read_traits(
    form: BuilderForm, errors: dict[str, str]
) -> tuple[list[dict[str, Any]], tuple[str, ...]]:
    """The trait entries, and the form row each came from."""
    bounds = field_bounds()
    most = catalog().bounds.traits
    traits: list[dict[str, Any]] = []
    trait_rows: list[str] = []
    for trait_row in form.traits:
        row_key = trait_row.key
        if not (trait_row.name or trait_row.level or trait_row.derived):
            continue
        if len(traits) == most:
            errors[f"trait-{row_key}-name"] = _too_many("Traits", most)
            break
        name_id = f"trait-{row_key}-name"
        entry: dict[str, Any] = {
            "type": trait_row.type or "PP",
            "name": _within(trait_row.name, name_id, "Trait name", bounds.trait_name, errors),
        }
        if trait_row.derived:
            derived = {}
            for code, raw in trait_row.derived.items():
                amount = _whole(
                    raw,
                    f"trait-{row_key}-derived-{code}",
                    code,
                    errors,
                    minimum=-bounds.amount,
                    maximum=bounds.amount,
                )
                if amount:
                    derived[code] = amount
            entry["derived"] = derived
        if trait_row.level or trait_row.frequency or not trait_row.derived:
            entry["level"] = trait_row.level
            entry["frequency"] = trait_row.frequency
        if trait_row.control != control_by_default(entry["type"]):
            entry["control"] = trait_row.control
        traits.append(entry)
        trait_rows.append(row_key)
    return traits, tuple(trait_rows)


def _read_psionics(
    form: BuilderForm, base: dict[str, Any], errors: dict[str, str]
) -> dict[str, Any]:
    """PSI strength and talents; an unreadable one keeps its stored level."""
    bounds = field_bounds()
    stored = base.get("psionics") or {}
    strength = _whole(form.psi_strength, "psi-strength", "PSI strength", errors, maximum=bounds.psi)
    talents = {}
    for talent, raw in form.talents.items():
        level = _whole(raw, f"talent-{talent}", talent, errors, maximum=bounds.psi)
        if level is None:
            level = stored.get("talents", {}).get(talent)
        if level is not None:
            talents[talent] = level
    if strength is None:
        strength = stored.get("strength", 0)
    return {"strength": strength, "talents": talents}


def _read_equipment(
    form: BuilderForm, base: dict[str, Any], errors: dict[str, str]
) -> tuple[list[dict[str, Any]], tuple[str, ...]]:
    """The equipment entries, and the form row each came from; an unreadable quantity keeps
    the stored quantity of the same item."""
    bounds = field_bounds()
    most = catalog().bounds.equipment
    equipment: list[dict[str, Any]] = []
    item_rows: list[str] = []
    for item_row in form.items:
        row_key = item_row.key
        if not item_row.item:
            continue
        if len(equipment) == most:
            errors[f"item-{row_key}-item"] = _too_many("Equipment", most)
            break
        item, _, tl = item_row.item.partition("|")
        quantity = _whole(
            item_row.quantity,
            f"item-{row_key}-quantity",
            f"{item} quantity",
            errors,
            minimum=1,
            maximum=bounds.quantity,
        )
        if quantity is None:
            quantity = _stored_entry(
                base,
                "equipment",
                lambda stored: item_key(stored["item"], _resolved_tl(stored)),
                item_row.item,
            ).get("quantity", 1)
        entry: dict[str, Any] = {"item": item, "quantity": quantity}
        if (tl_number := natural_number(tl)) is not None:
            entry["tl"] = tl_number
        if item_row.worn:
            entry["worn"] = True
        equipment.append(entry)
        item_rows.append(row_key)
    return equipment, tuple(item_rows)


def _read_notes(form: BuilderForm, errors: dict[str, str]) -> str:
    # Browsers send a textarea's line breaks as CRLF; the document (and its export) keeps "\n".
    notes = form.values.get("notes", "").replace("\r\n", "\n")
    return _within(notes, "notes", "Notes", field_bounds().notes, errors)


_SECTION_OF = {
    "skills": "section-skills",
    "traits": "section-traits",
    "equipment": "section-equipment",
    "mustering_out": "section-mustering",
    "psionics": "section-psionics",
}


def field_for_problem(path: str, form_document: FormDocument) -> str:
    """The id of the form element that fixes a problem at ``path`` of the document."""
    match = _PATH_INDEX.match(path)
    if match:
        collection, index, attribute = match.group(1), int(match.group(2)), match.group(3)
        prefix, rows, fields = {
            "skills": (
                "skill",
                form_document.skill_rows,
                {"level": "level", "cascade": "cascade", "specialties": "specialties"},
            ),
            "traits": (
                "trait",
                form_document.trait_rows,
                {"level": "level", "frequency": "frequency", "type": "type", "name": "name"},
            ),
            "equipment": (
                "item",
                form_document.item_rows,
                {"worn": "worn", "quantity": "quantity"},
            ),
        }[collection]
        if index < len(rows):
            default = "skill" if prefix == "skill" else ("name" if prefix == "trait" else "item")
            return f"id_{prefix}-{rows[index]}-{fields.get(attribute or '', default)}"
        return _SECTION_OF[collection]
    head = path.split(".")[0].split("[")[0]
    if head == "attributes":
        return f"id_{path.split('.')[1]}"
    if head == "psionics":
        return "id_psi-strength" if path.endswith("strength") else "section-psionics"
    if head in _SECTION_OF:
        return _SECTION_OF[head]
    return f"id_{head}" if head else "section-identity"


def with_errors(form: BuilderForm, errors: dict[str, str]) -> BuilderForm:
    return replace(form, errors=errors)
