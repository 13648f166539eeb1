"""Writes for a character in play: damage and healing, action tests, improvement points and
credits. Views change play data only through here.

Like ``services``, every function takes keyword arguments only and runs in one transaction, so
a refused action (``Refused``, its message for the user) writes nothing. Every rule is the
engine's (``rules.play``, ``rules.dice``): these functions read the character's report, call
the engine, and store what it returns.

Concurrency. Every write locks the character's row first, so two requests about the same
character (two tabs, the player and the referee) run one after the other and neither loses
the other's record. Actions on the condition also name the ``PlayState.version`` the page
showed; when the condition moved on since (another tab recorded a blow, healed a wound),
``PlayConflict`` refuses the action instead of applying it to a condition nobody saw.

Dice. Every test is thrown on the server with ``characters.core.dice`` (the operating
system's randomness); every function that throws takes ``rng`` so tests can pass a seeded one.

Every action appends a line to the character's log (``CharacterEvent``). Every change of the
condition is kept as a ``ConditionChange`` (before and after), so the last one can be undone
(``undo_last_condition_change``, for the play sheet and any other feature that changes a
condition through these services).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F
from django.utils import timezone

import rules
from characters.core import dice
from characters.core.selectors import character_report, is_referee
from characters.core.services import (
    Refused,
    lock_character,
    log_event,
    require_referee,
    store_document,
    withdraw_if_submitted,
)
from characters.models import (
    Character,
    CharacterEvent,
    ConditionChange,
    CreditEntry,
    DiceRoll,
    ImprovementEntry,
    PlayState,
)
from characters.play.selectors import (
    carried_equipment,
    condition_of,
    credit_balance,
    gear_key,
    ip_balance,
    stored_condition,
    undoable_change,
    worn_marked,
)
from rules import (
    ActionTest,
    Condition,
    Event,
    ImprovementError,
    Report,
    parse_document,
)
from rules.catalog import EquipmentItem
from rules.play import Purchase, injury_rules, severity_rules
from rules.report import Equipment
from rules.wording import signed_credits

MEDICAL, SURGERY = "Medical", "Surgery"
MEDICAL_SKILLS = (MEDICAL, SURGERY)


# Guards of the app against slips of the keyboard, not rules; the play sheet's inputs read them.
MAX_IP_AWARD = 100
MAX_IP_PRICE = 1000  # what a referee may set an unpriced purchase at
MAX_CREDITS = 100_000_000
MAX_RECOVERY_PERIODS = 100
MAX_TEST_FIGURE = 30  # a test's TN at most, and its DM of either sign
MAX_GEAR_QUANTITY = 1000
MAX_DAMAGE = 999  # a blow's damage, and the armor it meets


# The same guards as the play sheet's inputs write them in their max attributes.
INPUT_MAXIMA = {
    "ip_award": MAX_IP_AWARD,
    "ip_price": MAX_IP_PRICE,
    "recovery_periods": MAX_RECOVERY_PERIODS,
    "gear_quantity": MAX_GEAR_QUANTITY,
    "damage": MAX_DAMAGE,
    "test_figure": MAX_TEST_FIGURE,
    "dice": rules.dice.MAX_ENUMERATED_DICE,
}


class PlayConflict(Refused):
    """The condition changed since the page was loaded (another tab): nothing was recorded."""


@dataclass(frozen=True, slots=True)
class PlayResult:
    """What an action did: the new condition and version, the engine's events in order, the
    change recorded (what its undo takes back), and the action test thrown for it, if any."""

    condition: Condition
    version: int
    events: tuple[Event, ...]
    change: ConditionChange
    roll: DiceRoll | None = None

    @property
    def message(self) -> str:
        return " ".join(event.message for event in self.events)


def _change_condition(
    character: Character,
    *,
    by: User | None,
    expected_version: int | None,
    what: str,
    change: Callable[[Character, Condition, Report], tuple[Condition, Iterable[Event]]],
) -> PlayResult:
    """Lock the character, read its condition, apply ``change`` (which calls the engine), store
    the result with the next version and log ``what`` and the engine's events."""
    locked = lock_character(character)
    report = character_report(locked)
    state = locked_play_state(locked, report, expected_version)
    before = stored_condition(state, report)
    after, events = change(locked, before, report)
    events = tuple(events)
    stored_after = rules.condition_as_dict(after)
    PlayState.objects.filter(pk=state.pk).update(condition=stored_after, version=F("version") + 1)
    # What the row held, not the rescaled condition: undoing puts back exactly what was there.
    recorded = ConditionChange.objects.create(
        character=locked, before=state.condition, after=stored_after, actor=by, what=what[:150]
    )
    detail = f"{what}. " + " ".join(event.message for event in events)
    log_event(locked, kind=CharacterEvent.Kind.PLAY, by=by, detail=detail.strip())
    return PlayResult(condition=after, version=state.version + 1, events=events, change=recorded)


def locked_play_state(locked: Character, report: Report, expected_version: int | None) -> PlayState:
    """The (locked) character's play state, locked too (made, unhurt, when there is none yet),
    at the version the page showed: PlayConflict when it moved on since."""
    state, _ = PlayState.objects.select_for_update().get_or_create(
        character=locked,
        defaults={"condition": rules.condition_as_dict(rules.condition_for(report))},
    )
    if expected_version is not None and state.version != expected_version:
        raise PlayConflict(
            f"{locked.name}'s sheet changed since this page was loaded (another tab or the "
            "referee recorded something): nothing was recorded. Here it is as it stands now; "
            "do it again if it still applies."
        )
    return state


