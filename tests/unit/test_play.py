"""In play: damage, wounds and their effects, stabilisation, treatment and recovery."""

import json
import random
from dataclasses import replace
from itertools import pairwise

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
    damage_after_protection,
    dying_turn,
    effective,
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
    wound_bands,
    wound_severity,
)
from rules.engine import derived_attributes
from rules.play import Period, end_stun, injury_rules, severity_rules, wound_penalties
from tests.dice import Scripted

from .builders import document, report


def medical(faces, *, tn, dm=0):
    """A Medical test at the level of the number of dice, thrown as ``faces``."""
    return action_test(rng=Scripted(faces), skill_level=len(faces), attribute_dm=0, dm=dm, tn=tn)


def fresh(lif=21, wnd=6):
    return Condition(maximum=lif, wnd=wnd)


def hurt(condition=None, *blows):
    condition = condition or fresh()
    for amount, form in blows:
        condition, _ = take_damage(condition, amount=amount, form=form)
    return condition


def codes(events):
    return [event.code for event in events]


def with_wound(severity, *, stabilised=False, treated=False, lethal=10):
    return Condition(
        maximum=21,
        wnd=6,
        lethal=lethal,
        wounds=(Wound(severity, lethal, lethal, stabilised=stabilised, treated=treated),),
    )


# -- wound severity ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("damage", "severity"),
    [
        (6, "superficial"),  # 1 x WND
        (7, "light"),  # 1 x WND + 1
        (12, "light"),  # 2 x WND
        (13, "serious"),
        (18, "serious"),  # 3 x WND
        (19, "critical"),
        (24, "critical"),  # 4 x WND
        (25, "fatal"),  # 4 x WND + 1
    ],
)
def test_wound_severity_is_read_against_multiples_of_wnd(damage, severity):
    assert wound_severity(damage, 6) == severity


def test_each_severity_takes_a_band_of_damage_in_multiples_of_wnd():
    bands = [(b.severity.name, b.lowest, b.highest, b.above_wnd_multiple) for b in wound_bands(6)]
    assert bands == [
        ("superficial", 1, 6, 0),
        ("light", 7, 12, 1),
        ("serious", 13, 18, 2),
        ("critical", 19, 24, 3),
        ("fatal", 25, None, 4),
    ]
    assert [(b.lowest, b.highest) for b in wound_bands(1)] == [
        (1, 1),
        (2, 2),
        (3, 3),
        (4, 4),
        (5, None),
    ]


def test_at_wnd_zero_every_wound_is_fatal():
    assert [(b.severity.name, b.lowest, b.highest) for b in wound_bands(0)] == [("fatal", 1, None)]
    assert wound_severity(1, 0) == "fatal"
    with pytest.raises(ValueError, match="WND -1 is negative"):
        wound_bands(-1)


@given(st.integers(0, 200))
def test_the_wound_bands_hold_every_damage_from_one_up_exactly_once(wnd):
    bands = wound_bands(wnd)
    assert bands[0].lowest == 1
    assert bands[-1].highest is None
    for band, following in pairwise(bands):
        assert band.lowest <= band.highest
        assert following.lowest == band.highest + 1
    for band in bands:
        assert band.lowest == band.above_wnd_multiple * wnd + 1
        if band.highest is not None:
            assert band.highest == band.severity.up_to_wnd_multiple * wnd
            assert wound_severity(band.highest, wnd) == band.severity.name
        assert wound_severity(band.lowest, wnd) == band.severity.name
    names = [band.severity.name for band in bands]
    assert names == [s.name for s in injury_rules().severities if s.name in names]


def test_the_wound_a_blow_makes_is_read_from_its_whole_damage():
    condition, events = take_damage(fresh(lif=40), amount=13, form="L")
    assert condition.wounds == (Wound("serious", 13, 13),)
    assert "A serious wound: 13 damage against WND 6." in [e.message for e in events]


def test_blunt_damage_is_reduced_by_armor_and_toughness_and_penetrating_by_armor_only():
    assert damage_after_protection(10, damage_type="B", armor=2, tgh=3) == 5
    assert damage_after_protection(10, damage_type="P", armor=2, tgh=3) == 8
    assert damage_after_protection(4, damage_type="B", armor=2, tgh=3) == 0
    with pytest.raises(ValueError, match="does not reduce LIF"):
        damage_after_protection(4, damage_type="Sp")


# -- marking damage ----------------------------------------------------------------------------


def test_stun_is_marked_with_a_slash_and_lethal_with_an_x():
    condition = hurt(None, (3, "S"), (2, "L"))
    assert (condition.stun, condition.lethal, condition.lif) == (3, 2, 16)
    assert boxes(condition) == ("x", "x", "/", "/", "/") + ("",) * 16


