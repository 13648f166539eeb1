"""The one way every view finds what it may show: ``character_for_user`` and
``campaign_for_user`` (others get 404, never 403), and the rules report of a stored character."""

from enum import Enum

from django.db.models import Exists, OuterRef, Q
from django.shortcuts import get_object_or_404

from characters.core.requests import AuthenticatedHttpRequest
from characters.models import Campaign, CampaignMembership, Character
from rules import Report, check, parse_document


def is_referee(campaign: Campaign | None, user_pk: int | None) -> bool:
    """Whether the user referees ``campaign``; a character outside any campaign (None) has no
    referee. Every check of "the referee may" asks this."""
    return campaign is not None and campaign.referee_id == user_pk


class _Rules(Enum):
    ITS_OWN = "its own"


ITS_OWN = _Rules.ITS_OWN


def character_report(
    character: Character, *, campaign: Campaign | _Rules | None = ITS_OWN
) -> Report:
    """The engine's report on the stored document, under the rules the character plays by, or
    under those it would play by in ``campaign`` (None: outside any campaign) before it joins
    or leaves one or the campaign's rules change."""
    if campaign is ITS_OWN:
        house_rules = character.house_rules()
    elif campaign is None:
        house_rules = None
    else:
        house_rules = campaign.house_rules(budget_added=character.budget_added)
    return check(parse_document(character.document), house_rules=house_rules)


def character_for_user(
    request: AuthenticatedHttpRequest,
    pk: int,
    *,
    edit: bool = False,
    review: bool = False,
    deleted: bool = False,
) -> Character:
    """The character if this user may see it (its owner, or the referee of its campaign); with
    ``edit``, only if the user owns it; with ``review``, only if the user referees its campaign;
    with ``deleted``, only a character the user owns and deleted, still in its restore window.
    Anyone else gets 404, never 403. Other members of the campaign see the roster, not this.
    A deleted character is found with ``deleted`` only: for every other view it is gone."""
    if deleted:
        return get_object_or_404(Character.all_objects.deleted().owned_by(request.user), pk=pk)
    characters = Character.objects.select_related("campaign")
    if edit:
        allowed = characters.owned_by(request.user)
    elif review:
        allowed = characters.filter(campaign__referee=request.user)
    else:
        allowed = characters.visible_to(request.user)
    return get_object_or_404(allowed, pk=pk)


def campaign_for_user(
    request: AuthenticatedHttpRequest, pk: int, *, referee: bool = False
) -> Campaign:
    """The campaign if this user referees it, or (without ``referee``) plays in it; else 404."""
    campaigns = Campaign.objects.select_related("referee")
    if referee:
        allowed = campaigns.filter(referee=request.user)
    else:
        member = CampaignMembership.objects.filter(campaign=OuterRef("pk"), user=request.user)
        allowed = campaigns.filter(Q(referee=request.user) | Q(Exists(member)))
    return get_object_or_404(allowed, pk=pk)


# How many skills stand for a character where a row has room for few (party table, summary).
KEY_SKILLS = 3


def key_skills(report: Report) -> tuple[str, ...]:
    """The character's highest skills bought by its player, best first: what a referee scans."""
    bought = sorted(
        (line for line in report.skills.lines if line.source == "player"),
        key=lambda line: (-line.level, line.name),
    )
    return tuple(line.name for line in bought[:KEY_SKILLS])