@dataclass(frozen=True, slots=True)
class Undone:
    """What an undo did: the change it took back, and the condition and version now."""

    change: ConditionChange
    condition: Condition
    version: int

    @property
    def message(self) -> str:
        return f"Undone: {self.change.what}."


@transaction.atomic
def undo_last_condition_change(
    *, character: Character, by: User | None, expected_version: int | None = None
) -> Undone:
    """Put the character's condition back as it was before its last change that is not
    undone yet, mark that change undone and log the undo. Undoing again takes back the change
    before it, and so on.

    Refused when there is nothing to undo, when the page named a version the condition has
    moved on from (``PlayConflict``), or when the condition is no longer what the change left
    (it was changed some other way since): then nothing is written. Dice thrown for the
    change (a medical test) stay in the log: they were thrown."""
    locked = lock_character(character)
    state = PlayState.objects.select_for_update().filter(character=locked).first()
    if state is not None and expected_version is not None and state.version != expected_version:
        raise PlayConflict(
            f"{locked.name}'s condition changed since this page was loaded: nothing was undone. "
            "Here it is as it stands now; undo again if it still applies."
        )
    last, blocked = undoable_change(locked, state, by)
    if last is None or state is None or blocked:
        raise Refused(blocked)
    PlayState.objects.filter(pk=state.pk).update(
        **state.storing(last.system, last.before), version=F("version") + 1
    )
    last.undone_at = timezone.now()
    last.save(update_fields=["undone_at"])
    log_event(locked, kind=CharacterEvent.Kind.PLAY, by=by, detail=f"Undone: {last.what}.")
    report = character_report(locked)
    for field, value in state.storing(last.system, last.before).items():
        setattr(state, field, value)
    return Undone(change=last, condition=stored_condition(state, report), version=state.version + 1)


@transaction.atomic
def undo_condition_change(*, change: ConditionChange, by: User | None) -> None:
    """Undo ``change``, which another page made (an encounter's blow), while it is the
    character's last: nothing when it was undone already (on the play sheet); refused when a
    change recorded after it still stands, which undoing the last change would take back
    instead."""
    locked = lock_character(change.character)
    if locked.condition_changes.filter(pk=change.pk, undone_at__isnull=False).exists():
        return
    state = PlayState.objects.select_for_update().filter(character=locked).first()
    last, _ = undoable_change(locked, state, by)
    if last is not None and last.pk != change.pk:
        raise Refused(
            f'"{change.what}" cannot be undone: "{last.what}" was recorded on '
            f"{locked.name}'s play sheet since. Undo that there first."
        )
    undo_last_condition_change(character=locked, by=by)


def _wound_index(condition: Condition, wound: int) -> int:
    if not 0 <= wound < len(condition.wounds):
        raise Refused("That wound is no longer on the sheet; reload the page.")
    return wound


def blow(
    condition: Condition, amount: int, form: str, rng: random.Random
) -> tuple[Condition, tuple[Event, ...]]:
    """The engine's ``take_damage``, with the bleeding time thrown for the wound it makes when
    that wound's severity bleeds for a thrown time (a light wound: 1D days)."""
    severity = rules.blow_severity(condition, amount=amount, form=form)
    lasts = severity_rules(severity).bleed_lasts if severity else None
    return rules.take_damage(
        condition, amount=amount, form=form, bleed_lasts=lasts.roll(rng) if lasts else None
    )


@transaction.atomic
def take_damage(
    *,
    character: Character,
    by: User | None,
    amount: int,
    form: str,
    damage_type: str | None = None,
    armor: int = 0,
    expected_version: int | None = None,
    rng: random.Random | None = None,
) -> PlayResult:
    """Record one blow. ``form``: "S" stunning or "L" lethal. ``damage_type``: None when
    ``amount`` already has armor and TGH taken off, else "B" (blunt: less armor and TGH) or
    "P" (penetrating: less armor), with the character's TGH from its report. A wound that
    bleeds for a thrown time has it thrown here."""
    if form not in (rules.play.STUN, rules.play.LETHAL):
        raise Refused("Mark stunning (S) or lethal (L) damage.")
    if amount < 0 or armor < 0:
        raise Refused("Damage and armor are 0 or more.")
    rng = rng or dice.dice_source()

    def change(_, condition, report):
        if damage_type is None:
            return blow(condition, amount, form, rng)
        try:
            reaching = rules.damage_after_protection(
                amount, damage_type=damage_type, armor=armor, tgh=report.derived.TGH
            )
        except ValueError as error:
            raise Refused(str(error)) from None
        less = (
            f"armor {armor} and TGH {report.derived.TGH}"
            if damage_type == "B"
            else (f"armor {armor}")
        )
        note = Event("protection", f"{amount} less {less}: {reaching} reach LIF.")
        after, events = blow(condition, reaching, form, rng)
        return after, (note, *events)

    kind = "stunning" if form == rules.play.STUN else "lethal"
    return _change_condition(
        character,
        by=by,
        expected_version=expected_version,
        what=f"Took {amount} {kind} damage",
        change=change,
    )


@transaction.atomic
def end_stun(
    *, character: Character, by: User | None, expected_version: int | None = None
) -> PlayResult:
    """The stunned character has spent its turn recovering and acts normally again."""

    def change(_, condition, report):
        if not condition.stunned:
            raise Refused("The character is not stunned.")
        return rules.end_stun(condition), (Event("stun_ended", "No longer stunned."),)

    return _change_condition(
        character, by=by, expected_version=expected_version, what="Stun ended", change=change
    )


