from django.contrib import admin

from .models import Campaign, CampaignMembership, Character


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
