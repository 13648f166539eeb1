"""The play sheet: a character's condition, action tests, improvement points and credits in
play, at ``/characters/<id>/play/``.

Every view gets the character through ``character_views.character_for_user`` (owner or
the referee of its campaign; ``edit`` for what only the owner does, ``review`` for what only
the referee does); anyone else gets 404. Every action is a POST form that works without
JavaScript (it redirects back to the sheet with a message); with htmx the form swaps the
``play`` region of the page in place, with the outcome shown at its top. Writes go through
``play_services``; a refused action writes nothing and says why. What the page shows is
assembled by ``page_selectors.play_page``.
"""

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from characters.core import services as core_services
from characters.core.equipment import item_key
from characters.core.forms import first_problem, natural_number
from characters.core.refused import keep_refused_form, refused_form
from characters.core.requests import AuthenticatedHttpRequest
from characters.core.selectors import character_for_user
from characters.models import Character, ImprovementEntry
from characters.play import forms as play_forms
from characters.play import selectors, services
from characters.play.page_selectors import ROLLER_SESSION_KEY, carried_armor, odds, play_page
from rules.wording import signed_credits

FormT = TypeVar("FormT", bound=forms.Form)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the last action did, shown at ``place``: beside the form whose button did it
    (one of ``PLACES``), so the player sees the result where they clicked."""

    message: str = ""
    error: str = ""
    roll: Any = None
    place: str = ""


# Where an outcome shows on the play sheet, by the form that asked: the undo button, the wounds
# table (bleeding and medical care), the damage, recovery and turns forms, the dice roller, the
# improvement points and the credits.
PLACES = ("life", "wounds", "damage", "recover", "turns", "dice", "ip", "credits", "armor")
CONDITION_PLACES = {
    "damage": "damage",
    "recover": "recover",
    "end_stun": "turns",
    "dying_turn": "turns",
    **dict.fromkeys(play_forms.WOUND_ACTIONS, "wounds"),
}
# Without JavaScript the outcome comes back as a message tagged with its place (and the roll it
# threw), so the redirected page shows it in the same place.
PLACE_TAG = "play-place:"
ROLL_TAG = "play-roll:"


def _remember_test(request: AuthenticatedHttpRequest, character: Character, data: dict) -> None:
    remembered = request.session.get(ROLLER_SESSION_KEY, {})
    last = remembered.get(str(character.pk), {})
    skill = data["other_skill"].strip() if data["skill"] == "other" else data["skill"]
    attributes = {**last.get("attributes", {}), skill: data["attribute"]}
    remembered[str(character.pk)] = {
        "skill": data["skill"],
        "other_skill": data["other_skill"].strip(),
        "attribute": data["attribute"],
        "tn": data["tn"],
        "dm": data["dm"],
        "attributes": attributes,
    }
    request.session[ROLLER_SESSION_KEY] = remembered


# Never shown from the browser's cache: its actions swap the region in place, and after Back the
# cached copy would be the page as first loaded, before the damage, payments and rolls since.
@never_cache
@login_required
@require_GET
def character_play(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The play sheet, for the owner and the referee of the character's campaign."""
    character = character_for_user(request, pk)
    outcome = _outcome_from_messages(request, character)
    kept = refused_form(request, form=_play_form(character))
    if not outcome.error:
        kept = None
    typed_test = kept if outcome.place == "dice" else None
    context = play_page(request, character, typed_test=typed_test)
    context["outcome"] = outcome
    context["kept"] = kept
    return render(request, "characters/play/play.html", context)


def _play_form(character: Character) -> str:
    """What a refused form of this play sheet is kept as, without JavaScript."""
    return f"play-{character.pk}"


def _respond(
    request: AuthenticatedHttpRequest, character: Character, outcome: Outcome
) -> HttpResponse:
    """htmx: the play region with the outcome at its place. Otherwise: back to the play sheet
    (Post/Redirect/Get) at the outcome (``#outcome``), which shows there from its message; a
    refused form's fields are kept for it, and the forms that take figures show them again."""
    if request.htmx:
        character = Character.objects.select_related("campaign").get(pk=character.pk)
        context = {**play_page(request, character), "outcome": outcome}
        return render(request, "characters/play/play.html#play", context)
    tags = f"{PLACE_TAG}{outcome.place}" + (f" {ROLL_TAG}{outcome.roll.pk}" if outcome.roll else "")
    if outcome.error:
        messages.error(request, outcome.error, extra_tags=tags)
        keep_refused_form(request, form=_play_form(character), fields=request.POST)
    elif outcome.message:
        messages.success(request, outcome.message, extra_tags=tags)
    return redirect(reverse("character_play", args=[character.pk]) + "#outcome")


