"""What the builder page shows: the figures of the form as it stands, checked by the rules
engine, and the catalog's choices and row templates. Reads only; the page is assembled here so
that the views stay small."""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from django.conf import settings

import rules
from characters.builder import form_document
from characters.builder.form_document import (
    ADD_BOXES,
    BuilderForm,
    FormDocument,
    ItemRow,
    SkillRow,
    TraitRow,
    field_for_problem,
)
from characters.builder.services import SAVED_ONLY_BY_SAVE
from characters.core import selectors as core_selectors
from characters.core.equipment import equipment_choices, item_key
from characters.core.mustering import mustering_rolls
from characters.models import Character
from characters.review.selectors import review_context
from rules import MalformedDocument, Report, check, format_trait, parse_document
from rules.engine import purchase_steps
from rules.model import control_by_default


@dataclass(frozen=True)
class SaveState:
    """What the builder's save state says when the page is drawn; the page's script keeps it
    up to date from then on. ``kind`` is "saved", "partial", "unsaved", "unreadable",
    "conflict" or "paused"."""

    kind: str
    text: str


NOT_SAVED_YET = SaveState("unsaved", "Not saved: press Save to keep these changes")


def initial_save_state(character: Character) -> SaveState:
    paused = SAVED_ONLY_BY_SAVE.get(character.status)
    if paused:
        return SaveState("paused", f"Not saved: {paused}")
    return SaveState("saved", "All changes saved")


def figures(
    character: Character, form: BuilderForm, *, sitting: str = "", stamp: int = 0
) -> dict[str, Any]:
    """The figures of the form as it stands: what every save's answer sends again (points,
    UPP, derived attributes, problems, each row's figures), and the page's bookkeeping."""
    cat = rules.catalog()
    read = form_document.document_from_form(form, base=character.document)
    errors = dict(read.errors)
    try:
        report = check(parse_document(read.document), house_rules=character.house_rules())
    except MalformedDocument as malformed:
        errors["form"] = str(malformed)
        report = core_selectors.character_report(character)
    form = form_document.with_errors(form, errors)
    service = cat.find_service(read.document.get("service", ""))
    species = cat.species.get(read.document.get("species", "human")) or cat.species["human"]
    unreadable = _unreadable_fields(form)
    return {
        "character": character,
        "document": read.document,
        "form": form,
        "report": report,
        "version": character.version,
        "points_state": _points_state(report.points.remaining),
        "points_parts": _points_parts(report.points),
        "derived_items": [
            (code, cat.derived_names[code], value)
            for code, value in report.derived.as_dict().items()
        ],
        "problems": unreadable + _problems(report, read),
        "error_count": len(unreadable) + len(report.errors),
        "warning_count": len(report.warnings),
        "attribute_rows": _attribute_rows(report, form),
        "limits": cat.limits,
        "bounds": form_document.field_bounds(),
        # Each row with the engine's line for it, found by the row's key.
        "skill_rows": _rows(form.skills, read.skill_rows, report.skills.lines),
        "trait_rows": _rows(form.traits, read.trait_rows, report.traits),
        "item_rows": [
            row | {"name": row["form"].item.partition("|")[0]}
            for row in _rows(form.items, read.item_rows, report.equipment.lines)
        ],
        "mustering_service": service.name if service else "",
        "mustering_rolls": mustering_rolls(read.document, report),
        "automatic_lines": report.skills.lines[len(read.skill_rows) :],
        # A new sitting for each page drawn from the stored character; a page drawn again from
        # a post carries its sitting on, and the count of its saves.
        "editing_session": sitting or secrets.token_urlsafe(12),
        "edit_stamp": stamp if sitting else 0,
        "psi_max": rules.psi_strength_limit(report.attribute("EXP").dv),
        "package_lines": [t for t in report.traits if t.source == "package"],
        "species_name": species.name,
        "species_default_language": species.native_language,
        "species_default_culture": species.native_culture,
    }


