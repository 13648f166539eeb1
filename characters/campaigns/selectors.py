"""Reads about campaigns: the campaigns of a user, membership, the campaign of an invite."""

from django.contrib.auth.models import User
from django.db.models import Q

from characters.models import Campaign


def campaign_for_invite(code: str) -> Campaign | None:
    """The campaign an active invite code opens, or None."""
    return (
        Campaign.objects.select_related("referee")
        .filter(invite_code=code, invite_active=True)
        .first()
    )


def is_member(campaign: Campaign, user: User) -> bool:
    return campaign.memberships.filter(user=user).exists()


def campaigns_of(user):
    """Campaigns the user referees or plays in."""
    return Campaign.objects.filter(Q(referee=user) | Q(memberships__user=user)).distinct()
