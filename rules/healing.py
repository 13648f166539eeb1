"""Healing: stabilising and treating wounds with a medical test, recovery over time, and
clearing a healed wound."""

from __future__ import annotations

from dataclasses import replace

from .catalog import Catalog, catalog
from .condition import (
    Condition,
    Event,
    Events,
    Wound,
    effective,
    lose_to_wound,
    with_wound,
    wound_at,
)
from .dice import ActionTest
from .injury import LETHAL, STUN, injury_rules, severity_rules, stabilisation_tn, treatment_tn
from .report import Report


def _require_tn(test: ActionTest, tn: int, what: str) -> None:
    if test.tn != tn:
        raise ValueError(
            f"{what} needs TN {tn}, but the test was thrown against TN {test.tn}; "
            "put modifiers in the test's DM."
        )


def _halt_dying(condition: Condition) -> Condition:
    return replace(condition, dying_halted=True) if condition.lif < 0 else condition


def untreated_wound(condition: Condition, wound_index: int) -> Wound:
    """The wound a stabilisation or treatment test is for; ValueError when it is treated
    already, stable for good, so that neither test applies to it any more."""
    wound = wound_at(condition, wound_index)
    if wound.treated:
        raise ValueError(f"The {wound.severity} wound is already treated.")
    return wound


def stabilise(condition: Condition, wound_index: int, test: ActionTest) -> tuple[Condition, Events]:
    """Apply a Medical test to stabilise a wound (Stabilization Table TN).

    Success: the wound stops bleeding until its re-throw period ends (then stabilise again).
    Failure: the wound is not stable and the character suffers its additional damage.
    Fumble (a critical failure, even if the total reaches the TN): the wound becomes one
    category worse, and is not stable; a fatal wound cannot get worse, so it counts as a
    failure.
    """
    rules = injury_rules()
    tn = stabilisation_tn(wound_at(condition, wound_index).severity)  # superficial: none
    wound = untreated_wound(condition, wound_index)
    _require_tn(test, tn, f"Stabilising a {wound.severity} wound")
    worse = rules.worse(wound.severity)
    if test.fumble and worse != wound.severity:
        # The worse severity bleeds until stabilised: in the tables only light wounds bleed
        # for a thrown time, and a superficial wound has no stabilisation test to fumble.
        worsened = replace(wound, severity=worse, stabilised=False, bleed_periods=None, bled=0)
        after = replace(condition, wounds=with_wound(condition, wound_index, worsened))
        event = Event("wound_worsened", f"A fumble: the {wound.severity} wound becomes {worse}.")
        return after, (event,)
    if test.success and not test.fumble:
        settled = replace(wound, stabilised=True)
        after = _halt_dying(replace(condition, wounds=with_wound(condition, wound_index, settled)))
        every = severity_rules(wound.severity).stabilisation_rethrow
        event = Event(
            "stabilised", f"The {wound.severity} wound is stabilised; throw again in {every}."
        )
        return after, (event,)
    unsettled = replace(
        condition, wounds=with_wound(condition, wound_index, replace(wound, stabilised=False))
    )
    return lose_to_wound(
        unsettled,
        wound_index,
        severity_rules(wound.severity).bleed_points,
        "stabilisation_failed",
        f"Stabilisation fails: the {wound.severity} wound's additional damage is suffered.",
    )


def treat(condition: Condition, wound_index: int, test: ActionTest) -> tuple[Condition, Events]:
    """Apply a Medical or Surgery test at the end of a wound's treatment time.

    Success: the wound is stabilised for good and treated, and the LIF lost to it heals by
    the effect number (at most what it took). Failure: the wound's additional damage.
    Fumble (a critical failure): the wound is no longer stable, and the additional damage is
    suffered at once.
    """
    tn = treatment_tn(wound_at(condition, wound_index).severity)  # superficial wounds need none
    wound = untreated_wound(condition, wound_index)
    _require_tn(test, tn, f"Treating a {wound.severity} wound")
    points = severity_rules(wound.severity).bleed_points
    if test.fumble:
        opened = replace(
            condition, wounds=with_wound(condition, wound_index, replace(wound, stabilised=False))
        )
        return lose_to_wound(
            opened,
            wound_index,
            points,
            "wound_reopened",
            f"A fumble: the {wound.severity} wound is no longer stable and bleeds at once.",
        )
    if not test.success:
        return lose_to_wound(
            condition,
            wound_index,
            points,
            "treatment_failed",
            f"Treatment fails: the {wound.severity} wound's additional damage is suffered.",
        )
    healed = min(test.effect, wound.lethal)
    treated = replace(wound, stabilised=True, treated=True, lethal=wound.lethal - healed)
    after = replace(
        condition,
        lethal=condition.lethal - healed,
        wounds=with_wound(condition, wound_index, treated),
    )
    after = _halt_dying(after)
    event = Event(
        "treated",
        f"The {wound.severity} wound is treated: stable for good, {healed} LIF healed "
        f"(EN {test.effect}).",
    )
    return after, (event,)


def recover(condition: Condition, *, form: str, end_dv: int) -> Condition:
    """One recovery period (see ``recovery_period``): heal END DV points of ``form`` damage.

    Stun marks heal freely. Lethal points heal first where no wound holds them (LIF lost while
    dying), then from wounds in the order taken; a wound that still bleeds
    (:attr:`Wound.bleeds`) does not heal. LIF never rises above its maximum.
    """
    if end_dv < 0:
        raise ValueError(f"END DV {end_dv} is negative.")
    if form == STUN:
        return replace(condition, stun=condition.stun - min(condition.stun, end_dv))
    if form != LETHAL:
        raise ValueError(f"Recovery heals stunning (S) or lethal (L) damage, not {form!r}.")
    left = end_dv
    healed = min(left, condition.unattached_lethal)
    left -= healed
    wounds = list(condition.wounds)
    for index, wound in enumerate(wounds):
        if left == 0:
            break
        if not wound.bleeds and wound.lethal:
            part = min(left, wound.lethal)
            wounds[index] = replace(wound, lethal=wound.lethal - part)
            healed += part
            left -= part
    after = replace(condition, lethal=condition.lethal - healed, wounds=tuple(wounds))
    return after if after.lif < 0 else replace(after, dying_halted=False)


def recovery_dv(report: Report, condition: Condition, *, cat: Catalog | None = None) -> int:
    """The LIF one recovery period heals: the END DV as the character's wounds leave it.

    END is a body attribute, and a wound's penalty "reduces the character's DM and DV", so an
    untreated wound slows recovery too.
    """
    cat = cat or catalog()
    return cat.dm_dv(effective(report, condition, cat=cat).levels["END"])[1]


def clear_wound(condition: Condition, index: int) -> Condition:
    """Strike a treated wound whose LIF has all healed off the sheet."""
    wound = wound_at(condition, index)
    if not wound.clearable:
        raise ValueError(
            f"Only a treated, healed wound is cleared; this {wound.severity} wound is "
            f"{'treated' if wound.treated else 'untreated'} with {wound.lethal} LIF still lost."
        )
    return replace(condition, wounds=condition.wounds[:index] + condition.wounds[index + 1 :])