def _rows(
    rows: Iterable[SkillRow | TraitRow | ItemRow], keys: tuple[str, ...], lines: Iterable[Any]
) -> list[dict[str, Any]]:
    """Each of the form's rows, with the engine's line for the document entry it became (the
    ``keys`` of the rows that became entries, in order); None for a row that became none."""
    line_of = dict(zip(keys, lines, strict=False))
    return [
        {"key": row.key, "number": number, "form": row, "line": line_of.get(row.key)}
        for number, row in enumerate(rows, start=1)
    ]


def builder_page(
    character: Character,
    form: BuilderForm,
    *,
    save_state: SaveState | None = None,
    conflict: dict[str, Any] | None = None,
    sitting: str = "",
    stamp: int = 0,
) -> dict[str, Any]:
    """Everything the whole builder page shows: the figures, the inputs' choices, the rows'
    templates and the review panel."""
    cat = rules.catalog()
    context = figures(character, form, sitting=sitting, stamp=stamp)
    context.update(catalog_choices())
    context.update(
        review_context(
            character, core_selectors.character_report(character), user_pk=character.owner_id
        )
    )
    form = context["form"]
    for row in context["skill_rows"]:
        row.update(skill_row_choices(row["form"]))
    trait_codes = {
        "type": {trait_type["code"] for trait_type in context["trait_types"]},
        "level": {code for code, _label in context["trait_levels"]},
        "frequency": set(cat.frequencies),
    }
    for row in context["trait_rows"]:
        row["is_flaw"] = row["form"].type in cat.flaw_types
        # A code the catalog lacks (an imported document's) stays chosen in its select, marked
        # as such: the browser would show the first option instead, and the next save store it.
        row["off_list"] = {
            field: value
            for field, codes in trait_codes.items()
            if (value := getattr(row["form"], field)) and value not in codes
        }
    item_keys = {key for _table, items in context["equipment_choices"] for key, _label in items}
    for row in context["item_rows"]:
        row["off_list"] = bool(row["form"].item) and row["form"].item not in item_keys
        row["wearable"] = row["form"].item in context["wearable_items"]
    species_key, service_key = form.values["species"], form.values["service"]
    context.update(
        save_state=save_state or initial_save_state(character),
        conflict=conflict,
        species_off_list=species_key if species_key not in cat.species else "",
        service_off_list=service_key if service_key not in cat.services else "",
        talents=[{"name": t, "value": form.talents.get(t, "")} for t in cat.talents],
        mustering_rolls=mustering_rolls(
            context["document"], context["report"], records=character.mustering_rolls.all()
        ),
        # Where the stored document came from: a page drawn while its last save as it was left
        # was still on its way (a reload) is older than that save, and sends it again.
        csrf_cookie=settings.CSRF_COOKIE_NAME,
        stored_sitting=character.builder_sitting,
        stored_stamp=character.builder_stamp,
    )
    return context


def skill_row_choices(row: SkillRow) -> dict[str, Any]:
    """What a skill row offers beyond its fields: its catalog entry, its cascades, and what it
    holds that the catalog lacks (an imported document's names), kept as chosen."""
    definition = rules.catalog().find_skill(row.skill)
    cascade_choices = (
        list(zip(definition.cascades, definition.cascade_labels, strict=True)) if definition else []
    )
    known = {specialty.name for specialty in getattr(definition, "specialties", ())}
    chosen = {choice for choice, _label in cascade_choices}
    return {
        "definition": definition,
        "name": definition.name if definition else row.skill,
        "summary": definition.summary if definition else "",
        "cascade_choices": cascade_choices,
        "off_list_specialties": [s for s in row.specialties if s not in known],
        "off_list_cascade": row.cascade
        if row.cascade and chosen and row.cascade not in chosen
        else "",
    }


def _unreadable_fields(form: BuilderForm) -> list[dict[str, Any]]:
    """A field the form could not read comes first among the problems: the engine checked its
    last good value, so without it the page would show nothing wrong with what was typed."""
    return [
        {"code": "unreadable_field", "severity": "error", "message": message, "anchor": f"id_{f}"}
        for f, message in form.errors.items()
        # What an add box could not add is said beside the box: nothing in the character is
        # wrong because of it.
        if f not in ADD_BOXES
    ]


def _problems(report: Report, read: FormDocument) -> list[dict[str, Any]]:
    return [
        {
            "code": p.code,
            "severity": p.severity,
            "message": p.message,
            "anchor": field_for_problem(p.path, read),
        }
        for p in report.problems
    ]


