"""Writes of campaigns: create and configure one (re-checking its characters under new house
rules), invites, joining and leaving, attaching and detaching characters, NPCs.

Keyword arguments only, one transaction each."""

from django.contrib.auth.models import User
from django.db import transaction

import rules
from characters.builder.services import create_character, new_document
from characters.campaigns.selectors import campaign_for_invite, is_member
from characters.core.selectors import character_report
from characters.core.services import (
    CharacterLocked,
    Refused,
    Status,
    listing_columns,
    lock_character,
    log_event,
)
from characters.models import (
    Campaign,
    CampaignMembership,
    Character,
    CharacterEvent,
    CombatSystem,
    new_invite_code,
)
from characters.play.record_services import start_records_unhurt
from characters.review.services import reopen_character
from rules.wording import plural


class InviteInvalid(Refused):
    """The invite code is unknown or was revoked."""


def _validate_campaign(campaign: Campaign) -> None:
    cat = rules.catalog()
    unknown = sorted(set(campaign.open_services) - set(cat.services))
    if unknown:
        raise ValueError(f"unknown services {unknown}")
    if campaign.page_size not in Campaign.PageSize.values:
        raise ValueError(f"unknown page size {campaign.page_size!r}")
    if campaign.combat_system not in CombatSystem.values:
        raise ValueError(f"unknown combat system {campaign.combat_system!r}")
    if not 0 <= campaign.pc_budget <= cat.limits.max_budget:
        raise ValueError(f"a budget of {campaign.pc_budget} is outside 0-{cat.limits.max_budget}")
    if not 0 <= campaign.max_former_rank <= cat.limits.rank_max:
        raise ValueError(
            f"a highest former rank of {campaign.max_former_rank} is outside "
            f"0-{cat.limits.rank_max}"
        )


def _recheck_characters(campaign: Campaign) -> int:
    """Refresh the listing columns of every character in the campaign under its rules."""
    characters = list(campaign.characters.all())
    for character in characters:
        report = character_report(character, campaign=campaign)
        for field, value in listing_columns(report).items():
            setattr(character, field, value)
    Character.objects.bulk_update(
        characters, ["name", "kind", "budget", "is_valid", "points_total"], batch_size=200
    )
    return len(characters)


@transaction.atomic
def create_campaign(
    *,
    referee: User,
    name: str,
    pc_budget: int | None = None,
    one_trait_per_term: bool = True,
    psionics_allowed: bool = True,
    max_former_rank: int | None = None,
    open_services: list[str] | tuple[str, ...] = (),
    page_size: str = Campaign.PageSize.LETTER,
    pencil_pdfs: bool = False,
    combat_system: str | None = None,
) -> Campaign:
    """A new campaign; a budget or highest former rank not given is the rulebook's."""
    limits = rules.catalog().limits
    campaign = Campaign(
        referee=referee,
        name=name,
        pc_budget=limits.default_budget if pc_budget is None else pc_budget,
        one_trait_per_term=one_trait_per_term,
        psionics_allowed=psionics_allowed,
        max_former_rank=limits.rank_max if max_former_rank is None else max_former_rank,
        open_services=sorted(open_services),
        page_size=page_size,
        pencil_pdfs=pencil_pdfs,
        combat_system=combat_system or CombatSystem.FFA,
    )
    _validate_campaign(campaign)
    campaign.save()
    return campaign


@transaction.atomic
def update_campaign_rules(
    *,
    campaign: Campaign,
    name: str | None = None,
    pc_budget: int | None = None,
    one_trait_per_term: bool | None = None,
    psionics_allowed: bool | None = None,
    max_former_rank: int | None = None,
    open_services: list[str] | tuple[str, ...] | None = None,
    page_size: str | None = None,
    pencil_pdfs: bool | None = None,
    combat_system: str | None = None,
    by: User | None = None,
) -> Campaign:
    """Change the campaign's name and house rules (``None`` leaves a setting as it is), then
    re-check every character in it under the new rules so listings show the new verdicts.

    Statuses stay as they are: the referee sees the new problem counts and decides. A new
    combat system starts its record unhurt on every character's play sheet (reading X-2; the
    reset is kept as a change each play sheet's undo can take back); encounters under way keep
    the system they started with."""
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    changes = {
        "name": name,
        "pc_budget": pc_budget,
        "one_trait_per_term": one_trait_per_term,
        "psionics_allowed": psionics_allowed,
        "max_former_rank": max_former_rank,
        "open_services": sorted(open_services) if open_services is not None else None,
        "page_size": page_size,
        "pencil_pdfs": pencil_pdfs,
        "combat_system": combat_system,
    }
    switched = combat_system is not None and combat_system != campaign.combat_system
    for field, value in changes.items():
        if value is not None:
            setattr(campaign, field, value)
    _validate_campaign(campaign)
    campaign.save()
    _recheck_characters(campaign)
    if switched:
        start_records_unhurt(campaign=campaign, by=by, system=campaign.combat_system)
    return campaign


@transaction.atomic
def renew_invite(*, campaign: Campaign) -> str:
    """A new invite code, active; the old link stops working."""
    code = new_invite_code()
    Campaign.objects.filter(pk=campaign.pk).update(invite_code=code, invite_active=True)
    campaign.invite_code, campaign.invite_active = code, True
    return code


