"""The play sheet: a character's condition, action tests, improvement points and credits in
play, at ``/characters/<id>/play/``.

Every view gets the character through ``character_views._get_character_for_user`` (owner or
the referee of its campaign; ``edit`` for what only the owner does, ``review`` for what only
the referee does); anyone else gets 404. Every action is a POST form that works without
JavaScript (it redirects back to the sheet with a message); with htmx the form swaps the
``play`` region of the page in place, with the outcome shown at its top. Writes go through
``play_services``; a refused action writes nothing and says why.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Prefetch, prefetch_related_objects
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

import rules
from rules import NotationError, parse_document

from . import play_services, services
from .builder import equipment_choices
from .campaign_views import _get_campaign_for_user
from .character_views import _get_character_for_user
from .models import Character, CharacterEvent, CreditEntry, ImprovementEntry
from .numbers import natural_number

PLAY_EVENTS = (
    CharacterEvent.Kind.PLAY,
    CharacterEvent.Kind.DICE,
    CharacterEvent.Kind.IP,
    CharacterEvent.Kind.CREDITS,
)
RECENT_ROLLS = 8
RECENT_EVENTS = 12


class BadInput(ValueError):
    """A form field that cannot be read; the message names it."""


# The spend form's value for a flaw of the species package: this prefix and the flaw's name.
PACKAGE_FLAW = "package:"


def _int(data: QueryDict, name: str, label: str, *, default: int | None = None) -> int:
    raw = data.get(name, "").strip()
    if not raw and default is not None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise BadInput(f"{label}: give a whole number.") from None


def _optional_int(data: QueryDict, name: str, label: str) -> int | None:
    return _int(data, name, label) if data.get(name, "").strip() else None


# -- the page -------------------------------------------------------------------------------------


def _roles(request: HttpRequest, character: Character) -> dict[str, bool]:
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
    perks, flaws = [], []
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
    for trait in package.traits if package is not None else ():
        if trait.type in cat.flaw_types and trait.name not in parsed.package_flaws_bought_off:
            flaws.append(
                {
                    "index": f"{PACKAGE_FLAW}{trait.name}",
                    "name": f"{trait.name} ({package.name} package)",
                    "cost": price(rules.BuyOffPackageFlaw(trait.name)),
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


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the last action did, for the top of the play region."""

    message: str = ""
    error: str = ""
    roll: Any = None


def _play_context(
    request: HttpRequest, character: Character, outcome: Outcome | None = None
) -> dict[str, Any]:
    report = play_services.report_for(character)
    condition, version = play_services.condition_of(character, report)
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
    load = play_services.carried_load(character, report)
    gravity, gravity_error = _gravity(request.GET)
    carry = rules.carrying(load.carrying_str, gravity)
    penalty = rules.encumbrance_penalty(load.load_kg, carry)
    effective = rules.effective(
        report,
        condition,
        encumbrance_penalty=penalty,
        armor_str_short=load.armor_str_short,
    )
    roles = _roles(request, character)
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
        "boxes": rules.boxes(condition),
        "states": play_services.states(condition),
        "wounds": play_services.wound_notes(condition),
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
            for skill in play_services.MEDICAL_SKILLS
            if (line := play_services.skill_line(report, skill))
        )
        or "no Medical skill",
        # Action tests.
        "difficulties": rules.difficulties(),
        "default_tn": rules.dice.usual_difficulty().tn,
        "attribute_dice": rules.dice.dice_notation(rules.dice.ATTRIBUTE),
        "unskilled_dice": rules.dice.dice_notation(rules.dice.UNSKILLED),
        "attribute_codes": cat.attribute_order,
        "skill_lines": report.skills.lines,
        "skill_names": [skill.name for skill in cat.skills],
        "rolls": list(character.dice_rolls.select_related("actor")[:RECENT_ROLLS]),
        # Improvement points.
        "ip_balance": play_services.ip_balance(character),
        "ip_entries": [e for e in entries if e.kind != ImprovementEntry.Kind.REQUEST],
        "ip_requests": [e for e in entries if e.kind == ImprovementEntry.Kind.REQUEST],
        "options": _purchase_options(character, report) if roles["is_owner"] else None,
        "maxima": play_services.INPUT_MAXIMA,
        # Credits and gear.
        "credit_balance": play_services.credit_balance(character, report),
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
        "gravity_given": request.GET.get("gravity", ""),
        "size_given": request.GET.get("size", ""),
        # The play log.
        "events": list(
            character.events.filter(kind__in=PLAY_EVENTS)
            .select_related("actor")
            .order_by("-created_at", "-id")[:RECENT_EVENTS]
        ),
    }
    return context


# The heaviest gravity the sheet takes, in g: far past any world a character walks on.
GRAVITY_MAX = 10.0


