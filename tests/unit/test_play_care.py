"""In play, after the blow: who can act and the states a sheet shows, stabilisation, treatment,
recovery, the condition's invariants, keeping a condition between sessions, equipment in play."""

import json
import random
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import (
    Condition,
    ConditionUnreadable,
    EquipmentEntry,
    Incapacity,
    Wound,
    action_test,
    bleed,
    blow_severity,
    boxes,
    carried_load,
    clear_wound,
    condition_as_dict,
    condition_for,
    condition_from_dict,
    condition_states,
    dying_turn,
    healing_dm,
    incapacity,
    out_of_action,
    parse_document,
    recover,
    recovery_dv,
    recovery_period,
    rescale,
    stabilisation_tn,
    stabilise,
    take_damage,
    treat,
    treatment_tn,
)
from rules.play import Period, end_stun, severity_rules, wound_penalties
from tests.dice import Scripted
from tests.unit.play_conditions import codes, fresh, hurt, light_wound, medical, with_wound

from .builders import document, report


@pytest.mark.parametrize(
    ("blows", "reason"),
    [
        ((), None),
        (((5, "S"), (4, "L")), None),  # hurt and scratched, but fit
        (
            ((12, "S"),),
            Incapacity("stunned", "until the stun ends (the next action is spent recovering)"),
        ),
        (((21, "S"),), Incapacity("unconscious", "until LIF is 1 or more (it is 0)")),
        (((12, "L"), (12, "L")), Incapacity("unconscious", "until LIF is 1 or more (it is -3)")),
        (((12, "L"), (30, "L")), Incapacity("dead", None)),
    ],
)
def test_who_can_act(blows, reason):
    assert incapacity(hurt(None, *blows)) == reason


@pytest.mark.parametrize(
    ("blows", "out"),
    [
        ((), False),
        (((5, "S"), (4, "L")), False),  # hurt and scratched, but fit
        (((12, "S"),), False),  # stunned: it spends its turn recovering
        (((21, "S"),), True),  # unconscious
        (((12, "L"), (12, "L")), True),  # dying, at -3
        (((12, "L"), (30, "L")), True),  # dead
    ],
)
def test_the_dead_the_dying_and_the_unconscious_are_out_of_action_and_the_stunned_not(blows, out):
    assert out_of_action(hurt(None, *blows)) is out


def test_an_unconscious_character_is_out_whether_or_not_it_is_stunned():
    condition = hurt(None, (21, "L"))
    assert (condition.stunned, incapacity(condition).state) == (True, "unconscious")
    assert incapacity(end_stun(condition)).state == "unconscious"


@pytest.mark.parametrize(
    ("condition", "states"),
    [
        (fresh(), ()),
        (hurt(None, (5, "S"), (4, "L")), ()),  # a superficial wound imposes nothing
        (hurt(None, (12, "S")), ("stunned",)),
        (hurt(None, (9, "L")), ("bleeding", "wounded")),
        (with_wound("light", stabilised=True), ("wounded",)),
        (with_wound("light", stabilised=True, treated=True), ()),
        (hurt(None, (21, "S")), ("unconscious", "stunned")),
        (hurt(None, (25, "L")), ("dying", "unconscious", "stunned", "bleeding", "wounded")),
        (hurt(None, (12, "L"), (30, "L")), ("dead",)),
    ],
)
def test_the_states_of_a_condition_worst_first(condition, states):
    assert condition_states(condition) == states


def test_a_dying_character_reached_by_medical_help_is_halted_not_dying():
    condition, _ = stabilise(hurt(None, (25, "L")), 0, medical([6, 6], tn=7, dm=2))
    assert condition_states(condition)[:2] == ("halted", "unconscious")


@pytest.mark.parametrize(
    ("severity", "tn", "every"),
    [
        ("light", 4, Period(1, "week")),
        ("serious", 5, Period(1, "day")),
        ("critical", 6, Period(1, "hour")),
        ("fatal", 7, Period(10, "minute")),
    ],
)
def test_stabilisation_tns_and_rethrow_periods_follow_the_table(severity, tn, every):
    assert stabilisation_tn(severity) == tn
    assert severity_rules(severity).stabilisation_rethrow == every