def test_wounds_come_from_lethal_damage_only():
    assert hurt(None, (10, "S")).wounds == ()
    assert hurt(None, (10, "L")).wounds == (Wound("light", 10, 10),)


def test_a_blow_above_half_the_current_lif_rounded_up_stuns():
    _, events = take_damage(fresh(), amount=11, form="S")  # half of 21, rounded up: 11
    assert "stunned" not in codes(events)
    condition, events = take_damage(fresh(), amount=12, form="S")
    assert "stunned" in codes(events)
    assert condition.stunned


def test_the_stun_threshold_is_half_the_current_lif_not_the_maximum():
    condition = hurt(None, (10, "L"))  # LIF 11: stunned above 6
    assert not take_damage(condition, amount=6, form="L")[0].stunned
    assert take_damage(condition, amount=7, form="L")[0].stunned
    assert not end_stun(take_damage(condition, amount=7, form="L")[0]).stunned


def test_lif_brought_to_zero_by_stun_knocks_out_but_does_not_make_dying():
    condition, events = take_damage(fresh(), amount=21, form="S")
    assert (condition.lif, condition.unconscious, condition.dying) == (0, True, False)
    assert "unconscious" in codes(events)


def test_a_single_stunning_blow_cannot_kill():
    condition = hurt(None, (100, "S"))
    assert (condition.stun, condition.lethal, condition.lif) == (21, 0, 0)
    assert not condition.dying


def test_at_zero_lif_further_lethal_damage_replaces_stun_marks():
    knocked_out = hurt(None, (21, "S"))
    condition, events = take_damage(knocked_out, amount=5, form="L")
    assert (condition.stun, condition.lethal, condition.lif) == (16, 5, 0)
    assert boxes(condition) == ("x",) * 5 + ("/",) * 16
    assert "stun_replaced" in codes(events)
    assert not condition.dying


def test_at_zero_lif_further_stunning_damage_is_treated_as_lethal():
    knocked_out = hurt(None, (21, "S"))
    condition, events = take_damage(knocked_out, amount=4, form="S")
    assert (condition.stun, condition.lethal, condition.lif) == (17, 4, 0)
    assert condition.wounds == (Wound("superficial", 4, 4, stabilised=True, treated=True),)
    assert codes(events)[:2] == ["stunned", "stun_as_lethal"]


def test_a_lethal_blow_that_reaches_zero_replaces_stun_marks_with_its_remaining_points():
    condition = hurt(None, (18, "S"), (7, "L"))  # 3 points fill the boxes, 4 replace stun
    assert (condition.stun, condition.lethal, condition.lif) == (14, 7, 0)


def test_lethal_damage_goes_below_zero_only_once_every_stun_mark_is_replaced():
    condition = hurt(None, (18, "S"), (24, "L"))  # 3 fill, 18 replace, 3 below
    assert (condition.stun, condition.lethal, condition.lif) == (0, 24, -3)
    assert condition.dying


def test_lethal_damage_above_lif_makes_a_character_dying_who_loses_one_lif_a_turn():
    condition, events = take_damage(fresh(), amount=25, form="L")
    assert (condition.lif, condition.dying, condition.unconscious) == (-4, True, True)
    assert "dying" in codes(events)
    condition, events = dying_turn(condition)
    assert condition.lif == -5
    assert condition.unattached_lethal == 1
    assert codes(events) == ["dying_loss"]


def test_lethal_damage_to_exactly_zero_knocks_out_without_dying():
    condition = hurt(None, (21, "L"))
    assert (condition.lif, condition.unconscious, condition.dying) == (0, True, False)


def test_a_character_is_dead_at_minus_lif_and_no_lower():
    condition, events = take_damage(fresh(), amount=42, form="L")
    assert (condition.lif, condition.dead, condition.dying) == (-21, True, False)
    assert "dead" in codes(events)
    assert take_damage(condition, amount=5, form="L") == (condition, ())
    assert hurt(None, (100, "L")).lif == -21


def test_dying_ends_in_death_turn_by_turn():
    condition = hurt(None, (41, "L"))  # LIF -20
    condition, events = dying_turn(condition)
    assert condition.dead
    assert codes(events) == ["dying_loss", "dead"]
    assert dying_turn(condition) == (condition, ())


def test_boxes_of_a_dying_character_are_all_lethal():
    assert boxes(hurt(None, (30, "L"))) == ("x",) * 21


