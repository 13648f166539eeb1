"""2D6 combat, worked by hand from the seed and docs/combat-2d6.md: every case shows its
arithmetic. Average humans have every attribute 7 (DM 0)."""

from fractions import Fraction

import pytest

from rules import CombatRefused
from rules.combat.conversion import characteristic_dm
from rules.combat.reading import weapon as catalog_weapon
from rules.combat.twod6.attack import (
    TwoD6Attack,
    TwoD6Situation,
    plan_2d6_attack,
    resolve_2d6_attack,
)
from rules.combat.twod6.condition import TwoD6Condition, state, take_damage

from .systems_builders import AVERAGE, dice, dm_of, sheet


def attack(
    weapon="Automatic pistol",
    band="short",
    *,
    attacker=AVERAGE,
    target=AVERAGE,
    tl=None,
    attacker_condition=None,
    target_condition=None,
    **situation,
):
    return TwoD6Attack(
        attacker=attacker,
        target=target,
        weapon=catalog_weapon(weapon, "weapon", tl),
        range_band=band,
        situation=TwoD6Situation(**situation),
        attacker_condition=attacker_condition or TwoD6Condition(),
        target_condition=target_condition or TwoD6Condition(),
    )


def plan(*args, **kwargs):
    return plan_2d6_attack(attack(*args, **kwargs))


def resolve(*args, thrown, **kwargs):
    return resolve_2d6_attack(plan(*args, **kwargs), dice(**thrown))


PISTOLEER = sheet(("Handgun", 1), attributes={"DEX": 11})


@pytest.mark.parametrize(
    ("level", "dm"),
    [
        (0, -3),
        (1, -2),
        (2, -2),
        (3, -1),
        (5, -1),
        (6, 0),
        (8, 0),
        (9, 1),
        (11, 1),
        (12, 2),
        (15, 3),
        (18, 4),
    ],
)
def test_the_characteristic_dm_is_a_third_of_the_level_less_2_and_minus_3_at_0(level, dm):
    assert characteristic_dm(level) == dm


def test_an_aimed_pistol_shot__2d6_plus_handgun_1_dex_11_dm_1_aim_1_reaches_8_on_5_or_more():
    shot = plan("Automatic pistol", "short", attacker=PISTOLEER, aim_actions=1)
    assert (shot.skill_dm, shot.characteristic, shot.characteristic_dm) == (1, "DEX", 1)
    assert dm_of(shot.dms, "aiming") == 1
    assert shot.total_dm == 3
    assert shot.chance == Fraction(30, 36)  # 2D6 of 5 or more


def test_the_hit_does_the_weapons_dice_plus_the_effect_less_armour_to_end_then_the_higher():
    # [5, 4] + 3 = 12: Effect 4. The automatic pistol's 2D: 3 + 5 + 4 = 12, less the jack's
    # armour 1 (FFA AV 3 ÷ 3) = 11. END 7 takes 7, the rest (4) goes to the higher of STR and
    # DEX: a tie, so STR.
    target = sheet(carrying=["Jack"])
    result = resolve(
        "Automatic pistol",
        "short",
        attacker=PISTOLEER,
        target=target,
        aim_actions=1,
        thrown={"attack": [[5, 4]], "damage": [[3, 5]]},
    )
    assert [(t.total, t.effect) for t in result.throws] == [(12, 4)]
    (hit,) = result.hits
    assert (hit.rolled, hit.effect, hit.armour, hit.after_armour) == (8, 4, 1, 11)
    assert result.applied == {"END": 7, "STR": 4, "DEX": 0}
    assert state(target, result.condition_after) == "conscious"


def test_the_target_chooses_where_damage_past_end_goes():
    # Unskilled -3 and the referee's +3: [6, 6] is 12, Effect 4; 6 + 6 + 4 = 16: END 7, DEX 7
    # (unconscious), the last 2 to STR.
    result = resolve(overflow_to="DEX", dm=3, thrown={"attack": [[6, 6]], "damage": [[6, 6]]})
    assert result.applied == {"END": 7, "DEX": 7, "STR": 2}
    assert state(AVERAGE, result.condition_after) == "unconscious"


def test_all_three_at_0_is_dead_and_points_beyond_are_lost():
    condition, applied = take_damage(AVERAGE, TwoD6Condition(), 30)
    assert applied == {"STR": 7, "DEX": 7, "END": 7}
    assert state(AVERAGE, condition) == "dead"