def _outcome_from_messages(request: AuthenticatedHttpRequest, character: Character) -> Outcome:
    """The outcome an action without JavaScript left as a message for this page, if any."""
    for message in messages.get_messages(request):
        tags = dict(tag.split(":", 1) for tag in message.extra_tags.split() if ":" in tag)
        place = tags.get(PLACE_TAG.rstrip(":"))
        if place not in PLACES:
            continue
        roll_pk = natural_number(tags.get(ROLL_TAG.rstrip(":"), ""))
        roll = character.dice_rolls.filter(pk=roll_pk).first() if roll_pk else None
        text = str(message)
        if message.level == messages.ERROR:
            return Outcome(error=text, place=place)
        return Outcome(message=text, roll=roll, place=place)
    return Outcome()


def _attempt(
    request: AuthenticatedHttpRequest,
    character: Character,
    action: Callable[[], Outcome],
    place: str,
) -> HttpResponse:
    try:
        outcome = replace(action(), place=place)
    except core_services.Refused as refused:
        outcome = Outcome(error=str(refused), place=place)
    except ValidationError as invalid:
        outcome = Outcome(error=" ".join(invalid.messages), place=place)
    return _respond(request, character, outcome)


def _read(form: FormT) -> FormT:
    """The form, valid; else a ValidationError with its first problem, for ``_attempt``."""
    if not form.is_valid():
        raise ValidationError(first_problem(form))
    return form


def _condition_action(
    request: AuthenticatedHttpRequest, character: Character, form: play_forms.ConditionForm
) -> Outcome:
    data = _read(form).cleaned_data
    action = data["action"]
    common = {"character": character, "by": request.user, "expected_version": data["play_version"]}
    if action == "damage":
        result = services.take_damage(
            **common,
            amount=data["amount"],
            form=data["form"],
            damage_type=data["damage_type"] if data["damage_type"] in ("B", "P") else None,
            armor=data["armor"],
        )
    elif action == "end_stun":
        result = services.end_stun(**common)
    elif action == "dying_turn":
        result = services.dying_turn(**common)
    elif action == "bleed":
        result = services.bleed(**common, wound=data["wound"])
    elif action == "stabilise":
        result = services.stabilise_wound(**common, wound=data["wound"], **form.medical_options())
    elif action == "treat":
        result = services.treat_wound(
            **common,
            wound=data["wound"],
            skill=data["skill"] or "Medical",
            **form.medical_options(),
        )
    elif action == "recover":
        result = services.recover(
            **common, form=data["form"], care=data["care"] or "natural", periods=data["periods"]
        )
    else:
        result = services.clear_wound(**common, wound=data["wound"])
    return Outcome(message=result.message or "Recorded.", roll=result.roll)