def test_a_successful_stabilisation_stops_the_bleeding():
    condition, events = stabilise(with_wound("serious"), 0, medical([5, 2], tn=5))
    assert condition.wounds[0].stabilised
    assert condition.bleeding == ()
    assert codes(events) == ["stabilised"]
    assert "throw again in 1 day" in events[0].message


def test_a_failed_stabilisation_costs_the_wounds_additional_damage():
    condition, events = stabilise(with_wound("serious", lethal=13), 0, medical([4, 2], tn=5))
    assert not condition.wounds[0].stabilised
    assert (condition.lethal, condition.wounds[0].lethal) == (14, 14)
    assert codes(events) == ["stabilisation_failed"]


def test_a_failed_rethrow_unstabilises_a_stabilised_wound():
    condition = with_wound("light", stabilised=True)
    condition, _ = stabilise(condition, 0, medical([3], tn=4))
    assert condition.bleeding == (0,)


def test_a_fumbled_stabilisation_makes_the_wound_one_category_worse():
    condition, events = stabilise(with_wound("light", lethal=8), 0, medical([1, 1], tn=4))
    assert condition.wounds[0] == Wound("serious", 8, 8)
    assert condition.lethal == 8
    assert codes(events) == ["wound_worsened"]


def test_a_light_wound_fumbled_into_a_serious_one_bleeds_until_stabilised():
    condition, _ = bleed(light_wound(1)[0], 0)
    assert not condition.wounds[0].bleeds
    condition, _ = stabilise(condition, 0, medical([1], tn=4))
    assert condition.wounds[0] == Wound("serious", 9, 10)
    assert condition.wounds[0].bleeds


def test_a_fumble_is_a_critical_failure_even_when_dms_reach_the_tn():
    test = medical([1], tn=6, dm=5)
    assert (test.success, test.fumble) == (True, True)
    condition, _ = stabilise(with_wound("critical"), 0, test)
    assert condition.wounds[0].severity == "fatal"


def test_a_fumble_on_a_fatal_wound_which_cannot_get_worse_is_a_failure():
    condition, events = stabilise(with_wound("fatal", lethal=25), 0, medical([1], tn=7))
    assert condition.wounds[0].severity == "fatal"
    assert condition.lethal == 26
    assert codes(events)[0] == "stabilisation_failed"


def test_a_stabilisation_test_must_be_thrown_against_the_tables_tn():
    with pytest.raises(ValueError, match="needs TN 5"):
        stabilise(with_wound("serious"), 0, medical([6], tn=4))


def test_a_superficial_wound_needs_no_stabilisation():
    with pytest.raises(ValueError, match="needs no stabilisation"):
        stabilise(hurt(None, (3, "L")), 0, medical([6], tn=4))


def test_a_treated_wound_takes_no_further_stabilisation():
    treated, _ = treat(hurt(None, (9, "L")), 0, medical([6, 6], tn=4))
    assert treated.wounds[0].treated
    # A fumble would otherwise make it a serious, treated wound that bleeds for ever.
    with pytest.raises(ValueError, match=r"The light wound is already treated\."):
        stabilise(treated, 0, medical([1, 1], tn=4))


def test_medical_help_halts_the_dying_until_new_lethal_damage():
    condition = hurt(None, (25, "L"))  # a fatal wound, LIF -4
    condition, _ = stabilise(condition, 0, medical([6, 6], tn=7, dm=2))
    assert (condition.lif, condition.dying, condition.unconscious) == (-4, False, True)
    assert dying_turn(condition) == (condition, ())
    condition, events = take_damage(condition, amount=2, form="L")
    assert condition.dying
    assert "dying" in codes(events)


@pytest.mark.parametrize(
    ("severity", "tn", "time"),
    [
        ("light", 4, "1D x 10 minutes"),
        ("serious", 5, "1D hours"),
        ("critical", 6, "1D x 2 hours"),
        ("fatal", 7, "1D x 2 hours"),
    ],
)
def test_treatment_tns_and_times_follow_the_table(severity, tn, time):
    assert treatment_tn(severity) == tn
    assert str(severity_rules(severity).treatment_time) == time


def test_treatment_time_is_rolled():
    assert severity_rules("light").treatment_time.roll(Scripted([3])) == Period(30, "minute")