def test_no_skill_is_minus_3_and_jack_of_all_trades_makes_it_0():
    assert plan().skill_dm == -3
    jack = sheet(
        traits=[{"type": "PP", "level": "G", "frequency": "O", "name": "Jack-of-all-trades"}]
    )
    assert plan(attacker=jack).skill_dm == 0


def test_melee_uses_the_better_of_str_and_dex_unless_the_attacker_chooses():
    strong = sheet(("Blade Combat", 1, "swords"), attributes={"STR": 12, "DEX": 6})
    sword = plan("Sword", "personal", attacker=strong)
    assert (sword.characteristic, sword.characteristic_dm) == ("STR", 2)
    assert plan("Sword", "personal", attacker=strong, characteristic="DEX").characteristic_dm == 0
    with pytest.raises(CombatRefused):
        plan("Rifle", "short", characteristic="STR")


def test_range_follows_the_weapons_profile__a_pistol_at_long_is_minus_4_and_not_farther():
    assert dm_of(plan("Automatic pistol", "long").dms, "long range") == -4
    with pytest.raises(CombatRefused) as refused:
        plan("Automatic pistol", "very long")
    assert refused.value.field == "range"
    assert dm_of(plan("Rifle", "personal").dms, "personal range") == -4
    assert dm_of(plan("Spear", "close").dms, "close") is None  # Extended Reach: close is 0
    with pytest.raises(CombatRefused):
        plan("Body pistol", "long")  # MAX 25 m; long starts at 51 m


def test_a_thrown_spear_reaches_str_x_5_m__str_7_is_35_m_short_not_long():
    plan("Spear (thrown)", "medium")  # 12 m to 35 m
    with pytest.raises(CombatRefused):
        plan("Spear (thrown)", "long")


def test_burst_fire_adds_auto_to_the_damage_and_fires_auto_rounds():
    gunner = sheet(("SMG", 1))
    result = resolve(
        "SMG",
        "short",
        attacker=gunner,
        fire="burst",
        thrown={"attack": [[4, 3]], "damage": [[1, 1, 1]]},
    )
    # 7 + 1 = 8: Effect 0. 3 + 0 + Auto 4 = 7.
    (hit,) = result.hits
    assert (hit.auto, hit.after_armour) == (4, 7)
    assert result.plan.rounds == 4
    # Recoil 0 + 1 for a burst; STR 7 is DM 0: initiative -1 next round.
    assert result.plan.attacker_initiative_change == -1


def test_full_auto_pairs_the_auto_dice_and_caps_the_skill_at_1():
    # SMG Auto 4: two attacks. SMG-3 counts 1. [5, 5] + 1 = 11 hits (Effect 3); [2, 3] + 1 = 6
    # misses. 3 x Auto = 12 rounds; Recoil + Auto ÷ 2 = 2 against STR DM 0: initiative -2.
    gunner = sheet(("SMG", 3))
    result = resolve(
        "SMG",
        "short",
        attacker=gunner,
        fire="full auto",
        thrown={"attack": [[5, 5], [2, 3]], "damage": [[1, 2, 3]]},
    )
    assert result.plan.skill_dm == 1
    assert [(t.total, t.hit) for t in result.throws] == [(11, True), (6, False)]
    assert result.plan.rounds == 12
    assert result.plan.attacker_initiative_change == -2


def test_an_odd_auto_leaves_a_die_unused():
    gunner = sheet(("Rifleman", 1))
    result = resolve(
        "Accelerator rifle",
        "short",
        attacker=gunner,
        fire="full auto",
        thrown={"attack": [[6, 6], [1]], "damage": [[1, 1]]},
    )
    assert len(result.throws) == 1
    assert result.unused_die == (1,)


def test_a_weapon_without_auto_fires_single_shots_only():
    with pytest.raises(CombatRefused) as refused:
        plan("Rifle", fire="burst")
    assert refused.value.field == "situation.fire"


def test_an_effect_of_6_always_wounds():
    # Rifle 3D vs battle dress (armour 13): 1 + 1 + 1 + Effect 6 = 9, less 13: still 1.
    target = sheet(carrying=[{"item": "Battle dress", "tl": 13}])
    result = resolve(
        "Rifle", "short", target=target, dm=5, thrown={"attack": [[6, 6]], "damage": [[1, 1, 1]]}
    )
    assert result.throws[0].effect == 6
    assert result.hits[0].after_armour == 1


