"""Characters and the campaigns they play in.

A character's `document` (the character document of format 1, see character-format.md) is the
single source of truth; the other columns of Character copy a few of its facts and the engine's
verdict on it, so that lists can be shown and filtered without running the rules engine.
"""

import secrets
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from rules import HouseRules
from rules.wording import signed_credits

# A deleted character can be restored by its owner for this long; then it is purged for good.
RESTORE_WINDOW = timedelta(days=30)


def new_invite_code() -> str:
    return secrets.token_urlsafe(12)


def new_share_token() -> str:
    return secrets.token_urlsafe(24)


class CombatSystem(models.TextChoices):
    """The combat systems a campaign (or one encounter) fights under: FFA's own, or one of the
    two others the FFA sheets convert to (docs/combat-t4.md, docs/combat-2d6.md)."""

    FFA = "ffa", "FFA personal combat"
    T4 = "t4", "T4 basic combat"
    TWOD6 = "2d6", "2D6 combat"


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
    pencil_pdfs = models.BooleanField(
        default=False,
        help_text="PDFs leave what changes in play blank (LIF marks, wounds, credits), for pencil.",
    )
    combat_system = models.CharField(
        max_length=4,
        choices=CombatSystem,
        default=CombatSystem.FFA,
        help_text="The system fights run under; an encounter may choose another.",
    )
    invite_code = models.CharField(max_length=32, unique=True, default=new_invite_code)
    # A revoked link keeps its (unique) code but lets nobody in; renewing issues a new code, so
    # a revoked code never works again.
    invite_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name

    def house_rules(self, *, budget_added: int = 0) -> HouseRules:
        """The campaign's settings in the rules engine's terms.

        ``budget_added``: creation points a character bought with improvement points, added
        to the campaign's budget for player characters (see ``Character.budget_added``).
        """
        return HouseRules(
            one_trait_per_term=self.one_trait_per_term,
            psionics_allowed=self.psionics_allowed,
            max_former_rank=self.max_former_rank,
            open_services=frozenset(self.open_services) if self.open_services else None,
            budget=self.pc_budget + budget_added,
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

    def deleted(self) -> "CharacterQuerySet":
        """Deleted characters still inside the window in which their owner can restore them."""
        return self.filter(deleted_at__gt=timezone.now() - RESTORE_WINDOW)

    def expired(self) -> "CharacterQuerySet":
        """Deleted characters past the restore window: due to be purged."""
        return self.filter(deleted_at__lte=timezone.now() - RESTORE_WINDOW)

    def visible_to(self, user) -> "CharacterQuerySet":
        """The user's own characters and those in the campaigns the user referees.

        Other members of a campaign are not in here: they see the party roster (names, players,
        status), never each other's sheets.
        """
        if not user.is_authenticated:
            return self.none()
        return self.filter(Q(owner=user) | Q(campaign__referee=user))


class _ExistingCharacters(models.Manager["Character"]):
    """The characters that exist: a deleted character is in no listing, page or campaign."""

    def get_queryset(self) -> models.QuerySet["Character"]:
        return super().get_queryset().filter(deleted_at__isnull=True)


CharacterManager = _ExistingCharacters.from_queryset(CharacterQuerySet)


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
    # The builder sitting that saved last, and the stamp its page gave that save. A sitting's
    # saves may arrive out of order (a page leaving sends one beside one on its way, and two
    # server workers may take them in either order): one stamped before the last stored is
    # older than what is stored, and changes nothing.
    builder_sitting = models.CharField(max_length=32, blank=True)
    builder_stamp = models.PositiveIntegerField(default=0)
    campaign = models.ForeignKey(
        Campaign,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="characters",
    )
    # Creation points bought with improvement points. The document's budget is raised by them
    # too; this column adds them to a campaign's budget, which overrides the document's.
    budget_added = models.IntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Soft delete: set when the owner deletes it; restorable for RESTORE_WINDOW, then purged.
    deleted_at = models.DateTimeField(null=True, blank=True, db_index=True)

    # The default manager hides deleted characters from every view, listing and campaign;
    # ``all_objects`` sees them, for the trash and the purge only.
    objects = CharacterManager()
    all_objects = CharacterQuerySet.as_manager()

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name

    def house_rules(self) -> HouseRules | None:
        """The rules this character is checked under: its campaign's (with the creation
        points it bought with IP added to the campaign's budget), or its document's own."""
        campaign = self.campaign  # no query when there is none
        if campaign is None:
            return None
        return campaign.house_rules(budget_added=self.budget_added)

    @property
    def purge_at(self):
        """When a deleted character is purged for good."""
        return self.deleted_at + RESTORE_WINDOW if self.deleted_at else None

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
    """One line of a character's log: a change of status, a comment, a mustering-out roll,
    joining or leaving a campaign, and in play every damage and healing action, action test,
    improvement-point award or purchase, credits entry, restore or deletion, and share link.
    Written by the services only; the owner and the referee of the character's campaign read
    it on the sheet."""

    class Kind(models.TextChoices):
        STATUS = "status", "Status change"
        COMMENT = "comment", "Comment"
        ROLL = "roll", "Mustering-out roll"
        CAMPAIGN = "campaign", "Campaign"
        PLAY = "play", "Damage and healing"
        DICE = "dice", "Action test"
        IP = "ip", "Improvement points"
        CREDITS = "credits", "Credits"
        HISTORY = "history", "History"
        SHARE = "share", "Share link"

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


class Revision(models.Model):
    """One saved state of a character's document: who saved it, when, and what changed.

    Every service that changes a character's document (create, import, copy, the builder's
    save, the mustering-out roll, an improvement purchase, a restore) writes the next revision
    in the same transaction, so the history is never behind the character. Restoring an old
    revision writes a new one. The builder's saves of one sitting (``editing_session``) keep one
    revision up to date; no other revision is ever changed, and none is removed (until the
    character is purged).
    """

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="revisions")
    number = models.PositiveIntegerField()
    document = models.JSONField()
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    action = models.CharField(max_length=100, help_text="How it was saved, e.g. 'Restored 3'.")
    summary = models.CharField(max_length=300, blank=True, help_text="What changed, in short.")
    created_at = models.DateTimeField(default=timezone.now)
    editing_session = models.CharField(
        max_length=32, blank=True, help_text="The builder sitting whose saves this revision keeps."
    )

    class Meta:
        ordering = ["character", "number"]
        constraints = [
            models.UniqueConstraint(fields=["character", "number"], name="unique_revision_number")
        ]

    def __str__(self) -> str:
        return f"{self.character}: revision {self.number}"


