from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

import rules

from .models import Campaign, Character


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return render(request, "characters/landing.html")
    ctx = {
        "num_characters": Character.objects.owned_by(request.user).count(),
        "num_campaigns": _campaigns_of(request.user).count(),
    }
    return render(request, "characters/dashboard.html", ctx)


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("home")
    form = UserCreationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome aboard, {user.username}.")
        return redirect("home")
    return render(request, "registration/signup.html", {"form": form})


@login_required
@require_GET
def campaign_list(request: HttpRequest) -> HttpResponse:
    campaigns = _campaigns_of(request.user).select_related("referee")
    return render(request, "characters/campaign_list.html", {"campaigns": campaigns})


def _campaigns_of(user):
    """Campaigns the user referees or plays in."""
    return Campaign.objects.filter(Q(referee=user) | Q(memberships__user=user)).distinct()


@require_GET
def rules_notes(request: HttpRequest) -> HttpResponse:
    """How the app reads the rulebook where it is unclear; every figure comes from the catalog."""
    cat = rules.catalog()
    services = list(cat.services.values())
    ranked = [s for s in services if s.ranks]
    context = {
        "cat": cat,
        "limits": cat.limits,
        "attribute_rows": [(level, *cat.dm_dv(level), cat.to_hex(level)) for level in range(0, 19)],
        "book1": [s for s in services if s.source == "Book 1"],
        "supplement4": [s for s in services if s.source != "Book 1"],
        "cash_rows": [
            (row, [s.cash[i] for s in services]) for i, row in enumerate(cat.cash_table_rows)
        ],
        "services": services,
        "ranked_services": ranked,
        "rank_rows": [(rank, [s.ranks.get(rank, "—") for s in ranked]) for rank in range(1, 7)],
        "perk_levels": cat.perk_levels,
        "flaw_levels": cat.flaw_levels,
        "frequencies": cat.frequencies,
        "derived_costs": cat.derived_trait_points,
        "vargr": cat.species["vargr"],
        "noble_titles": cat.noble_titles.items(),
    }
    return render(request, "rules_notes.html", context)