def _points_state(remaining: int) -> str:
    if remaining < 0:
        return "points--over"
    return "points--exact" if remaining == 0 else "points--under"


_POINTS_PARTS = (
    ("attributes", "Attributes"),
    ("skills", "Skills"),
    ("perks", "Perks"),
    ("flaws", "Flaws"),
    ("rank", "Rank"),
    ("psionics", "Psionics"),
    ("package", "Package"),
)


def _points_parts(points: Any) -> list[dict[str, Any]]:
    """Each part of the points bar: its points and its share of the bar's width."""
    parts = []
    for key, label in _POINTS_PARTS:
        value = getattr(points, key)
        width = round(100 * value / max(points.budget, points.total, 1), 1) if value > 0 else 0
        parts.append({"key": key, "label": label, "points": value, "width": width})
    return parts


def _attribute_rows(report: Report, form: BuilderForm) -> list[dict[str, Any]]:
    cat = rules.catalog()
    maxima = cat.purchase_maxima(report.kind)
    rows = []
    for position, (value, (can_raise, can_lower)) in enumerate(
        zip(report.attributes, purchase_steps(report), strict=True)
    ):
        group = next(g for g, codes in cat.attribute_groups.items() if value.code in codes)
        rows.append(
            {
                "code": value.code,
                "label": cat.attribute_names[value.code],
                "raw": form.attributes.get(value.code, ""),
                "value": value,
                "max": maxima[position],
                "step": cat.limits.points_per_attribute_level,
                "can_raise": can_raise,
                "can_lower": can_lower,
                "group": group,
                "group_start": cat.attribute_groups[group][0] == value.code,
            }
        )
    return rows


def conflict(current: Character, yours_from: int, yours: dict[str, Any]) -> dict[str, Any]:
    """What the conflict panel compares: every difference between the stored version and the
    one the player tried to save, as the history's diff reads them."""
    # The save normalised the document before it found the conflict, so this cannot fail.
    yours = rules.normalise_document(yours)
    return {
        "yours_from": yours_from,
        "theirs_version": current.version,
        "theirs_saved": current.updated_at,
        "changes": rules.document_changes(current.document, yours),
    }


@cache
def catalog_choices() -> dict[str, Any]:
    """Choices, tables and row templates that depend only on the catalog: made once per
    process."""
    cat = rules.catalog()
    kind_labels = {"plain": "skill", "cascade": "choose a cascade", "spec": "has specialties"}
    skill_catalog = [
        {
            "name": s.name,
            "kind": s.kind,
            "group": s.group,
            "kind_label": kind_labels[s.kind],
            "summary": s.summary,
        }
        for s in cat.skills
    ]
    groups: dict[str, list[dict[str, str]]] = {}
    for skill in skill_catalog:
        groups.setdefault(skill["group"], []).append(skill)
    services_by_source: dict[str, list[Any]] = {}
    for service in cat.services.values():
        services_by_source.setdefault(service.source, []).append(service)
    frequencies = list(cat.frequencies.items())
    return {
        "skill_catalog": skill_catalog,
        "skill_groups": sorted(groups.items()),
        "skill_count": len(skill_catalog),
        "species_choices": list(cat.species.items()),
        "service_choices": list(services_by_source.items()),
        "equipment_choices": equipment_choices(),
        # What may be marked worn: armor, as armor (an add-on goes with the armor it fits).
        "wearable_items": frozenset(
            item_key(item.name, item.tl) for item in cat.equipment if item.is_worn_armor
        ),
        "trait_grids": _trait_grids(frequencies),
        "example_traits": _example_traits(),
        # What a row's type brings: a flaw's row shows its control-score box, ticked by default
        # where the type has one.
        "trait_types": [
            {
                "code": code,
                "label": label,
                "flaw": code in cat.flaw_types,
                "control": control_by_default(code),
            }
            for code, label in (*cat.perk_types.items(), *cat.flaw_types.items())
        ],
        "trait_levels": [
            (c, v["name"]) for c, v in (*cat.perk_levels.items(), *cat.flaw_levels.items())
        ],
        "trait_frequencies": frequencies,
        "derived_codes": cat.derived_order,
        "hex_digits": cat.hex_digits,
        "row_templates": _row_templates(),
        "names_catalog": names_catalog(),
    }


