"""Campaign pages: create and configure a campaign, invite players (and remove them, or leave),
the party review (referee) or roster (member), NPCs, the party PDF, and the review workflow's
actions on characters.

Every view that takes a campaign id gets the campaign through ``campaign_for_user``, and
every character action goes through ``character_views.character_for_user``: a user who may
not see an object gets 404, never 403, so ids reveal nothing. Writes go through the services;
a refused action (``core_services.Refused``) is shown as a message, never a traceback.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from characters.campaigns import selectors, services
from characters.campaigns.forms import (
    AttachForm,
    CampaignForm,
    NpcForm,
    PartyPdfForm,
    PartyViewForm,
)
from characters.campaigns.selectors import campaigns_of
from characters.core import services as core_services
from characters.core.downloads import download_stem
from characters.core.forms import first_problem
from characters.core.requests import AuthenticatedHttpRequest
from characters.core.selectors import (
    campaign_for_user,
    character_for_user,
)
from characters.encounters.selectors import running_encounters_with
from characters.models import (
    Campaign,
    Character,
)
from characters.pdf import rendering as pdf_rendering
from characters.pdf.selectors import sheet_for_character
from characters.play import services as play_services
from characters.play.forms import CampaignAwardForm
from characters.sheets.forms import PdfForm

Status = Character.Status


@login_required
@require_http_methods(["GET", "POST"])
def campaign_new(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = CampaignForm(request.POST or None, initial={"page_size": Campaign.PageSize.LETTER})
    if request.method == "POST" and form.is_valid():
        campaign = services.create_campaign(referee=request.user, **form.cleaned_data)
        messages.success(
            request, f"{campaign.name} is ready. Send the invite link below to your players."
        )
        return redirect("campaign_detail", campaign.pk)
    status = 400 if form.errors else 200
    return render(
        request,
        "characters/campaigns/campaign_form.html",
        {"form": form, "campaign": None},
        status=status,
    )


@login_required
@require_http_methods(["GET", "POST"])
def campaign_settings(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The referee changes the house rules; every character in the campaign is re-checked."""
    campaign = campaign_for_user(request, pk, referee=True)
    form = CampaignForm.for_campaign(campaign, request.POST or None)
    if request.method == "POST" and form.is_valid():
        was = campaign.combat_system
        campaign = services.update_campaign_rules(
            campaign=campaign, by=request.user, **form.cleaned_data
        )
        messages.success(
            request, "House rules saved; every character in the campaign was checked under them."
        )
        if campaign.combat_system != was:
            messages.info(
                request,
                f"Fights now run under {campaign.get_combat_system_display()}: each character's "
                "record of it starts unhurt; fights under way keep their own system.",
            )
        return redirect("campaign_detail", campaign.pk)
    status = 400 if form.errors else 200
    context = {"form": form, "campaign": campaign}
    return render(request, "characters/campaigns/campaign_form.html", context, status=status)