@transaction.atomic
def dying_turn(
    *, character: Character, by: User | None, expected_version: int | None = None
) -> PlayResult:
    """A turn passes for a dying character: the engine takes its LIF."""

    def change(_, condition, report):
        if not condition.dying:
            raise Refused("The character is not dying.")
        return rules.dying_turn(condition)

    return _change_condition(
        character, by=by, expected_version=expected_version, what="A dying turn", change=change
    )


@transaction.atomic
def bleed(
    *,
    character: Character,
    by: User | None,
    wound: int,
    expected_version: int | None = None,
) -> PlayResult:
    """A bleeding wound's period has passed: its additional damage."""

    def change(_, condition, report):
        index = _wound_index(condition, wound)
        try:
            return rules.bleed(condition, index)
        except ValueError as error:
            raise Refused(str(error)) from None

    return _change_condition(
        character, by=by, expected_version=expected_version, what="Bleeding", change=change
    )


@dataclass(frozen=True, slots=True)
class Medic:
    """Who throws a medical test: the character itself (``own``: its own Medical or Surgery
    level from its report, its governing attribute's DM as its wounds leave it), another
    character of the party (``character``: the same, from that character's report and
    condition, with its own species and Xeno Medicine), or someone else at ``skill_level``
    (None: no level) with ``attribute_dm``; another medic of another ``species`` (None: the
    patient's) takes Xeno Medicine's DM, offset by its ``xeno_medicine`` level (None: no such
    skill)."""

    own: bool
    attribute: str = "EDU"
    skill_level: int | None = None
    attribute_dm: int = 0
    species: str | None = None
    xeno_medicine: int | None = None
    character: Character | None = None


def skill_line(report: Report, skill: str, cascade: str | None = None):
    folded = (skill.casefold(), (cascade or "").casefold())
    for line in report.skills.lines:
        if (line.skill.casefold(), (line.cascade or "").casefold()) == folded:
            return line
    return None


def cannot_act(name: str, condition: Condition, doing: str) -> str:
    """Why the character cannot do ``doing`` now ("Mara is unconscious and cannot act until
    …"), or "" when it can: the refusal, and what the play sheet shows instead of the button."""
    reason = rules.incapacity(condition)
    if reason is None:
        return ""
    until = f" {reason.until}" if reason.until else ""
    return f"{name} is {reason.state} and cannot {doing}{until}."


def _refuse_if_cannot_act(name: str, condition: Condition, doing: str) -> None:
    reason = cannot_act(name, condition, doing)
    if reason:
        raise Refused(reason)


def _medical_test(
    locked: Character,
    condition: Condition,
    report: Report,
    *,
    medic: Medic,
    skill: str,
    tn: int,
    dm: int,
    rng: random.Random,
) -> tuple[ActionTest, str]:
    """Throw the medic's test; returns it and a label such as "Medical-2 EDU"."""
    if skill not in MEDICAL_SKILLS:
        raise Refused(f"A medical test uses {' or '.join(MEDICAL_SKILLS)}, not {skill}.")
    if medic.own or medic.character is not None:
        healer, healer_report, healer_condition = locked, report, condition
        if medic.character is not None:
            if medic.character.pk == locked.pk:
                raise Refused("Choose the patient as the medic (own), not as one of the party.")
            healer = medic.character
            healer_report = character_report(healer)
            healer_condition, _ = condition_of(healer, healer_report)
        _refuse_if_cannot_act(healer.name, healer_condition, "give medical aid")
        if medic.attribute not in rules.catalog().attribute_order:
            raise Refused(f"Unknown attribute {medic.attribute}.")
        line = skill_line(healer_report, skill)
        level = line.level if line else None
        attribute_dm = rules.effective(healer_report, healer_condition).test_dm(medic.attribute)
        label = f"{line.name if line else f'{skill} (unskilled)'} {medic.attribute}"
        if healer is not locked:
            label = f"{healer.name}'s {label}"
            xeno = rules.xeno_medicine_dm(
                healer_report.species,
                report.species,
                rules.xeno_medicine_level(healer_report),
            )
            if xeno:
                dm += xeno
                label += f" (another species, Xeno Medicine DM {xeno:+d})"
    else:
        if medic.skill_level is not None and medic.skill_level < 0:
            raise Refused("A medic's skill level is 0 or more (leave it empty for no level).")
        level, attribute_dm = medic.skill_level, medic.attribute_dm
        label = f"A medic's {skill}-{level}" if level is not None else f"A medic, no {skill}"
        patient = report.species
        xeno = rules.xeno_medicine_dm(medic.species or patient, patient, medic.xeno_medicine)
        if xeno:
            dm += xeno
            label += f" (another species, Xeno Medicine DM {xeno:+d})"
    _refuse_off_the_dice(tn=tn, dm=attribute_dm + dm, skill_level=level)
    test = rules.action_test(rng=rng, skill_level=level, attribute_dm=attribute_dm, dm=dm, tn=tn)
    return test, label


def _refuse_off_the_dice(*, tn: int, dm: int, skill_level: int | None = None) -> None:
    """Refuse a test whose typed figures no die could matter to, or whose skill has more dice
    than the odds are worked out for, before any die is thrown or stored."""
    if not 1 <= tn <= MAX_TEST_FIGURE or not -MAX_TEST_FIGURE <= dm <= MAX_TEST_FIGURE:
        raise Refused(
            f"The TN is 1 to {MAX_TEST_FIGURE} and the DM -{MAX_TEST_FIGURE} to +{MAX_TEST_FIGURE}."
        )
    if skill_level is not None and skill_level > rules.dice.MAX_ENUMERATED_DICE:
        raise Refused(f"A skill above level {rules.dice.MAX_ENUMERATED_DICE} is off the dice.")


