"""The play sheet: a character's condition, action tests, improvement points and credits in
play, at ``/characters/<id>/play/``.

Every view gets the character through ``character_views.character_for_user`` (owner or
the referee of its campaign; ``edit`` for what only the owner does, ``review`` for what only
the referee does); anyone else gets 404. Every action is a POST form that works without
JavaScript (it redirects back to the sheet with a message); with htmx the form swaps the
``play`` region of the page in place, with the outcome shown at its top. Writes go through
``play_services``; a refused action writes nothing and says why.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db.models import Prefetch, prefetch_related_objects
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

import rules
from characters.builder.forms import equipment_choices
from characters.core import selectors as core_selectors
from characters.core import services as core_services
from characters.core.forms import first_problem
from characters.core.requests import AuthenticatedHttpRequest
from characters.core.selectors import character_for_user
from characters.models import (
    Character,
    CharacterEvent,
    CreditEntry,
    ImprovementEntry,
    PlayState,
)
from characters.play import forms as play_forms
from characters.play import selectors, services
from rules import parse_document

PLAY_EVENTS = (
    CharacterEvent.Kind.PLAY,
    CharacterEvent.Kind.DICE,
    CharacterEvent.Kind.IP,
    CharacterEvent.Kind.CREDITS,
)
RECENT_ROLLS = 8
RECENT_EVENTS = 12


def _roles(request: AuthenticatedHttpRequest, character: Character) -> dict[str, bool]:
    is_referee = character.campaign is not None and character.campaign.referee_id == request.user.pk
    return {"is_owner": character.owner_id == request.user.pk, "is_referee": is_referee}


def _attribute_rows(report, effective) -> list[dict[str, Any]]:
    cat = rules.catalog()
    return [
        {
            "code": value.code,
            "name": cat.attribute_names[value.code],
            "level": value.level,
            "now": effective.levels[value.code],
            "dm": value.dm,
            "dm_now": effective.test_dm(value.code),
            "changed": effective.levels[value.code] != value.level
            or effective.test_dm(value.code) != value.dm,
        }
        for value in report.attributes
    ]


def _derived_rows(report, effective) -> list[dict[str, Any]]:
    cat = rules.catalog()
    return [
        {
            "code": code,
            "name": cat.derived_names[code],
            "base": base,
            "now": getattr(effective.derived, code),
        }
        for code, base in report.derived.as_dict().items()
    ]


def _purchase_options(character: Character, report) -> dict[str, Any]:
    """What the owner can buy with IP, with the engine's price where it has one."""
    cat = rules.catalog()
    costs = rules.play.improvement_costs()
    parsed = parse_document(character.document)

    def price(purchase) -> int | None:
        try:
            return rules.improvement_cost(parsed, purchase)
        except rules.ImprovementError:
            return None

    skills = []
    for line in report.skills.lines:
        purchase = rules.RaiseSkill(line.skill, line.cascade, line.level + 1)
        skills.append(
            {
                "value": f"{line.skill}::{line.cascade or ''}",
                "name": line.name,
                "level": line.level,
                "next_cost": price(purchase),
            }
        )
    specialties = []
    for entry in parsed.skills:
        definition = cat.find_skill(entry.skill)
        if definition is None or entry.cascade:
            continue
        for specialty in definition.specialties:
            if specialty.name not in entry.specialties:
                specialties.append(
                    {
                        "value": f"{entry.skill}::{specialty.name}",
                        "label": f"{entry.skill}: {specialty.label}",
                    }
                )
    perks: list[dict[str, Any]] = []
    flaws: list[dict[str, Any]] = []
    for index, trait in enumerate(parsed.traits):
        if trait.type in cat.perk_types and not trait.derived:
            levels = [
                {"level": code, "name": level["name"], "cost": price(rules.RaisePerk(index, code))}
                for code, level in cat.perk_levels.items()
            ]
            perks.append(
                {"index": index, "name": trait.name, "level": trait.level, "levels": levels}
            )
        elif trait.type in cat.flaw_types:
            flaws.append(
                {"index": index, "name": trait.name, "cost": price(rules.BuyOffFlaw(index))}
            )
    # The species package's flaws can be bought off too; the form names them "package:NAME".
    package = cat.species.get(parsed.species)
    package_flaws = [
        flaw
        for flaw in (package.traits if package is not None else ())
        if flaw.type in cat.flaw_types and flaw.name not in parsed.package_flaws_bought_off
    ]
    for flaw in package_flaws:
        flaws.append(
            {
                "index": f"{play_forms.PACKAGE_FLAW}{flaw.name}",
                "name": f"{flaw.name} ({package.name if package else ''} package)",
                "cost": price(rules.BuyOffPackageFlaw(flaw.name)),
            }
        )
    return {
        "skills": skills,
        "specialties": specialties,
        "perks": [p for p in perks if any(level["cost"] for level in p["levels"])],
        "flaws": flaws,
        "perk_levels": [
            {"level": code, "name": level["name"]} for code, level in cat.perk_levels.items()
        ],
        "specialty_cost": costs.specialty,
        "ip_per_level": costs.ip_per_new_skill_level,
        "ip_per_trait_point": costs.ip_per_trait_point,
    }


