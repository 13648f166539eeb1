"""Characters and the campaigns they play in.

A character's `document` (the character document of format 1, see character-format.md) is the
single source of truth; the other columns of Character copy a few of its facts and the engine's
verdict on it, so that lists can be shown and filtered without running the rules engine.
"""

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q

from rules import HouseRules


def new_invite_code() -> str:
    return secrets.token_urlsafe(12)


class Campaign(models.Model):
    class PageSize(models.TextChoices):
        LETTER = "letter", "US Letter"
        A4 = "a4", "A4"

    name = models.CharField(max_length=100)
    referee = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="refereed_campaigns"
    )
    pc_budget = models.PositiveIntegerField(default=100)
    # House rules.
    one_trait_per_term = models.BooleanField(default=True)
    psionics_allowed = models.BooleanField(default=True)
    max_former_rank = models.PositiveSmallIntegerField(default=6)
    open_services = models.JSONField(
        default=list, blank=True, help_text="Service keys open to players; empty means all."
    )
    page_size = models.CharField(max_length=10, choices=PageSize, default=PageSize.LETTER)
    invite_code = models.CharField(max_length=32, unique=True, default=new_invite_code)
    # A revoked link keeps its (unique) code but lets nobody in; renewing issues a new code, so
    # a revoked code never works again.
    invite_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name

    def house_rules(self) -> HouseRules:
        """The campaign's settings in the rules engine's terms."""
        return HouseRules(
            one_trait_per_term=self.one_trait_per_term,
            psionics_allowed=self.psionics_allowed,
            max_former_rank=self.max_former_rank,
            open_services=frozenset(self.open_services) if self.open_services else None,
            budget=self.pc_budget,
        )


class CampaignMembership(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="campaign_memberships"
    )
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user"], name="unique_campaign_member")
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.campaign}"


class CharacterQuerySet(models.QuerySet["Character"]):
    def owned_by(self, user) -> "CharacterQuerySet":
        return self.filter(owner=user)

    def visible_to(self, user) -> "CharacterQuerySet":
        """The user's own characters and those in the campaigns the user referees.

        Other members of a campaign are not in here: they see the party roster (names, players,
        status), never each other's sheets.
        """
        if not user.is_authenticated:
            return self.none()
        return self.filter(Q(owner=user) | Q(campaign__referee=user))


class Character(models.Model):
    class Kind(models.TextChoices):
        PC = "pc", "Player character"
        NPC = "npc", "Non-player character"

    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        SUBMITTED = "submitted", "Submitted"
        APPROVED = "approved", "Approved"
        RETURNED = "returned", "Returned"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="characters"
    )
    document = models.JSONField()
    # Denormalised from the document and the engine's report, for listings.
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=3, choices=Kind, default=Kind.PC)
    status = models.CharField(max_length=10, choices=Status, default=Status.DRAFT)
    is_valid = models.BooleanField(default=False)
    points_total = models.IntegerField(default=0)
    budget = models.IntegerField(default=100)
    # Optimistic concurrency: a save must name the version it edited.
    version = models.PositiveIntegerField(default=1)
    campaign = models.ForeignKey(
        Campaign,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="characters",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = CharacterQuerySet.as_manager()

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name

    def house_rules(self) -> HouseRules | None:
        """The rules this character is checked under: its campaign's, or its document's own."""
        return self.campaign.house_rules() if self.campaign_id else None

    @property
    def is_locked(self) -> bool:
        """Approved characters change only after the referee reopens them."""
        return self.status == self.Status.APPROVED


class MusteringRoll(models.Model):
    """One mustering-out cash roll, made on the server and never repeated.

    The service and terms at the time are kept, so a later change of either shows up as a
    problem for the referee instead of silently changing the cash.
    """

    character = models.ForeignKey(
        Character, on_delete=models.CASCADE, related_name="mustering_rolls"
    )
    position = models.PositiveSmallIntegerField()
    die = models.PositiveSmallIntegerField()
    modifier = models.SmallIntegerField()
    row = models.PositiveSmallIntegerField()
    credits = models.PositiveIntegerField()
    service = models.CharField(max_length=40)
    terms = models.PositiveSmallIntegerField()
    rolled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    rolled_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["character", "position"]
        constraints = [
            models.UniqueConstraint(fields=["character", "position"], name="unique_roll_position")
        ]

    def __str__(self) -> str:
        return f"{self.character}: roll {self.position + 1} = {self.die}"


class CharacterEvent(models.Model):
    """One line of a character's log: a change of status, a comment, a mustering-out roll, or
    joining or leaving a campaign. Written by the services only; the owner and the referee of
    the character's campaign read it on the sheet."""

    class Kind(models.TextChoices):
        STATUS = "status", "Status change"
        COMMENT = "comment", "Comment"
        ROLL = "roll", "Mustering-out roll"
        CAMPAIGN = "campaign", "Campaign"

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="events")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    kind = models.CharField(max_length=10, choices=Kind)
    from_status = models.CharField(max_length=10, choices=Character.Status, blank=True)
    to_status = models.CharField(max_length=10, choices=Character.Status, blank=True)
    comment = models.TextField(blank=True, help_text="What a person wrote.")
    detail = models.CharField(max_length=300, blank=True, help_text="What the app recorded.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["character", "created_at"], name="event_character_time")]

    def __str__(self) -> str:
        return f"{self.character}: {self.get_kind_display()} at {self.created_at:%Y-%m-%d %H:%M}"