def _healing_dm(supplies: str, tl: int | None, unsanitary: bool) -> int:
    try:
        return rules.healing_dm(supplies=supplies, tl=tl, unsanitary=unsanitary)
    except ValueError as error:
        raise Refused(str(error)) from None


def _medical_action(
    *,
    character: Character,
    by: User | None,
    wound: int,
    medic: Medic,
    skill: str,
    supplies: str,
    tl: int | None,
    unsanitary: bool,
    dm: int,
    expected_version: int | None,
    rng: random.Random | None,
    what: str,
    tn_for: Callable[[str], int],
    apply: Callable[[Condition, int, ActionTest], tuple[Condition, Iterable[Event]]],
) -> PlayResult:
    rng = rng or dice.dice_source()
    thrown: dict[str, DiceRoll] = {}

    def change(locked, condition, report):
        index = _wound_index(condition, wound)
        severity = condition.wounds[index].severity
        try:
            tn = tn_for(severity)
        except ValueError as error:
            raise Refused(str(error)) from None
        try:
            rules.play.untreated_wound(condition, index)  # before any die is thrown
        except ValueError as error:
            raise Refused(str(error)) from None
        total_dm = _healing_dm(supplies, tl, unsanitary) + dm
        test, label = _medical_test(
            locked, condition, report, medic=medic, skill=skill, tn=tn, dm=total_dm, rng=rng
        )
        purpose = f"{what} of the {severity} wound"
        thrown["roll"] = _record_roll(locked, by=by, test=test, label=label, purpose=purpose)
        try:
            after, events = apply(condition, index, test)
        except ValueError as error:
            raise Refused(str(error)) from None
        return after, (Event("test", f"{label}: {_test_sentence(test)}"), *events)

    result = _change_condition(
        character, by=by, expected_version=expected_version, what=what, change=change
    )
    return replace(result, roll=thrown["roll"])


@transaction.atomic
def stabilise_wound(
    *,
    character: Character,
    by: User | None,
    wound: int,
    medic: Medic,
    supplies: str = "kit",
    tl: int | None = None,
    unsanitary: bool = False,
    dm: int = 0,
    expected_version: int | None = None,
    rng: random.Random | None = None,
) -> PlayResult:
    """Throw the medic's Medical test against the Stabilization Table's TN for the wound, with
    the Healing DM Table's DM plus ``dm``, and apply it (``rules.stabilise``)."""
    return _medical_action(
        character=character,
        by=by,
        wound=wound,
        medic=medic,
        skill="Medical",
        supplies=supplies,
        tl=tl,
        unsanitary=unsanitary,
        dm=dm,
        expected_version=expected_version,
        rng=rng,
        what="Stabilisation",
        tn_for=rules.stabilisation_tn,
        apply=rules.stabilise,
    )


@transaction.atomic
def treat_wound(
    *,
    character: Character,
    by: User | None,
    wound: int,
    medic: Medic,
    skill: str = "Medical",
    supplies: str = "kit",
    tl: int | None = None,
    unsanitary: bool = False,
    dm: int = 0,
    expected_version: int | None = None,
    rng: random.Random | None = None,
) -> PlayResult:
    """Throw the medic's Medical or Surgery test against the Treatment Table's TN for the
    wound (at the end of its treatment time), and apply it (``rules.treat``)."""
    return _medical_action(
        character=character,
        by=by,
        wound=wound,
        medic=medic,
        skill=skill,
        supplies=supplies,
        tl=tl,
        unsanitary=unsanitary,
        dm=dm,
        expected_version=expected_version,
        rng=rng,
        what="Treatment",
        tn_for=rules.treatment_tn,
        apply=rules.treat,
    )


@transaction.atomic
def recover(
    *,
    character: Character,
    by: User | None,
    form: str,
    care: str = "natural",
    periods: int = 1,
    expected_version: int | None = None,
) -> PlayResult:
    """``periods`` recovery periods of ``care`` pass: each heals END DV points of ``form``
    damage (the END DV as the wounds leave it, ``rules.recovery_dv``)."""
    if form not in (rules.play.STUN, rules.play.LETHAL):
        raise Refused("Recover stunning (S) or lethal (L) damage.")
    if not 1 <= periods <= MAX_RECOVERY_PERIODS:
        raise Refused(f"Recover for 1 to {MAX_RECOVERY_PERIODS} periods at a time.")
    try:
        period = rules.recovery_period(form, care)
    except ValueError as error:
        raise Refused(str(error)) from None

    def change(_, condition, report):
        healed = 0
        for _ in range(periods):
            points = rules.recovery_dv(report, condition)
            after = rules.recover(condition, form=form, end_dv=points)
            healed += after.lif - condition.lif
            condition = after
        kind = "stunning" if form == rules.play.STUN else "lethal"
        return condition, (
            Event("recovered", f"{healed} {kind} damage healed, LIF now {condition.lif}."),
        )

    care_name = injury_rules().care_names[care]
    length = rules.Period(period.count * periods, period.unit)
    return _change_condition(
        character,
        by=by,
        expected_version=expected_version,
        what=f"Recovery: {length} of {care_name}",
        change=change,
    )