def _gravity(query: QueryDict) -> tuple[float, str]:
    """The world's gravity the load figures are for: ``gravity`` in g, else the world's
    ``size`` (a number or a hex digit) by the engine's rule, else 1 g; with a message when
    what was given cannot be read (the figures are then for 1 g)."""
    gravity = query.get("gravity", "").strip()
    size = query.get("size", "").strip()
    if gravity:
        try:
            value = float(gravity)
        except ValueError:
            value = -1.0
        if not 0 <= value <= GRAVITY_MAX:  # also refuses nan
            return 1.0, f"Gravity: give a number of g from 0 to {GRAVITY_MAX:g}."
        return value, ""
    if size:
        digits = size.isascii() and size.isdigit() and len(size) <= 2
        level = int(size) if digits else rules.catalog().from_hex(size)
        if level is None:
            return 1.0, "World size: give a number or a hex digit (0-9, A-H)."
        return rules.world_gravity(level), ""
    return 1.0, ""


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
def character_play(request: HttpRequest, pk: int) -> HttpResponse:
    """The play sheet, for the owner and the referee of the character's campaign."""
    character = _get_character_for_user(request, pk)
    return render(request, "characters/play.html", _play_context(request, character))


def _respond(
    request: HttpRequest, character: Character, outcome: Outcome, anchor: str = ""
) -> HttpResponse:
    """htmx: the play region with the outcome at its top. Otherwise: back to the play sheet
    (Post/Redirect/Get) with the outcome as a message."""
    if request.htmx:
        character = Character.objects.select_related("campaign").get(pk=character.pk)
        context = _play_context(request, character, outcome)
        return render(request, "characters/play.html#play", context)
    if outcome.error:
        messages.error(request, outcome.error)
    elif outcome.message:
        messages.success(request, outcome.message)
    return redirect(
        reverse("character_play", args=[character.pk]) + (f"#{anchor}" if anchor else "")
    )


def _attempt(
    request: HttpRequest,
    character: Character,
    action: Callable[[], Outcome],
    anchor: str,
) -> HttpResponse:
    try:
        outcome = action()
    except (services.Refused, BadInput) as refused:
        outcome = Outcome(error=str(refused))
    return _respond(request, character, outcome, anchor)


# -- the condition --------------------------------------------------------------------------------


def _medic(data: QueryDict) -> play_services.Medic:
    if data.get("medic", "own") == "own":
        return play_services.Medic(own=True, attribute=data.get("attribute", "EDU"))
    return play_services.Medic(
        own=False,
        skill_level=_optional_int(data, "medic_level", "Medic's skill level"),
        attribute_dm=_int(data, "medic_dm", "Medic's attribute DM", default=0),
    )


def _medical_options(data: QueryDict) -> dict[str, Any]:
    return {
        "medic": _medic(data),
        "supplies": data.get("supplies", "kit"),
        "tl": _optional_int(data, "tl", "Tech level"),
        "unsanitary": data.get("unsanitary") == "on",
        "dm": _int(data, "dm", "Other DM", default=0),
    }


def _condition_action(request: HttpRequest, character: Character, action: str) -> Outcome:
    data = request.POST
    common = {
        "character": character,
        "by": request.user,
        "expected_version": _int(data, "play_version", "Version"),
    }
    if action == "damage":
        damage_type = data.get("damage_type", "")
        result = play_services.take_damage(
            **common,
            amount=_int(data, "amount", "Damage"),
            form=data.get("form", ""),
            damage_type=damage_type if damage_type in ("B", "P") else None,
            armor=_int(data, "armor", "Armor", default=0),
        )
    elif action == "end_stun":
        result = play_services.end_stun(**common)
    elif action == "dying_turn":
        result = play_services.dying_turn(**common)
    elif action == "bleed":
        result = play_services.bleed(**common, wound=_int(data, "wound", "Wound"))
    elif action == "stabilise":
        result = play_services.stabilise_wound(
            **common, wound=_int(data, "wound", "Wound"), **_medical_options(data)
        )
    elif action == "treat":
        result = play_services.treat_wound(
            **common,
            wound=_int(data, "wound", "Wound"),
            skill=data.get("skill", "Medical"),
            **_medical_options(data),
        )
    elif action == "recover":
        result = play_services.recover(
            **common,
            form=data.get("form", ""),
            care=data.get("care", "natural"),
            periods=_int(data, "periods", "Periods", default=1),
        )
    elif action == "clear":
        result = play_services.clear_wound(**common, wound=_int(data, "wound", "Wound"))
    else:
        raise BadInput(f"Unknown action {action!r}.")
    return Outcome(message=result.message or "Recorded.", roll=result.roll)


