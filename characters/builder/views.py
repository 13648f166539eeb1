"""Character pages: list, create, import, paste, copy, delete, and the builder.

Every view that takes an id gets the character through ``character_for_user``, so no view
can forget the access check: others get 404, never 403, so ids reveal nothing.
"""

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import trigger_client_event

import rules
from characters.builder import forms, selectors, services
from characters.builder.buttons import apply_action, why_not_added
from characters.builder.form_document import (
    BuilderForm,
    document_from_form,
    form_from_document,
    form_from_post,
    with_errors,
)
from characters.builder.forms import BuilderPost
from characters.core import services as core_services
from characters.core.forms import first_problem
from characters.core.requests import AuthenticatedHttpRequest
from characters.core.selectors import character_for_user
from characters.models import RESTORE_WINDOW, Character
from rules import MalformedDocument, check, decode_json, parse_document


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


@login_required
@require_GET
def typed_name_explained(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Why what an add box holds adds nothing, and the names it may stand for: the builder page
    adds what it can read itself and asks here about the rest (as the page drawn without its
    script says it beside the box)."""
    box, text = forms.TypedNameForm(request.GET).box()
    message, suggestions = why_not_added(box, text)
    context = {"box": box, "message": message, "suggestions": suggestions}
    return render(request, "characters/builder/builder.html#add-message-text", context)


@login_required
@require_http_methods(["GET", "POST"])
def character_edit(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The builder. The page saves by itself as the player edits (htmx posts the whole form
    here, and the answer brings the figures back) and once more as it is left; without its
    script, its buttons post here and the page is drawn again, saved only by Save."""
    character = character_for_user(request, pk, edit=True)
    if request.method == "GET":
        # A stored document the engine cannot read is a page saying so (ffa_site.middleware),
        # before the form reads it as one it can.
        parse_document(character.document)
        context = selectors.builder_page(character, form_from_document(character.document))
        response = render(request, "characters/builder/builder.html", context)
        # Never shown from the browser's cache: after Back the page shows what is stored now (it
        # saves by itself), not the page as first drawn with its inputs filled in again. Only
        # the page: a browser keeps no page whose own requests were answered no-store for Back.
        add_never_cache_headers(response)
        return response
    form = form_from_post(request.POST)
    post = forms.BuilderPostForm(request.POST).post(default_action="save")
    if request.htmx or post.leaving:
        return _save_as_you_go(request, character, form, post)
    if post.action not in ("save", "overwrite", "roll"):
        form = apply_action(form, post.action)
        context = selectors.builder_page(
            character,
            form,
            save_state=selectors.NOT_SAVED_YET,
            sitting=post.sitting,
            stamp=post.stamp,
        )
        context["browse_open"] = post.action.startswith("add_skill:")
        return render(request, "characters/builder/builder.html", context)
    return _save_pressed(request, character, form, post)


def _save_as_you_go(
    request: AuthenticatedHttpRequest, character: Character, form: BuilderForm, post: BuilderPost
) -> HttpResponse:
    """Store the form as the page posted it by itself and answer with the figures, as
    out-of-band swaps, and with what became of the save (the ``builder:saved`` event the page's
    save state hears). A page being left hears nothing; a page that asks for it (``redraw``)
    gets its whole form back, drawn from what it posted."""
    read = document_from_form(form, base=character.document)
    outcome = services.save_as_you_go(
        character=character,
        document=read.document,
        unread=read.errors,
        expected_version=post.version,
        by=request.user,
        editing_session=post.sitting,
        edit_stamp=post.stamp,
    )
    if post.leaving:
        return HttpResponse(status=204)
    saved = outcome.character
    if post.redraw:
        context = selectors.builder_page(
            saved,
            form,
            save_state=_SAVE_STATES[outcome.state](outcome.message),
            sitting=post.sitting,
            stamp=post.stamp,
        )
        response = render(request, "characters/builder/builder.html", context)
    else:
        context = selectors.figures(saved, form, sitting=post.sitting, stamp=post.stamp)
        response = render(request, "characters/builder/builder.html#saved", context)
    answer = {
        "state": outcome.state,
        "message": outcome.message,
        "version": saved.version,
        "stamp": post.stamp,
    }
    # Heard once the figures are in place: the page says what they changed.
    return trigger_client_event(response, "builder:saved", answer, after="settle")


_SAVE_STATES = {
    "saved": lambda _message: selectors.SaveState("saved", "All changes saved"),
    "partial": lambda message: selectors.SaveState("partial", f"Saved {message}"),
    "conflict": lambda message: selectors.SaveState("conflict", f"Not saved: {message}"),
    "paused": lambda message: selectors.SaveState("paused", f"Not saved: {message}"),
    "unreadable": lambda message: selectors.SaveState("unreadable", f"Not saved: {message}"),
}


def _save_pressed(
    request: AuthenticatedHttpRequest, character: Character, form: BuilderForm, post: BuilderPost
) -> HttpResponse:
    """Save (or Keep mine, or Save and roll) pressed: the form stored, or the page drawn again
    saying why not."""
    read = document_from_form(form, base=character.document)

    def page_again(save_state: selectors.SaveState, status: int, **more: Any) -> HttpResponse:
        context = selectors.builder_page(
            character, form, save_state=save_state, sitting=post.sitting, stamp=post.stamp, **more
        )
        return render(request, "characters/builder/builder.html", context, status=status)

    if read.errors:
        messages.error(request, "Nothing was saved: fix the fields marked below first.")
        form = with_errors(form, read.errors)
        state = selectors.SaveState("unreadable", "Not saved: fix the fields marked below first")
        return page_again(state, 400)
    try:
        saved = services.save_character(
            character=character,
            document=read.document,
            expected_version=post.version,
            by=request.user,
            editing_session=post.sitting,
            edit_stamp=post.stamp,
        )
    except core_services.CharacterLocked as locked:
        messages.error(request, str(locked))
        return page_again(
            selectors.SaveState("paused", "Not saved: it is approved and locked"), 409
        )
    except core_services.VersionConflict as conflict:
        state = selectors.SaveState("conflict", "Not saved: this character changed in another tab")
        compared = selectors.conflict(conflict.current, post.version, read.document)
        return page_again(state, 409, conflict=compared)
    except MalformedDocument as malformed:
        messages.error(request, f"Nothing was saved: {malformed}.")
        return page_again(selectors.SaveState("unreadable", f"Not saved: {malformed}"), 400)
    if post.action == "roll":
        # The dice show in their own section, so the page opens there; a refusal shows at the top.
        section = "#section-mustering" if _roll(request, saved) else ""
        return redirect(reverse("character_edit", args=[saved.pk]) + section)
    verdict = "valid" if saved.is_valid else "saved as a draft with rule errors"
    withdrawn = (
        " It was withdrawn from review: submit it again when it is ready."
        if character.status == Character.Status.SUBMITTED and saved.status == Character.Status.DRAFT
        else ""
    )
    messages.success(
        request, f"{saved.name} saved (version {saved.version}), {verdict}.{withdrawn}"
    )
    return redirect("character_edit", saved.pk)


def _roll(request: AuthenticatedHttpRequest, character: Character) -> bool:
    """Roll mustering out, with a message saying what came of it; whether the dice were rolled."""
    try:
        rolled = services.roll_mustering_out(character=character, by=request.user)
    except services.MusteringOutRefused as refused:
        messages.error(request, str(refused))
        return False
    credits = sum(roll.credits for roll in rolled)
    dice = ", ".join(str(roll.die) for roll in rolled)
    messages.success(request, f"Saved and rolled {dice}: Cr{credits:,} to muster out with.")
    return True