@transaction.atomic
def clear_wound(
    *,
    character: Character,
    by: User | None,
    wound: int,
    expected_version: int | None = None,
) -> PlayResult:
    """Strike a treated wound whose LIF has all healed off the sheet."""

    def change(_, condition, report):
        index = _wound_index(condition, wound)
        severity = condition.wounds[index].severity
        try:
            after = rules.clear_wound(condition, index)
        except ValueError as error:
            raise Refused(str(error)) from None
        return after, (Event("cleared", f"The healed {severity} wound is cleared."),)

    return _change_condition(
        character, by=by, expected_version=expected_version, what="Wound cleared", change=change
    )


def _test_sentence(test: ActionTest) -> str:
    dice = " ".join(str(die) for die in test.dice)
    outcome = "success" if test.success else "failure"
    extras = [
        word
        for flag, word in ((test.fumble, "fumble"), (test.exceptional, "exceptional success"))
        if flag
    ]
    return (
        f"threw {dice}, result {test.result}, total {test.total} vs TN {test.tn}: {outcome}, "
        f"EN {test.effect}" + "".join(f", {word}" for word in extras) + "."
    )


def _chance(test: ActionTest) -> Fraction:
    count = len(test.dice) if test.kind == rules.dice.SKILL else None
    return rules.success_chance(test.kind, count, modifier=test.attribute_dm + test.dm, tn=test.tn)


def _record_roll(
    character: Character,
    *,
    by: User | None,
    test: ActionTest,
    label: str,
    purpose: str,
    skill_level: int | None = None,
    attribute: str = "",
) -> DiceRoll:
    roll = DiceRoll.objects.create(
        character=character,
        campaign=character.campaign,
        actor=by,
        label=label[:150],
        purpose=purpose[:150],
        kind=test.kind,
        skill_level=skill_level,
        attribute=attribute,
        dice=list(test.dice),
        result=test.result,
        attribute_dm=test.attribute_dm,
        dm=test.dm,
        tn=test.tn,
        total=test.total,
        effect=test.effect,
        success=test.success,
        fumble=test.fumble,
        exceptional=test.exceptional,
        chance=float(_chance(test)),
    )
    log_event(
        character,
        kind=CharacterEvent.Kind.DICE,
        by=by,
        detail=f"{label}{f' ({purpose})' if purpose else ''}: {_test_sentence(test)}",
    )
    return roll


@dataclass(frozen=True, slots=True)
class TestPlan:
    """An action test as the sheet offers it: a skill (with its cascade) or none, the
    governing attribute, every other DM summed, and the TN. The skill level comes from the
    character's report (a skill it lacks is thrown unskilled, 2DL); without a skill it is an
    attribute test (2DH). ``specialty``: one of the skill's specialties the player says the test
    involves, which adds its DM (+1)."""

    attribute: str
    tn: int
    dm: int = 0
    skill: str | None = None
    cascade: str | None = None
    specialty: str | None = None


@dataclass(frozen=True, slots=True)
class PlannedTest:
    """What a test would throw for the character now, and its exact chance of success."""

    label: str
    skill_level: int | None
    attribute_dm: int
    kind: str
    chance: Fraction
    automatic: bool
    dm: int = 0  # every other DM: the sheet's and the specialty's

    @property
    def dice(self) -> str:
        return rules.dice.dice_notation(self.kind, self.skill_level)


def plan_test(
    character: Character,
    plan: TestPlan,
    *,
    report: Report | None = None,
    condition: Condition | None = None,
) -> PlannedTest:
    """Read a test plan against the character as it is now: the skill level from its report
    (none: unskilled), the attribute DM its wounds leave it, the kind of dice, the exact
    chance of success (``rules.success_chance``) and whether no test is needed at all.
    ``report`` and ``condition``: the character's, when the caller has read them already."""
    report = report or character_report(character)
    if condition is None:
        condition, _ = condition_of(character, report)
    cat = rules.catalog()
    if plan.attribute not in cat.attribute_order:
        raise Refused(f"Choose the governing attribute ({', '.join(cat.attribute_order)}).")
    _refuse_off_the_dice(tn=plan.tn, dm=plan.dm)
    attribute_dm = rules.effective(report, condition).test_dm(plan.attribute)
    dm = plan.dm
    if plan.skill:
        line = skill_line(report, plan.skill, plan.cascade)
        if line is not None:
            level, label = line.level, f"{line.name} {plan.attribute}"
            if plan.specialty is not None:
                label, dm = _with_specialty(line, plan.specialty, plan.attribute, dm)
        else:
            if cat.find_skill(plan.skill) is None:
                raise Refused(f"{plan.skill!r} is not a skill in the rulebook's list.")
            named = f"{plan.skill} ({plan.cascade})" if plan.cascade else plan.skill
            level, label = None, f"{named} (unskilled) {plan.attribute}"
        kind = rules.dice.kind_of_test(level)
    else:
        level, label, kind = None, plan.attribute, rules.dice.ATTRIBUTE
    _refuse_off_the_dice(tn=plan.tn, dm=dm, skill_level=level)
    count = level if kind == rules.dice.SKILL else None
    modifier = attribute_dm + dm
    return PlannedTest(
        label=label,
        skill_level=level,
        attribute_dm=attribute_dm,
        kind=kind,
        chance=rules.success_chance(kind, count, modifier=modifier, tn=plan.tn),
        automatic=rules.automatic_success(modifier=modifier, tn=plan.tn),
        dm=dm,
    )