FormT = TypeVar("FormT", bound=forms.Form)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the last action did, for the top of the play region."""

    message: str = ""
    error: str = ""
    roll: Any = None


def _play_context(
    request: AuthenticatedHttpRequest, character: Character, outcome: Outcome | None = None
) -> dict[str, Any]:
    report = core_selectors.character_report(character)
    condition, version = selectors.condition_of(character, report)
    # Both ledgers, newest first, read once: the balances, the carried gear and the lists.
    prefetch_related_objects(
        [character],
        Prefetch(
            "credit_entries",
            CreditEntry.objects.select_related("actor").order_by("-created_at", "-id"),
        ),
        Prefetch(
            "improvement_entries",
            ImprovementEntry.objects.select_related("actor", "revision").order_by(
                "-created_at", "-id"
            ),
        ),
    )
    credit_entries = list(character.credit_entries.all())
    entries = list(character.improvement_entries.all())
    load = selectors.carried_load(character, report)
    world = play_forms.WorldForm(request.GET)
    gravity, gravity_error = world.world_gravity()
    carry = rules.carrying(load.carrying_str, gravity)
    penalty = rules.encumbrance_penalty(load.load_kg, carry)
    effective = rules.effective(
        report,
        condition,
        encumbrance_penalty=penalty,
        armor_str_short=load.armor_str_short,
    )
    roles = _roles(request, character)
    last_change, undo_blocked = selectors.undoable_change(
        character, PlayState.objects.filter(character=character).first()
    )
    cat = rules.catalog()
    context: dict[str, Any] = {
        "character": character,
        "report": report,
        "outcome": outcome or Outcome(),
        **roles,
        "can_play": roles["is_owner"] or roles["is_referee"],
        # The condition.
        "condition": condition,
        "play_version": version,
        "last_change": last_change,
        "undo_blocked": undo_blocked,
        "boxes": rules.boxes(condition),
        "states": selectors.states(condition),
        "wounds": selectors.wound_notes(condition),
        "attribute_rows": _attribute_rows(report, effective),
        "derived_rows": _derived_rows(report, effective),
        "effective": effective,
        "recovery_dv": rules.recovery_dv(report, condition),
        "recovery_periods": {
            care: {form: rules.recovery_period(form, care) for form in ("S", "L")}
            for care in rules.play.injury_rules().care_names
        },
        "care_names": list(rules.play.injury_rules().care_names.items()),
        "supplies": _supplies(),
        "unsanitary_dm": rules.play.injury_rules().unsanitary_dm,
        "dying_loss": rules.play.injury_rules().dying_loss_per_turn,
        "own_medic": ", ".join(
            line.name
            for skill in services.MEDICAL_SKILLS
            if (line := services.skill_line(report, skill))
        )
        or "no Medical skill",
        # Action tests.
        "difficulties": rules.difficulties(),
        "default_tn": rules.dice.usual_difficulty().tn,
        "attribute_dice": rules.dice.dice_notation(rules.dice.ATTRIBUTE),
        "unskilled_dice": rules.dice.dice_notation(rules.dice.UNSKILLED),
        "attribute_codes": cat.attribute_order,
        "species_choices": list(cat.species.items()),
        "skill_lines": report.skills.lines,
        "skill_names": [skill.name for skill in cat.skills],
        "rolls": list(character.dice_rolls.select_related("actor")[:RECENT_ROLLS]),
        # Improvement points.
        "ip_balance": selectors.ip_balance(character),
        "ip_entries": [e for e in entries if e.kind != ImprovementEntry.Kind.REQUEST],
        "ip_requests": [e for e in entries if e.kind == ImprovementEntry.Kind.REQUEST],
        "options": _purchase_options(character, report) if roles["is_owner"] else None,
        "maxima": services.INPUT_MAXIMA,
        # Credits and gear.
        "credit_balance": selectors.credit_balance(character, report),
        "credits_at_start": report.equipment.credits_remaining,
        "credit_entries": credit_entries,
        "equipment_choices": equipment_choices(),
        "carried": load.lines,
        "load": load,
        # What the character carries on this world (?gravity=0.5 or ?size=4; 1 g without).
        "carry": carry,
        "encumbrance_penalty": penalty,
        "gravity_error": gravity_error,
        "carried_in_armor": load.carrying_str != report.attribute("STR").level,
        "gravity_given": world.data.get("gravity", ""),
        "size_given": world.data.get("size", ""),
        # The play log.
        "events": list(
            character.events.filter(kind__in=PLAY_EVENTS)
            .select_related("actor")
            .order_by("-created_at", "-id")[:RECENT_EVENTS]
        ),
    }
    return context


def _supplies() -> list[tuple[str, str]]:
    """The Healing DM Table's supplies, with the engine's DMs."""
    table = rules.play.injury_rules()
    ample = f"{table.ample_dm_per_tl:+d} per TL above {table.ample_above_tl}"
    return [
        ("kit", f"Medical kit ({rules.healing_dm(supplies='kit'):+d})"),
        ("none", f"No supplies ({rules.healing_dm(supplies='none'):+d})"),
        ("ample", f"Sick bay or hospital ({ample}: give the TL)"),
    ]


@login_required
@require_GET
def character_play(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The play sheet, for the owner and the referee of the character's campaign."""
    character = character_for_user(request, pk)
    return render(request, "characters/play/play.html", _play_context(request, character))


