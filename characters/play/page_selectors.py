"""The play sheet as its page shows it: every read that assembles ``/characters/<id>/play/``
(the condition and its record, the dice roller, medical care, improvement points, credits
and gear), for the view to render."""

from typing import Any

from django.db.models import Prefetch, prefetch_related_objects
from django.http import QueryDict

import rules
from characters.core import selectors as core_selectors
from characters.core import services as core_services
from characters.core.equipment import equipment_choices, item_key
from characters.core.forms import first_problem
from characters.core.requests import AuthenticatedHttpRequest
from characters.core.wording import weapon_lines, with_specialty_dm
from characters.models import Character, CharacterEvent, CreditEntry, ImprovementEntry
from characters.play import forms as play_forms
from characters.play import selectors, services
from rules import parse_document
from rules.catalog import EquipmentItem
from rules.fighters import skill_specialties

PLAY_EVENTS = (
    CharacterEvent.Kind.PLAY,
    CharacterEvent.Kind.DICE,
    CharacterEvent.Kind.IP,
    CharacterEvent.Kind.CREDITS,
)
RECENT_ROLLS = 8
RECENT_EVENTS = 12


def _roles(request: AuthenticatedHttpRequest, character: Character) -> dict[str, bool]:
    return {
        "is_owner": character.owner_id == request.user.pk,
        "is_referee": core_selectors.is_referee(character.campaign, request.user.pk),
    }


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


def _offer(
    parsed: rules.Character,
    purchase: rules.RaiseSkill | rules.AddSpecialty,
    house_rules: rules.HouseRules | None,
    report: rules.Report,
) -> tuple[int, str]:
    """The engine's IP price of ``purchase``, and why it is refused ("" when it is not): the
    engine refuses it outright, or it breaks a creation cap."""
    try:
        cost, problems = rules.check_improvement(
            parsed, purchase, house_rules=house_rules, before=report
        )
    except rules.ImprovementError as error:
        return 0, str(error)
    return cost, problems[0].message if problems else ""


