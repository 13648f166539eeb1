"""Invariants of T4 and 2D6 over any weapon, range, situation and dice: odds are chances,
damage is never negative, no characteristic falls below 0, and the round's orders put every
fighter in once, in order."""

from dataclasses import replace
from fractions import Fraction
from random import Random

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rules import CombatRefused, catalog
from rules.combat.sheet import PHYSICAL
from rules.combat.t4 import round as t4_round
from rules.combat.t4.condition import T4Condition, current
from rules.combat.t4.plan import BANDS as T4_BANDS
from rules.combat.t4.plan import ROUTINES, T4Attack, T4Situation, plan_t4_attack
from rules.combat.t4.resolve import resolve_t4_attack
from rules.combat.throws import RandomDice
from rules.combat.twod6 import condition as twod6_condition
from rules.combat.twod6 import initiative as twod6
from rules.combat.twod6.attack import BANDS as TWOD6_BANDS
from rules.combat.twod6.attack import (
    FIRE_MODES,
    TwoD6Attack,
    TwoD6Situation,
    plan_2d6_attack,
    resolve_2d6_attack,
)
from rules.fighters import weapon_from_item

from .systems_builders import sheet

WEAPONS = tuple(
    weapon_from_item(item)
    for item in (*catalog().natural_weapons, *catalog().equipment)
    if item.is_weapon or item.table == "melee"
)
FIGHTERS = (
    sheet(),
    sheet(("Rifleman", 3), ("Handgun", 2), attributes={"DEX": 12}),
    sheet(("Blade Combat", 2, "swords"), ("Brawling", 1), attributes={"STR": 11}),
    sheet(carrying=[{"item": "Combat armor", "tl": 11}, "Helmet"]),
    sheet(carrying=["Flak jacket"], attributes={"STR": 3, "END": 2}),
    sheet(
        ("High-Energy Weapon", 1),
        ("Battle Dress", 1),
        carrying=[{"item": "Battle dress", "tl": 13}],
    ),
)

t4_conditions = st.builds(
    T4Condition,
    damage=st.fixed_dictionaries({code: st.integers(0, 8) for code in PHYSICAL}),
    fatigue=st.integers(0, 12),
)
t4_situations = st.builds(
    T4Situation,
    movement=st.sampled_from(("stationary", "walking", "trotting", "riding")),
    target_movement=st.sampled_from(("stationary", "walking", "running", "crawling")),
    target_prone=st.booleans(),
    concealed=st.booleans(),
    lighting=st.sampled_from((None, "dark", "partial darkness")),
    weakened=st.booleans(),
    with_surprise=st.booleans(),
    dm=st.integers(-6, 6),
)


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(WEAPONS),
    st.sampled_from(T4_BANDS),
    st.sampled_from((None, *ROUTINES)),
    st.sampled_from(FIGHTERS),
    st.sampled_from(FIGHTERS),
    t4_situations,
    t4_conditions,
    st.integers(0, 2**32),
)
def test_t4_odds_are_chances_and_damage_never_takes_a_characteristic_below_0(
    weapon, band, routine, attacker, target, situation, condition, seed
):
    attack = T4Attack(
        attacker, target, weapon, band, routine, situation, target_condition=condition
    )
    try:
        plan = plan_t4_attack(attack)
    except CombatRefused:
        assume(False)
    assert 0 <= plan.chance <= 1
    more = plan_t4_attack(replace(attack, situation=replace(situation, dm=situation.dm + 1)))
    assert more.chance >= plan.chance  # a better to-hit number never lowers the odds
    result = resolve_t4_attack(plan, RandomDice(Random(seed)))
    assert len(result.hits) <= max(plan.throws, 1)
    for hit in result.hits:
        assert hit.dice_after_armor >= 0
        assert hit.damage >= 0
        assert all(points >= 0 for _, points in hit.applied)
        assert sum(points for _, points in hit.applied) <= hit.damage  # beyond 0 is lost
    for fighter, after in (
        (target, result.condition_after),
        (attacker, result.attacker_condition_after),
    ):
        assert all(current(fighter, after, code) >= 0 for code in fighter.levels)


