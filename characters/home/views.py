"""The home page (the landing page, or a signed-in user's dashboard) and the rules notes."""

from datetime import timedelta

from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

import rules
from characters.campaigns.selectors import campaigns_of
from characters.models import Character

# The dashboard lists the characters last edited; the rest are one click away.
DASHBOARD_RECENT = 5
# Signing up signs the new user in at once: a last login this close to the joining is the
# first visit, which is not a "welcome back".
FIRST_VISIT = timedelta(minutes=5)


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return render(request, "characters/home/landing.html", {"limits": rules.catalog().limits})
    user = request.user
    characters = Character.objects.owned_by(user)
    campaigns = list(campaigns_of(user).select_related("referee").order_by("name"))
    awaiting_review = dict(
        Character.objects.filter(campaign__referee=user, status=Character.Status.SUBMITTED)
        .order_by()
        .values_list("campaign")
        .annotate(count=Count("pk"))
    )
    for campaign in campaigns:
        campaign.awaiting_review = awaiting_review.get(campaign.pk, 0)
    context = {
        "num_characters": characters.count(),
        "recent_characters": characters.select_related("campaign").order_by("-updated_at")[
            :DASHBOARD_RECENT
        ],
        "num_campaigns": len(campaigns),
        "campaigns": campaigns,
        "first_visit": user.last_login is not None
        and user.last_login - user.date_joined < FIRST_VISIT,
    }
    return render(request, "characters/home/dashboard.html", context)


@require_GET
def rules_notes(request: HttpRequest) -> HttpResponse:
    """How the app reads the rulebook where it is unclear; every figure comes from the catalog."""
    cat = rules.catalog()
    services = list(cat.services.values())
    ranked = [s for s in services if s.ranks]
    context = {
        "cat": cat,
        "limits": cat.limits,
        # The table's rows, then past its top on to J, so the skipped I shows as well.
        "attribute_rows": [
            (level, *cat.dm_dv(level), cat.to_hex(level))
            for level in range(cat.hex_digits.index("J") + 1)
        ],
        "table_top": cat.attribute_table_top,
        "level_zero": dict(zip(("dm", "dv"), cat.dm_dv(0), strict=True)),
        "book1": [s for s in services if s.source == "Book 1"],
        "supplement4": [s for s in services if s.source != "Book 1"],
        "cash_rows": [
            (row, [s.cash[i] for s in services]) for i, row in enumerate(cat.cash_table_rows)
        ],
        "services": services,
        "ranked_services": ranked,
        "rank_rows": [
            (rank, [s.ranks.get(rank, "—") for s in ranked])
            for rank in range(1, cat.limits.rank_max + 1)
        ],
        "perk_levels": cat.perk_levels,
        "flaw_levels": cat.flaw_levels,
        "frequencies": cat.frequencies,
        "derived_costs": cat.derived_trait_points,
        "vargr": cat.species["vargr"],
        "noble_titles": cat.noble_titles.items(),
    }
    return render(request, "rules_notes.html", context)
