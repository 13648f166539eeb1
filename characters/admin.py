"""Every model in the admin; the records of what happened are read-only there."""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from characters.models import (
    Campaign,
    CampaignMembership,
    Character,
    CharacterEvent,
    Combatant,
    ConditionChange,
    CreditEntry,
    DiceRoll,
    Encounter,
    EncounterEntry,
    ImprovementEntry,
    MusteringRoll,
    PlayState,
    Revision,
    ShareLink,
)


class CampaignMembershipInline(admin.TabularInline):
    model = CampaignMembership
    extra = 0
    raw_id_fields = ["user"]


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ["name", "referee", "pc_budget", "page_size", "created_at"]
    search_fields = ["name", "referee__username"]
    readonly_fields = ["invite_code", "created_at"]
    raw_id_fields = ["referee"]
    inlines = [CampaignMembershipInline]


@admin.register(Character)
class CharacterAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "kind", "status", "is_valid", "points_total", "budget"]
    list_filter = ["kind", "status", "is_valid"]
    search_fields = ["name", "owner__username"]
    # The document changes through the builder only, which keeps these columns in step with it.
    readonly_fields = [
        "document",
        "name",
        "kind",
        "is_valid",
        "points_total",
        "budget",
        "version",
        "created_at",
        "updated_at",
    ]
    raw_id_fields = ["owner", "campaign"]


class HistoryAdmin(admin.ModelAdmin):
    """A record of what happened: shown to staff, never added, changed or deleted here (it goes
    with its character when the character is purged)."""

    list_select_related = True

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(CampaignMembership)
class CampaignMembershipAdmin(admin.ModelAdmin):
    list_display = ["campaign", "user", "joined_at"]
    search_fields = ["campaign__name", "user__username"]
    raw_id_fields = ["campaign", "user"]


@admin.register(Revision)
class RevisionAdmin(HistoryAdmin):
    list_display = ["character", "number", "action", "author", "created_at"]
    search_fields = ["character__name", "summary"]


@admin.register(CharacterEvent)
class CharacterEventAdmin(HistoryAdmin):
    list_display = ["character", "kind", "from_status", "to_status", "actor", "created_at"]
    list_filter = ["kind"]
    search_fields = ["character__name", "comment", "detail"]


@admin.register(MusteringRoll)
class MusteringRollAdmin(HistoryAdmin):
    list_display = ["character", "position", "die", "modifier", "credits", "rolled_at"]
    search_fields = ["character__name"]


@admin.register(DiceRoll)
class DiceRollAdmin(HistoryAdmin):
    list_display = ["character", "label", "total", "tn", "success", "actor", "created_at"]
    list_filter = ["kind", "success"]
    search_fields = ["character__name", "label", "purpose"]


@admin.register(ImprovementEntry)
class ImprovementEntryAdmin(HistoryAdmin):
    list_display = ["character", "kind", "amount", "description", "state", "created_at"]
    list_filter = ["kind", "state"]
    search_fields = ["character__name", "description", "reason"]


@admin.register(CreditEntry)
class CreditEntryAdmin(HistoryAdmin):
    list_display = ["character", "amount", "note", "item", "quantity", "created_at"]
    search_fields = ["character__name", "note", "item"]


@admin.register(PlayState)
class PlayStateAdmin(HistoryAdmin):
    """The condition in play changes through the play sheet only, under its version."""

    list_display = ["character", "version", "updated_at"]
    search_fields = ["character__name"]


@admin.register(ConditionChange)
class ConditionChangeAdmin(HistoryAdmin):
    """Changes of the condition are undone from the play sheet, which logs the undo."""

    list_display = ["character", "what", "actor", "created_at", "undone_at"]
    search_fields = ["character__name", "what"]


@admin.register(ShareLink)
class ShareLinkAdmin(HistoryAdmin):
    """Links are made and revoked by the character's owner, who sees who they gave one to."""

    list_display = ["character", "created_by", "created_at", "revoked_at"]
    search_fields = ["character__name"]


class CombatantInline(admin.TabularInline):
    model = Combatant
    extra = 0
    fields = readonly_fields = ("name", "side", "character", "initiative", "position")
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Encounter)
class EncounterAdmin(HistoryAdmin):
    """Encounters change on their page only, under their version and with their log."""

    list_display = ["name", "campaign", "round", "version", "created_at"]
    search_fields = ["name", "campaign__name"]
    inlines = [CombatantInline]


@admin.register(Combatant)
class CombatantAdmin(HistoryAdmin):
    list_display = ["name", "encounter", "side", "initiative", "position"]
    search_fields = ["name", "encounter__name"]


@admin.register(EncounterEntry)
class EncounterEntryAdmin(HistoryAdmin):
    list_display = ["encounter", "round", "kind", "summary", "by", "created_at", "undone_at"]
    list_filter = ["kind"]
    search_fields = ["encounter__name", "summary"]