@login_required
@require_POST
def character_condition(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """Damage and healing: ``action`` is damage, end_stun, dying_turn, bleed, stabilise,
    treat, recover or clear; the owner and the referee record them."""
    character = character_for_user(request, pk)
    form = play_forms.ConditionForm(
        request.POST, party=selectors.party_medics(request.user, character)
    )
    form.is_valid()  # the action, if it is one, tells where the outcome shows
    place = CONDITION_PLACES.get(form.cleaned_data.get("action", ""), "life")
    return _attempt(request, character, lambda: _condition_action(request, character, form), place)


@login_required
@require_POST
def character_condition_undo(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """Undo the last change of the condition: whoever may change it (the owner and the
    referee) may undo it."""
    character = character_for_user(request, pk)

    def undo() -> Outcome:
        data = _read(play_forms.UndoForm(request.POST)).cleaned_data
        undone = services.undo_last_condition_change(
            character=character, by=request.user, expected_version=data["play_version"]
        )
        return Outcome(message=undone.message)

    return _attempt(request, character, undo, "life")


@login_required
@require_POST
def character_roll(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """Throw an action test on the server for the owner or the referee."""
    character = character_for_user(request, pk)

    def roll() -> Outcome:
        form = _read(play_forms.TestPlanForm(request.POST))
        _remember_test(request, character, form.cleaned_data)
        thrown = services.roll_action_test(
            character=character,
            by=request.user,
            plan=form.plan(),
            purpose=form.cleaned_data["purpose"],
        )
        verdict = "success" if thrown.success else "failure"
        return Outcome(
            message=f"{thrown.label}: total {thrown.total} vs TN {thrown.tn}, {verdict}, "
            f"EN {thrown.effect}.",
            roll=thrown,
        )

    return _attempt(request, character, roll, "dice")


@login_required
@require_GET
def character_odds(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The dice roller's odds for the test as the form stands (htmx, on every change)."""
    character = character_for_user(request, pk)
    planned, error = odds(character, play_forms.TestPlanForm(request.GET))
    return render(
        request, "characters/play/play.html#odds", {"planned": planned, "odds_error": error}
    )


@login_required
@require_POST
def character_ip_award(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The referee of the character's campaign awards IP."""
    character = character_for_user(request, pk, review=True)

    def award() -> Outcome:
        data = _read(play_forms.AwardForm(request.POST)).cleaned_data
        amount = data["amount"]
        services.award_improvement_points(
            character=character, by=request.user, amount=amount, reason=data["reason"]
        )
        return Outcome(message=f"Awarded {amount} IP to {character.name}.")

    return _attempt(request, character, award, "ip")


@login_required
@require_POST
def character_ip_spend(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The owner spends IP; what needs the referee's permission becomes a request."""
    character = character_for_user(request, pk, edit=True)

    def spend() -> Outcome:
        form = _read(play_forms.SpendForm(request.POST))
        entry = services.spend_improvement_points(
            character=character, by=request.user, purchase=form.described_purchase()
        )
        if entry.kind == ImprovementEntry.Kind.REQUEST:
            cost = f" ({entry.cost} IP)" if entry.cost is not None else ""
            return Outcome(message=f"{entry.reason} Asked the referee: {entry.description}{cost}.")
        return Outcome(message=f"Spent {entry.cost} IP: {entry.description}.")

    return _attempt(request, character, spend, "ip")


@login_required
@require_POST
def character_ip_decide(request: AuthenticatedHttpRequest, pk: int, entry: int) -> HttpResponse:
    """The referee approves or declines a request; the owner may withdraw their own."""
    character = character_for_user(request, pk)
    request_entry = get_object_or_404(
        ImprovementEntry, pk=entry, character=character, kind=ImprovementEntry.Kind.REQUEST
    )

    def decide() -> Outcome:
        data = _read(play_forms.DecisionForm(request.POST)).cleaned_data
        decided = services.decide_request(
            entry=request_entry,
            by=request.user,
            approve=data["decision"] == "approve",
            ip=data["ip"],
            comment=data["comment"],
        )
        if decided.kind == ImprovementEntry.Kind.PURCHASE:
            return Outcome(message=f"Approved: {decided.description} for {decided.cost} IP.")
        return Outcome(message=f"{request_entry.description}: {decided.reason}")

    return _attempt(request, character, decide, "ip")


def _credits_action(request: AuthenticatedHttpRequest, character: Character) -> Outcome:
    form = _read(play_forms.CreditsForm(request.POST))
    data, by = form.cleaned_data, request.user
    action, note = data["action"], data["note"]
    if action in ("income", "expense"):
        signed = data["amount"] if action == "income" else -data["amount"]
        services.record_credits(character=character, by=by, amount=signed, note=note)
        return Outcome(message=f"{signed_credits(signed)}: {note.strip()}.")
    name, tl = form.item_and_tl()
    if action == "buy":
        entry = services.buy_gear(
            character=character,
            by=by,
            item=name,
            tl=tl,
            quantity=data["quantity"],
            price=data["price"],
            note=note,
        )
        return Outcome(message=f"{entry.note}: Cr{-entry.amount:,}.")
    entry = services.give_up_gear(
        character=character,
        by=by,
        item=name,
        tl=tl,
        quantity=data["quantity"],
        price=data["price"] or 0,
        note=note,
    )
    return Outcome(message=f"{entry.note}.")


@login_required
@require_POST
def character_wear(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The armor the character wears now: the owner and the referee choose it."""
    character = character_for_user(request, pk)

    def wear() -> Outcome:
        pieces = [item_key(item.name, item.tl) for item in carried_armor(character)]
        form = _read(play_forms.WearForm(request.POST, pieces=pieces))
        told = services.wear_armor(
            character=character,
            by=request.user,
            worn=form.pieces(),
            expected_version=form.cleaned_data["play_version"],
        )
        return Outcome(message=told)

    return _attempt(request, character, wear, "armor")


@login_required
@require_POST
def character_credits(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The credits ledger: ``action`` is income, expense, buy or give_up; the owner and the
    referee record entries."""
    character = character_for_user(request, pk)
    return _attempt(request, character, lambda: _credits_action(request, character), "credits")