def test_special_damage_does_not_reduce_lif():
    with pytest.raises(ValueError, match="does not reduce LIF"):
        take_damage(fresh(), amount=3, form="Sp")


def test_a_condition_starts_from_the_reports_lif_and_wnd():
    assert condition_for(report(attributes={"STR": 9})) == Condition(maximum=23, wnd=7)


@pytest.mark.parametrize("attributes", [{"STR": -33}, {"STR": -5, "END": -5, "DEX": -5}])
def test_a_character_with_attributes_out_of_range_still_has_a_lif_track_to_play(attributes):
    broken = report(attributes=attributes)
    assert "attribute_out_of_range" in [p.code for p in broken.problems]
    assert broken.derived.LIF == 1
    condition = condition_for(broken)
    assert boxes(take_damage(condition, amount=1, form="S")[0]) == ("/",)
    assert rescale(fresh(), maximum=broken.derived.LIF, wnd=broken.derived.WND).maximum == 1


@pytest.mark.parametrize("flaw", [{"LIF": -40}, {"WND": -6}, {"LIF": -21, "WND": -9}])
def test_a_character_with_a_flaw_past_the_floor_is_played_with_that_flaw_not_applied(flaw):
    flawed = report(traits=[{"type": "PF", "name": "Frail", "derived": flaw}])
    condition = condition_for(flawed)
    assert condition == Condition(maximum=21, wnd=6)
    hurt, _events = take_damage(condition, amount=4, form="L")
    assert hurt.wounds[0].severity == wound_severity(4, 6)
    assert effective(flawed, hurt).derived.LIF == 21


# -- wound effects -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("severity", "stabilised", "treated", "body", "mind"),
    [
        ("superficial", True, True, 0, 0),
        ("light", False, False, -2, 0),
        ("light", True, False, -2, 0),
        ("light", True, True, 0, 0),
        ("serious", False, False, -4, -2),
        ("serious", True, False, -2, -2),
        ("serious", True, True, 0, 0),
        ("critical", False, False, -6, -4),
        ("critical", True, False, -4, -4),
        ("fatal", False, False, -6, -4),
        ("fatal", True, False, -4, -4),
    ],
)
def test_a_wound_lowers_body_attributes_and_mind_tests_until_stabilised_and_treated(
    severity, stabilised, treated, body, mind
):
    condition = with_wound(severity, stabilised=stabilised, treated=treated)
    assert wound_penalties(condition) == (body, mind)


def test_with_several_wounds_the_worst_penalty_applies_not_their_sum():
    condition = Condition(
        maximum=30,
        wnd=6,
        lethal=20,
        wounds=(Wound("light", 8, 8), Wound("serious", 12, 12, stabilised=True)),
    )
    assert wound_penalties(condition) == (-2, -2)
    condition = Condition(
        maximum=30,
        wnd=6,
        lethal=21,
        wounds=(Wound("serious", 13, 13), Wound("light", 8, 8)),
    )
    assert wound_penalties(condition) == (-4, -2)


def test_a_light_wound_costs_the_average_human_one_def_one_ini_and_two_mov():
    now = effective(report(), with_wound("light"))
    assert now.derived.as_dict() == {"DEF": 2, "INI": 2, "MOV": 4, "TGH": 3, "LIF": 21, "WND": 6}
    assert (now.levels["STR"], now.levels["INT"]) == (5, 7)


def test_a_serious_wound_lowers_body_dms_and_gives_mind_tests_a_dm():
    now = effective(report(), with_wound("serious"))
    assert (now.body_penalty, now.mind_dm) == (-4, -2)
    assert now.derived.DEF == 1
    assert now.derived.MOV == 2
    assert (now.test_dm("STR"), now.test_dm("INT"), now.test_dm("EDU")) == (-2, -2, 0)


def test_def_and_ini_never_drop_below_one_and_a_stunned_character_has_def_one():
    weak = report(attributes={"DEX": 3, "AWA": 2})
    now = effective(weak, with_wound("critical"))
    assert (now.derived.DEF, now.derived.INI, now.levels["DEX"]) == (1, 1, 0)
    stunned = effective(report(attributes={"DEX": 14}), hurt(None, (12, "S")))
    assert (stunned.stunned, stunned.derived.DEF) == (True, 1)


def test_wound_effects_keep_derived_attribute_traits():
    quick = report(traits=[{"type": "PP", "name": "Reflexes", "derived": {"INI": 1}}])
    assert quick.derived.INI == 4
    assert effective(quick, with_wound("light")).derived.INI == 3