@transaction.atomic
def revoke_invite(*, campaign: Campaign) -> None:
    """Nobody joins through the link until the referee renews it (with a new code)."""
    Campaign.objects.filter(pk=campaign.pk).update(invite_active=False)
    campaign.invite_active = False


@transaction.atomic
def join_campaign(*, user: User, code: str) -> Campaign:
    """Make the user a member of the campaign the invite code opens (again is harmless)."""
    campaign = campaign_for_invite(code)
    if campaign is None:
        raise InviteInvalid(
            "This invite link does not work any more: ask the referee for a new one."
        )
    if campaign.referee_id == user.pk:
        raise Refused(f"You referee {campaign.name}; players join it through this link.")
    CampaignMembership.objects.get_or_create(campaign=campaign, user=user)
    return campaign


@transaction.atomic
def attach_character(
    *, character: Character, campaign: Campaign, by: User | None = None
) -> Character:
    """Bring a character into a campaign, re-checked under the campaign's house rules.

    The owner must be a member (or the referee). A character plays in one campaign at a time;
    player characters only, except that the referee may bring in their own NPCs.
    """
    locked = lock_character(character)
    if locked.campaign_id == campaign.pk:
        return locked
    is_referee = campaign.referee_id == locked.owner_id
    if not is_referee and not is_member(campaign, locked.owner):
        raise Refused(f"{locked.name}'s player is not a member of {campaign.name}.")
    if locked.campaign is not None:
        raise Refused(
            f"{locked.name} already plays in {locked.campaign.name}; a character is in one "
            "campaign at a time. Take it out of that campaign first."
        )
    if locked.kind == Character.Kind.NPC and not is_referee:
        raise Refused(
            f"{locked.name} is an NPC: players bring player characters, the referee keeps NPCs."
        )
    report = character_report(locked, campaign=campaign)
    Character.objects.filter(pk=locked.pk).update(
        campaign=campaign, status=Status.DRAFT, **listing_columns(report)
    )
    errors = plural(len(report.errors), "rule error")
    joined = f"Joined {campaign.name}" + (
        f" with {errors} under its rules." if report.errors else "."
    )
    log_event(locked, kind=CharacterEvent.Kind.CAMPAIGN, by=by, detail=joined)
    return Character.objects.select_related("campaign").get(pk=locked.pk)


@transaction.atomic
def detach_character(*, character: Character, by: User | None = None) -> Character:
    """Take a character out of its campaign, back to a draft under the rulebook's own rules.
    An approved character stays until the referee reopens it. A deleted character can leave
    too, so that restoring it never brings it back into a campaign its player has left."""
    locked = lock_character(character, deleted=True)
    if locked.campaign is None:
        return locked
    if locked.is_locked:
        raise CharacterLocked(
            f"{locked.name} is approved in {locked.campaign.name}: the referee has to reopen it "
            "before it can leave."
        )
    name = locked.campaign.name
    report = character_report(locked, campaign=None)
    Character.all_objects.filter(pk=locked.pk).update(
        campaign=None, status=Status.DRAFT, **listing_columns(report)
    )
    log_event(locked, kind=CharacterEvent.Kind.CAMPAIGN, by=by, detail=f"Left {name}.")
    return Character.all_objects.get(pk=locked.pk)


@transaction.atomic
def remove_member(*, campaign: Campaign, user: User, by: User) -> list[Character]:
    """Take ``user`` out of the campaign: the referee (``by``) removes a member, or the member
    leaves (``by`` is ``user``). Returns the member's characters that left with them.

    Every character of theirs in the campaign, deleted ones included, leaves through
    ``detach_character`` (logged on each), then the membership goes; the referee's own
    characters and NPCs stay. The referee reopens the member's approved characters on the way
    (each reopening logged); a member leaving is refused while one of theirs is approved, as
    ``detach_character`` refuses it, and then nothing changes. Afterwards the campaign is
    gone from the member's pages until they join again through a working invite link.
    """
    if campaign.referee_id == user.pk:
        raise Refused(f"You referee {campaign.name}: a campaign keeps its referee.")
    by_referee = campaign.referee_id == by.pk
    if not by_referee and by.pk != user.pk:
        raise Refused(f"Only the referee of {campaign.name} can remove its players.")
    membership = (
        CampaignMembership.objects.select_for_update().filter(campaign=campaign, user=user).first()
    )
    if membership is None:
        raise Refused(f"{user.get_username()} is not a member of {campaign.name}.")
    theirs = Character.all_objects.filter(campaign=campaign, owner=user).order_by("name", "id")
    left = []
    for character in theirs:
        if by_referee and character.is_locked:
            reopen_character(character=character, by=by)
        left.append(detach_character(character=character, by=by))
    membership.delete()
    return left


@transaction.atomic
def create_npc(*, campaign: Campaign, name: str, budget: int, species: str = "human") -> Character:
    """An NPC the referee keeps in the campaign, on any budget; only the referee sees it."""
    document = new_document(name=name, kind=Character.Kind.NPC, budget=budget, species=species)
    npc = create_character(
        owner=campaign.referee, document=document, campaign=campaign, action="Created as an NPC"
    )
    log_event(
        npc,
        kind=CharacterEvent.Kind.CAMPAIGN,
        by=campaign.referee,
        detail=f"Created as an NPC in {campaign.name} on {budget} points.",
    )
    return npc