twod6_situations = st.builds(
    TwoD6Situation,
    fire=st.sampled_from(FIRE_MODES),
    aim_actions=st.integers(0, 6),
    target_reaction=st.sampled_from((None, "dodge", "dodge in cover", "parry")),
    cover=st.sampled_from((None, "1/4", "1/2", "3/4", "full")),
    target_stance=st.sampled_from(("standing", "crouched", "prone")),
    target_movement_m=st.integers(0, 40),
    darkness=st.sampled_from((None, "low light", "complete")),
    smoke=st.sampled_from((None, "smoke", "thick")),
    dm=st.integers(-6, 6),
)


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(WEAPONS),
    st.sampled_from(TWOD6_BANDS),
    st.sampled_from(FIGHTERS),
    st.sampled_from(FIGHTERS),
    twod6_situations,
    st.fixed_dictionaries({code: st.integers(0, 8) for code in PHYSICAL}),
    st.integers(0, 2**32),
)
def test_2d6_odds_are_chances_damage_is_never_negative_and_recoil_only_slows(
    weapon, band, attacker, target, situation, damage, seed
):
    condition = twod6_condition.TwoD6Condition(damage)
    attack = TwoD6Attack(attacker, target, weapon, band, situation, target_condition=condition)
    try:
        plan = plan_2d6_attack(attack)
    except CombatRefused:
        assume(False)
    assert 0 <= plan.chance <= 1
    assert plan.attacker_initiative_change <= 0
    result = resolve_2d6_attack(plan, RandomDice(Random(seed)))
    assert all(hit.after_armour >= 0 for hit in result.hits)
    assert sum(result.applied.values()) <= result.damage
    assert all(twod6_condition.current(target, result.condition_after, c) >= 0 for c in PHYSICAL)
    assert result.target_initiative_change <= 0


@given(st.lists(st.tuples(st.integers(1, 6), st.integers(-5, 8)), min_size=1, max_size=12))
def test_t4_order_puts_every_fighter_in_once_and_ties_together(rolls):
    throws = [
        t4_round.DieThrow(f"f{index}", die, (t4_round.Modifier("dm", dm),))
        for index, (die, dm) in enumerate(rolls)
    ]
    for highest_first in (True, False):
        groups = t4_round.order(throws, highest_first=highest_first)
        assert sorted(f for group in groups for f in group) == sorted(t.who for t in throws)
        totals = [{t.total for t in throws if t.who in group} for group in groups]
        assert all(len(total) == 1 for total in totals)
        flat = [total.pop() for total in totals]
        assert flat == sorted(flat, reverse=highest_first)
        assert len(set(flat)) == len(flat)


@given(
    st.lists(
        st.tuples(st.integers(0, 15), st.integers(2, 14), st.integers(-4, 4), st.booleans()),
        min_size=1,
        max_size=12,
    ),
    st.integers(-4, 2),
)
def test_2d6_order_is_by_initiative_then_dex_and_a_change_lasts_one_round(fighters, amount):
    everyone = [
        twod6.Initiative(f"f{index}", dex, base, lasting=lasting, acted=acted)
        for index, (dex, base, lasting, acted) in enumerate(fighters)
    ]
    groups = twod6.order(everyone)
    keys = [{(i.current, i.dex) for i in everyone if i.fighter in group} for group in groups]
    assert all(len(key) == 1 for key in keys)
    flat = [key.pop() for key in keys]
    assert flat == sorted(flat, reverse=True)
    for initiative in everyone:
        changed = twod6.change(initiative, amount)
        later = twod6.next_round(twod6.next_round(changed))
        assert later.current == twod6.next_round(twod6.next_round(initiative)).current


@given(st.integers(0, 40), st.sampled_from(FIGHTERS), st.sampled_from((None, "STR", "DEX")))
def test_2d6_damage_goes_to_end_first_and_is_lost_beyond_0(points, target, overflow):
    _, applied = twod6_condition.take_damage(
        target, twod6_condition.TwoD6Condition(), points, overflow
    )
    assert sum(applied.values()) == min(points, sum(target.levels[c] for c in PHYSICAL))
    if applied["STR"] or applied["DEX"]:
        assert applied["END"] == target.levels["END"]


@given(st.integers(-20, 40))
def test_t4_easy_odds_are_the_faces_at_or_under_the_to_hit_number(dm):
    rifle = next(w for w in WEAPONS if w.name == "Rifle")
    situation = T4Situation(dm=dm)
    plan = plan_t4_attack(T4Attack(FIGHTERS[0], FIGHTERS[0], rifle, "contact", situation=situation))
    # Contact is Easy, 1D: certain at 6 or more, impossible below 1, else to-hit in 6.
    assert plan.chance == Fraction(min(max(plan.to_hit, 0), 6), 6)
