"""Medical care and recovery: stabilising and treating a wound (the medic's test thrown on the
server), recovering stun and lethal damage over time, clearing a healed wound."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from django.contrib.auth.models import User
from django.db import transaction

import rules
from characters.core import dice
from characters.core.selectors import character_report
from characters.core.services import Refused
from characters.models import Character, DiceRoll
from characters.play.selectors import condition_of
from characters.play.services.action_tests import (
    _record_roll,
    _refuse_if_cannot_act,
    _refuse_off_the_dice,
    _test_sentence,
    skill_line,
)
from characters.play.services.condition import PlayResult, _change_condition, _wound_index
from characters.play.services.limits import MAX_RECOVERY_PERIODS
from rules import ActionTest, Condition, Event, Report
from rules.play import injury_rules

MEDICAL, SURGERY = "Medical", "Surgery"
MEDICAL_SKILLS = (MEDICAL, SURGERY)


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
