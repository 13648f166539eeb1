"""A character's history, the recently deleted characters, and read-only share links.

History: every saved change is a revision (who, when, what changed); any two can be compared
field by field (``rules.document_changes``), and the owner restores an earlier one as a new
revision. Recently deleted: the owner's deleted characters, restorable for 30 days. Share
links: the owner makes and revokes links; ``/s/<token>/`` shows the sheet to anyone holding the
link, read-only, and says nothing about the owner.

Character pages get the character through ``character_views.character_for_user``;
anyone who may not see it gets 404.
"""

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from characters.core import services as core_services
from characters.core.downloads import download_stem
from characters.core.requests import AuthenticatedHttpRequest
from characters.core.selectors import character_for_user
from characters.history import selectors, services
from characters.history.forms import CompareForm, RestoreForm
from characters.models import RESTORE_WINDOW, Character, Revision, ShareLink
from characters.pdf import rendering as pdf_rendering
from characters.pdf.selectors import sheet_for_character
from characters.sheets.forms import PdfForm
from characters.sheets.selectors import sheet_body_context
from ffa_site.errors import NotFoundForPeople
from rules import MalformedDocument, check, document_changes, parse_document, stat_block


@login_required
@require_GET
def character_history(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """Every revision, newest first, with a form to compare any two."""
    character = character_for_user(request, pk)
    revisions = list(character.revisions.select_related("author").order_by("-number"))
    context = {
        "character": character,
        "revisions": revisions,
        "latest": revisions[0].number if revisions else None,
        "can_restore": character.owner_id == request.user.pk and not character.is_locked,
        "is_owner": character.owner_id == request.user.pk,
    }
    return render(request, "characters/history/history.html", context)


def _revision_summary(document: dict[str, Any], character: Character) -> dict[str, Any] | None:
    """The engine's view of a stored revision: its stat block and verdict (None if the
    catalog no longer reads it)."""
    try:
        parsed = parse_document(document)
    except MalformedDocument:
        return None
    report = check(parsed, house_rules=character.house_rules())
    return {"report": report, "stat_block": stat_block(parsed, report)}


@login_required
@require_GET
def character_revision(request: AuthenticatedHttpRequest, pk: int, number: int) -> HttpResponse:
    """One revision, and what changed to it from another (``?from=N``; by default the
    revision before it)."""
    character = character_for_user(request, pk)
    revision = get_object_or_404(
        Revision.objects.select_related("author"), character=character, number=number
    )
    compare = CompareForm(request.GET)
    base_number = compare.cleaned_data["from"] if compare.is_valid() else None
    if base_number is None:
        base = character.revisions.filter(number__lt=number).order_by("-number").first()
    else:
        base = character.revisions.filter(number=base_number).first()
        if base is None:
            raise Http404("No such revision to compare with.")
    changes = document_changes(base.document if base else {}, revision.document)
    sections: dict[str, list] = {}
    for change in changes:
        sections.setdefault(change.section, []).append(change)
    latest = character.revisions.order_by("-number").values_list("number", flat=True).first()
    context = {
        "character": character,
        "revision": revision,
        "base": base,
        "sections": list(sections.items()),
        "change_count": len(changes),
        "summary": _revision_summary(revision.document, character),
        "is_latest": revision.number == latest,
        "can_restore": character.owner_id == request.user.pk and not character.is_locked,
        "others": list(
            character.revisions.exclude(number=number)
            .order_by("-number")
            .values_list("number", flat=True)
        ),
    }
    return render(request, "characters/history/revision.html", context)


@login_required
@require_POST
def character_restore(request: AuthenticatedHttpRequest, pk: int, number: int) -> HttpResponse:
    """The owner makes an earlier revision current again, as a new revision."""
    character = character_for_user(request, pk, edit=True)
    stamp = RestoreForm(request.POST)
    expected = stamp.cleaned_data["version"] if stamp.is_valid() else -1
    try:
        restored = services.restore_revision(
            character=character, number=number, by=request.user, expected_version=expected
        )
    except core_services.VersionConflict as conflict:
        messages.error(
            request,
            f"{character.name} changed since this page was loaded (now version "
            f"{conflict.current.version}): nothing was restored. Look again, then restore.",
        )
    except core_services.Refused as refused:
        messages.error(request, str(refused))
    else:
        latest = restored.revisions.latest("number")
        messages.success(
            request,
            f"Restored revision {number} as revision {latest.number}; the revisions between "
            "stay in the history.",
        )
    return redirect("character_history", character.pk)


@login_required
@require_GET
def character_trash(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The user's deleted characters, each restorable until its window closes. Characters
    past the window are purged first (cheap: one query when there are none)."""
    services.purge_deleted_characters(owner=request.user)
    deleted = Character.all_objects.deleted().owned_by(request.user).order_by("-deleted_at")
    context = {"deleted": deleted, "restore_days": RESTORE_WINDOW.days}
    return render(request, "characters/history/character_trash.html", context)


@login_required
@require_POST
def character_undelete(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    character = character_for_user(request, pk, deleted=True)
    try:
        restored = services.restore_deleted_character(character=character, by=request.user)
    except core_services.Refused as refused:
        messages.error(request, str(refused))
        return redirect("character_trash")
    messages.success(request, f"{restored.name} is back, as it was when it was deleted.")
    return redirect("character_detail", restored.pk)


@login_required
@require_POST
def character_share(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    character = character_for_user(request, pk, edit=True)
    services.create_share_link(character=character, by=request.user)
    messages.success(
        request, "Share link made: anyone with it can read the sheet until you revoke it."
    )
    return redirect(reverse("character_detail", args=[character.pk]) + "#share")


@login_required
@require_POST
def character_share_revoke(request: AuthenticatedHttpRequest, pk: int, link: int) -> HttpResponse:
    character = character_for_user(request, pk, edit=True)
    share = get_object_or_404(ShareLink, pk=link, character=character)
    services.revoke_share_link(link=share, by=request.user)
    messages.success(request, "Share link revoked: it no longer opens the sheet.")
    return redirect(reverse("character_detail", args=[character.pk]) + "#share")


def _shared(token: str) -> ShareLink:
    link = selectors.shared_link(token)
    if link is None:
        raise NotFoundForPeople(
            "This share link no longer works: its owner revoked it, or the sheet was deleted."
        )
    return link


@never_cache
@require_GET
def shared_sheet(request: HttpRequest, token: str) -> HttpResponse:
    """The sheet for someone outside the app: read-only, no owner, no campaign, no log."""
    character = _shared(token).character
    parsed = parse_document(character.document)
    report = check(parsed, house_rules=character.house_rules())
    context = {
        **sheet_body_context(character, parsed, report),
        "token": token,
    }
    response = render(request, "characters/history/shared_sheet.html", context)
    response["X-Robots-Tag"] = "noindex, nofollow"
    response["Referrer-Policy"] = "no-referrer"
    return response


@never_cache
@require_GET
def shared_sheet_pdf(request: HttpRequest, token: str) -> HttpResponse:
    """The PDF sheet through a share link (the renderer's sheet, without the player's name)."""

    character = _shared(token).character
    options = PdfForm(request.GET)
    page_size = options.page_size(character.campaign)
    pencil = options.for_pencil(character.campaign)
    sheet = sheet_for_character(character, show_player=False, pencil=pencil)
    response = pdf_rendering.pdf_response(
        request,
        [sheet],
        page_size=page_size,
        filename=download_stem(character.name, "character"),
    )
    response["X-Robots-Tag"] = "noindex, nofollow"
    return response