@login_required
@require_POST
def campaign_invite_renew(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    campaign = campaign_for_user(request, pk, referee=True)
    services.renew_invite(campaign=campaign)
    messages.success(request, "New invite link issued; the old one no longer works.")
    return redirect(reverse("campaign_detail", args=[campaign.pk]) + "#invite")


@login_required
@require_POST
def campaign_invite_revoke(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    campaign = campaign_for_user(request, pk, referee=True)
    services.revoke_invite(campaign=campaign)
    messages.success(request, "Invite link revoked: nobody can join with it.")
    return redirect(reverse("campaign_detail", args=[campaign.pk]) + "#invite")


def _attach_posted(request: AuthenticatedHttpRequest, campaign: Campaign) -> None:
    """Attach the user's own characters named in the POST's ``character`` fields."""
    form = AttachForm(request.POST, attachable=selectors.attachable(request.user, campaign))
    if not form.is_valid():
        messages.error(request, "Choose among your characters that can join.")
        return
    for character in form.cleaned_data["character"]:
        try:
            attached = services.attach_character(
                character=character, campaign=campaign, by=request.user
            )
        except core_services.Refused as refused:
            messages.error(request, str(refused))
            continue
        state = "" if attached.is_valid else ", with rule errors to fix under its house rules"
        messages.success(request, f"{attached.name} joined {campaign.name}{state}.")


@login_required
@require_http_methods(["GET", "POST"])
def campaign_join(request: AuthenticatedHttpRequest, code: str) -> HttpResponse:
    """The invite link: shows the campaign and the player's characters; POST joins and attaches."""
    campaign = selectors.campaign_for_invite(code)
    if campaign is None:
        raise Http404("No campaign has this invite code.")
    if campaign.referee_id == request.user.pk:
        messages.info(request, "This is your own campaign's invite link: send it to your players.")
        return redirect("campaign_detail", campaign.pk)
    if request.method == "POST":
        already = selectors.is_member(campaign, request.user)
        try:
            campaign = services.join_campaign(user=request.user, code=code)
        except core_services.Refused as refused:
            messages.error(request, str(refused))
            return redirect("campaign_list")
        if not already:
            messages.success(request, f"You joined {campaign.name}.")
        _attach_posted(request, campaign)
        return redirect("campaign_detail", campaign.pk)
    context = {
        "campaign": campaign,
        "is_member": selectors.is_member(campaign, request.user),
        "attachable": selectors.attachable(request.user, campaign),
        "house_rules": selectors.house_rules_summary(campaign),
    }
    return render(request, "characters/campaigns/campaign_join.html", context)


@login_required
@require_POST
def campaign_attach(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """A member (or the referee) brings more of their own characters into the campaign."""
    campaign = campaign_for_user(request, pk)
    _attach_posted(request, campaign)
    return redirect("campaign_detail", campaign.pk)


def _sort_param(request: AuthenticatedHttpRequest) -> str:
    return PartyViewForm(request.GET).sort_key(selectors.SORTS, selectors.DEFAULT_SORT)


@login_required
@require_GET
def campaign_detail(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The party review for the referee; the party roster for members; both with the
    campaign's latest action tests (``selectors.party_page``, ``selectors.roster_page``)."""
    campaign = campaign_for_user(request, pk)
    if campaign.referee_id != request.user.pk:
        context = selectors.roster_page(campaign, request.user)
        return render(request, "characters/campaigns/campaign_roster.html", context)
    context = selectors.party_page(campaign, request.user, sort=_sort_param(request))
    context["invite_url"] = request.build_absolute_uri(
        reverse("campaign_join", args=[campaign.invite_code])
    )
    context["maxima"] = play_services.INPUT_MAXIMA  # the party award form's inputs
    template = "characters/campaigns/campaign_review.html"
    if request.htmx and not request.htmx.history_restore_request:
        template += "#party-tables"  # a sort link clicked with htmx: only the tables change
    response = render(request, template, context)
    patch_vary_headers(response, ("HX-Request",))
    return response


def _characters(count: int) -> str:
    return f"{count} character{pluralize(count)}" if count else "no characters"


def _confirm_and_remove(
    request: AuthenticatedHttpRequest, campaign: Campaign, member: User
) -> HttpResponse:
    """GET: what removing ``member`` takes out of the campaign; POST: remove them (the referee
    removing a player, or the player leaving)."""
    leaving = member.pk == request.user.pk
    if request.method == "POST":
        try:
            left = services.remove_member(campaign=campaign, user=member, by=request.user)
        except core_services.Refused as refused:
            messages.error(request, str(refused))
            return redirect("campaign_detail", campaign.pk)
        # Deleted characters leave too, but they are in no listing, so they are not counted.
        gone = _characters(sum(1 for character in left if character.deleted_at is None))
        if leaving:
            messages.success(request, f"You left {campaign.name}; {gone} left it with you.")
            return redirect("campaign_list")
        messages.success(
            request,
            f"{member.get_username()} was removed from {campaign.name}; {gone} left the campaign.",
        )
        return redirect("campaign_detail", campaign.pk)
    characters = list(campaign.characters.filter(owner=member).order_by("name", "id"))
    context = {
        "campaign": campaign,
        "member": member,
        "leaving": leaving,
        "characters": characters,
        "approved": [character for character in characters if character.is_locked],
        "fighting_in": running_encounters_with(characters) if characters else [],
    }
    return render(request, "characters/campaigns/campaign_confirm_remove.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def campaign_member_remove(
    request: AuthenticatedHttpRequest, pk: int, user_id: int
) -> HttpResponse:
    """The referee takes a player out of the campaign, with every character of theirs in it.
    The referee is no member, so their own id is 404 like any other non-member's."""
    campaign = campaign_for_user(request, pk, referee=True)
    membership = get_object_or_404(campaign.memberships.select_related("user"), user_id=user_id)
    return _confirm_and_remove(request, campaign, membership.user)


@login_required
@require_http_methods(["GET", "POST"])
def campaign_leave(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """A player leaves the campaign, taking their characters along; the referee cannot."""
    campaign = campaign_for_user(request, pk)
    get_object_or_404(campaign.memberships, user=request.user)
    return _confirm_and_remove(request, campaign, request.user)


@login_required
@require_POST
def character_detach(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The owner takes a character out of its campaign (from the character's review panel)."""
    character = character_for_user(request, pk, edit=True)
    campaign_name = str(character.campaign or "")
    try:
        services.detach_character(character=character, by=request.user)
    except core_services.Refused as refused:
        messages.error(request, str(refused))
    else:
        if campaign_name:
            messages.success(request, f"{character.name} left {campaign_name}.")
    return redirect("character_detail", character.pk)


@login_required
@require_http_methods(["GET", "POST"])
def campaign_npc_new(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The referee starts an NPC in the campaign, on any budget; only the referee sees it."""
    campaign = campaign_for_user(request, pk, referee=True)
    form = NpcForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        npc = services.create_npc(campaign=campaign, **form.cleaned_data)
        messages.success(request, f"{npc.name} is ready to build on {npc.budget} points.")
        return redirect("character_edit", npc.pk)
    status = 400 if form.errors else 200
    context = {"form": form, "campaign": campaign}
    return render(request, "characters/campaigns/campaign_npc_new.html", context, status=status)


@login_required
@require_GET
def campaign_party_pdf(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """Every approved player character's sheet in one PDF (``?all=1``: every player character),
    checked under the campaign's house rules, on the campaign's page size or the one ``?size=``
    asks for; for pencil (or not) as the campaign prints by default or ``?pencil=`` asks."""

    campaign = campaign_for_user(request, pk, referee=True)
    options = PartyPdfForm(request.GET)
    every = options.is_valid() and options.cleaned_data["all"]
    characters = (
        campaign.characters.filter(kind=Character.Kind.PC)
        .select_related("owner")
        .prefetch_related("mustering_rolls", "credit_entries")
        .order_by("owner__username", "name", "id")
    )
    if not every:
        characters = characters.filter(status=Status.APPROVED)
    if not characters:
        which = "player characters" if every else "approved characters"
        messages.info(request, f"There are no {which} in {campaign.name} to print yet.")
        return redirect("campaign_detail", campaign.pk)
    pdf_options = PdfForm(request.GET)
    pencil = pdf_options.for_pencil(campaign)
    sheets = [sheet_for_character(character, pencil=pencil) for character in characters]
    filename = f"{download_stem(campaign.name, 'campaign')}-party"
    return pdf_rendering.pdf_response(
        request,
        sheets,
        page_size=pdf_options.page_size(campaign),
        filename=filename,
        summary=True,
        title=campaign.name,
    )


@login_required
@require_GET
def campaign_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    campaigns = campaigns_of(request.user).select_related("referee")
    return render(request, "characters/campaigns/campaign_list.html", {"campaigns": campaigns})


@login_required
@require_POST
def campaign_award(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The referee awards the same IP, for the same reason, to several characters at once
    (one point a session for everyone, a bonus at the end of an adventure)."""
    campaign = campaign_for_user(request, pk, referee=True)
    back = redirect(reverse("campaign_detail", args=[campaign.pk]) + "#award")
    form = CampaignAwardForm(request.POST, campaign=campaign)
    if not form.is_valid():
        messages.error(request, first_problem(form))
        return back
    chosen, amount = list(form.cleaned_data["character"]), form.cleaned_data["amount"]
    try:
        play_services.award_improvement_points_to_each(
            characters=chosen, by=request.user, amount=amount, reason=form.cleaned_data["reason"]
        )
    except core_services.Refused as refused:
        messages.error(request, f"Nobody was awarded anything: {refused}")
    else:
        names = ", ".join(character.name for character in chosen)
        messages.success(request, f"Awarded {amount} IP to {names}.")
    return back