def _trait_grids(frequencies: list[tuple[str, str]]) -> list[dict[str, Any]]:
    cat = rules.catalog()
    grids = []
    for title, trait_type, levels in (
        ("Perk cost", "PP", cat.perk_levels),
        ("Flaw value", "PF", cat.flaw_levels),
    ):
        rows = [
            {
                "code": code,
                "name": level["name"],
                "control_score": level.get("control_score"),
                "cells": [
                    {"frequency": f, "label": label, **_trait_cell(trait_type, code, f)}
                    for f, label in frequencies
                ],
            }
            for code, level in levels.items()
        ]
        grids.append({"title": title, "type": trait_type, "rows": rows, "frequencies": frequencies})
    return grids


def _example_traits() -> list[dict[str, str]]:
    examples = []
    for example in rules.catalog().example_traits:
        trait = rules.TraitEntry(
            example["type"], example["name"], example["level"], example["frequency"]
        )
        points = _table_points(example["type"], example["level"], example["frequency"])
        examples.append(
            {"name": example["name"], "notation": format_trait(trait, points), **example}
        )
    return examples


def _table_points(trait_type: str, level: str, frequency: str) -> int:
    """The points of a trait the catalog's own tables list (so it has some)."""
    points = rules.catalog().trait_points(trait_type, level, frequency)
    if points is None:
        raise LookupError(f"the trait table has no {trait_type}{level}{frequency}")
    return points


def _trait_cell(trait_type: str, level: str, frequency: str) -> dict[str, Any]:
    """A cell of the trait grid: its points, and what a screen reader says the click does."""
    points = _table_points(trait_type, level, frequency)
    size = abs(points)
    amount = f"{size} point{'' if size == 1 else 's'}"
    return {"points": points, "spoken": f"gives {amount} back" if points < 0 else f"costs {amount}"}


# The key and place of a row a template makes: the page's script puts the new row's own in.
TEMPLATE_KEY = "__key__"
TEMPLATE_NUMBER = "__number__"


def _row_templates() -> dict[str, Any]:
    """The rows the page makes itself, drawn by the same partials as the rows it is given: a
    skill row (whose cascade and specialty cells each cascade or specialty skill replaces with
    its own), a trait row of each shape, and an item row."""
    cat = rules.catalog()
    blank_skill = SkillRow(key=TEMPLATE_KEY, skill="__skill__")
    skill_parts = [
        {"key": TEMPLATE_KEY, "form": SkillRow(key=TEMPLATE_KEY, skill=s.name), "line": None}
        | skill_row_choices(SkillRow(key=TEMPLATE_KEY, skill=s.name))
        for s in cat.skills
        if s.kind != "plain"
    ]
    return {
        "skill": {"key": TEMPLATE_KEY, "form": blank_skill, "line": None, "name": "__skill__"}
        | {"definition": None, "cascade_choices": [], "summary": "__summary__"},
        "skill_parts": skill_parts,
        "trait": {
            "key": TEMPLATE_KEY,
            "number": TEMPLATE_NUMBER,
            "form": TraitRow(key=TEMPLATE_KEY),
            "line": None,
        },
        "derived_trait": {
            "key": TEMPLATE_KEY,
            "number": TEMPLATE_NUMBER,
            "form": TraitRow(key=TEMPLATE_KEY, derived={"DEF": "1"}),
            "line": None,
        },
        "item": {
            "key": TEMPLATE_KEY,
            "number": TEMPLATE_NUMBER,
            "form": ItemRow(key=TEMPLATE_KEY),
            "line": None,
            "name": "",
        },
    }


def names_catalog() -> dict[str, Any]:
    """What the page's script reads typed names with (static/js/builder/names.js), as
    ``resolve_skill`` and ``Catalog.skills_like`` read them: every key a skill, cascade or
    specialty is known by, the words of the skills' names and summaries, and the trait
    tables a notation is checked against."""
    return rules.catalog().typed_names_index()
