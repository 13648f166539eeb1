"""Campaign pages: create and configure a campaign, invite players (and remove them, or leave),
the party review (referee) or roster (member), NPCs, the party PDF, and the review workflow's
actions on characters.

Every view that takes a campaign id gets the campaign through ``campaign_for_user``, and
every character action goes through ``character_views.character_for_user``: a user who may
not see an object gets 404, never 403, so ids reveal nothing. Writes go through the services;
a refused action (``core_services.Refused``) is shown as a message, never a traceback.
"""

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.db.models import Prefetch, QuerySet, prefetch_related_objects
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET, require_http_methods, require_POST

import rules
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
    character_report,
    key_skills,
)
from characters.encounters.selectors import encounters_of, running_encounters_with
from characters.models import (
    Campaign,
    Character,
    CharacterEvent,
    CombatSystem,
    DiceRoll,
    Encounter,
    ImprovementEntry,
    PlayState,
)
from characters.pdf import rendering as pdf_rendering
from characters.pdf.selectors import sheet_for_character
from characters.play import selectors as play_selectors
from characters.play import services as play_services
from characters.play.forms import CampaignAwardForm
from characters.sheets.forms import PdfForm
from rules import Condition, Problem, Report

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


def _attachable(user, campaign: Campaign | None = None) -> QuerySet[Character]:
    """The user's characters that could join a campaign: in none yet; PCs, and for the
    campaign's referee their NPCs too."""
    characters = Character.objects.owned_by(user).filter(campaign__isnull=True)
    if campaign is None or campaign.referee_id != user.pk:
        characters = characters.filter(kind=Character.Kind.PC)
    return characters.order_by("name", "id")


def _attach_posted(request: AuthenticatedHttpRequest, campaign: Campaign) -> None:
    """Attach the user's own characters named in the POST's ``character`` fields."""
    form = AttachForm(request.POST, attachable=_attachable(request.user, campaign))
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
        "attachable": _attachable(request.user, campaign),
        "house_rules": _house_rules_summary(campaign),
    }
    return render(request, "characters/campaigns/campaign_join.html", context)


