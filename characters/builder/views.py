"""Character pages: list, create, the builder and its live preview, sheet, import and export.

Every view that takes an id gets the character through ``character_for_user``, so no view
can forget the access check: others get 404, never 403, so ids reveal nothing.
"""

import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cache
from itertools import zip_longest
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

import rules
from characters.builder import forms, services
from characters.builder.forms import SaveStampForm
from characters.core import selectors as core_selectors
from characters.core import services as core_services
from characters.core.forms import first_problem, natural_number
from characters.core.requests import AuthenticatedHttpRequest
from characters.core.selectors import character_for_user
from characters.models import RESTORE_WINDOW, Character, MusteringRoll
from characters.review.selectors import review_context
from rules import (
    MalformedDocument,
    Report,
    check,
    decode_json,
    format_trait,
    parse_document,
)
from rules.engine import purchase_steps
from rules.model import control_by_default


@login_required
@require_GET
def character_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    characters = Character.objects.owned_by(request.user).select_related("campaign")
    context = {
        "characters": characters,
        "deleted_count": Character.all_objects.deleted().owned_by(request.user).count(),
    }
    return render(request, "characters/builder/character_list.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def character_new(request: AuthenticatedHttpRequest) -> HttpResponse:
    cat = rules.catalog()
    form = forms.NewCharacterForm(
        request.POST if request.method == "POST" else None,
        initial={"kind": "pc", "budget": str(cat.limits.npc_citizen_budget), "species": "human"},
    )
    if form.is_valid():
        data = form.cleaned_data
        budget = data["budget_points"]
        document = services.new_document(
            name=data["name"].strip(), kind=data["kind"], budget=budget, species=data["species"]
        )
        character = services.create_character(owner=request.user, document=document)
        messages.success(request, f"{character.name} is ready to build on {budget} points.")
        return redirect("character_edit", character.pk)
    values = {name: form[name].value() or "" for name in ("name", "kind", "budget", "species")}
    context = {
        "values": values,
        "errors": {name: errors[0] for name, errors in form.errors.items()},
        # The player is taken to what needs mending; to the name on a fresh form.
        "focus": next((name for name in values if name in form.errors), "name"),
        "species_choices": list(cat.species.items()),
        "limits": cat.limits,
        "name_max": cat.bounds.name_length,
    }
    return render(
        request,
        "characters/builder/character_new.html",
        context,
        status=400 if form.errors else 200,
    )


@login_required
@require_http_methods(["GET", "POST"])
def character_delete(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    character = character_for_user(request, pk, edit=True)
    if request.method == "POST":
        try:
            deleted = services.delete_character(character=character, by=request.user)
        except core_services.CharacterLocked as locked:
            messages.error(request, str(locked))
            return redirect("character_detail", character.pk)
        messages.success(
            request,
            f"{deleted.name} was deleted. You can restore it from Recently deleted until "
            f"{deleted.purge_at:%Y-%m-%d}.",
        )
        return redirect("character_list")
    context = {"character": character, "restore_days": RESTORE_WINDOW.days}
    return render(request, "characters/builder/character_confirm_delete.html", context)


@login_required
@require_POST
def character_duplicate(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    character = character_for_user(request, pk, edit=True)
    copy = services.duplicate_character(character=character, owner=request.user)
    messages.success(request, f"Copied {character.name}. You are editing the copy.")
    return redirect("character_edit", copy.pk)


@login_required
@require_http_methods(["GET", "POST"])
def character_import(request: AuthenticatedHttpRequest) -> HttpResponse:
    posted = request.method == "POST"
    form = forms.ImportForm(request.POST if posted else None, request.FILES if posted else None)
    error = ""
    if posted:
        if not form.is_valid():
            error = first_problem(form)
        else:
            upload = form.cleaned_data["document"]
            try:
                document = decode_json(upload.read())
                character = services.create_character(
                    owner=request.user, document=document, action=f"Imported from {upload.name}"
                )
            except MalformedDocument as malformed:
                where = f"{upload.name}: {malformed.path}" if malformed.path else upload.name
                error = f"{where}: {malformed.message}"
            else:
                messages.success(request, f"Imported {character.name} as a draft.")
                return redirect("character_edit", character.pk)
    return render(
        request,
        "characters/builder/character_import.html",
        {"error": error},
        status=400 if error else 200,
    )


@login_required
@require_http_methods(["GET", "POST"])
def character_paste(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Paste a stat block: read it and show what was read and what was not; then, from the
    same text, create the draft."""
    posted = request.method == "POST"
    form = forms.PasteStatBlockForm(request.POST if posted else None, initial={"kind": "pc"})
    context: dict[str, Any] = {"form": form, "preview": None}
    if posted and form.is_valid():
        parsed = rules.parse_stat_block(form.cleaned_data["text"], kind=form.cleaned_data["kind"])
        if parsed.document is None:
            form.add_error("text", "Stat block: nothing here reads as a character (below).")
            context["unread"] = parsed.unread
        elif form.creates():
            character = services.create_character(
                owner=request.user, document=parsed.document, action="Pasted from a stat block"
            )
            messages.success(request, f"Created {character.name} as a draft from the stat block.")
            return redirect("character_edit", character.pk)
        else:
            context["changed"] = form.cleaned_data["action"] == "create"
            context["preview"] = _paste_preview(parsed)
            context["unread"] = parsed.unread
            context["fingerprint"] = form.fingerprint()
    return render(
        request,
        "characters/builder/character_paste.html",
        context,
        status=400 if form.errors else 200,
    )


def _paste_preview(parsed: rules.ParsedStatBlock) -> dict[str, Any]:
    """What the draft a stat block makes will be: its report and its own stat block."""
    assert parsed.document is not None
    character = parse_document(parsed.document)
    report = check(character)
    return {
        "document": parsed.document,
        "report": report,
        "stat_block": rules.stat_block(character, report),
    }


# A builder page that is left (reloaded, Back) with an edit not yet stored sends it on its way
# and names it in this cookie, "<sitting>:<count of its saves>", for its own address: the page
# asked for next may reach the server before that save does, and drawn without it, it would
# lose the edit and put the next ones in conflict with it.
LEAVING_COOKIE = "ffa_leaving_save"
LEAVING_WAIT_SECONDS = 3.0  # a save refused (a conflict, a lock) never lands: draw the page then


def _after_the_save_sent_on_leaving(
    request: AuthenticatedHttpRequest, character: Character
) -> Character:
    """The character once the save the previous page sent on leaving has landed."""
    sitting, _, count = request.COOKIES.get(LEAVING_COOKIE, "").partition(":")
    stamp = natural_number(count)
    if not sitting or stamp is None:
        return character
    deadline = time.monotonic() + LEAVING_WAIT_SECONDS
    while (
        character.builder_sitting != sitting or character.builder_stamp < stamp
    ) and time.monotonic() < deadline:
        time.sleep(0.05)
        character.refresh_from_db()
    return character


# The builder is never shown from the browser's cache: after Back it must show what is stored
# now (it saves by itself), not the page as it was first loaded with the inputs filled in again.
@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def character_edit(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The builder. Without JavaScript its buttons post here; "save" and "roll" write."""
    character = character_for_user(request, pk, edit=True)
    if request.method == "GET":
        character = _after_the_save_sent_on_leaving(request, character)
        form = forms.form_from_document(character.document)
        response = render(
            request, "characters/builder/builder.html", _builder_context(character, form)
        )
        response.delete_cookie(LEAVING_COOKIE, path=request.path, samesite="Strict")
        return response

    form = forms.form_from_post(request.POST)
    stamp = _save_stamp(request)
    action = forms.ButtonForm(request.POST).pressed(default="save")
    if action not in ("save", "overwrite", "roll"):
        form = forms.apply_action(form, action)
        context = _builder_context(character, form, stamp=stamp, save_state=_NOT_SAVED_YET)
        context["browse_open"] = action.startswith("add_skill:")
        return render(request, "characters/builder/builder.html", context)

    read = forms.document_from_form(form, base=character.document)
    if read.errors:
        messages.error(request, "Nothing was saved: fix the fields marked below first.")
        context = _builder_context(
            character,
            forms.with_errors(form, read.errors),
            stamp=stamp,
            save_state=SaveState("unreadable", "Not saved: fix the fields marked below first"),
        )
        return render(request, "characters/builder/builder.html", context, status=400)
    expected = stamp.version
    try:
        saved = services.save_character(
            character=character,
            document=read.document,
            expected_version=expected,
            by=request.user,
            editing_session=stamp.editing_session,
            edit_stamp=stamp.edit_stamp,
        )
    except core_services.CharacterLocked as locked:
        messages.error(request, str(locked))
        context = _builder_context(
            character, form, save_state=SaveState("paused", "Not saved: it is approved and locked")
        )
        return render(request, "characters/builder/builder.html", context, status=409)
    except core_services.VersionConflict as conflict:
        context = _builder_context(
            character,
            form,
            conflict=_conflict(conflict.current, expected, read.document),
            stamp=stamp,
            save_state=SaveState("conflict", "Not saved: this character changed in another tab"),
        )
        return render(request, "characters/builder/builder.html", context, status=409)
    except MalformedDocument as malformed:
        messages.error(request, f"Nothing was saved: {malformed}.")
        context = _builder_context(
            character, form, save_state=SaveState("unreadable", f"Not saved: {malformed}")
        )
        return render(request, "characters/builder/builder.html", context, status=400)
    if action == "roll":
        try:
            rolled = services.roll_mustering_out(character=saved, by=request.user)
        except services.MusteringOutRefused as refused:
            messages.error(request, str(refused))
        else:
            credits = sum(roll.credits for roll in rolled)
            dice = ", ".join(str(roll.die) for roll in rolled)
            messages.success(request, f"Saved and rolled {dice}: Cr{credits:,} to muster out with.")
        return redirect("character_edit", saved.pk)
    state = "valid" if saved.is_valid else "saved as a draft with rule errors"
    withdrawn = (
        " It was withdrawn from review: submit it again when it is ready."
        if character.status == Character.Status.SUBMITTED and saved.status == Character.Status.DRAFT
        else ""
    )
    messages.success(request, f"{saved.name} saved (version {saved.version}), {state}.{withdrawn}")
    return redirect("character_edit", saved.pk)


@dataclass(frozen=True)
class SaveState:
    """What the builder's save state says when the page is drawn; the page's script keeps it
    up to date from then on. ``kind`` is "saved", "unsaved", "unreadable", "conflict" or
    "paused"."""

    kind: str
    text: str


_NOT_SAVED_YET = SaveState("unsaved", "Not saved: press Save to keep these changes")


@dataclass(frozen=True)
class SaveStamp:
    version: int  # -1 when the page did not say: no stored version matches it
    editing_session: str
    edit_stamp: int = 0  # the page's count of its saves; 0 when it did not say


def _save_stamp(request: AuthenticatedHttpRequest) -> SaveStamp:
    form = SaveStampForm(request.POST)
    if not form.is_valid():
        return SaveStamp(version=-1, editing_session="")
    return SaveStamp(**form.cleaned_data)


@login_required
@require_POST
def character_autosave(request: AuthenticatedHttpRequest, pk: int) -> JsonResponse:
    """Store the builder's form as it stands, as the page does by itself shortly after each
    edit. The answer is what the page's save state shows: ``state`` is "saved" (with the new
    ``version``), "partial" (saved with the stored value of the fields it could not read,
    which ``message`` names: one bad field never holds back the rest), "conflict" (another
    tab saved first: nothing was written) or "paused" (a submitted or approved character
    saves only when the player presses Save, which the page says before the first edit).
    A page left while a row it asked for was on its way sends that row along (``rows``)."""
    character = character_for_user(request, pk, edit=True)
    stamp = _save_stamp(request)
    if character.status in (Character.Status.SUBMITTED, Character.Status.APPROVED):
        return JsonResponse(
            {"state": "paused", "message": _AUTOSAVE_PAUSED[character.status]}, status=409
        )
    form = forms.RowsOnTheirWayForm(request.POST).applied_to(forms.form_from_post(request.POST))
    read = forms.document_from_form(form, base=character.document)
    try:
        saved = services.save_character(
            character=character,
            document=read.document,
            expected_version=stamp.version,
            by=request.user,
            editing_session=stamp.editing_session,
            edit_stamp=stamp.edit_stamp,
        )
    except core_services.VersionConflict as conflict:
        message = (
            f"this character was saved elsewhere (version {conflict.current.version}). "
            "Press Save to compare the two."
        )
        return JsonResponse({"state": "conflict", "message": message}, status=409)
    except (core_services.CharacterLocked, MalformedDocument) as refused:
        return JsonResponse({"state": "unreadable", "message": str(refused)}, status=400)
    if read.errors:
        unread = len(read.errors)
        fields = "one field" if unread == 1 else f"{unread} fields"
        message = f"all but {fields}: {next(iter(read.errors.values()))}"
        return JsonResponse({"state": "partial", "version": saved.version, "message": message})
    return JsonResponse({"state": "saved", "version": saved.version})


def _initial_save_state(character: Character) -> SaveState:
    paused = _AUTOSAVE_PAUSED.get(character.status)
    if paused:
        return SaveState("paused", f"Not saved: {paused}")
    return SaveState("saved", "All changes saved")


_AUTOSAVE_PAUSED: dict[str, str] = {
    Character.Status.SUBMITTED: "it is submitted for review. Press Save to withdraw it and save.",
    Character.Status.APPROVED: "it is approved and locked. Ask the referee to reopen it.",
}


@login_required
@require_POST
def character_preview(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """Re-check the posted builder form and return the feedback regions; never saves.

    A button's ``action`` (add or remove a row) also returns that section re-rendered.
    """
    character = character_for_user(request, pk, edit=True)
    form = forms.form_from_post(request.POST)
    buttons = forms.ButtonForm(request.POST)
    action = buttons.pressed(default="")
    section = ""
    if action:
        form = forms.apply_action(form, action)
        section = _SECTION_OF_ACTION.get(action.partition(":")[0].rsplit("_", 1)[-1], "")
    refresh = _refresh(buttons.edited_inputs())
    if section == "skills":
        # The skill added or removed may be Gambling, whose DM moves each cash roll.
        refresh = replace(refresh, mustering=True)
    context = _builder_context(
        character, form, oob=True, full=bool(section), attributes=refresh.attributes
    )
    context.update(section=section, browse_open=action.startswith("add_skill:"), refresh=refresh)
    return render(request, "characters/builder/builder.html#preview", context)


@dataclass(frozen=True)
class Refresh:
    """Which of the page's figures a live preview sends again: those the edits since the last
    preview the page applied can move. Each one sent is a swap in the browser, so sending
    only these keeps a preview quick on both ends. ``attributes`` None means all nine."""

    attributes: frozenset[str] | None
    skill_rows: bool = True
    trait_rows: bool = True
    item_rows: bool = True
    mustering: bool = True
    identity: bool = True  # the heading and the automatic skills


EVERYTHING = Refresh(attributes=None)


# Inputs every figure depends on: the species package, and the NPC caps.
_INPUTS_EVERYTHING_DEPENDS_ON = frozenset({"species", "kind"})
_IDENTITY_INPUTS = frozenset({"name", "homeworld", "native_language", "native_culture"})
_ATTRIBUTES_SKILL_COSTS_READ = frozenset({"INT", "EDU", "EXP"})


def _refresh(edited: str | None) -> Refresh:
    """What to send again after the edits named in ``edited``, the names of the inputs the
    builder's script says changed since the last preview it applied (a preview lost on the
    way hands its names on). A client that does not say gets everything."""
    if edited is None:
        return EVERYTHING
    names = frozenset(edited.split())
    if names & _INPUTS_EVERYTHING_DEPENDS_ON:
        return EVERYTHING
    rows = {name.split("-", 1)[0] for name in names}
    attributes = names.intersection(rules.catalog().attribute_order)
    identity = bool(names & _IDENTITY_INPUTS)
    return Refresh(
        attributes=attributes,
        # A bought skill that an automatic one duplicates costs only the levels above the
        # free one (INT DV or EDU DV, capped by the higher of EDU DV and EXP DV), and EXP DV
        # is how many level-0 skills are free: past them each row costs a point.
        skill_rows="skill" in rows or identity or bool(attributes & _ATTRIBUTES_SKILL_COSTS_READ),
        trait_rows="trait" in rows,
        item_rows="item" in rows,
        mustering=bool(names & {"service", "terms"}) or "skill" in rows,
        # A skill row named as an automatic skill takes that skill's place in the list.
        identity=identity or bool(attributes) or "skill" in rows,
    )


_SECTION_OF_ACTION = {
    "skill": "skills",
    "trait": "traits",
    "notation": "traits",
    "item": "equipment",
}


def _conflict(current: Character, yours_from: int, yours: dict[str, Any]) -> dict[str, Any]:
    """What the conflict page compares: every difference between the stored version and the
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
def _catalog_context() -> dict[str, Any]:
    """Choices and tables that depend only on the catalog: computed once per process."""
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
    groups: dict[str, list] = {}
    for skill in skill_catalog:
        groups.setdefault(skill["group"], []).append(skill)
    services_by_source: dict[str, list] = {}
    for service in cat.services.values():
        services_by_source.setdefault(service.source, []).append(service)
    frequencies = list(cat.frequencies.items())
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
    examples = []
    for example in cat.example_traits:
        trait = rules.TraitEntry(
            example["type"], example["name"], example["level"], example["frequency"]
        )
        points = _table_points(example["type"], example["level"], example["frequency"])
        examples.append({"name": example["name"], "notation": format_trait(trait, points)})
    return {
        "skill_catalog": skill_catalog,
        "skill_groups": sorted(groups.items()),
        "skill_count": len(skill_catalog),
        "species_choices": list(cat.species.items()),
        "service_choices": list(services_by_source.items()),
        "equipment_choices": forms.equipment_choices(),
        "trait_grids": grids,
        "example_traits": examples,
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
    }


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


def _builder_context(
    character: Character,
    form: forms.BuilderForm,
    *,
    oob: bool = False,
    full: bool = True,
    conflict: dict[str, Any] | None = None,
    attributes: frozenset[str] | None = None,
    stamp: SaveStamp | None = None,
    save_state: SaveState | None = None,
) -> dict[str, Any]:
    """Everything the builder template shows. ``full=False`` (the live preview) skips the
    parts only the page's inputs need; ``attributes`` limits the attribute rows to those codes
    (None: all nine)."""
    cat = rules.catalog()
    read = forms.document_from_form(form, base=character.document)
    errors = dict(read.errors)
    try:
        report = check(parse_document(read.document), house_rules=character.house_rules())
    except MalformedDocument as malformed:
        errors["form"] = str(malformed)
        report = core_selectors.character_report(character)
    form = forms.with_errors(form, errors)
    points = report.points
    state = (
        "points--over"
        if points.remaining < 0
        else "points--exact"
        if points.remaining == 0
        else "points--under"
    )
    parts = []
    for key, label in (
        ("attributes", "Attributes"),
        ("skills", "Skills"),
        ("perks", "Perks"),
        ("flaws", "Flaws"),
        ("rank", "Rank"),
        ("psionics", "Psionics"),
        ("package", "Package"),
    ):
        value = getattr(points, key)
        width = round(100 * value / max(points.budget, points.total, 1), 1) if value > 0 else 0
        parts.append({"key": key, "label": label, "points": value, "width": width})
    # A field the form could not read comes first: the engine checked its last good value, so
    # without it the live preview would show nothing wrong with what the player just typed.
    unreadable = [
        {
            "code": "unreadable_field",
            "severity": "error",
            "message": message,
            "anchor": f"id_{field}",
        }
        for field, message in form.errors.items()
        # What an add box could not add is said beside the box: nothing in the character is
        # wrong because of it.
        if field not in forms.ADD_BOXES
    ]
    problems = unreadable + [
        {
            "code": p.code,
            "severity": p.severity,
            "message": p.message,
            "anchor": forms.field_for_problem(p.path, read),
        }
        for p in report.problems
    ]
    maxima = cat.purchase_maxima(report.kind)
    attribute_rows = []
    for position, (value, (can_raise, can_lower)) in enumerate(
        zip(report.attributes, purchase_steps(report), strict=True)
    ):
        if attributes is not None and value.code not in attributes:
            continue
        group = next(g for g, codes in cat.attribute_groups.items() if value.code in codes)
        attribute_rows.append(
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
    lines_by_row = dict(zip(read.skill_rows, report.skills.lines, strict=False))
    traits_by_row = dict(zip(read.trait_rows, report.traits, strict=False))
    items_by_row = dict(zip(read.item_rows, report.equipment.lines, strict=False))
    service = cat.find_service(read.document.get("service", ""))
    species = cat.species.get(read.document.get("species", "human")) or cat.species["human"]
    context: dict[str, Any] = {
        "character": character,
        "form": form,
        "report": report,
        "oob": oob,
        "version": character.version,
        "conflict": conflict,
        "points_state": state,
        "points_parts": parts,
        "derived_items": [
            (code, cat.derived_names[code], value)
            for code, value in report.derived.as_dict().items()
        ],
        "problems": problems,
        "error_count": len(unreadable) + len(report.errors),
        "warning_count": len(report.warnings),
        "attribute_rows": attribute_rows,
        "limits": cat.limits,
        "bounds": forms.field_bounds(),
        # Each row with its index in the form and the engine's line for it: the preview sends
        # every row's figures again, so they follow each edit.
        "skill_rows": [
            {"index": i, "form": row, "line": lines_by_row.get(i)}
            for i, row in enumerate(form.skills)
        ],
        "trait_rows": [
            {"index": i, "form": row, "line": traits_by_row.get(i)}
            for i, row in enumerate(form.traits)
        ],
        "item_rows": [
            {
                "index": i,
                "form": row,
                "line": items_by_row.get(i),
                "name": row.item.partition("|")[0],
            }
            for i, row in enumerate(form.items)
        ],
        "mustering_service": service.name if service else "",
        "mustering_rolls": _mustering_rolls(read.document, report),
        "automatic_lines": report.skills.lines[len(read.skill_rows) :],
        # A new sitting for each page built from the stored character; a page the server
        # re-renders from a post carries its sitting on, and the count of its saves.
        "editing_session": (stamp and stamp.editing_session) or secrets.token_urlsafe(12),
        "edit_stamp": stamp.edit_stamp if stamp and stamp.editing_session else 0,
        "autosave_paused": _AUTOSAVE_PAUSED.get(character.status, ""),
        "save_state": save_state or _initial_save_state(character),
        # EXP DV moves it, so the preview sends it again.
        "psi_max": rules.psi_strength_limit(report.attribute("EXP").dv),
        # A change of species moves these.
        "package_lines": [t for t in report.traits if t.source == "package"],
        "species_name": species.name,
        "species_default_language": species.native_language,
        "species_default_culture": species.native_culture,
    }
    if not full:
        return context
    if not oob:
        # The whole page, not a live preview: add the review panel. The builder's user is
        # always the owner.
        context.update(
            review_context(
                character, core_selectors.character_report(character), user_pk=character.owner_id
            )
        )
    for row in context["skill_rows"]:
        definition = cat.find_skill(row["form"].skill)
        row["definition"] = definition
        row["name"] = definition.name if definition else row["form"].skill
        row["cascade_choices"] = (
            list(zip(definition.cascades, definition.cascade_labels, strict=True))
            if definition
            else []
        )
    for row in context["trait_rows"]:
        row["is_flaw"] = row["form"].type in cat.flaw_types
    context.update(_catalog_context())
    # A name the catalog lacks (an imported document's) stays chosen in its select, marked as
    # such: the browser would show the first option instead, and the next save store that.
    item_keys = {key for _table, items in context["equipment_choices"] for key, _label in items}
    for row in context["item_rows"]:
        row["off_list"] = bool(row["form"].item) and row["form"].item not in item_keys
    for row in context["skill_rows"]:
        known = {specialty.name for specialty in getattr(row["definition"], "specialties", ())}
        row["off_list_specialties"] = [s for s in row["form"].specialties if s not in known]
        cascade = row["form"].cascade
        chosen = {choice for choice, _label in row["cascade_choices"]}
        row["off_list_cascade"] = cascade if cascade and chosen and cascade not in chosen else ""
    trait_codes = {
        "type": {trait_type["code"] for trait_type in context["trait_types"]},
        "level": {code for code, _label in context["trait_levels"]},
        "frequency": set(cat.frequencies),
    }
    for row in context["trait_rows"]:
        row["off_list"] = {
            field: value
            for field, codes in trait_codes.items()
            if (value := getattr(row["form"], field)) and value not in codes
        }
    species_key, service_key = form.values["species"], form.values["service"]
    context["species_off_list"] = species_key if species_key not in cat.species else ""
    context["service_off_list"] = service_key if service_key not in cat.services else ""
    context.update(
        {
            "talents": [{"name": t, "value": form.talents.get(t, "")} for t in cat.talents],
            "mustering_rolls": _mustering_rolls(
                read.document, report, records=character.mustering_rolls.all()
            ),
        }
    )
    return context


def _mustering_rolls(
    document: dict[str, Any], report: Report, records: Iterable[MusteringRoll] = ()
) -> list[dict[str, Any]]:
    """Each cash roll the document holds, with the engine's reading of it now (DM, table row,
    credits), or None where it no longer counts (fewer terms, no service); and, rolled in
    this app, its ``record`` (when, for which service and terms). The engine reads the first
    valid dice in order, so its rows pair up with the dice by value."""
    counted = iter(report.mustering_out.rolls)
    reading = next(counted, None)
    rolls = []
    dice = document.get("mustering_out", {}).get("rolls", ())
    for index, (die, record) in enumerate(zip_longest(dice, records)):
        now = reading if reading is not None and reading.die == die else None
        if now is not None:
            reading = next(counted, None)
        rolls.append({"index": index, "die": die, "now": now, "record": record})
    return rolls