def _with_specialty(line, specialty: str, attribute: str, dm: int) -> tuple[str, int]:
    """The label and DM of a test the player says one of the skill's specialties is involved
    in: "A +1 DM is applied to the result of the action tests involving the specialty"."""
    found = next((s for s in line.specialties if s.casefold() == specialty.casefold()), None)
    if found is None:
        has = f"has {', '.join(line.specialties)}" if line.specialties else "has no specialty"
        raise Refused(f"{line.name} {has}, not {specialty}.")
    bonus = rules.catalog().limits.specialty_dm
    plain = rules.format_skill(line.skill, line.level, line.cascade)
    return f"{plain} ({found}, {bonus:+d}) {attribute}", dm + bonus


@transaction.atomic
def roll_action_test(
    *,
    character: Character,
    by: User | None,
    plan: TestPlan,
    purpose: str = "",
    rng: random.Random | None = None,
) -> DiceRoll:
    """Throw an action test for the character on the server and record it (on the sheet, in
    its log and in its campaign's roll log). Refused while the character cannot act
    (stunned, unconscious, dead)."""
    locked = lock_character(character)
    report = character_report(locked)
    condition, _ = condition_of(locked, report)
    _refuse_if_cannot_act(locked.name, condition, "act")
    planned = plan_test(locked, plan, report=report, condition=condition)
    test = rules.action_test(
        rng=rng or dice.dice_source(),
        skill_level=planned.skill_level,
        attribute_dm=planned.attribute_dm,
        dm=planned.dm,
        tn=plan.tn,
        attribute_test=planned.kind == rules.dice.ATTRIBUTE,
    )
    return _record_roll(
        locked,
        by=by,
        test=test,
        label=planned.label,
        purpose=purpose.strip(),
        skill_level=planned.skill_level,
        attribute=plan.attribute,
    )


@transaction.atomic
def award_improvement_points(
    *, character: Character, by: User, amount: int, reason: str
) -> ImprovementEntry:
    """The referee of the character's campaign awards IP, saying what for."""
    locked = lock_character(character)
    require_referee(locked.campaign, by, "award improvement points", character=locked)
    reason = reason.strip()
    if not reason:
        raise Refused("Say what the improvement points are for.")
    if not 1 <= amount <= MAX_IP_AWARD:
        raise Refused(f"Award 1 to {MAX_IP_AWARD} IP at a time.")
    entry = ImprovementEntry.objects.create(
        character=locked,
        kind=ImprovementEntry.Kind.AWARD,
        amount=amount,
        reason=reason[:300],
        actor=by,
    )
    log_event(
        locked,
        kind=CharacterEvent.Kind.IP,
        by=by,
        detail=f"Awarded {amount} IP: {reason}",
    )
    return entry


@transaction.atomic
def award_improvement_points_to_each(
    *, characters: Sequence[Character], by: User, amount: int, reason: str
) -> list[ImprovementEntry]:
    """The same award to several characters, all or none: one refusal awards nobody."""
    return [
        award_improvement_points(character=character, by=by, amount=amount, reason=reason)
        for character in characters
    ]


def _parsed(character: Character):
    return parse_document(character.document)


def _price_and_check(locked: Character, purchase: Purchase) -> tuple[int, str]:
    """The IP cost and the description of a purchase the engine accepts; else Refused with
    the engine's own words. The creation caps are checked under the character's rules."""
    parsed = _parsed(locked)
    try:
        label = rules.describe_purchase(parsed, purchase)
        cost, problems = rules.check_improvement(parsed, purchase, house_rules=locked.house_rules())
    except ImprovementError as error:
        raise Refused(str(error)) from None
    if problems:
        raise Refused(
            f"{label[0].upper()}{label[1:]} is not allowed: "
            + " ".join(problem.message for problem in problems)
        )
    return cost, label


def _buy(
    locked: Character,
    purchase: Purchase,
    *,
    by: User,
    request: ImprovementEntry | None = None,
) -> ImprovementEntry:
    """Make a purchase the engine accepts and the balance pays: the improved document (its
    budget raised by the creation points the purchase adds, and the character's
    ``budget_added`` with it), a revision, the ledger entry and the log line."""
    cost, label = _price_and_check(locked, purchase)
    balance = ip_balance(locked)
    if cost > balance:
        raise Refused(
            f"{label[0].upper()}{label[1:]} costs {cost} IP, but {locked.name} has {balance}."
        )
    parsed = _parsed(locked)
    house_rules = locked.house_rules()
    added = rules.creation_points_added(parsed, purchase, house_rules=house_rules)
    improved = rules.apply_improvement(parsed, purchase)
    document = rules.to_document(replace(improved, budget=parsed.budget + added))
    campaign_rules = (
        locked.campaign.house_rules(budget_added=locked.budget_added + added)
        if locked.campaign
        else None
    )
    try:
        current, revision = store_document(
            locked,
            document,
            by=by,
            action=f"Improvement: {label}",
            house_rules=campaign_rules,
            budget_added=added,
        )
    except rules.MalformedDocument as malformed:
        raise Refused(f"Nothing was bought: {malformed}.") from None
    entry = ImprovementEntry.objects.create(
        character=current,
        kind=ImprovementEntry.Kind.PURCHASE,
        amount=-cost,
        cost=cost,
        purchase=rules.purchase_as_dict(purchase),
        description=label[:300],
        points_added=added,
        request=request,
        revision=revision,
        actor=by,
    )
    # An approved request is the referee's act on the player's points: the log says both.
    spent = f"Spent {cost} IP: {label}."
    detail = spent if request is None else f"Approved the request. {spent}"
    log_event(current, kind=CharacterEvent.Kind.IP, by=by, detail=detail)
    withdraw_if_submitted(current, by=by, reason="An improvement bought while submitted")
    return entry


