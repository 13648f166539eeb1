"""The encounter page's actions of a T4 or a 2D6 round that FFA has not: a fighter's movement
status (T4), the target's reaction, a side's Tactics check, hastening and Leadership (2D6).
Each posts a form that works without JavaScript and answers as every encounter action does
(``views._attempt``); the services refuse what the encounter's system or the user may not do."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.views.decorators.http import require_POST

from characters.core.requests import AuthenticatedHttpRequest
from characters.encounters import services
from characters.encounters.selectors import encounter_for_user
from characters.encounters.t4_forms import StatusForm
from characters.encounters.twod6_forms import FighterForm, ReactForm, SideForm
from characters.encounters.views import _attempt, _read
from characters.models import Encounter, EncounterEntry


def _posted(
    request: AuthenticatedHttpRequest,
    pk: int,
    form_class: type[forms.Form],
    act: Callable[[Encounter, dict[str, Any]], EncounterEntry],
) -> HttpResponse:
    """An action of the encounter ``pk`` read by ``form_class`` and done by ``act`` (the
    encounter and the form's data)."""
    encounter = encounter_for_user(request, pk)
    return _attempt(
        request, encounter, lambda: act(encounter, _read(form_class(request.POST)).cleaned_data)
    )


@login_required
@require_POST
def encounter_status(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """T4's movement phase: a fighter's movement and action status (its player or the
    referee)."""
    return _posted(
        request,
        pk,
        StatusForm,
        lambda encounter, data: services.set_status(
            encounter=encounter,
            by=request.user,
            combatant=data["combatant"],
            movement=data["movement"],
            action=data["action"],
            expected_version=data["version"],
        ),
    )


@login_required
@require_POST
def encounter_react(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """2D6: the target's player (or the referee) chooses its reaction; the dice are thrown."""
    return _posted(
        request,
        pk,
        ReactForm,
        lambda encounter, data: services.react(
            encounter=encounter,
            by=request.user,
            reaction=data["reaction"],
            expected_version=data["version"],
        ),
    )


@login_required
@require_POST
def encounter_tactics(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """2D6: the referee has a side's unit commander throw Tactics."""
    return _posted(
        request,
        pk,
        SideForm,
        lambda encounter, data: services.tactics(
            encounter=encounter,
            by=request.user,
            side=data["side"],
            expected_version=data["version"],
        ),
    )


@login_required
@require_POST
def encounter_hasten(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """2D6: a fighter acts hastily this round (its player or the referee)."""
    return _posted(
        request,
        pk,
        FighterForm,
        lambda encounter, data: services.hasten(
            encounter=encounter,
            by=request.user,
            combatant=data["combatant"],
            expected_version=data["version"],
        ),
    )


@login_required
@require_POST
def encounter_leadership(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """2D6: the fighter acting now leads an ally (``combatant``)."""
    return _posted(
        request,
        pk,
        FighterForm,
        lambda encounter, data: services.leadership(
            encounter=encounter,
            by=request.user,
            ally=data["combatant"],
            expected_version=data["version"],
        ),
    )
