"""The encounter page's actions of a T4 or a 2D6 round that FFA has not: a fighter's movement
status (T4), the target's reaction, a side's Tactics check, hastening and Leadership (2D6).
Each posts a form that works without JavaScript and answers as every encounter action does
(``views._posted``); the services refuse what the encounter's system or the user may not do."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.views.decorators.http import require_POST

from characters.core.requests import AuthenticatedHttpRequest
from characters.encounters import services
from characters.encounters.t4_forms import StatusForm
from characters.encounters.twod6_forms import FighterForm, ReactForm, SideForm
from characters.encounters.views import _posted


@login_required
@require_POST
def encounter_status(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """T4's movement phase: a fighter's movement and action status (its player or the
    referee)."""
    return _posted(
        request,
        pk,
        services.set_status,
        StatusForm,
        {"combatant": "combatant", "movement": "movement", "action": "action"},
    )


@login_required
@require_POST
def encounter_react(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """2D6: the target's player (or the referee) chooses its reaction; the dice are thrown."""
    return _posted(request, pk, services.react, ReactForm, {"reaction": "reaction"})


@login_required
@require_POST
def encounter_tactics(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """2D6: the referee has a side's unit commander throw Tactics."""
    return _posted(request, pk, services.tactics, SideForm, {"side": "side"})


@login_required
@require_POST
def encounter_hasten(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """2D6: a fighter acts hastily this round (its player or the referee)."""
    return _posted(request, pk, services.hasten, FighterForm, {"combatant": "combatant"})


@login_required
@require_POST
def encounter_leadership(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """2D6: the fighter acting now leads an ally (``combatant``)."""
    return _posted(request, pk, services.leadership, FighterForm, {"ally": "combatant"})