@transaction.atomic
def spend_improvement_points(
    *, character: Character, by: User, purchase: Purchase
) -> ImprovementEntry:
    """The owner spends IP on a purchase at the rulebook's cost, within the creation caps.

    A purchase that needs the referee's permission (``rules.permission_needed``: a new skill, a
    new perk, buying off a flaw, a raise the referee prices) becomes a pending request
    instead, and moves no IP until the referee approves it. A purchase is refused, with the
    engine's words, when the engine rejects it, when it breaks a creation cap, or when the
    balance does not cover it; then nothing is written.

    An approved character can be improved: a purchase is a sanctioned change (the engine has
    checked it against the creation caps), so it does not reopen the character. A submitted
    character is withdrawn from review, as by any other change.
    """
    locked = lock_character(character)
    if locked.owner_id != by.pk:
        raise Refused(f"Only the player who owns {locked.name} can spend its improvement points.")
    reason = rules.permission_needed(_parsed(locked), purchase)
    if reason is None:
        return _buy(locked, purchase, by=by)
    if rules.referee_prices(purchase):
        # The referee names the price on approval; the caps are checked now all the same.
        _price_and_check(locked, replace(purchase, ip=1))  # type: ignore[arg-type]  # priced kinds have ip
        cost, label = None, rules.describe_purchase(_parsed(locked), purchase)
    else:
        cost, label = _price_and_check(locked, purchase)
        balance = ip_balance(locked)
        if cost > balance:
            raise Refused(
                f"{label[0].upper()}{label[1:]} costs {cost} IP, but {locked.name} has {balance}."
            )
    entry = ImprovementEntry.objects.create(
        character=locked,
        kind=ImprovementEntry.Kind.REQUEST,
        amount=0,
        cost=cost,
        purchase=rules.purchase_as_dict(purchase),
        description=label[:300],
        reason=reason,
        state=ImprovementEntry.State.PENDING,
        actor=by,
    )
    log_event(
        locked,
        kind=CharacterEvent.Kind.IP,
        by=by,
        detail=f"Asked the referee: {label}" + (f" ({cost} IP)." if cost is not None else "."),
    )
    return entry


@transaction.atomic
def decide_request(
    *,
    entry: ImprovementEntry,
    by: User,
    approve: bool,
    ip: int | None = None,
    comment: str = "",
) -> ImprovementEntry:
    """The referee approves a pending request (which makes the purchase, on the player's IP;
    ``ip`` is the referee's price where the rulebook has none) or declines it; the player may
    withdraw their own request. Returns the purchase when approved, else the request."""
    locked = lock_character(entry.character)
    request = ImprovementEntry.objects.select_for_update().get(pk=entry.pk, character=locked)
    if request.kind != ImprovementEntry.Kind.REQUEST or request.state != request.State.PENDING:
        raise Refused("That request was already decided.")
    if not approve and not is_referee(locked.campaign, by.pk) and locked.owner_id == by.pk:
        request.state, request.reason = request.State.DECLINED, "Withdrawn by the player."
        request.save(update_fields=["state", "reason"])
        log_event(
            locked, kind=CharacterEvent.Kind.IP, by=by, detail=f"Withdrew: {request.description}."
        )
        return request
    require_referee(locked.campaign, by, "decide on improvement requests", character=locked)
    comment = comment.strip()
    if not approve:
        request.state = request.State.DECLINED
        request.reason = f"Declined: {comment}" if comment else "Declined."
        request.save(update_fields=["state", "reason"])
        log_event(
            locked,
            kind=CharacterEvent.Kind.IP,
            by=by,
            detail=f"Declined: {request.description}." + (f" {comment}" if comment else ""),
        )
        return request
    purchase = rules.purchase_from_dict(request.purchase)
    if rules.referee_prices(purchase):
        if ip is None or not 1 <= ip <= MAX_IP_PRICE:
            raise Refused(
                f"Set the IP cost from 1 to {MAX_IP_PRICE:,}: the rulebook gives none for this "
                "purchase."
            )
        purchase = replace(purchase, ip=ip)  # type: ignore[arg-type]  # priced kinds have ip
    bought = _buy(locked, purchase, by=by, request=request)
    request.state = request.State.APPROVED
    request.reason = f"Approved: {comment}" if comment else "Approved."
    request.save(update_fields=["state", "reason"])
    return bought


def _credit_entry(
    character: Character,
    *,
    by: User | None,
    amount: int,
    note: str,
    item: str = "",
    tl: int | None = None,
    quantity: int = 0,
    report: Report | None = None,
) -> CreditEntry:
    note = note.strip()
    if not note:
        raise Refused("Say what the credits were for.")
    if abs(amount) > MAX_CREDITS:
        raise Refused(f"At most Cr{MAX_CREDITS:,} in one entry.")
    if amount < 0:
        balance = credit_balance(character, report)
        if balance + amount < 0:
            raise Refused(f"Not enough credits: Cr{-amount:,} needed, Cr{balance:,} left.")
    entry = CreditEntry.objects.create(
        character=character,
        amount=amount,
        note=note[:200],
        item=item,
        tl=tl,
        quantity=quantity,
        actor=by,
    )
    log_event(
        character,
        kind=CharacterEvent.Kind.CREDITS,
        by=by,
        # Gear given away or moved for nothing changes no credits: "+Cr0" would say it did.
        detail=f"{signed_credits(amount)}: {note}" if amount else note,
    )
    return entry


