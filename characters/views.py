from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

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