class ShareLink(models.Model):
    """A read-only link to a character's sheet for someone outside the app; the owner revokes
    it. A revoked link never works again (a new link gets a new token)."""

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="share_links")
    token = models.CharField(max_length=64, unique=True, default=new_share_token)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["character", "-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.character}: share link of {self.created_at:%Y-%m-%d}"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


class PlayState(models.Model):
    """A character's live condition in play: the LIF track, its wounds and states.

    Kept apart from the character document, whose format is fixed. ``condition`` is
    ``rules.condition_as_dict`` of a ``rules.Condition``; ``version`` rises with every change,
    so an action taken on a stale page (another tab) is refused instead of applied to a
    condition its player did not see. ``worn``: the armor the character wears now, chosen on
    the play sheet, as ``[name, tl]`` pairs of the catalog; None until one is chosen there: the
    document's ``worn`` marks hold. ``system_conditions``: the character's condition under the
    other combat systems, by system ("t4", "2d6"), each that system's ``condition_as_dict``; a
    system not in it is unhurt (reading X-2: each system keeps its own record, nothing converts
    between them). ``loaded``: the rounds left in the magazine loaded in each of its weapons,
    by weapon key ("name|TL"), once it has loaded one in a fight: the character's ammunition,
    which the next encounter starts from.
    """

    character = models.OneToOneField(
        Character, on_delete=models.CASCADE, primary_key=True, related_name="play_state"
    )
    condition = models.JSONField()
    version = models.PositiveIntegerField(default=1)
    worn = models.JSONField(null=True, blank=True)
    system_conditions = models.JSONField(default=dict, blank=True)
    loaded = models.JSONField(default=dict, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.character}: play state {self.version}"

    def storing(self, system: str, stored: dict | None) -> dict[str, object]:
        """The fields that hold ``stored`` as ``system``'s record (an ``update()``'s keyword
        arguments): FFA's is ``condition``; a T4 or 2D6 record of None is none kept, unhurt."""
        if system == CombatSystem.FFA:
            return {"condition": stored}
        kept = {key: value for key, value in self.system_conditions.items() if key != system}
        return {"system_conditions": kept | ({system: stored} if stored is not None else {})}


class ConditionChange(models.Model):
    """One change of a character's condition in play, as ``PlayState`` held it before and
    after (``rules.condition_as_dict``): a blow, the end of a stun, a dying turn, bleeding, a
    medical test, recovery, a cleared wound. ``system``: the combat system whose record it
    changed (FFA's LIF track, or the T4 or 2D6 record in ``PlayState.system_conditions``,
    where None before is a record not kept yet: unhurt).

    Written with the change, in its transaction, so the last change can be undone: the undo
    puts ``before`` back only while the condition is still ``after`` (nobody changed it since)
    and marks the change ``undone_at``; the undo itself is in the character's log.
    """

    character = models.ForeignKey(
        Character, on_delete=models.CASCADE, related_name="condition_changes"
    )
    system = models.CharField(max_length=4, choices=CombatSystem, default=CombatSystem.FFA)
    before = models.JSONField(null=True)
    after = models.JSONField()
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    what = models.CharField(max_length=150, help_text="The change, e.g. 'Took 7 lethal damage'.")
    created_at = models.DateTimeField(default=timezone.now)
    undone_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["character", "created_at", "id"]
        indexes = [
            models.Index(fields=["character", "created_at"], name="condition_change_time"),
        ]

    def __str__(self) -> str:
        return f"{self.character}: {self.what}"


class ImprovementEntry(models.Model):
    """One line of a character's improvement-point ledger; the balance is the sum of ``amount``.

    An award (by the referee, with a reason) adds IP; a purchase takes its cost away and names
    what it bought; a request is a purchase that waits for the referee's permission (it moves
    no IP until the referee approves it, which writes the purchase).
    """

    class Kind(models.TextChoices):
        AWARD = "award", "Award"
        PURCHASE = "purchase", "Purchase"
        REQUEST = "request", "Request"

    class State(models.TextChoices):
        PENDING = "pending", "Waiting for the referee"
        APPROVED = "approved", "Approved"
        DECLINED = "declined", "Declined"

    character = models.ForeignKey(
        Character, on_delete=models.CASCADE, related_name="improvement_entries"
    )
    kind = models.CharField(max_length=10, choices=Kind)
    amount = models.IntegerField(help_text="IP added (award) or taken (purchase, negative).")
    cost = models.PositiveIntegerField(null=True, blank=True, help_text="A purchase's IP price.")
    reason = models.CharField(max_length=300, blank=True)
    purchase = models.JSONField(null=True, blank=True, help_text="rules.purchase_as_dict")
    description = models.CharField(max_length=300, blank=True)
    points_added = models.IntegerField(default=0, help_text="Creation points the purchase added.")
    state = models.CharField(max_length=10, choices=State, blank=True)
    request = models.OneToOneField(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="approval"
    )
    revision = models.ForeignKey(
        Revision, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["character", "created_at", "id"]
        verbose_name_plural = "improvement entries"

    def __str__(self) -> str:
        return f"{self.character}: {self.get_kind_display()} {self.amount:+d} IP"


class CreditEntry(models.Model):
    """One line of a character's credits ledger in play: income (positive), spending
    (negative), and the gear that came or went with it.

    The balance starts from what creation left (mustering-out cash less creation equipment,
    from the engine's report) and adds every ``amount``. Gear bought in play is kept here, not
    in the character document (whose equipment was paid from the mustering-out cash): what the
    character carries is the document's equipment plus every entry's ``quantity`` of its item.
    """

    character = models.ForeignKey(
        Character, on_delete=models.CASCADE, related_name="credit_entries"
    )
    amount = models.IntegerField(help_text="Credits received (positive) or paid (negative).")
    note = models.CharField(max_length=200)
    item = models.CharField(max_length=100, blank=True, help_text="The catalog's item name.")
    tl = models.PositiveSmallIntegerField(null=True, blank=True)
    quantity = models.IntegerField(default=0, help_text="Items gained (+) or given up (-).")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["character", "created_at", "id"]
        verbose_name_plural = "credit entries"

    def __str__(self) -> str:
        return f"{self.character}: {signed_credits(self.amount)} {self.note}"


class DiceRoll(models.Model):
    """One action test thrown on the server, as ``rules.action_test`` read it.

    Kept with the campaign the character played in at the time, so the campaign's log shows
    it to the referee and the players. ``chance`` is the exact chance of success the test had
    (``rules.success_chance``), rounded for display.
    """

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="dice_rolls")
    campaign = models.ForeignKey(
        Campaign, on_delete=models.SET_NULL, null=True, blank=True, related_name="dice_rolls"
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    label = models.CharField(max_length=150, help_text="The test, e.g. 'Pilot-2 DEX'.")
    purpose = models.CharField(max_length=150, blank=True, help_text="What it was for.")
    kind = models.CharField(max_length=10)
    skill_level = models.SmallIntegerField(null=True, blank=True)
    attribute = models.CharField(max_length=3, blank=True)
    dice = models.JSONField()
    result = models.SmallIntegerField()
    attribute_dm = models.SmallIntegerField()
    dm = models.SmallIntegerField()
    tn = models.SmallIntegerField()
    total = models.SmallIntegerField()
    effect = models.SmallIntegerField()
    success = models.BooleanField()
    fumble = models.BooleanField()
    exceptional = models.BooleanField()
    chance = models.FloatField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["campaign", "created_at"], name="roll_campaign_time"),
            models.Index(fields=["character", "created_at"], name="roll_character_time"),
        ]

    def __str__(self) -> str:
        return f"{self.character}: {self.label} {self.total} vs TN {self.tn}"


