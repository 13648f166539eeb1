"""In play: damage, wounds and their effects, stabilisation, treatment and recovery."""

from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import (
    Condition,
    Wound,
    bleed,
    blow_severity,
    boxes,
    condition_for,
    condition_states,
    damage_after_protection,
    dying_turn,
    effective,
    recover,
    rescale,
    stabilise,
    take_damage,
    wound_bands,
    wound_severity,
)
from rules.engine import derived_attributes
from rules.play import Period, end_stun, injury_rules, severity_rules, wound_penalties
from tests.dice import Scripted
from tests.unit.play_conditions import codes, fresh, hurt, light_wound, medical, with_wound

from .builders import report


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