def test_encumbrance_lowers_def_ini_and_mov_after_the_wounds_down_to_their_floors():
    light = with_wound("light")
    wounded = effective(report(), light).derived
    loaded = effective(report(), light, encumbrance_penalty=1).derived
    assert (loaded.DEF, loaded.INI, loaded.MOV) == (
        wounded.DEF - 1,
        wounded.INI - 1,
        wounded.MOV - 1,
    )
    assert (loaded.TGH, loaded.LIF, loaded.WND) == (wounded.TGH, wounded.LIF, wounded.WND)
    crushed = effective(report(), light, encumbrance_penalty=20).derived
    assert (crushed.DEF, crushed.INI, crushed.MOV) == (1, 1, 0)


def test_an_unhurt_character_carrying_too_much_has_the_engines_encumbered_figures():
    laden = report(equipment=[{"item": "Vacc suit", "tl": 8, "quantity": 3}])
    penalty = laden.equipment.encumbrance_penalty
    assert penalty > 0
    now = effective(laden, Condition(maximum=21, wnd=6), encumbrance_penalty=penalty)
    assert now.derived == laden.equipment.encumbered_derived


def test_levels_can_stand_in_for_a_report():
    levels = {a.code: a.level for a in report().attributes}
    condition = with_wound("serious", stabilised=True)
    assert effective(levels, condition).derived == effective(report(), condition).derived


@given(st.lists(st.integers(1, 15), min_size=9, max_size=9))
def test_the_engine_and_the_wound_rules_share_one_set_of_derived_formulas(levels):
    codes_ = ("STR", "DEX", "END", "INT", "PRE", "AWA", "EDU", "SOC", "EXP")
    result = report(attributes=dict(zip(codes_, levels, strict=True)))
    final = {a.code: a.level for a in result.attributes}
    assert derived_attributes(final) == result.derived


# -- bleeding ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("severity", "every"),
    [
        ("light", Period(1, "day")),
        ("serious", Period(1, "hour")),
        ("critical", Period(1, "minute")),
        ("fatal", Period(1, "turn")),
    ],
)
def test_each_severity_bleeds_one_lif_per_period_until_stabilised(severity, every):
    rules = severity_rules(severity)
    assert (rules.bleed_points, rules.bleed_every) == (1, every)


def test_a_light_wound_bleeds_for_only_one_die_of_days():
    assert str(severity_rules("light").bleed_lasts) == "1D days"
    assert severity_rules("light").bleed_lasts.roll(Scripted([4])) == Period(4, "day")


def light_wound(days):
    """A fresh character's light wound (9 damage against WND 6), thrown to bleed ``days``."""
    return take_damage(fresh(), amount=9, form="L", bleed_lasts=Period(days, "day"))


def test_a_light_wound_counts_the_days_thrown_for_it_and_says_so():
    condition, events = light_wound(4)
    assert condition.wounds == (Wound("light", 9, 9, bleed_periods=4),)
    assert condition.wounds[0].bleeds_left == 4
    assert events[-1].code == "bleeds"
    assert events[-1].message == "It bleeds 1 LIF every day for 4 days."


def test_a_light_wound_bleeds_on_the_days_thrown_and_then_no_more():
    condition, _ = light_wound(2)
    condition, events = bleed(condition, 0)
    assert events[0].message.endswith("It bleeds for 1 day more.")
    assert (condition.wounds[0].bled, condition.wounds[0].bleeds_left) == (1, 1)
    condition, events = bleed(condition, 0)
    assert events[0].message.endswith("That was its last: it stops bleeding.")
    assert (condition.lethal, condition.wounds[0].lethal) == (11, 11)
    assert not condition.wounds[0].bleeds
    assert "bleeding" not in condition_states(condition)
    with pytest.raises(ValueError, match="light wound has bled the 2 days it was to bleed"):
        bleed(condition, 0)


@given(st.integers(1, 6))
def test_a_light_wound_takes_exactly_as_many_bleeds_as_the_die_shows(face):
    lasts = severity_rules("light").bleed_lasts.roll(Scripted([face]))
    condition, _ = take_damage(fresh(), amount=9, form="L", bleed_lasts=lasts)
    for day in range(face):
        assert condition.wounds[0].bleeds, f"stopped after {day} of {face} days"
        condition, _ = bleed(condition, 0)
    assert condition.wounds[0].lethal == 9 + face
    assert not condition.wounds[0].bleeds
    with pytest.raises(ValueError, match=f"bled the {lasts} it was to bleed"):
        bleed(condition, 0)


def test_a_stabilised_light_wound_stops_bleeding_with_days_still_to_bleed():
    condition, _ = bleed(light_wound(4)[0], 0)
    condition, _ = stabilise(condition, 0, medical([5], tn=4))
    assert (condition.wounds[0].bleeds, condition.wounds[0].bleeds_left) == (False, 3)
    with pytest.raises(ValueError, match="light wound is stabilised"):
        bleed(condition, 0)