def _raisable_skills(
    parsed: rules.Character, report: rules.Report, house_rules: rules.HouseRules | None
) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """The skills a level can be bought for, with the next level's price, and those at their
    cap with the engine's reason: they are not offered, the reason is shown."""
    skills, capped = [], []
    for line in report.skills.lines:
        purchase = rules.RaiseSkill(line.skill, line.cascade, line.level + 1)
        cost, refusal = _offer(parsed, purchase, house_rules, report)
        if refusal:
            capped.append({"name": line.name, "reason": refusal})
            continue
        skills.append(
            {
                "value": f"{line.skill}::{line.cascade or ''}",
                "name": line.name,
                "level": line.level,
                "next_cost": cost,
            }
        )
    return skills, capped


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

    house_rules = character.house_rules()
    skills, capped = _raisable_skills(parsed, report, house_rules)
    specialties: list[dict[str, str]] = []
    for entry in parsed.skills:
        definition = cat.find_skill(entry.skill)
        if definition is None or entry.cascade:
            continue
        new = [s for s in definition.specialties if s.name not in entry.specialties]
        # What the engine refuses of one specialty (the skill's level too low for another)
        # it refuses of each of the skill's: one check per skill keeps the page quick.
        if (
            not new
            or _offer(parsed, rules.AddSpecialty(entry.skill, new[0].name), house_rules, report)[1]
        ):
            continue
        specialties.extend(
            {"value": f"{entry.skill}::{s.name}", "label": f"{entry.skill}: {s.label}"} for s in new
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
        "capped_skills": capped,
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


# What the roller takes back from a refused form: the test, and what it was for.
_TYPED_TEST_FIELDS = ("skill", "other_skill", "attribute", "tn", "dm", "purpose")

# The dice roller's last test per character, in the user's session: a throw leaves the roller
# as it was, and each skill keeps the governing attribute the player last chose for it.
ROLLER_SESSION_KEY = "play_roller"


def _roller(
    request: AuthenticatedHttpRequest,
    character: Character,
    report,
    condition,
    typed: QueryDict | None = None,
) -> dict[str, Any]:
    """The dice roller as it starts: the test ``typed`` in a refused form (without
    JavaScript), else the last test thrown from this session, else the character's first skill;
    each skill with the attribute to suggest (the one the player last chose for it, else the
    catalog's), and the odds of the test as it stands."""
    cat = rules.catalog()
    last = request.session.get(ROLLER_SESSION_KEY, {}).get(str(character.pk), {})
    if typed is not None:
        last = {**last, **{field: typed.get(field, "") for field in _TYPED_TEST_FIELDS}}
    chosen = last.get("attributes", {})

    def suggested(skill: str, key: str) -> str:
        last_chosen = chosen.get(key)
        if last_chosen in cat.attribute_order:
            return last_chosen
        return rules.governing_attribute(skill)

    # Each skill, then each of its specialties as a test of its own: the player says the
    # specialty is involved by choosing it, and the test takes its +1.
    skills = []
    for line in report.skills.lines:
        value = f"{line.skill}::{line.cascade or ''}"
        plain = rules.format_skill(line.skill, line.level, line.cascade)
        skills.append({"value": value, "name": plain, "attribute": suggested(line.skill, value)})
        skills.extend(
            {
                "value": (with_specialty := f"{value}::{specialty}"),
                "name": f"{plain}, {with_specialty_dm(specialty)}",
                "attribute": suggested(line.skill, with_specialty),
            }
            for specialty in line.specialties
        )
    values = {skill["value"] for skill in skills} | {"", "other"}
    skill = last.get("skill") if last.get("skill") in values else None
    if skill is None:
        skill = skills[0]["value"] if skills else ""
    other = last.get("other_skill", "")
    if skill == "other":
        attribute = suggested(other, other)
    elif skill:
        attribute = next(s["attribute"] for s in skills if s["value"] == skill)
    else:
        attribute = last.get("attribute") or cat.attribute_order[0]
    if typed is not None and last["attribute"] in cat.attribute_order:
        attribute = last["attribute"]
    form = play_forms.TestPlanForm(
        {
            "skill": skill,
            "other_skill": other,
            "attribute": attribute,
            "tn": last.get("tn", rules.dice.usual_difficulty().tn),
            "dm": last.get("dm", 0),
        }
    )
    planned, error = odds(character, form, report, condition)
    return {
        "skills": skills,
        "skill": skill,
        "other_skill": other,
        "attribute": attribute,
        "tn": form.cleaned_data.get("tn"),
        # A DM the form refused is shown as typed, to be mended.
        "dm": form.cleaned_data.get("dm", form.data["dm"]),
        "purpose": last.get("purpose", ""),
        "planned": planned,
        # A refused test's notice, just below, already says why.
        "odds_error": "" if typed is not None else error,
        "suggested": [{"name": s.name, "attribute": suggested(s.name, s.name)} for s in cat.skills],
    }


def odds(character: Character, form: play_forms.TestPlanForm, report=None, condition=None):
    """The planned test of the roller's form and its chance, or why there is none."""
    if not form.is_valid():
        return None, first_problem(form)
    try:
        return services.plan_test(character, form.plan(), report=report, condition=condition), ""
    except core_services.Refused as refused:
        return None, str(refused)


def _medics(request: AuthenticatedHttpRequest, character: Character, condition) -> dict[str, Any]:
    """Who can give the character medical care, for the medical forms: the patient (unless it
    cannot act), the party's other characters the user may see (each with its medical skills,
    or why it cannot act now), or another medic described by figures. The default is the first
    of them able to act, those with a medical skill first."""
    party = []
    for medic in selectors.party_medics(request.user, character):
        report = core_selectors.character_report(medic)
        skills = _medical_skills(report)
        party.append(
            {
                "value": str(medic.pk),
                "name": medic.name,
                "skills": skills,
                "unable": services.cannot_act(
                    medic.name,
                    selectors.condition_in(selectors.stored_state(medic), report)[0],
                    "give medical aid",
                ),
                "skilled": skills != NO_MEDICAL_SKILL,
            }
        )
    patient_unable = services.cannot_act(character.name, condition, "give medical aid")
    able = sorted((m for m in party if not m["unable"]), key=lambda m: not m["skilled"])
    default = "own" if not patient_unable else able[0]["value"] if able else "other"
    return {
        "party": party,
        "patient_unable": patient_unable,
        "default": default,
        "attribute": rules.governing_attribute(services.MEDICAL),
    }


NO_MEDICAL_SKILL = "no Medical skill"


def _medical_skills(report) -> str:
    """The medical skills of a character, e.g. "Medical-2, Surgery-1"."""
    return (
        ", ".join(
            line.name
            for skill in services.MEDICAL_SKILLS
            if (line := services.skill_line(report, skill))
        )
        or NO_MEDICAL_SKILL
    )


def play_page(
    request: AuthenticatedHttpRequest,
    character: Character,
    *,
    typed_test: QueryDict | None = None,
) -> dict[str, Any]:
    """Everything the play sheet shows ``request.user`` of ``character`` (the owner or the
    referee), its dice roller starting from ``typed_test`` when a refused test is shown again;
    the view adds where the last action's outcome shows."""
    report = core_selectors.character_report(character)
    # Read once: the condition shown, and whether its last change can still be undone.
    state = selectors.play_state(character)
    condition, version = selectors.condition_in(state, report)
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
    last_change, undo_blocked = selectors.undoable_change(character, state, request.user)
    cat = rules.catalog()
    context: dict[str, Any] = {
        "character": character,
        "report": report,
        **roles,
        "can_play": roles["is_owner"] or roles["is_referee"],
        # The condition: the campaign's combat system's record, and FFA's LIF track.
        **selectors.sheet_record(character, state, report),
        "record_stats": play_forms.RECORD_STATS,
        "condition": condition,
        "play_version": version,
        "last_change": last_change,
        "undo_blocked": undo_blocked,
        "boxes": rules.boxes(condition),
        "lif_below_zero": -condition.lif,  # how far below 0 a dying character's LIF is
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
        "own_medic": _medical_skills(report),
        "medics": _medics(request, character, condition),
        # Action tests.
        "difficulties": rules.difficulties(),
        "roller": _roller(request, character, report, condition, typed_test),
        "cannot_act": services.cannot_act(character.name, condition, "act"),
        "attribute_dice": rules.dice.dice_notation(rules.dice.ATTRIBUTE),
        "unskilled_dice": rules.dice.dice_notation(rules.dice.UNSKILLED),
        "attribute_codes": cat.attribute_order,
        "species_choices": list(cat.species.items()),
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
        "armor": _armor_pieces(load, character),
        "weapons": weapon_lines(load, skill_specialties(report.skills.lines)),
        # What the character carries on this world (?gravity=0.5 or ?size=4; 1 g without).
        "carry": carry,
        "encumbrance_penalty": penalty,
        "over_capacity": rules.over_capacity(load.load_kg, carry),
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


def _armor_pieces(load, character: Character) -> dict[str, Any]:
    """The armor the character carries, each piece with its form key, its AV and whether it is
    worn now, for the play sheet's armor form; and whether the play sheet chose what is worn
    (else the character document's marks hold)."""
    cat = rules.catalog()
    worn = {load.armor_worn, load.armor_under, load.helmet_worn} - {None}
    pieces = []
    for line in load.lines:
        item = cat.equipment_item(line.item, line.tl)
        if item is None or not item.is_worn_armor:
            continue
        pieces.append(
            {
                "key": item_key(item.name, item.tl),
                "label": item.label,
                "av": item.av,
                "worn": item.label in worn,
                "head": item.is_head_armor,
                "under": item.worn_under,
            }
        )
    return {"pieces": pieces, "in_play": selectors.worn_in_play(character) is not None}


def _supplies() -> list[tuple[str, str]]:
    """The Healing DM Table's supplies, with the engine's DMs."""
    table = rules.play.injury_rules()
    ample = f"{table.ample_dm_per_tl:+d} per TL above {table.ample_above_tl}"
    return [
        ("kit", f"Medical kit ({rules.healing_dm(supplies='kit'):+d})"),
        ("none", f"No supplies ({rules.healing_dm(supplies='none'):+d})"),
        ("ample", f"Sick bay or hospital ({ample}: give the TL)"),
    ]


def carried_armor(character: Character) -> list[EquipmentItem]:
    """The catalog's item of each piece of armor the character carries now."""
    cat = rules.catalog()
    items = (cat.equipment_item(e.item, e.tl) for e in selectors.carried_equipment(character))
    return [item for item in items if item is not None and item.is_worn_armor]