class Encounter(models.Model):
    """A fight in a campaign, run by its referee: who takes part, the order they act in, and
    what happened (``EncounterEntry``).

    ``round`` is 0 until initiative is thrown; ``turn`` is the place in the order of the
    combatant who acts now (past the last one when the round is over). ``surprised_side``: the
    side the surprise throw left surprised ("" for none), which loses its turns and fights at
    the surprised DEF until the referee says surprise is lost. ``leaders``: the combatant the
    referee named to lead each side, by side (a side not in it follows the engine's choice).
    ``ended_at``: when the referee ended it; an
    ended encounter is read-only (but for undoing the end). ``combat_system``: the system it
    runs under, chosen when it starts (the campaign's by default) and kept for the fight;
    ``system_state``: what a T4 or 2D6 fight keeps between its steps (the phase of the round,
    the sides' Tactics, an attack waiting for its target's reaction…). ``version`` rises with
    every change, so an action taken on a page that fell behind (another tab, a phone that
    missed a poll) is refused instead of applied twice, and a poll that finds the version it
    has answers in a few bytes.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="encounters")
    name = models.CharField(max_length=100)
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    round = models.PositiveIntegerField(default=0)
    turn = models.PositiveSmallIntegerField(default=0)
    surprised_side = models.CharField(max_length=10, blank=True, default="")
    leaders = models.JSONField(default=dict, blank=True)
    combat_system = models.CharField(max_length=4, choices=CombatSystem, default=CombatSystem.FFA)
    system_state = models.JSONField(default=dict, blank=True)
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.campaign}: {self.name}"


class Combatant(models.Model):
    """One fighter in an encounter: a character (a PC, or an NPC of the campaign), one of a
    group fielded from one NPC's stat block, or an animal of the engine's vocabulary.

    ``condition`` is kept here for group members and animals, in the encounter's combat system
    (FFA's ``rules.condition_as_dict``, or the T4 or 2D6 record); None means the character's
    own play sheet (``PlayState``) holds it, so damage to a PC goes through the play services
    with their revisions and log. ``system_state``: what a T4 or 2D6 fight keeps of this
    fighter between its steps (its statuses this round, its 2D6 initiative record…).
    ``ammunition``: the rounds left in the magazine loaded in each weapon, by weapon key, for a
    group member that counts its ammunition (a character with a play sheet keeps its own in
    ``PlayState.loaded``, from one encounter to the next). ``magazines``: a group member's
    spare magazines by ammunition ("name|TL"), once it has loaded one; until then it has as
    many as its stat block carries (a character with a play sheet takes its magazines from
    what it carries instead).
    """

    class Side(models.TextChoices):
        PARTY = "party", "The party"
        OPPOSITION = "opposition", "The opposition"

    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="combatants")
    character = models.ForeignKey(
        Character, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    name = models.CharField(max_length=120)
    side = models.CharField(max_length=10, choices=Side)
    animal = models.JSONField(null=True, blank=True, help_text='{"type": …, "weight_kg": …}')
    condition = models.JSONField(null=True, blank=True)
    initiative = models.SmallIntegerField(null=True, blank=True)
    position = models.PositiveSmallIntegerField(default=0)
    ammunition = models.JSONField(default=dict, blank=True)
    magazines = models.JSONField(default=dict, blank=True)
    system_state = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["encounter", "position", "id"]

    def __str__(self) -> str:
        return f"{self.encounter}: {self.name}"


class EncounterEntry(models.Model):
    """One line of an encounter's log: initiative, an attack with every DM and die, a delay,
    a round's end, a morale test, an undo.

    ``before`` keeps what undoing the entry restores: the round, turn and order ("round",
    "turn", "order"), the conditions and ammunition of the combatants it changed
    ("conditions", "ammunition"), the changes it recorded on play sheets ("changes",
    ``ConditionChange`` ids: each undone through the play services while it is its sheet's
    last; older entries name the characters, "sheets"), the magazines it took from what a
    character carries ("magazines": given back through the credits ledger), a group member's
    spare magazines ("spares"), the side left surprised ("surprised"), the sides' leaders
    ("leaders") and the combatants it added ("added": removed again).
    """

    class Kind(models.TextChoices):
        SURPRISE = "surprise", "Surprise"
        ALARM = "alarm", "Surprise lost"
        LEADER = "leader", "Leader named"
        INITIATIVE = "initiative", "Initiative"
        JOIN = "join", "Joined the fight"
        END = "end", "Encounter ended"
        ATTACK = "attack", "Attack"
        DELAY = "delay", "Delay"
        PASS = "pass", "Turn passed"
        ROUND = "round", "Next round"
        MORALE = "morale", "Morale test"
        UNDO = "undo", "Undo"
        # T4 and 2D6 (docs/encounters.md).
        MOVEMENT = "movement", "Movement"
        HOLD = "hold", "Action held"
        TACTICS = "tactics", "Tactics"
        HASTEN = "hasten", "Hastened"
        AIM = "aim", "Aimed"
        LEADERSHIP = "leadership", "Leadership"
        DECLARE = "declare", "Attack declared"

    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="entries")
    round = models.PositiveIntegerField()
    kind = models.CharField(max_length=10, choices=Kind)
    actor = models.ForeignKey(
        Combatant, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    target = models.ForeignKey(
        Combatant, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # Whole, however long: a burst at four targets says what each throw did.
    summary = models.TextField()
    detail = models.JSONField(default=dict, blank=True, help_text="DMs, dice, odds, damage.")
    before = models.JSONField(default=dict, blank=True, help_text="What undo restores.")
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    undone_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["encounter", "-created_at", "-id"]
        verbose_name_plural = "encounter entries"

    def __str__(self) -> str:
        return f"{self.encounter}: {self.summary}"