def test_a_successful_treatment_stabilises_treats_and_heals_the_effect_number():
    condition = with_wound("serious", lethal=13)
    condition, events = treat(condition, 0, medical([6, 6, 6], tn=5, dm=2))  # 8 + 2 - 5
    assert condition.wounds[0] == Wound("serious", 13, 8, stabilised=True, treated=True)
    assert condition.lethal == 8
    assert wound_penalties(condition) == (0, 0)
    assert codes(events) == ["treated"]


def test_treatment_heals_no_more_than_the_wound_took():
    condition, _ = treat(with_wound("light", lethal=7), 0, medical([6, 6, 6], tn=4, dm=5))
    assert (condition.lethal, condition.lif) == (0, 21)


def test_a_failed_treatment_costs_the_wounds_additional_damage():
    condition, events = treat(with_wound("critical", lethal=15), 0, medical([3], tn=6))
    assert condition.lethal == 16
    assert not condition.wounds[0].treated
    assert codes(events) == ["treatment_failed"]


def test_a_fumbled_treatment_unstabilises_the_wound_and_costs_its_additional_damage():
    condition = with_wound("serious", stabilised=True, lethal=13)
    condition, events = treat(condition, 0, medical([1, 1], tn=5))
    assert condition.wounds[0] == Wound("serious", 13, 14)
    assert codes(events) == ["wound_reopened"]


def test_a_treated_wound_is_not_treated_again():
    with pytest.raises(ValueError, match="already treated"):
        treat(with_wound("light", stabilised=True, treated=True), 0, medical([6], tn=4))
    with pytest.raises(ValueError, match="needs no treatment"):
        treat(hurt(None, (3, "L")), 0, medical([6], tn=4))


@pytest.mark.parametrize(
    ("arguments", "dm"),
    [
        ({"supplies": "kit"}, 2),
        ({"supplies": "none"}, -2),
        ({"supplies": "ample", "tl": 12}, 7),
        ({"supplies": "ample", "tl": 4}, 0),
        ({"supplies": "kit", "unsanitary": True}, 0),
    ],
)
def test_healing_dms_follow_the_table(arguments, dm):
    assert healing_dm(**arguments) == dm


def test_ample_supplies_need_a_tech_level():
    with pytest.raises(ValueError, match="give the TL"):
        healing_dm(supplies="ample")


@pytest.mark.parametrize(
    ("care", "stun", "lethal", "special"),
    [
        ("natural", Period(1, "hour"), Period(1, "week"), Period(1, "month")),
        ("slow_drug", Period(1, "minute"), Period(1, "day"), Period(1, "week")),
        ("cloning", Period(1, "minute"), Period(1, "hour"), Period(1, "day")),
    ],
)
def test_recovery_periods_depend_on_the_damage_form_and_the_care(care, stun, lethal, special):
    periods = [recovery_period(form, care) for form in ("S", "L", "Sp")]
    assert periods == [stun, lethal, special]


def test_each_period_heals_end_dv_points_of_stun():
    condition = recover(hurt(None, (21, "S")), form="S", end_dv=3)
    assert (condition.stun, condition.lif, condition.unconscious) == (18, 3, False)


def test_lethal_damage_heals_on_stabilised_wounds_but_not_on_bleeding_ones():
    condition = Condition(
        maximum=21,
        wnd=6,
        lethal=16,
        wounds=(Wound("light", 8, 8), Wound("light", 8, 8, stabilised=True)),
    )
    condition = recover(condition, form="L", end_dv=3)
    assert [w.lethal for w in condition.wounds] == [8, 5]
    assert condition.lethal == 13


def test_lif_lost_while_dying_heals_first():
    condition, _ = dying_turn(hurt(None, (22, "L")))
    condition = recover(condition, form="L", end_dv=3)
    assert (condition.unattached_lethal, condition.wounds[0].lethal) == (0, 22)


def test_recovery_never_raises_lif_above_its_maximum():
    condition = recover(hurt(None, (2, "S")), form="S", end_dv=7)
    assert (condition.stun, condition.lif) == (0, 21)


def test_a_treated_healed_wound_is_cleared_from_the_sheet():
    condition = with_wound("light", stabilised=True, treated=True, lethal=0)
    assert clear_wound(condition, 0).wounds == ()
    with pytest.raises(ValueError, match="Only a treated, healed wound"):
        clear_wound(with_wound("light", stabilised=True, treated=True, lethal=2), 0)


