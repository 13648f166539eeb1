"""The builder form: a character document as HTML form fields, and back again.

The builder page is one ``<form>``. Without JavaScript every button submits it and the server
re-renders the page; with htmx the same fields are posted to the preview endpoint after each
change. Either way the form is read here into a character document, and the rules engine does
the rest: nothing in this module knows a rule.

Field names: the nine attribute codes; ``name``, ``species``, ``terms``…; repeated rows as
``skill-<n>-<field>``, ``trait-<n>-<field>`` and ``item-<n>-<field>``; psionics as
``psi-trained``, ``psi-strength`` and ``talent-<Talent>``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, cast

from django import forms
from django.conf import settings
from django.http import QueryDict

from characters.core.forms import (
    MAX_DIGITS,
    MAX_VERSION,
    VersionField,
    WholeNumberField,
    natural_number,
    whole_number,
)
from rules import FORMAT, NotationError, catalog, parse_skill, parse_trait
from rules.document import TOP_LEVEL_FIELDS
from rules.model import control_by_default

# A row's number has at most MAX_DIGITS digits 0-9: a field name is anyone's to write, and int()
# refuses one of thousands of digits (a server error), where a name that is no row is ignored.
_ROW_FIELD = re.compile(rf"^(skill|trait|item)-([0-9]{{1,{MAX_DIGITS}}})-([a-z]+(?:-[A-Z]{{3}})?)$")
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
    # A derived trait's amount, of either sign. Skill levels are read within it too, though
    # their inputs show the engine's limit for the character.
    amount: int
    psi: int  # PSI strength and each talent's level
    quantity: int
    name: int
    label: int  # a background field's text, or a cascade typed for a skill
    trait_name: int
    notes: int


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
        psi=limits.psi_max_cap,
        quantity=bounds.quantity,
        name=bounds.name_length,
        label=bounds.label_length,
        trait_name=bounds.trait_name_length,
        notes=bounds.notes_length,
    )


@dataclass
class SkillRow:
    skill: str = ""
    cascade: str = ""
    level: str = "1"
    specialties: list[str] = field(default_factory=list)


@dataclass
class TraitRow:
    type: str = "PP"
    name: str = ""
    level: str = ""
    frequency: str = ""
    control: bool = False
    derived: dict[str, str] = field(default_factory=dict)


@dataclass
class ItemRow:
    item: str = ""  # "<name>|<tl>", the key of an equipment choice
    quantity: str = "1"


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
    new_skill: str = ""
    trait_notation: str = ""
    errors: dict[str, str] = field(default_factory=dict)
    # The catalog's names a skill typed in the add box may stand for, each offered as a button.
    skill_suggestions: tuple[str, ...] = ()


@dataclass(frozen=True)
class FormDocument:
    """A form read as a document, with the rows each document list entry came from."""

    document: dict[str, Any]
    errors: dict[str, str]
    skill_rows: tuple[int, ...]
    trait_rows: tuple[int, ...]
    item_rows: tuple[int, ...]


def item_key(name: str, tl: int | None) -> str:
    return f"{name}|{'' if tl is None else tl}"


_EQUIPMENT_TABLE_LABELS = {
    "armor": "Armor",
    "melee": "Melee weapons",
    "ranged": "Ranged weapons",
    "accessories": "Accessories",
}


def equipment_choices() -> list[tuple[str, list[tuple[str, str]]]]:
    """The catalog's equipment grouped by table, as (item key, "name · TL · price · kg") pairs:
    the options of every item picker (the builder's and the play sheet's)."""
    grouped: dict[str, list[tuple[str, str]]] = {}
    for item in catalog().equipment:
        price = f"Cr{item.cost:,}" if item.cost is not None else "price varies"
        tl = f" · TL {item.tl}" if item.tl is not None else ""
        grouped.setdefault(_EQUIPMENT_TABLE_LABELS.get(item.table, item.table), []).append(
            (item_key(item.name, item.tl), f"{item.name}{tl} · {price} · {item.weight_kg:g} kg")
        )
    return list(grouped.items())


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
                skill=s["skill"],
                cascade=_text(s.get("cascade")),
                level=_text(s.get("level")),
                specialties=list(s.get("specialties", [])),
            )
            for s in document.get("skills", [])
        ],
        traits=[
            TraitRow(
                type=t["type"],
                name=t["name"],
                level=_text(t.get("level")),
                frequency=_text(t.get("frequency")),
                control=t.get("control", control_by_default(t["type"])),
                derived={code: str(amount) for code, amount in (t.get("derived") or {}).items()},
            )
            for t in document.get("traits", [])
        ],
        items=[
            ItemRow(item=item_key(e["item"], _resolved_tl(e)), quantity=_text(e.get("quantity", 1)))
            for e in document.get("equipment", [])
        ],
        psionics_trained=psionics is not None,
        psi_strength=_text(psionics["strength"]) if psionics else "",
        talents={k: str(v) for k, v in (psionics or {}).get("talents", {}).items()},
        one_trait_per_term=(document.get("house_rules") or {}).get("one_trait_per_term", True),
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
    """The posted builder form, as typed (strings), row by row.

    The rows are gathered here rather than by a Django formset: the live preview reads the
    whole form on every edit, and a bound Django form of a row's four fields costs about 0.3 ms
    to build and clean on the development machine, so a typical character's rows would add a
    third to each preview. ``document_from_form`` then reads each value: numbers through a
    Django field (``WholeNumberField``), text against the bounds the engine's parser enforces,
    and either way an error names the field and the problem."""
    cat = catalog()
    rows: dict[str, dict[int, dict[str, Any]]] = {"skill": {}, "trait": {}, "item": {}}
    for key in post:
        match = _ROW_FIELD.match(key)
        if match:
            kind, index, name = match.group(1), int(match.group(2)), match.group(3)
            value = post.getlist(key) if name == "specialties" else post.get(key, "")
            rows[kind].setdefault(index, {})[name] = value
    skills = [
        SkillRow(
            skill=r.get("skill", "").strip(),
            cascade=r.get("cascade", "").strip(),
            level=r.get("level", "").strip(),
            specialties=[s for s in r.get("specialties", []) if s],
        )
        for _, r in sorted(rows["skill"].items())
    ]
    traits = [
        TraitRow(
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
        for _, r in sorted(rows["trait"].items())
    ]
    items = [
        ItemRow(item=r.get("item", ""), quantity=r.get("quantity", "1").strip())
        for _, r in sorted(rows["item"].items())
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
        new_skill=post.get("new-skill", "").strip(),
        trait_notation=post.get("trait-notation", "").strip(),
    )


def apply_action(form: BuilderForm, action: str) -> BuilderForm:
    """Apply a button's action, such as ``add_skill``, ``add_skill:Pilot``, ``remove_trait:2``
    or ``step:STR:-1``, to the form.

    ``enter`` is the form's default button, what Enter in a text field presses: it adds what
    the add-a-skill or add-from-notation box holds, and otherwise changes nothing."""
    verb, _, argument = action.partition(":")
    if verb == "enter":
        if form.new_skill:
            verb = "add_skill"
        elif form.trait_notation:
            verb = "add_trait_notation"
    handler = _ACTIONS.get(verb)
    if handler is not None:
        handler(form, argument)
    return form


def _add_skill(form: BuilderForm, argument: str) -> None:
    wanted = argument or form.new_skill
    if not wanted.strip():
        # A row without a name would have no box to type one into, and is never stored.
        form.errors["new-skill"] = "Type a skill's name or pick one from the list first."
        return
    try:
        row = _skill_row(wanted)
    except UnknownSkill as unknown:
        form.errors["new-skill"] = str(unknown)
        form.skill_suggestions = unknown.suggestions
        return
    except ValueError as unfit:
        form.errors["new-skill"] = str(unfit)
        return
    form.skills.append(row)
    form.new_skill = ""


class UnknownSkill(ValueError):
    """A typed skill the catalog lacks, with the names it may stand for."""

    def __init__(self, text: str, skill: str) -> None:
        super().__init__(f"{text!r} is not a skill in the catalog.")
        self.suggestions = catalog().skills_like(skill)


# The level of a skill in the rulebook's notation, with the specialties after it if any.
_SKILL_LEVEL = re.compile(r"-\s*\d+\s*(?:\([^()]*\))?$")


def _skill_row(text: str) -> SkillRow:
    """The row a typed skill stands for: a name from the catalog, or one written in the
    rulebook's notation as the sheet shows it ("Language (Vilani)", "Blade Combat (swords)-1",
    "Pilot-2 (small craft)"). Raises ValueError saying what the catalog does not have."""
    cat = catalog()
    definition = cat.find_skill(text)
    if definition is not None:
        return SkillRow(skill=definition.name)
    try:
        # Without a level ("Language (Vilani)"), the level a new row starts at.
        entry = parse_skill(text if _SKILL_LEVEL.search(text) else f"{text}-1")
    except NotationError:
        raise UnknownSkill(text, text) from None
    definition = cat.find_skill(entry.skill)
    if definition is None:
        raise UnknownSkill(text, entry.skill)
    cascade = entry.cascade or ""
    if cascade and not definition.open:
        known = definition.find_cascade(cascade) if definition.is_cascade else None
        if known is None and definition.is_spec:
            example = f"{definition.name}-2 ({definition.specialties[0].name})"
            raise ValueError(
                f"{definition.name} has no cascade; its specialties follow the level: {example}."
            )
        if known is None:
            raise ValueError(f"{definition.name} has no cascade {cascade!r}.")
        cascade = known
    specialties = []
    for specialty in entry.specialties:
        known = definition.find_specialty(specialty)
        if known is None:
            raise ValueError(f"{definition.name} has no specialty {specialty!r}.")
        specialties.append(known)
    return SkillRow(
        skill=definition.name, cascade=cascade, level=str(entry.level), specialties=specialties
    )


def _add_trait(form: BuilderForm, argument: str) -> None:
    trait_type, level, frequency = ([*argument.split(":"), "", "", ""])[:3]
    form.traits.append(
        TraitRow(
            type=trait_type or "PP",
            level=level,
            frequency=frequency,
            control=control_by_default(trait_type),
        )
    )


def _add_derived_trait(form: BuilderForm, argument: str) -> None:
    form.traits.append(
        TraitRow(type=argument or "PP", derived={"DEF": "1" if argument != "PF" else "-1"})
    )


def _add_example_trait(form: BuilderForm, argument: str) -> None:
    example = next((t for t in catalog().example_traits if t["name"] == argument), None)
    if example is not None:
        form.traits.append(
            TraitRow(
                type=example["type"],
                name=example["name"],
                level=example["level"],
                frequency=example["frequency"],
            )
        )


def _add_trait_notation(form: BuilderForm, argument: str) -> None:
    notation = argument or form.trait_notation
    if not notation:
        return
    try:
        trait = parse_trait(notation)
    except NotationError as error:
        form.errors["trait-notation"] = str(error)
        return
    form.traits.append(
        TraitRow(
            type=trait.type,
            level=trait.level or "",
            frequency=trait.frequency or "",
            control=trait.control,
            derived={code: str(amount) for code, amount in trait.derived},
        )
    )
    form.trait_notation = ""


def _add_item(form: BuilderForm, argument: str) -> None:
    form.items.append(ItemRow())


# What each button's verb does to the form; the argument follows the verb after a colon.
_ACTIONS: dict[str, Callable[[BuilderForm, str], None]] = {
    "add_skill": _add_skill,
    "step": lambda form, argument: _step_attribute(form, *argument.partition(":")[::2]),
    "remove_skill": lambda form, argument: _remove(form.skills, argument),
    "add_trait": _add_trait,
    "add_derived_trait": _add_derived_trait,
    "add_example_trait": _add_example_trait,
    "add_trait_notation": _add_trait_notation,
    "remove_trait": lambda form, argument: _remove(form.traits, argument),
    "add_item": _add_item,
    "remove_item": lambda form, argument: _remove(form.items, argument),
}


def _step_attribute(form: BuilderForm, code: str, delta: str) -> None:
    """One level up or down from what the field holds (a number or a hex digit), as the page's
    steppers do: within the purchase range a step stays inside it, from outside it only goes
    back towards it, and a field that holds no level starts again at the average."""
    cat = catalog()
    raw = form.attributes.get(code)
    if raw is None or code not in cat.attribute_order or delta not in ("1", "-1"):
        return
    level = cat.from_hex(raw) if len(raw) == 1 else whole_number(raw)
    if level is None:
        form.attributes[code] = str(cat.limits.attribute_average)
        return
    kind = form.values.get("kind") or "pc"
    if kind not in ("pc", "npc"):
        kind = "pc"
    highest = cat.purchase_maxima(kind)[cat.attribute_order.index(code)]
    step = int(delta)
    if (step > 0 and level >= highest) or (step < 0 and level <= cat.limits.purchase_min):
        return
    form.attributes[code] = str(level + step)


def _remove(rows: list, argument: str) -> None:
    index = natural_number(argument)
    if index is not None and index < len(rows):
        del rows[index]


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
    if base.get("mustering_out"):
        doc["mustering_out"] = base["mustering_out"]
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
) -> tuple[list[dict[str, Any]], tuple[int, ...]]:
    """The skill entries, and the form row each came from; an unreadable level keeps the
    stored level of the same skill."""
    bounds = field_bounds()
    most = catalog().bounds.skills
    skills: list[dict[str, Any]] = []
    skill_rows: list[int] = []
    for row_index, skill_row in enumerate(form.skills):
        if not skill_row.skill:
            continue
        if len(skills) == most:
            errors[f"skill-{row_index}-skill"] = _too_many("Skills", most)
            break
        level = _whole(
            skill_row.level,
            f"skill-{row_index}-level",
            f"{skill_row.skill} level",
            errors,
            minimum=-bounds.amount,
            maximum=bounds.amount,
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
                f"skill-{row_index}-cascade",
                f"{skill_row.skill} cascade",
                bounds.label,
                errors,
            )
        if skill_row.specialties:
            entry["specialties"] = list(skill_row.specialties)
        skills.append(entry)
        skill_rows.append(row_index)
    return skills, tuple(skill_rows)


def _read_traits(
    form: BuilderForm, errors: dict[str, str]
) -> tuple[list[dict[str, Any]], tuple[int, ...]]:
    """The trait entries, and the form row each came from."""
    bounds = field_bounds()
    most = catalog().bounds.traits
    traits: list[dict[str, Any]] = []
    trait_rows: list[int] = []
    for row_index, trait_row in enumerate(form.traits):
        if not (trait_row.name or trait_row.level or trait_row.derived):
            continue
        if len(traits) == most:
            errors[f"trait-{row_index}-name"] = _too_many("Traits", most)
            break
        name_id = f"trait-{row_index}-name"
        entry: dict[str, Any] = {
            "type": trait_row.type or "PP",
            "name": _within(trait_row.name, name_id, "Trait name", bounds.trait_name, errors),
        }
        if trait_row.derived:
            derived = {}
            for code, raw in trait_row.derived.items():
                amount = _whole(
                    raw,
                    f"trait-{row_index}-derived-{code}",
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
        trait_rows.append(row_index)
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
) -> tuple[list[dict[str, Any]], tuple[int, ...]]:
    """The equipment entries, and the form row each came from; an unreadable quantity keeps
    the stored quantity of the same item."""
    bounds = field_bounds()
    most = catalog().bounds.equipment
    equipment: list[dict[str, Any]] = []
    item_rows: list[int] = []
    for row_index, item_row in enumerate(form.items):
        if not item_row.item:
            continue
        if len(equipment) == most:
            errors[f"item-{row_index}-item"] = _too_many("Equipment", most)
            break
        item, _, tl = item_row.item.partition("|")
        quantity = _whole(
            item_row.quantity,
            f"item-{row_index}-quantity",
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
        entry = {"item": item, "quantity": quantity}
        if (tl_number := natural_number(tl)) is not None:
            entry["tl"] = tl_number
        equipment.append(entry)
        item_rows.append(row_index)
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
            "equipment": ("item", form_document.item_rows, {}),
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


class NewCharacterForm(forms.Form):
    """A new character: its name, whether a player plays it, its species and (an NPC's) budget."""

    name = forms.CharField(
        max_length=catalog().bounds.name_length,
        error_messages={
            "required": "Give the character a name.",
            "max_length": f"A name has at most {catalog().bounds.name_length} characters.",
        },
    )
    kind = forms.ChoiceField(
        choices=[("pc", "Player character"), ("npc", "NPC")],
        error_messages={
            "required": "Choose a player character or an NPC.",
            "invalid_choice": "Choose a player character or an NPC.",
        },
    )
    species = forms.ChoiceField(
        error_messages={
            "required": "Choose a species from the list.",
            "invalid_choice": "Choose a species from the list.",
        },
    )
    budget = forms.CharField(required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        species = cast(forms.ChoiceField, self.fields["species"])
        species.choices = [(key, s.name) for key, s in catalog().species.items()]

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        limits = catalog().limits
        data["budget_points"] = limits.default_budget
        if data.get("kind") == "npc":
            budget = WholeNumberField(
                label="An NPC's budget", minimum=0, maximum=limits.max_budget, required=True
            )
            try:
                data["budget_points"] = budget.read(data.get("budget", ""))
            except forms.ValidationError as invalid:
                self.add_error("budget", invalid)
        return data


class ImportForm(forms.Form):
    """A character document to import: a JSON file, at most ``settings.MAX_IMPORT_BYTES``."""

    document = forms.FileField(
        error_messages={
            "required": "document: choose a character document (a .json file) to upload.",
            "missing": "document: choose a character document (a .json file) to upload.",
            "empty": "document: the file is empty.",
        }
    )

    def clean_document(self) -> Any:
        upload = self.cleaned_data["document"]
        if upload.size > settings.MAX_IMPORT_BYTES:
            limit = settings.MAX_IMPORT_BYTES // 1000
            raise forms.ValidationError(
                f"{upload.name}: larger than {limit} kB; a character document is far smaller."
            )
        return upload


class PasteStatBlockForm(forms.Form):
    """A stat block to paste as a new draft: its text, player character or NPC, and whether to
    read it (``preview``) or create the draft read from it (``create``). ``previewed`` is the
    fingerprint of the text the person last saw read: a draft is made only from that text."""

    text = forms.CharField(
        strip=False,
        # A stat block is a few lines; its description is kept as the notes, so no longer.
        max_length=catalog().bounds.notes_length,
        widget=forms.Textarea,
        error_messages={
            "required": "Stat block: paste the stat block's text.",
            "max_length": f"Stat block: at most {catalog().bounds.notes_length:,} characters; "
            "a stat block is far shorter.",
        },
    )
    kind = forms.ChoiceField(
        choices=[("pc", "Player character"), ("npc", "NPC")],
        error_messages={
            "required": "Kind: choose a player character or an NPC.",
            "invalid_choice": "Kind: choose a player character or an NPC.",
        },
    )
    action = forms.ChoiceField(
        choices=[("preview", "Read it"), ("create", "Create")], required=False
    )
    previewed = forms.CharField(required=False, max_length=64)

    def fingerprint(self) -> str:
        """What the preview of the cleaned text and kind is known by."""
        data = self.cleaned_data
        return hashlib.sha256(f"{data['kind']}\n{data['text']}".encode()).hexdigest()

    def creates(self) -> bool:
        """Whether to create the draft: asked for, from the very text last previewed."""
        data = self.cleaned_data
        return data["action"] == "create" and data["previewed"] == self.fingerprint()


class ButtonForm(forms.Form):
    """Which of the builder's buttons was pressed (``action``: save, roll, add or remove a
    row…) and, for a live preview, the names of the inputs edited since the last one."""

    action = forms.CharField(required=False, max_length=100)
    edited = forms.CharField(required=False, max_length=10_000, strip=False)

    def pressed(self, default: str) -> str:
        return (self.cleaned_data["action"] if self.is_valid() else "") or default

    def edited_inputs(self) -> str | None:
        """None when the page did not say (a client without the builder's script)."""
        if "edited" not in self.data or not self.is_valid():
            return None
        return str(self.cleaned_data["edited"])


# The buttons that add or remove a row: what a page left while one was on its way still asks.
ROW_VERBS = frozenset(verb for verb in _ACTIONS if verb.startswith(("add_", "remove_")))
# More rows than a page could ask for in the moment it is left: a player adds them one by one.
MOST_ROWS_ON_THEIR_WAY = 50


class RowsOnTheirWayForm(forms.Form):
    """The rows a builder page asked for and had not shown when it was left (``rows``: one
    button action each, such as ``add_skill:Pilot`` or ``remove_item:2``, in the order asked):
    its last save applies them, as their previews would have, so leaving loses none."""

    rows = forms.Field(required=False, widget=forms.MultipleHiddenInput)

    def clean_rows(self) -> list[str]:
        rows = [str(row) for row in self.cleaned_data["rows"] or []]
        if len(rows) > MOST_ROWS_ON_THEIR_WAY:
            raise forms.ValidationError(f"more than {MOST_ROWS_ON_THEIR_WAY} rows on their way")
        for row in rows:
            if len(row) > 200 or row.partition(":")[0] not in ROW_VERBS:
                raise forms.ValidationError(f"{row[:40]!r} is not a row's button")
        return rows

    def applied_to(self, form: BuilderForm) -> BuilderForm:
        """``form`` with the rows on their way added or removed; none when they are unreadable."""
        for row in self.cleaned_data["rows"] if self.is_valid() else ():
            form = apply_action(form, row)
        return form


class SaveStampForm(forms.Form):
    """What a builder save carries beside the character: the version the page was built from
    (a save from a page that fell behind is a conflict, never an overwrite), the sitting it
    belongs to (its saves share one revision) and its place among that sitting's saves, which
    may arrive out of order (one older than a save already stored changes nothing)."""

    version = VersionField()
    editing_session = forms.CharField(max_length=32, required=False)
    edit_stamp = WholeNumberField(
        minimum=0, maximum=MAX_VERSION, default=0, required=False, widget=forms.HiddenInput
    )