@login_required
@require_POST
def character_condition(request: HttpRequest, pk: int) -> HttpResponse:
    """Damage and healing: ``action`` is damage, end_stun, dying_turn, bleed, stabilise,
    treat, recover or clear; the owner and the referee record them."""
    character = _get_character_for_user(request, pk)
    action = request.POST.get("action", "")
    return _attempt(
        request, character, lambda: _condition_action(request, character, action), "life"
    )


# -- action tests ---------------------------------------------------------------------------------


def _test_plan(data: QueryDict) -> play_services.TestPlan:
    skill, _, cascade = data.get("skill", "").partition("::")
    if data.get("skill") == "other":
        skill, cascade = data.get("other_skill", "").strip(), ""
        if not skill:
            raise BadInput("Name the skill the character lacks.")
    return play_services.TestPlan(
        attribute=data.get("attribute", ""),
        tn=_int(data, "tn", "TN"),
        dm=_int(data, "dm", "DM", default=0),
        skill=skill or None,
        cascade=cascade or None,
    )


@login_required
@require_POST
def character_roll(request: HttpRequest, pk: int) -> HttpResponse:
    """Throw an action test on the server for the owner or the referee."""
    character = _get_character_for_user(request, pk)

    def roll() -> Outcome:
        thrown = play_services.roll_action_test(
            character=character,
            by=request.user,
            plan=_test_plan(request.POST),
            purpose=request.POST.get("purpose", ""),
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
def character_odds(request: HttpRequest, pk: int) -> HttpResponse:
    """The dice roller's odds for the test as the form stands (htmx, on every change)."""
    character = _get_character_for_user(request, pk)
    try:
        planned = play_services.plan_test(character, _test_plan(request.GET))
    except (services.Refused, BadInput) as refused:
        planned, error = None, str(refused)
    else:
        error = ""
    return render(request, "characters/play.html#odds", {"planned": planned, "odds_error": error})


# -- improvement points ---------------------------------------------------------------------------


@login_required
@require_POST
def character_ip_award(request: HttpRequest, pk: int) -> HttpResponse:
    """The referee of the character's campaign awards IP."""
    character = _get_character_for_user(request, pk, review=True)

    def award() -> Outcome:
        amount = _int(request.POST, "amount", "IP")
        play_services.award_improvement_points(
            character=character,
            by=request.user,
            amount=amount,
            reason=request.POST.get("reason", ""),
        )
        return Outcome(message=f"Awarded {amount} IP to {character.name}.")

    return _attempt(request, character, award, "ip")


def _purchase(data: QueryDict) -> rules.play.Purchase:
    """The purchase a spend form describes (its ``purchase`` field names the kind)."""
    kind = data.get("purchase", "")
    if kind == "raise_skill":
        skill, _, cascade = data.get("skill", "").partition("::")
        if not skill:
            raise BadInput("Choose a skill to raise.")
        return rules.RaiseSkill(skill, cascade or None, _int(data, "to_level", "New level"))
    if kind == "new_skill":
        skill = data.get("skill", "").strip()
        definition = rules.catalog().find_skill(skill) if skill else None
        if definition is None:
            raise BadInput("Name a skill from the rulebook's list.")
        cascade = data.get("cascade", "").strip() or None
        return rules.RaiseSkill(definition.name, cascade, _int(data, "to_level", "Level"))
    if kind == "add_specialty":
        skill, _, specialty = data.get("specialty", "").partition("::")
        if not specialty:
            raise BadInput("Choose a specialty.")
        return rules.AddSpecialty(skill, specialty)
    if kind == "add_perk":
        try:
            trait = rules.parse_trait(data.get("notation", ""), data.get("name", "").strip())
        except NotationError as error:
            raise BadInput(str(error)) from None
        if not trait.name:
            raise BadInput("Give the perk a name.")
        return rules.AddPerk(trait)
    if kind == "raise_perk":
        return rules.RaisePerk(_int(data, "trait", "Perk"), data.get("to_level", ""))
    if kind == "buy_off_flaw":
        chosen = data.get("trait", "")
        if chosen.startswith(PACKAGE_FLAW):
            return rules.BuyOffPackageFlaw(chosen.removeprefix(PACKAGE_FLAW))
        return rules.BuyOffFlaw(_int(data, "trait", "Flaw"))
    if kind == "raise_attribute":
        return rules.RaiseAttribute(data.get("attribute", ""), _int(data, "to_level", "Level"))
    raise BadInput("Choose what to buy.")


@login_required
@require_POST
def character_ip_spend(request: HttpRequest, pk: int) -> HttpResponse:
    """The owner spends IP; what needs the referee's permission becomes a request."""
    character = _get_character_for_user(request, pk, edit=True)

    def spend() -> Outcome:
        entry = play_services.spend_improvement_points(
            character=character, by=request.user, purchase=_purchase(request.POST)
        )
        if entry.kind == ImprovementEntry.Kind.REQUEST:
            cost = f" ({entry.cost} IP)" if entry.cost is not None else ""
            return Outcome(message=f"{entry.reason} Asked the referee: {entry.description}{cost}.")
        return Outcome(message=f"Spent {entry.cost} IP: {entry.description}.")

    return _attempt(request, character, spend, "ip")


@login_required
@require_POST
def character_ip_decide(request: HttpRequest, pk: int, entry: int) -> HttpResponse:
    """The referee approves or declines a request; the owner may withdraw their own."""
    character = _get_character_for_user(request, pk)
    request_entry = get_object_or_404(
        ImprovementEntry, pk=entry, character=character, kind=ImprovementEntry.Kind.REQUEST
    )

    def decide() -> Outcome:
        approve = request.POST.get("decision") == "approve"
        decided = play_services.decide_request(
            entry=request_entry,
            by=request.user,
            approve=approve,
            ip=_optional_int(request.POST, "ip", "IP cost"),
            comment=request.POST.get("comment", ""),
        )
        if decided.kind == ImprovementEntry.Kind.PURCHASE:
            return Outcome(message=f"Approved: {decided.description} for {decided.cost} IP.")
        return Outcome(message=f"{request_entry.description}: {decided.reason}")

    return _attempt(request, character, decide, "ip")


@login_required
@require_POST
def campaign_award(request: HttpRequest, pk: int) -> HttpResponse:
    """The referee awards the same IP, for the same reason, to several characters at once
    (one point a session for everyone, a bonus at the end of an adventure)."""
    campaign = _get_campaign_for_user(request, pk, referee=True)
    ids = [pk for value in request.POST.getlist("character") if (pk := natural_number(value))]
    chosen = list(campaign.characters.filter(pk__in=ids).order_by("name"))
    try:
        amount = _int(request.POST, "amount", "IP")
    except BadInput as bad:
        messages.error(request, str(bad))
        return redirect(reverse("campaign_detail", args=[campaign.pk]) + "#award")
    if not chosen:
        messages.error(request, "Choose the characters to award improvement points to.")
        return redirect(reverse("campaign_detail", args=[campaign.pk]) + "#award")
    try:
        play_services.award_improvement_points_to_each(
            characters=chosen, by=request.user, amount=amount, reason=request.POST.get("reason", "")
        )
    except services.Refused as refused:
        messages.error(request, f"Nobody was awarded anything: {refused}")
    else:
        names = ", ".join(character.name for character in chosen)
        messages.success(request, f"Awarded {amount} IP to {names}.")
    return redirect(reverse("campaign_detail", args=[campaign.pk]) + "#award")


# -- credits and gear -----------------------------------------------------------------------------


def _item(data: QueryDict) -> tuple[str, int | None]:
    name, _, tl = data.get("item", "").partition("|")
    if not name:
        raise BadInput("Choose an item.")
    return name, natural_number(tl)


def _credits_action(request: HttpRequest, character: Character, action: str) -> Outcome:
    data, by = request.POST, request.user
    note = data.get("note", "")
    if action in ("income", "expense"):
        amount = _int(data, "amount", "Credits")
        if amount <= 0:
            raise BadInput("Credits: give an amount above 0.")
        signed = amount if action == "income" else -amount
        play_services.record_credits(character=character, by=by, amount=signed, note=note)
        return Outcome(message=f"Cr{signed:+,}: {note.strip()}.")
    if action == "buy":
        name, tl = _item(data)
        entry = play_services.buy_gear(
            character=character,
            by=by,
            item=name,
            tl=tl,
            quantity=_int(data, "quantity", "Quantity", default=1),
            price=_optional_int(data, "price", "Price"),
            note=note,
        )
        return Outcome(message=f"{entry.note}: Cr{-entry.amount:,}.")
    if action == "give_up":
        name, tl = _item(data)
        entry = play_services.give_up_gear(
            character=character,
            by=by,
            item=name,
            tl=tl,
            quantity=_int(data, "quantity", "Quantity", default=1),
            price=_int(data, "price", "Price", default=0),
            note=note,
        )
        return Outcome(message=f"{entry.note}.")
    raise BadInput(f"Unknown action {action!r}.")


@login_required
@require_POST
def character_credits(request: HttpRequest, pk: int) -> HttpResponse:
    """The credits ledger: ``action`` is income, expense, buy or give_up; the owner and the
    referee record entries."""
    character = _get_character_for_user(request, pk)
    action = request.POST.get("action", "")
    return _attempt(
        request, character, lambda: _credits_action(request, character, action), "credits"
    )
