"""Action tests: planning a test with its exact odds, throwing it on the server and keeping it
in the character's dice log; and who cannot act now to throw one (care throws through here
too)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction

from django.contrib.auth.models import User
from django.db import transaction

import rules
from characters.core import dice
from characters.core.selectors import character_report
from characters.core.services import Refused, lock_character, log_event
from characters.models import Character, CharacterEvent, DiceRoll
from characters.play.selectors import condition_of
from characters.play.services.limits import MAX_TEST_FIGURE
from rules import ActionTest, Condition, Report


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


def _refuse_off_the_dice(*, tn: int, dm: int, skill_level: int | None = None) -> None:
    """Refuse a test whose typed figures no die could matter to, or whose skill has more dice
    than the odds are worked out for, before any die is thrown or stored."""
    if not 1 <= tn <= MAX_TEST_FIGURE or not -MAX_TEST_FIGURE <= dm <= MAX_TEST_FIGURE:
        raise Refused(
            f"The TN is 1 to {MAX_TEST_FIGURE} and the DM -{MAX_TEST_FIGURE} to +{MAX_TEST_FIGURE}."
        )
    if skill_level is not None and skill_level > rules.dice.MAX_ENUMERATED_DICE:
        raise Refused(f"A skill above level {rules.dice.MAX_ENUMERATED_DICE} is off the dice.")


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