steps = st.one_of(
    st.tuples(
        st.just("damage"), st.integers(0, 30), st.sampled_from(["S", "L"]), st.integers(1, 6)
    ),
    st.tuples(st.just("bleed"), st.integers(0, 5)),
    st.tuples(
        st.just("dying"),
    ),
    st.tuples(st.just("recover"), st.sampled_from(["S", "L"]), st.integers(0, 7)),
    st.tuples(st.just("stabilise"), st.integers(0, 5), st.integers(0, 2**16)),
    st.tuples(st.just("treat"), st.integers(0, 5), st.integers(0, 2**16)),
)


def _run(condition, step):
    kind = step[0]
    if kind == "damage":
        severity = blow_severity(condition, amount=step[1], form=step[2])
        lasts = severity_rules(severity).bleed_lasts if severity else None
        thrown = lasts.roll(Scripted([step[3]])) if lasts else None
        return take_damage(condition, amount=step[1], form=step[2], bleed_lasts=thrown)[0]
    if kind == "dying":
        return dying_turn(condition)[0]
    if kind == "recover":
        return recover(condition, form=step[1], end_dv=step[2])
    index = step[1]
    if index >= len(condition.wounds) or condition.wounds[index].severity == "superficial":
        return condition
    wound = condition.wounds[index]
    if kind == "bleed":
        return bleed(condition, index)[0] if wound.bleeds else condition
    if wound.treated:  # stable for good: neither medical test applies
        return condition
    rng = random.Random(step[2])
    if kind == "stabilise":
        test = action_test(
            rng=rng, skill_level=2, attribute_dm=0, tn=stabilisation_tn(wound.severity)
        )
        return stabilise(condition, index, test)[0]
    test = action_test(rng=rng, skill_level=2, attribute_dm=0, tn=treatment_tn(wound.severity))
    return treat(condition, index, test)[0]


@given(st.integers(3, 45), st.integers(2, 14), st.lists(steps, max_size=25))
def test_the_lif_track_stays_consistent_whatever_happens(maximum, wnd, plan):
    condition = Condition(maximum=maximum, wnd=wnd)
    for step in plan:
        before = condition
        condition = _run(condition, step)
        assert condition.lif >= -maximum
        assert condition.stun + condition.lethal == maximum - condition.lif
        assert min(condition.stun, condition.lethal) >= 0
        marks = sum(1 for box in boxes(condition) if box)
        assert marks == min(condition.stun + condition.lethal, maximum)
        assert len(boxes(condition)) == maximum
        assert 0 <= sum(w.lethal for w in condition.wounds) <= condition.lethal
        if step[0] == "damage":
            made = blow_severity(before, amount=step[1], form=step[2])
            assert len(condition.wounds) == len(before.wounds) + (made is not None)
        if step[0] == "recover":
            assert before.lif <= condition.lif <= maximum


@given(st.integers(3, 45), st.integers(2, 14), st.lists(steps, max_size=25))
def test_a_condition_survives_being_stored_as_json(maximum, wnd, plan):
    condition = Condition(maximum=maximum, wnd=wnd)
    for step in plan:
        condition = _run(condition, step)
    stored = json.loads(json.dumps(condition_as_dict(condition)))
    assert condition_from_dict(stored) == condition


@pytest.mark.parametrize(
    ("stored", "message"),
    [
        ({"maximum": "21", "wnd": 6, "stun": 0, "lethal": 0}, "maximum must be a whole number"),
        ({"maximum": 21, "wnd": 6, "stun": 0, "lethal": 50}, "More marks than LIF"),
        (
            {"maximum": 21, "wnd": 6, "stun": 0, "lethal": 7, "wounds": [{"severity": "grazed"}]},
            r"wounds\[0\]\.severity must be one of .*, not 'grazed'",
        ),
        ([], "is a mapping"),
        (
            {
                "maximum": 21,
                "wnd": 6,
                "stun": 0,
                "lethal": 9,
                "wounds": [
                    {"severity": "light", "damage": 9, "lethal": 9, "bleed_periods": 2, "bled": 3}
                ],
            },
            "cannot have bled 3 of 2",
        ),
    ],
)
def test_a_stored_condition_that_is_not_one_is_refused(stored, message):
    with pytest.raises(ValueError, match=message):
        condition_from_dict(stored)