@transaction.atomic
def record_credits(*, character: Character, by: User | None, amount: int, note: str) -> CreditEntry:
    """Credits received (positive) or paid for something that is not gear (negative)."""
    locked = lock_character(character)
    if amount == 0:
        raise Refused("An amount of Cr0 changes nothing.")
    return _credit_entry(locked, by=by, amount=amount, note=note)


def _catalog_item(item: str, tl: int | None) -> EquipmentItem:
    cat = rules.catalog()
    found = cat.equipment_item(item, tl)
    if found is not None:
        return found
    candidates = cat.equipment_named(item)
    if not candidates:
        raise Refused(f"{item!r} is not in the equipment tables.")
    levels = ", ".join(str(c.tl) for c in candidates)
    raise Refused(f"{candidates[0].name} comes at TL {levels}: choose one.")


@transaction.atomic
def buy_gear(
    *,
    character: Character,
    by: User | None,
    item: str,
    tl: int | None = None,
    quantity: int = 1,
    price: int | None = None,
    note: str = "",
) -> CreditEntry:
    """Buy catalog gear in play: paid from the credits (the catalog's price unless ``price``
    says what was paid), carried from now on and weighed in the load."""
    locked = lock_character(character)
    found = _catalog_item(item, tl)
    if not 1 <= quantity <= MAX_GEAR_QUANTITY:
        raise Refused(f"Buy 1 to {MAX_GEAR_QUANTITY:,} at a time.")
    if price is None:
        if found.cost is None:
            raise Refused(f"{found.name} has no list price: say what was paid.")
        price = found.cost * quantity
    if price < 0:
        raise Refused("A price is Cr0 or more.")
    label = f"{found.name}{f' x{quantity}' if quantity > 1 else ''}"
    return _credit_entry(
        locked,
        by=by,
        amount=-price,
        note=note.strip() or f"Bought {label}",
        item=found.name,
        tl=found.tl,
        quantity=quantity,
    )


@transaction.atomic
def give_up_gear(
    *,
    character: Character,
    by: User | None,
    item: str,
    tl: int | None = None,
    quantity: int = 1,
    price: int = 0,
    note: str = "",
) -> CreditEntry:
    """Sell (for ``price``), lose or use up gear the character carries, creation equipment
    included; the document is left as it was (the ledger records what went)."""
    locked = lock_character(character)
    found = _catalog_item(item, tl)
    if quantity < 1 or price < 0:
        raise Refused("Give up 1 or more, for Cr0 or more.")
    key = (found.name, found.tl)
    carried = sum(
        entry.quantity
        for entry in carried_equipment(locked)
        if gear_key(entry.item, entry.tl) == key
    )
    if quantity > carried:
        raise Refused(f"{locked.name} carries {carried} {found.name}, not {quantity}.")
    label = f"{found.name}{f' x{quantity}' if quantity > 1 else ''}"
    verb = f"Sold {label} for Cr{price:,}" if price else f"Gave up {label}"
    return _credit_entry(
        locked,
        by=by,
        amount=price,
        note=note.strip() or verb,
        item=found.name,
        tl=found.tl,
        quantity=-quantity,
    )


# What a play sheet may say about the armor worn; the engine's problems with it refuse it.
WORN_PROBLEMS = ("worn_not_armor", "armor_worn_twice")


def _worn_words(equipment: Equipment) -> str:
    """The armor worn in words: "Combat armor (TL 11), with Reflec (TL 10) under it, and a
    Helmet (TL 5)"."""
    if equipment.armor_worn is None and equipment.helmet_worn is None:
        return "no armor"
    parts = [equipment.armor_worn or "no body armor"]
    if equipment.armor_under:
        parts[0] += f", with {equipment.armor_under} under it"
    if equipment.helmet_worn:
        parts.append(f"a {equipment.helmet_worn}")
    return " and ".join(parts)


@transaction.atomic
def wear_armor(
    *,
    character: Character,
    by: User | None,
    worn: Sequence[tuple[str, int | None]] | None,
    expected_version: int | None = None,
) -> str:
    """The armor the character wears now, chosen on the play sheet: ``worn`` holds the
    catalog's (name, TL) of each piece worn (empty: none); None goes back to what the character
    document marks worn. Refused when it does not carry a piece, or the engine refuses the
    choice (two body armors at once, a mark on what is not armor). The play state's version
    rises: a damage form shown with the armor worn before is refused, as for a blow. Returns
    what the character wears now, in words."""
    locked = lock_character(character)
    state = locked_play_state(locked, character_report(locked), expected_version)
    keys = None if worn is None else [gear_key(name, tl) for name, tl in worn]
    carried = carried_equipment(locked, worn=worn_marked(locked) if keys is None else set(keys))
    carried_keys = {gear_key(entry.item, entry.tl) for entry in carried}
    for name, _tl in keys or ():
        if (name, _tl) not in carried_keys:
            raise Refused(f"{locked.name} does not carry {name}.")
    checked = rules.check(replace(parse_document(locked.document), equipment=tuple(carried)))
    refused = [p.message for p in checked.problems if p.code in WORN_PROBLEMS]
    if refused:
        raise Refused(" ".join(refused))
    PlayState.objects.filter(pk=state.pk).update(
        worn=None if keys is None else [list(key) for key in keys], version=F("version") + 1
    )
    now = _worn_words(checked.equipment)
    told = f"Wears {now}, as the character sheet marks it." if keys is None else f"Wears {now}."
    log_event(locked, kind=CharacterEvent.Kind.PLAY, by=by, detail=told)
    return told
