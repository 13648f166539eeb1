"""The review workflow on one character: the player submits it, the referee approves it,
returns it with a comment or reopens it, anyone of the two comments, and the player detaches it."""

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from characters.core import services as core_services
from characters.core.forms import first_problem
from characters.core.requests import AuthenticatedHttpRequest
from characters.core.selectors import character_for_user
from characters.models import Character
from characters.review import services
from characters.review.forms import ReviewForm


def _after_action(
    request: AuthenticatedHttpRequest, character: Character, target: str
) -> HttpResponse:
    """Back where the action was taken (the sheet, the builder or the party review)."""
    allowed = {
        reverse("character_detail", args=[character.pk]),
        reverse("character_edit", args=[character.pk]),
    }
    if character.campaign_id:
        allowed.add(reverse("campaign_detail", args=[character.campaign_id]))
    if target in allowed:
        return redirect(target)
    return redirect(reverse("character_detail", args=[character.pk]) + "#review")


def _act(
    request: AuthenticatedHttpRequest, character: Character, action: Callable[[str], Any], done: str
) -> HttpResponse:
    """Read the review form, then run ``action`` with its comment; say how it went."""
    form = ReviewForm(request.POST)
    if not form.is_valid():
        messages.error(request, first_problem(form))
        return _after_action(request, character, form["next"].value() or "")
    try:
        action(form.cleaned_data["comment"])
    except core_services.Refused as refused:
        messages.error(request, str(refused))
    else:
        messages.success(request, done)
    return _after_action(request, character, form.cleaned_data["next"])


@login_required
@require_POST
def character_submit(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    character = character_for_user(request, pk, edit=True)
    return _act(
        request,
        character,
        lambda _comment: services.submit_character(character=character, by=request.user),
        f"{character.name} was submitted to the referee.",
    )


@login_required
@require_POST
def character_approve(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    character = character_for_user(request, pk, review=True)
    return _act(
        request,
        character,
        lambda comment: services.approve_character(
            character=character, by=request.user, comment=comment
        ),
        f"{character.name} is approved and locked.",
    )


@login_required
@require_POST
def character_return(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    character = character_for_user(request, pk, review=True)
    return _act(
        request,
        character,
        lambda comment: services.return_character(
            character=character, by=request.user, comment=comment
        ),
        f"{character.name} went back to {character.owner.get_username()} with your comment.",
    )


@login_required
@require_POST
def character_reopen(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    character = character_for_user(request, pk, review=True)
    return _act(
        request,
        character,
        lambda comment: services.reopen_character(
            character=character, by=request.user, comment=comment
        ),
        f"{character.name} is reopened: its player can edit it again.",
    )


@login_required
@require_POST
def character_comment(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """A note in the log, from the owner or the referee of the character's campaign."""
    character = character_for_user(request, pk)
    return _act(
        request,
        character,
        lambda comment: services.comment_on_character(
            character=character, by=request.user, comment=comment
        ),
        "Comment added to the log.",
    )
