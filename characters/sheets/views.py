"""A character's sheet: the page, its JSON export and its PDF."""

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from characters.core.downloads import content_disposition, download_stem
from characters.core.requests import AuthenticatedHttpRequest
from characters.core.selectors import character_for_user, character_report
from characters.pdf import rendering as pdf_rendering
from characters.pdf.selectors import sheet_for_character
from characters.play import selectors as play_selectors
from characters.review import selectors as review_selectors
from characters.review.selectors import review_context
from characters.sheets import foundry
from characters.sheets.forms import PdfForm
from characters.sheets.selectors import sheet_body_context
from rules import check, parse_document


# Back or Forward from the builder would otherwise show the browser's copy, from before the
# edits the builder stored on the way out.
@never_cache
@login_required
@require_GET
def character_detail(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    character = character_for_user(request, pk)
    parsed = parse_document(character.document)
    report = check(parsed, house_rules=character.house_rules())
    rolls = list(character.mustering_rolls.all())
    is_owner = character.owner_id == request.user.pk
    context = {
        **sheet_body_context(character, parsed, report),
        "drift": review_selectors.mustering_drift(character, rolls),
        "is_owner": is_owner,
        "show_balances": True,
        "share_links": [
            {
                "pk": link.pk,
                "created_at": link.created_at,
                "url": request.build_absolute_uri(reverse("shared_sheet", args=[link.token])),
            }
            for link in character.share_links.filter(revoked_at__isnull=True)
        ]
        if is_owner
        else [],
        **review_context(character, report, user_pk=request.user.pk),
    }
    return render(request, "characters/sheets/character_detail.html", context)


@login_required
@require_GET
def character_export(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    character = character_for_user(request, pk)
    response = JsonResponse(
        character.document, json_dumps_params={"indent": 2, "ensure_ascii": False}
    )
    filename = f"{download_stem(character.name, 'character')}.json"
    response["Content-Disposition"] = content_disposition(filename, attachment=True)
    return response


@login_required
@require_GET
def character_export_foundry(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The character as a Foundry VTT actor of the Twodsix system, for "Import Data"."""
    character = character_for_user(request, pk)
    report = character_report(character)
    # The gear and credits the character has now, as the sheet page shows them: a character
    # taken to the table mid-campaign brings what it bought and spent in play.
    report = report._replace(equipment=play_selectors.equipment_now(character, report))
    response = JsonResponse(
        # The character's own key: its items keep their ids from one export to the next.
        foundry.actor_for(report, character.document, seed=f"ffa-character-{character.pk}"),
        json_dumps_params={"indent": 2, "ensure_ascii": False},
    )
    filename = f"{download_stem(character.name, 'character')}-twodsix.json"
    response["Content-Disposition"] = content_disposition(filename, attachment=True)
    return response


@login_required
@require_GET
def character_pdf(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The TAS Form 2 style sheet, on the page size ``?size=`` asks for (``a4`` or ``letter``),
    else the campaign's. ``?pencil=1`` leaves what changes in play blank (``0``: prints it; by
    default, as the campaign prints)."""
    character = character_for_user(request, pk)
    options = PdfForm(request.GET)
    page_size = options.page_size(character.campaign)
    sheet = sheet_for_character(character, pencil=options.for_pencil(character.campaign))
    return pdf_rendering.pdf_response(
        request,
        [sheet],
        page_size=page_size,
        filename=download_stem(character.name, "character"),
    )