def test_a_stored_condition_names_every_fault_with_its_path_at_once():
    stored = {
        "maximum": 21,
        "wnd": "6",
        "stun": 0,
        "lethal": 9,
        "wounds": [{"severity": "light", "damage": 9, "lethal": 9}, {"severity": "light"}, 7],
    }
    with pytest.raises(ConditionUnreadable) as refused:
        condition_from_dict(stored)
    assert refused.value.problems == (
        ("wounds[1].damage", "must be a whole number, not None"),
        ("wounds[1].lethal", "must be a whole number, not None"),
        ("wounds[2]", "is not a mapping"),
        ("wnd", "must be a whole number, not '6'"),
    )


def test_a_wound_stored_before_bleeding_days_were_counted_bleeds_until_stabilised():
    stored = {
        "maximum": 21,
        "wnd": 6,
        "stun": 0,
        "lethal": 9,
        "wounds": [
            {"severity": "light", "damage": 9, "lethal": 9, "stabilised": False, "treated": False}
        ],
    }
    condition = condition_from_dict(stored)
    assert condition.wounds[0] == Wound("light", 9, 9)
    assert condition.wounds[0].bleeds_left is None
    for _ in range(7):
        condition, _ = bleed(condition, 0)
    assert condition.bleeding == (0,)
    condition, _ = stabilise(condition, 0, medical([5], tn=4))
    assert condition.bleeding == ()


def test_a_stored_wound_keeps_its_bleeding_days():
    condition, _ = bleed(light_wound(3)[0], 0)
    stored = json.loads(json.dumps(condition_as_dict(condition)))
    assert (stored["wounds"][0]["bleed_periods"], stored["wounds"][0]["bled"]) == (3, 1)
    assert condition_from_dict(stored).wounds[0].bleeds_left == 2


def test_a_new_lif_maximum_keeps_the_marks_and_wounds():
    condition = hurt(fresh(lif=21), (7, "L"), (3, "S"))
    raised = rescale(condition, maximum=23, wnd=7)
    assert (raised.maximum, raised.wnd, raised.stun, raised.lethal) == (23, 7, 3, 7)
    assert raised.wounds == condition.wounds  # a wound keeps the severity it was given
    assert raised.lif == 13
    assert rescale(condition, maximum=21, wnd=6) is condition


def test_a_lower_lif_maximum_strikes_only_marks_beyond_the_new_death_line():
    condition = hurt(fresh(lif=21), (20, "L"), (4, "S"), (10, "L"))  # LIF -13
    lowered = rescale(condition, maximum=12, wnd=5)
    assert lowered.stun + lowered.lethal == 24  # down to -12: dead
    assert lowered.dead
    assert sum(w.lethal for w in lowered.wounds) <= lowered.lethal
    assert rescale(fresh(lif=21), maximum=12, wnd=5) == fresh(lif=12, wnd=5)


def test_recovery_heals_the_end_dv_as_wounds_leave_it():
    sturdy = report(attributes={"END": 9})  # END DV 4
    assert recovery_dv(sturdy, condition_for(sturdy)) == 4
    light = take_damage(condition_for(sturdy), amount=9, form="L")[0]  # light: body -2
    assert light.wounds[0].severity == "light"
    assert recovery_dv(sturdy, light) == 3  # END 7: DV 3
    treated = replace(light, wounds=(replace(light.wounds[0], stabilised=True, treated=True),))
    assert recovery_dv(sturdy, treated) == 4


def test_the_load_counts_creation_equipment_and_gear_bought_in_play():
    coat = {"item": "Cold weather clothing", "quantity": 1}  # 4 kg
    character = parse_document(document(equipment=[coat]))
    assert carried_load(character, character.equipment).load_kg == 4
    bought = (*character.equipment, EquipmentEntry("Cold weather clothing", 5))
    load = carried_load(character, bought)
    # 24 kg against 2 x STR 7 = 14 kg unencumbered: 10 kg over, one step of STR: -1.
    assert (load.load_kg, load.unencumbered_kg, load.capacity_kg) == (24, 14, 49)
    assert load.encumbrance_penalty == 1
    assert load.encumbered_derived.DEF == report().derived.DEF - 1