def test_reflec_under_combat_armor_meets_a_laser_with_its_full_10():
    target = sheet(carrying=[{"item": "Combat armor", "tl": 11}, "Reflec"])
    laser = resolve(
        "Laser rifle",
        "short",
        tl=9,
        target=target,
        dm=10,
        thrown={"attack": [[1, 1]], "damage": [[1, 1, 1, 1, 1]]},
    )
    assert laser.hits[0].armour == 10
    bullet = resolve(
        "Rifle", "short", target=target, dm=10, thrown={"attack": [[1, 1]], "damage": [[1, 1, 1]]}
    )
    assert bullet.hits[0].armour == 11


def test_a_helmet_is_never_the_worn_armour():
    target = sheet(carrying=["Helmet", "Jack"])
    result = resolve(target=target, dm=10, thrown={"attack": [[1, 1]], "damage": [[1, 1]]})
    assert result.hits[0].armour == 1


def test_reactions__dodge_minus_1_or_2_in_cover_parry_minus_the_skill_initiative_minus_2():
    assert dm_of(plan(target_reaction="dodge").dms, "target dodge") == -1
    assert dm_of(plan(target_reaction="dodge in cover").dms, "target dodge in cover") == -2
    fencer = sheet(("Blade Combat", 2, "swords"))
    parried = plan(
        "Sword",
        "personal",
        target=fencer,
        target_reaction="parry",
        target_weapon=catalog_weapon("Cutlass", "w"),
    )
    assert dm_of(parried.dms, "target parries") == -2
    with pytest.raises(CombatRefused, match="dodged, not parried"):
        plan(target_reaction="parry")
    result = resolve(target_reaction="dodge", thrown={"attack": [[1, 1]]})
    assert result.target_initiative_change == -2


def test_a_prone_target_is_plus_2_at_personal_0_at_close_minus_2_farther_and_cannot_dodge():
    assert dm_of(plan("Sword", "personal", target_stance="prone").dms, "target prone") == 2
    assert (
        dm_of(plan("Automatic pistol", "close", target_stance="prone").dms, "target prone") is None
    )
    assert dm_of(plan("Automatic pistol", "short", target_stance="prone").dms, "target prone") == -2
    with pytest.raises(CombatRefused, match="cannot dodge"):
        plan(target_stance="prone", target_reaction="dodge")


def test_crouching_claims_cover_one_step_higher_and_full_cover_so_cannot_be_hit():
    assert dm_of(plan(cover="1/2", target_stance="crouched").dms, "cover 3/4") == -2
    with pytest.raises(CombatRefused, match="cannot be hit"):
        plan(cover="full", target_stance="crouched")


def test_smoke_is_doubled_for_lasers_and_darkness_is_cancelled_by_integrated_sights_when_aiming():
    assert dm_of(plan("Laser rifle", "short", tl=9, smoke="thick").dms, "thick") == -4
    assert dm_of(plan("Rifle", "short", smoke="thick").dms, "thick") == -2
    assert dm_of(plan("Laser rifle", "short", tl=9, darkness="complete").dms, "darkness") == -4
    aimed = plan("Laser rifle", "short", tl=9, darkness="complete", aim_actions=1)
    assert dm_of(aimed.dms, "darkness") is None


def test_a_target_moving_23_m_is_minus_2():
    assert dm_of(plan(target_movement_m=23).dms, "target moved") == -2


def test_firing_into_combat_is_minus_2_and_a_miss_may_hit_another():
    result = resolve(into_combat=True, thrown={"attack": [[1, 1]], "stray": [[4]]})
    assert dm_of(result.plan.dms, "firing into combat") == -2
    assert "stray shot" in {e.code for e in result.events}


def test_a_heavy_weapon_slows_a_weak_shooter__pgmp_12_recoil_plus_1_against_str_dm_0():
    gunner = sheet(("High-Energy Weapon", 1))
    assert plan("PGMP-12", "short", attacker=gunner).attacker_initiative_change == -1


def test_an_unconscious_attacker_cannot_attack():
    with pytest.raises(CombatRefused, match="unconscious"):
        plan(attacker_condition=TwoD6Condition({"STR": 7}))