def test_a_light_wound_with_no_days_thrown_bleeds_until_stabilised():
    condition, events = take_damage(fresh(), amount=9, form="L")
    assert events[-1].message == "It bleeds 1 LIF every day until stabilised."
    for _ in range(7):
        condition, _ = bleed(condition, 0)
    assert condition.wounds[0].bleeds


def test_other_wounds_bleed_until_stabilised_and_take_no_thrown_time():
    _, events = take_damage(fresh(lif=40), amount=13, form="L")
    assert events[-1].message == "It bleeds 1 LIF every hour until stabilised."
    with pytest.raises(ValueError, match="serious wound bleeds until stabilised"):
        take_damage(fresh(lif=40), amount=13, form="L", bleed_lasts=Period(3, "day"))
    with pytest.raises(ValueError, match="makes no wound"):
        take_damage(fresh(), amount=9, form="S", bleed_lasts=Period(3, "day"))


@pytest.mark.parametrize("thrown", [Period(7, "day"), Period(0, "day"), Period(3, "hour")])
def test_a_light_wound_takes_only_a_time_the_die_can_give(thrown):
    with pytest.raises(ValueError, match="no throw gives"):
        take_damage(fresh(), amount=9, form="L", bleed_lasts=thrown)


def test_the_wound_a_blow_makes_is_known_before_it_lands():
    knocked_out = hurt(None, (21, "S"))
    assert blow_severity(fresh(), amount=9, form="L") == "light"
    assert blow_severity(fresh(), amount=9, form="S") is None
    assert blow_severity(knocked_out, amount=4, form="S") == "superficial"
    assert blow_severity(fresh(), amount=0, form="L") is None
    assert blow_severity(hurt(None, (42, "L")), amount=9, form="L") is None


def test_a_bleed_adds_one_lethal_point_charged_to_its_wound():
    condition, events = bleed(with_wound("serious", lethal=13), 0)
    assert (condition.lethal, condition.wounds[0].lethal) == (14, 14)
    assert codes(events) == ["bleed"]


def test_a_bleed_at_zero_lif_replaces_a_stun_mark():
    condition = hurt(None, (14, "S"), (7, "L"))
    assert condition.lif == 0
    condition, _ = bleed(condition, 0)
    assert (condition.stun, condition.lethal, condition.lif) == (13, 8, 0)


def test_a_superficial_wound_does_not_bleed():
    with pytest.raises(ValueError, match="A superficial wound does not bleed"):
        bleed(hurt(None, (3, "L")), 0)


def test_a_stabilised_wound_does_not_bleed():
    condition = with_wound("serious", stabilised=True)
    assert condition.bleeding == ()
    with pytest.raises(ValueError, match="serious wound is stabilised: it does not bleed"):
        bleed(condition, 0)


def test_a_superficial_wound_stored_unstabilised_does_not_bleed_and_heals():
    condition = Condition(maximum=21, wnd=6, lethal=3, wounds=(Wound("superficial", 3, 3),))
    assert not condition.wounds[0].bleeds
    assert (condition.bleeding, condition_states(condition)) == ((), ())
    assert recover(condition, form="L", end_dv=3).lethal == 0


@pytest.mark.parametrize(
    ("wound", "bleeds", "needs_treatment", "clearable"),
    [
        (Wound("superficial", 3, 3, stabilised=True, treated=True), False, False, False),
        (Wound("superficial", 3, 0, stabilised=True, treated=True), False, False, True),
        (Wound("light", 8, 8), True, True, False),
        (Wound("light", 8, 8, stabilised=True), False, True, False),
        (Wound("serious", 13, 2, stabilised=True, treated=True), False, False, False),
        (Wound("fatal", 25, 0, stabilised=True, treated=True), False, False, True),
    ],
)
def test_what_a_wound_still_needs(wound, bleeds, needs_treatment, clearable):
    assert (wound.bleeds, wound.needs_treatment, wound.clearable) == (
        bleeds,
        needs_treatment,
        clearable,
    )


# -- who can act, and the states on a sheet ----------------------------------------------------


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


# -- stabilisation -----------------------------------------------------------------------------


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


# -- treatment ---------------------------------------------------------------------------------


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


# -- recovery ----------------------------------------------------------------------------------


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


# -- invariants --------------------------------------------------------------------------------

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


# -- keeping a condition between sessions ------------------------------------------------------


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


# -- equipment in play -------------------------------------------------------------------------


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