@login_required
@require_POST
def campaign_attach(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """A member (or the referee) brings more of their own characters into the campaign."""
    campaign = campaign_for_user(request, pk)
    _attach_posted(request, campaign)
    return redirect("campaign_detail", campaign.pk)


@dataclass(frozen=True, slots=True)
class PartyRow:
    """One character of the party review, with the engine's report under the house rules."""

    character: Character
    report: Report
    errors: tuple[Problem, ...]
    warnings: tuple[Problem, ...]
    service: str
    rank: str
    psionics: str
    key_skills: tuple[str, ...]

    @property
    def player(self) -> str:
        return self.character.owner.get_username()

    # In play: what the referee asks of the party at the table.
    credits_now: int
    ip: int
    condition: Condition
    state: str
    requests: int
    returned_comment: str
    # Under T4 or 2D6, the record of the campaign's system (play.selectors.record_view).
    record: dict[str, Any] | None

    @property
    def now_sort(self) -> int:
        """How well the character is now: its LIF, or the points its record has taken."""
        return self.condition.lif if self.record is None else -self.record["taken"]


STATUS_ORDER: dict[str, int] = {
    Status.SUBMITTED: 0,
    Status.RETURNED: 1,
    Status.DRAFT: 2,
    Status.APPROVED: 3,
}


def _derived(code: str) -> Callable[[PartyRow], Any]:
    return lambda row: getattr(row.report.derived, code)


# The whitelist of ?sort= keys: (column heading, sort key). ``-key`` sorts descending.
SORTS: dict[str, tuple[str, Callable[[PartyRow], Any]]] = {
    "player": ("Player", lambda row: row.player.lower()),
    "name": ("Character", lambda row: row.character.name.lower()),
    "status": ("Status", lambda row: STATUS_ORDER.get(row.character.status, 9)),
    "upp": ("UPP", lambda row: row.report.upp),
    **{code.lower(): (code, _derived(code)) for code in ("DEF", "INI", "MOV", "TGH", "LIF", "WND")},
    "points": ("Points", lambda row: (row.report.points.total, row.report.points.budget)),
    "problems": ("Problems", lambda row: (len(row.errors), len(row.warnings))),
    "service": ("Service", lambda row: row.service.lower()),
    "terms": ("Terms", lambda row: row.report.terms),
    "rank": ("Rank", lambda row: row.report.rank.level),
    "credits": ("Credits", lambda row: row.credits_now),
    "ip": ("IP", lambda row: row.ip),
    "lif_now": ("LIF now", lambda row: row.now_sort),
    "psionics": (
        "PSI",
        lambda row: row.report.psionics.strength if row.report.psionics else -1,
    ),
}
DEFAULT_SORT = "status"
CAMPAIGN_ROLLS = 25


def _party_row(character: Character, campaign: Campaign, state: PlayState | None) -> PartyRow:
    """The row of one character; its ledgers and review log are prefetched (``_in_play``)."""
    report = character_report(character, campaign=campaign)
    cat = rules.catalog()
    service = cat.services.get(report.service or "")
    rank = report.rank
    psionics = report.psionics
    condition, _version = play_selectors.condition_in(state, report)
    entries = character.improvement_entries.all()
    return PartyRow(
        record=play_selectors.sheet_record(character, state, report)["record"],
        credits_now=play_selectors.credit_balance(character, report),
        ip=play_selectors.ip_balance(character),
        condition=condition,
        state=play_selectors.states(condition)[0][1],
        requests=sum(
            1
            for entry in entries
            if entry.kind == ImprovementEntry.Kind.REQUEST
            and entry.state == ImprovementEntry.State.PENDING
        ),
        # The latest return's comment, while the player has not answered it.
        returned_comment=(
            character.returns[0].comment  # type: ignore[attr-defined]  # prefetched to_attr
            if character.status == Status.RETURNED and character.returns  # type: ignore[attr-defined]
            else ""
        ),
        character=character,
        report=report,
        errors=report.errors,
        warnings=report.warnings,
        service=service.name if service else (report.service or ""),
        rank=rank.title or (f"Rank {rank.level}" if rank.level else ""),
        psionics=(
            f"PSI {psionics.strength}"
            + "".join(f", {name}-{level}" for name, level in psionics.talents)
            if psionics
            else ""
        ),
        key_skills=key_skills(report),
    )


def _sorted_rows(rows: list[PartyRow], sort: str) -> list[PartyRow]:
    descending = sort.startswith("-")
    _, key = SORTS[sort.lstrip("-")]
    rows = sorted(rows, key=lambda row: (row.player.lower(), row.character.name.lower()))
    return sorted(rows, key=key, reverse=descending)


def _sort_param(request: AuthenticatedHttpRequest) -> str:
    return PartyViewForm(request.GET).sort_key(SORTS, DEFAULT_SORT)


# The heading of the condition column under each combat system.
NOW_LABELS: dict[str, str] = {CombatSystem.T4: "T4 now", CombatSystem.TWOD6: "2D6 now"}


def _headers(sort: str, system: str = CombatSystem.FFA) -> list[dict[str, Any]]:
    current, descending = sort.lstrip("-"), sort.startswith("-")
    headers = []
    for key, (label, _) in SORTS.items():
        if key == "lif_now":
            label = NOW_LABELS.get(system, label)
        active = key == current
        headers.append(
            {
                "key": key,
                "label": label,
                "query": f"-{key}" if active and not descending else key,
                "aria_sort": ("descending" if descending else "ascending") if active else "",
            }
        )
    return headers


def _encounters(campaign: Campaign) -> dict[str, list[Encounter]]:
    """The campaign's encounters under way, and its past ones (ended, read-only)."""
    active, past = encounters_of(campaign.pk)
    return {"encounters": active, "past_encounters": past}


def _house_rules_summary(campaign: Campaign) -> list[tuple[str, str]]:
    cat = rules.catalog()
    services_open = (
        ", ".join(
            cat.services[key].name if key in cat.services else key for key in campaign.open_services
        )
        if campaign.open_services
        else "All"
    )
    return [
        ("Point budget for player characters", str(campaign.pc_budget)),
        ("One trait per term", "On" if campaign.one_trait_per_term else "Off"),
        ("Psionics", "Allowed" if campaign.psionics_allowed else "Not allowed"),
        ("Highest former rank", str(campaign.max_former_rank)),
        ("Open services", services_open),
        ("PDF page size", campaign.get_page_size_display()),
        ("Combat system", campaign.get_combat_system_display()),
    ]


@login_required
@require_GET
def campaign_detail(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The party review for the referee; the party roster for members; both with the
    campaign's latest action tests.

    A fixed number of queries however large the party: the campaign, its characters with their
    players, its members with theirs (and for the referee, their own characters to attach),
    the latest rolls.
    The engine's checks run in Python under the campaign's house rules.
    """
    campaign = campaign_for_user(request, pk)
    characters = list(
        campaign.characters.select_related("owner").order_by("owner__username", "name", "id")
    )
    memberships = list(campaign.memberships.select_related("user").order_by("user__username"))
    per_player = Counter(c.owner_id for c in characters)
    waiting = [m.user for m in memberships if not per_player[m.user_id]]
    attachable = list(_attachable(request.user, campaign))
    rolls = DiceRoll.objects.filter(campaign=campaign, character__deleted_at__isnull=True)
    rolls = rolls.select_related("character", "actor")
    if campaign.referee_id != request.user.pk:
        roster = [c for c in characters if c.kind == Character.Kind.PC]
        context = {
            "campaign": campaign,
            "roster": roster,
            "waiting": waiting,
            "attachable": attachable,
            "house_rules": _house_rules_summary(campaign),
            **_encounters(campaign),
            # The referee's NPCs are the referee's: members never see their rolls.
            "rolls": rolls.filter(character__kind=Character.Kind.PC)[:CAMPAIGN_ROLLS],
        }
        return render(request, "characters/campaigns/campaign_roster.html", context)

    sort = _sort_param(request)
    returns = CharacterEvent.objects.filter(
        kind=CharacterEvent.Kind.STATUS, to_status=Status.RETURNED
    ).order_by("-created_at")
    prefetch_related_objects(
        characters,
        "credit_entries",
        "improvement_entries",
        Prefetch("events", queryset=returns, to_attr="returns"),
    )
    states = {state.pk: state for state in PlayState.objects.filter(character__in=characters)}
    for character in characters:
        # What each sheet reads of its play state (the armor worn) comes from here.
        Character.play_state.related.set_cached_value(character, states.get(character.pk))
    rows = _sorted_rows([_party_row(c, campaign, states.get(c.pk)) for c in characters], sort)
    party = [row for row in rows if row.character.kind == Character.Kind.PC]
    npcs = [row for row in rows if row.character.kind == Character.Kind.NPC]
    counts = dict.fromkeys(Status.values, 0)
    for row in party:
        counts[row.character.status] += 1
    context = {
        "campaign": campaign,
        "party": party,
        "npcs": npcs,
        "waiting": waiting,
        "members": [(m.user, per_player[m.user_id]) for m in memberships],
        "attachable": attachable,
        "counts": counts,
        "sort": sort,
        "headers": _headers(sort, campaign.combat_system),
        "house_rules": _house_rules_summary(campaign),
        "invite_url": request.build_absolute_uri(
            reverse("campaign_join", args=[campaign.invite_code])
        ),
        # Lazy: a sort with htmx renders only the tables and never reads the rolls.
        "rolls": rolls[:CAMPAIGN_ROLLS],
        **_encounters(campaign),
        "maxima": play_services.INPUT_MAXIMA,
    }
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