def _respond(
    request: AuthenticatedHttpRequest, character: Character, outcome: Outcome, anchor: str = ""
) -> HttpResponse:
    """htmx: the play region with the outcome at its top. Otherwise: back to the play sheet
    (Post/Redirect/Get) with the outcome as a message."""
    if request.htmx:
        character = Character.objects.select_related("campaign").get(pk=character.pk)
        context = _play_context(request, character, outcome)
        return render(request, "characters/play/play.html#play", context)
    if outcome.error:
        messages.error(request, outcome.error)
    elif outcome.message:
        messages.success(request, outcome.message)
    return redirect(
        reverse("character_play", args=[character.pk]) + (f"#{anchor}" if anchor else "")
    )


def _attempt(
    request: AuthenticatedHttpRequest,
    character: Character,
    action: Callable[[], Outcome],
    anchor: str,
) -> HttpResponse:
    try:
        outcome = action()
    except core_services.Refused as refused:
        outcome = Outcome(error=str(refused))
    except ValidationError as invalid:
        outcome = Outcome(error=" ".join(invalid.messages))
    return _respond(request, character, outcome, anchor)


def _read(form: FormT) -> FormT:
    """The form, valid; else a ValidationError with its first problem, for ``_attempt``."""
    if not form.is_valid():
        raise ValidationError(first_problem(form))
    return form


def _condition_action(request: AuthenticatedHttpRequest, character: Character) -> Outcome:
    form = _read(play_forms.ConditionForm(request.POST))
    data = form.cleaned_data
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
    return _attempt(request, character, lambda: _condition_action(request, character), "life")


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
    form = play_forms.TestPlanForm(request.GET)
    planned, error = None, ""
    if not form.is_valid():
        error = first_problem(form)
    else:
        try:
            planned = services.plan_test(character, form.plan())
        except core_services.Refused as refused:
            error = str(refused)
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
        return Outcome(message=f"Cr{signed:+,}: {note.strip()}.")
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
def character_credits(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The credits ledger: ``action`` is income, expense, buy or give_up; the owner and the
    referee record entries."""
    character = character_for_user(request, pk)
    return _attempt(request, character, lambda: _credits_action(request, character), "credits")
