"""T4 basic combat, worked by hand from the seed (KBv1.1) and docs/combat-t4.md: every case
shows its arithmetic. Average humans have every attribute 7 (to-hit ⌈7 ÷ 2⌉ = 4)."""

from dataclasses import replace
from fractions import Fraction

import pytest

from rules import CombatRefused
from rules.combat.reading import weapon as catalog_weapon
from rules.combat.t4.condition import T4Condition
from rules.combat.t4.plan import T4Attack, T4Situation, plan_t4_attack
from rules.combat.t4.resolve import (
    chance_of_any_hit,
    group_hits,
    read_throw,
    resolve_t4_attack,
)

from .systems_builders import AVERAGE, dice, dm_of, sheet


def attack(
    weapon="Rifle",
    band="short",
    routine=None,
    *,
    attacker=AVERAGE,
    target=AVERAGE,
    tl=None,
    allocation=None,
    attacker_condition=None,
    target_condition=None,
    **situation,
):
    return T4Attack(
        attacker=attacker,
        target=target,
        weapon=catalog_weapon(weapon, "weapon", tl),
        range_band=band,
        routine=routine,
        situation=T4Situation(**situation),
        attacker_condition=attacker_condition or T4Condition(),
        target_condition=target_condition or T4Condition(),
        allocation=allocation,
    )


def named(name):
    return catalog_weapon(name, "weapon")


def plan(*args, **kwargs):
    return plan_t4_attack(attack(*args, **kwargs))


def resolve(*args, thrown, **kwargs):
    return resolve_t4_attack(plan(*args, **kwargs), dice(**thrown))


RIFLEMAN = sheet(("Rifleman", 2), attributes={"DEX": 9})


# -- the to-hit number and the difficulty ------------------------------------------------------


def test_to_hit_is_twice_the_skill_plus_half_the_attribute_rounded_up__2x2_plus_5_is_9():
    shot = plan(attacker=RIFLEMAN)
    assert shot.to_hit_base == 9  # Rifleman-2, DEX 9: 4 + ⌈4.5⌉
    assert shot.attribute == "DEX"


def test_no_skill_counts_level_0__to_hit_is_half_the_attribute_4():
    assert plan(attacker=AVERAGE).to_hit_base == 4  # reading T4-3: ⌈7 ÷ 2⌉


def test_a_strike_uses_str__brawling_1_str_10_is_2_plus_5():
    puncher = sheet(("Brawling", 1), attributes={"STR": 10})
    strike = plan("Hands", "contact", attacker=puncher)
    assert (strike.attribute, strike.to_hit_base) == ("STR", 7)


@pytest.mark.parametrize(
    ("band", "name", "rule"),
    [
        ("contact", "Easy", "1D"),
        ("very short", "Average", "2D"),
        ("short", "Difficult", "2.5D"),
        ("medium", "Formidable", "3D"),
        ("long", "Staggering", "4D"),
        ("very long", "Impossible", "5D"),
    ],
)
def test_the_range_sets_the_difficulty_staggering_4d_and_impossible_5d_by_kbv11(band, name, rule):
    shot = plan("Rifle", band)
    assert (shot.difficulty.name, shot.difficulty.rule) == (name, rule)


def test_a_strike_is_average_2d():
    assert plan("Sword", "contact").difficulty.rule == "2D"


def test_the_dms_of_an_aimed_rifle_shot_at_a_stationary_target__plus_3_and_plus_3():
    shot = plan("Rifle", "short", "aimed", attacker=RIFLEMAN)
    assert dm_of(shot.dms, "target stationary") == 3  # III.3
    assert dm_of(shot.dms, "aimed fire") == 3  # the rifle's Rmod
    assert shot.to_hit == 15  # 9 + 3 + 3


def test_a_walking_attacker_snaps_at_minus_4_and_a_trotting_one_at_minus_8():
    assert dm_of(plan(movement="walking").dms, "attacker walking") == -4
    assert dm_of(plan(movement="trotting").dms, "attacker trotting") == -8
    assert dm_of(plan(movement="riding").dms, "attacker riding") == -4  # a vehicle: as walking


def test_a_target_walking_trotting_running_is_minus_1_2_3_and_evading_takes_the_range_number():
    assert dm_of(plan(target_movement="running").dms, "target running") == -3
    evading = plan("Rifle", "medium", target_movement="walking", target_evading=True)
    assert dm_of(evading.dms, "target evading") == -3  # medium is range number 3


def test_a_prone_target_is_plus_3_to_a_strike_and_minus_twice_the_range_number_to_a_shot():
    assert dm_of(plan("Sword", "contact", target_prone=True).dms, "target prone") == 3
    assert dm_of(plan("Rifle", "long", target_prone=True).dms, "target prone") == -8
    assert dm_of(plan("Rifle", "long", target_movement="crawling").dms, "target prone") == -8


def test_autofire_takes_the_range_number_off_each_throw_and_a_4_round_burst_throws_twice():
    burst = plan("SMG", "short", "autofire", attacker=sheet(("SMG", 1)))
    assert dm_of(burst.dms, "autofire recoil") == -2
    assert (burst.burst, burst.throws) == (4, 2)


def test_darkness_costs_9_beyond_short_range_unless_the_weapon_sees_in_the_dark():
    assert dm_of(plan("Rifle", "medium", lighting="dark").dms, "dark") == -9
    assert dm_of(plan("Rifle", "short", lighting="dark").dms, "dark") is None
    assert dm_of(plan("Rifle", "medium", lighting="partial darkness").dms, "partial") is None
    # The laser rifle's integrated sights (IS) see in the dark and add +4 at long range.
    laser = plan("Laser rifle", "long", tl=9, lighting="dark")
    assert dm_of(laser.dms, "dark") is None
    assert dm_of(laser.dms, "sights") == 4


def test_a_specialty_naming_the_weapon_adds_1():
    snub = sheet({"skill": "Handgun", "level": 1, "specialties": ["snub pistol"]})
    assert dm_of(plan("Military snub pistol", "contact", attacker=snub).dms, "specialty") == 1
    assert dm_of(plan("Snub pistol", "contact", attacker=snub).dms, "specialty") == 1
    assert dm_of(plan("Automatic pistol", "contact", attacker=snub).dms, "specialty") is None


def test_the_defender_blocks_a_strike_with_its_skill_with_its_weapon():
    fencer = sheet(("Blade Combat", 2, "swords"))
    armed = plan("Sword", "contact", target=fencer, target_weapon=named("Cutlass"))
    assert dm_of(armed.dms, f"{fencer.name}'s Blade Combat") == -2
    # Unarmed, it cannot block a sword; against fists its Brawling counts.
    assert dm_of(plan("Sword", "contact", target=fencer).dms, f"{fencer.name}'s") is None
    boxer = sheet(("Brawling", 3))
    assert dm_of(plan("Hands", "contact", target=boxer).dms, f"{boxer.name}'s Brawling") == -3


def test_a_battleaxe_is_minus_1_for_its_acc_and_minus_4_as_a_weakened_blow():
    axe = plan("Battleaxe", "contact", weakened=True)
    assert dm_of(axe.dms, "ACC") == -1
    assert dm_of(axe.dms, "weakened blow") == -4  # reading T4-11


def test_fatigue_over_the_end_limit_costs_a_point_a_point__fatigue_8_end_7():
    tired = T4Condition(fatigue=8)
    full = plan("Sword", "contact", attacker_condition=tired)
    assert dm_of(full.dms, "fatigue 9") == -2  # this strike makes 9, two over END 7
    assert full.fatigue_after == 9
    weak = plan("Sword", "contact", attacker_condition=tired, weakened=True)
    assert dm_of(weak.dms, "fatigue 8") == -1  # a weakened blow adds none but still suffers
    assert weak.fatigue_after == 8


def test_a_character_in_armor_too_heavy_attacks_with_lower_dex():
    weak = sheet(
        ("Rifleman", 1), attributes={"STR": 1}, carrying=[{"item": "Combat armor", "tl": 11}]
    )
    assert weak.body_penalty > 0
    assert plan(attacker=weak).attribute_value == 7 - weak.body_penalty


def test_battle_dress_strikes_with_str_15():
    trooper = sheet(("Brawling", 1), carrying=[{"item": "Battle dress", "tl": 13}])
    assert plan("Hands", "contact", attacker=trooper).attribute_value == 15


# -- refusals ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"movement": "running"}, "situation.movement"),
        ({"routine": "aimed", "movement": "walking"}, "situation.movement"),
        ({"routine": "autofire"}, "routine"),
        ({"weapon": "Sword", "band": "very short"}, "range"),
        ({"weapon": "Body pistol", "band": "medium"}, "range"),
        ({"weapon": "Sword", "routine": "aimed", "band": "contact"}, "routine"),
        ({"target_evading": True}, "situation.target_evading"),
        ({"weakened": True}, "situation.weakened"),
        ({"routine": "snap", "snipe_shift": 1}, "situation.snipe_shift"),
        ({"weapon": "PGMP-13"}, "weapon"),
        ({"location_skew": -1}, "situation.location_skew"),
    ],
)
def test_an_attack_the_rules_do_not_allow_is_refused_naming_the_field(kwargs, field):
    args = {"weapon": kwargs.pop("weapon", "Rifle"), "band": kwargs.pop("band", "short")}
    with pytest.raises(CombatRefused) as refused:
        plan(args["weapon"], args["band"], kwargs.pop("routine", None), **kwargs)
    assert refused.value.field == field


def test_a_dagger_does_not_attack_a_spear_in_the_first_round():
    with pytest.raises(CombatRefused, match="first round"):
        plan("Dagger", "contact", first_round=True, target_weapon=named("Spear"))
    plan("Dagger", "contact", target_weapon=named("Spear"))  # later rounds: allowed


def test_a_pike_over_3000_mm_is_used_at_contact_once():
    with pytest.raises(CombatRefused, match="too long"):
        plan("Pike", "contact", weapon_used_at_contact=True)
    plan("Spear", "contact", weapon_used_at_contact=True)  # 3000 mm is not over


def test_dex_4_attacks_one_target_a_round():
    clumsy = sheet(attributes={"DEX": 4})
    with pytest.raises(CombatRefused, match="at most 1 target"):
        plan(attacker=clumsy, target_index=2)
    assert dm_of(plan(target_index=2).dms, "target 2") == -1  # DEX 7: two targets


def test_a_stunned_attacker_cannot_attack():
    with pytest.raises(CombatRefused, match="stunned"):
        plan(attacker_condition=T4Condition(stunned_rounds=1))


def test_a_thrown_spear_reaches_str_x_2_5_m__str_7_throws_2_kg_17_5_m():
    spear = plan("Spear (thrown)", "short", attacker=sheet(attributes={"STR": 7}))
    assert spear.difficulty.name == "Staggering"  # 16-45 m on the thrown-weapon table
    with pytest.raises(CombatRefused, match=r"17\.5 m"):
        plan("Spear (thrown)", "medium")


# -- throws ------------------------------------------------------------------------------------


def test_the_half_die_reads_half_rounded_up__4_5_and_a_6_read_12():
    throw = read_throw((4, 5, 6), plan("Rifle", "short").difficulty, 12)
    assert (throw.read, throw.success, throw.margin) == (12, True, 0)
    # The half die is named apart from the whole dice, with what it reads.
    assert (throw.whole, throw.half) == ((4, 5), 6)
    assert throw.words == "4+5 + half die 6 (3) reads 12"
    assert throw.as_dict()["half_die"] == {"die": 6, "reads": 3}


def test_a_throw_of_whole_dice_has_no_half_die():
    throw = read_throw((4, 5), plan("Rifle", "very short").difficulty, 12)
    assert (throw.whole, throw.half, throw.words) == ((4, 5), None, "4+5 reads 9")


def test_two_whole_ones_are_a_spectacular_success_and_two_sixes_a_failure():
    average = plan("Rifle", "very short").difficulty
    assert read_throw((1, 1), average, 7).spectacular == "success"
    assert read_throw((6, 6), average, 7).spectacular == "failure"
    difficult = plan("Rifle", "short").difficulty
    assert read_throw((1, 1, 6), difficult, 7).spectacular == "success"  # the half die never counts


def test_three_ones_are_needed_on_three_dice_or_more():
    formidable = plan("Rifle", "medium").difficulty
    assert read_throw((1, 1, 2), formidable, 10).spectacular is None
    assert read_throw((1, 1, 1), formidable, 10).spectacular == "success"
    assert read_throw((1, 1, 1, 6), plan("Rifle", "long").difficulty, 10).spectacular == "success"


def test_the_chance_is_exact__easy_1d_at_or_under_3_is_one_half():
    # To-hit 4, the target walking -1: 3; one die reads 3 or less on three faces of six.
    assert plan("Rifle", "contact", target_movement="walking").chance == Fraction(1, 2)


def test_the_chance_of_difficult_counts_the_half_die__2d_and_a_half_die_at_or_under_4():
    # 4 + 3 stationary... the target walks (-1), the referee adds 1: to-hit 4. 2D + ⌈d ÷ 2⌉:
    # dice 1+1 with a half die of 1 or 2 (4 faces of 6), 1+2 or 2+1 with 1 (2 faces each):
    # 4 + 2 + 2 = 8 outcomes of 216.
    shot = plan("Rifle", "short", target_movement="walking", dm=1)
    assert shot.to_hit == 4
    assert shot.chance == Fraction(8, 216)


# -- hits, armor and damage --------------------------------------------------------------------


def test_an_aimed_rifle_shot_to_the_mid_torso_of_an_unarmored_target():
    # To-hit 15; Difficult [4, 5, 6] reads 4 + 5 + 3 = 12: a hit. 34 is Mid Torso; the rifle's
    # 3D meet no armor. Dice 6, 5, 2, largest first to the characteristic with most left
    # (ties END, STR, DEX): 6 to END, 5 to STR, 2 to DEX.
    result = resolve(
        "Rifle",
        "short",
        "aimed",
        attacker=RIFLEMAN,
        thrown={"attack": [[4, 5, 6]], "location": [[3, 4]], "damage": [[6, 5, 2]]},
    )
    (hit,) = result.hits
    assert (hit.location.name, hit.dice_after_armor, hit.blunt_trauma) == ("Mid Torso", 3, 0)
    assert hit.applied == (("END", 6), ("STR", 5), ("DEX", 2))
    assert result.damage == 13
    assert result.condition_after.wound == "superficial"


def test_the_target_chooses_where_each_die_goes__a_4_and_a_2_both_to_end():
    # The seed's example (VI.5): 2D of damage, a 2 and a 4; the dice are not broken up.
    result = resolve(
        "Automatic pistol",
        "very short",
        allocation=("END", "END"),
        thrown={"attack": [[1, 2]], "location": [[3, 4]], "damage": [[4, 2]]},
    )
    assert result.hits[0].applied == (("END", 4), ("END", 2))
    assert result.condition_after.damage["END"] == 6


def test_a_flexible_armor_passes_blunt_trauma__3d_against_a_flak_jackets_2():
    # Flak jacket: FFA AV 9 -> T4 ⌊(9 + 3) ÷ 6⌋ = 2 dice; 3 - 2 = 1 die through, 2 absorbed.
    target = sheet(carrying=["Flak jacket"])
    result = resolve(
        target=target, thrown={"attack": [[1, 2, 3]], "location": [[3, 4]], "damage": [[4]]}
    )
    hit = result.hits[0]
    assert (hit.av, hit.dice_after_armor, hit.blunt_trauma, hit.damage) == (2, 1, 2, 6)


def test_a_rating_equal_to_the_av_does_not_penetrate__2d_against_a_flak_jackets_2():
    # VI.8: only a rating greater than the AV penetrates; flexible armor passes its 2 dice
    # absorbed as blunt trauma all the same.
    target = sheet(carrying=["Flak jacket"])
    result = resolve(
        "Automatic pistol",
        target=target,
        thrown={"attack": [[1, 2, 3]], "location": [[3, 4]], "damage": [[]]},
    )
    hit = result.hits[0]
    assert (hit.rating, hit.av, hit.penetrated, hit.damage) == (2, 2, False, 2)
    assert hit.worked == (
        "2D against Flak jacket (TL 6) 2D: not penetrated (only more dice than the AV "
        "penetrate); 2 blunt trauma"
    )


def test_a_rating_above_the_av_penetrates_and_the_arithmetic_shows_it():
    target = sheet(carrying=["Flak jacket"])
    result = resolve(
        target=target, thrown={"attack": [[1, 2, 3]], "location": [[3, 4]], "damage": [[4]]}
    )
    hit = result.hits[0]
    assert hit.penetrated is True
    assert hit.worked == "3D \u2212 Flak jacket (TL 6) 2D = 1D: 4 + 2 blunt trauma = 6"


def test_rigid_armor_stops_the_dice_and_passes_no_blunt_trauma():
    target = sheet(carrying=[{"item": "Combat armor", "tl": 11}])
    result = resolve(
        target=target, thrown={"attack": [[1, 2, 3]], "location": [[3, 4]], "damage": [[]]}
    )
    hit = result.hits[0]
    assert (hit.av, hit.dice_after_armor, hit.blunt_trauma, result.damage) == (6, 0, 0, 0)
    assert result.condition_after.wound is None
    assert hit.worked.endswith(
        "not penetrated (only more dice than the AV penetrate), and "
        "rigid armor passes no blunt trauma"
    )


def test_a_helmet_covers_the_cranium_only():
    target = sheet(carrying=["Helmet", "Jack"])
    cranium = resolve(
        target=target, thrown={"attack": [[1, 2, 3]], "location": [[1, 1]], "damage": [[]]}
    )
    assert cranium.hits[0].armor.name == "Helmet"
    face = resolve(
        target=target, thrown={"attack": [[1, 2, 3]], "location": [[1, 3]], "damage": [[1, 1, 1]]}
    )
    assert face.hits[0].armor is None  # the face is covered by sealed suits only
    arm = resolve(
        target=target, thrown={"attack": [[1, 2, 3]], "location": [[2, 3]], "damage": [[1, 1]]}
    )
    assert arm.hits[0].armor.name == "Jack"  # Jack: FFA AV 3 -> 1 die: 2 through, 1 trauma
    assert (arm.hits[0].dice_after_armor, arm.hits[0].blunt_trauma) == (2, 1)


def test_no_more_than_3_dice_reach_a_character_but_a_shotgun_breaks_the_rule():
    gunner = sheet(("High-Energy Weapon", 2))
    pgmp = resolve(
        "PGMP-12",
        "short",
        attacker=gunner,
        thrown={"attack": [[1, 2, 3]], "location": [[3, 4]], "damage": [[1, 1, 1]]},
    )
    assert (pgmp.hits[0].rating, pgmp.hits[0].dice_after_armor) == (10, 3)
    shotgun = resolve(
        "Shotgun",
        "very short",
        thrown={"attack": [[1, 2]], "location": [[3, 4]], "damage": [[1, 1, 1, 1]]},
    )
    assert shotgun.hits[0].dice_after_armor == 4  # 2D doubled by SH, uncapped


def test_a_wrong_number_of_damage_dice_is_named_with_the_number_needed():
    with pytest.raises(CombatRefused) as refused:
        resolve(thrown={"attack": [[1, 2, 3]], "location": [[3, 4]], "damage": [[1, 1]]})
    assert str(refused.value) == "dice.damage[0]: 3 dice needed, got 2"


def test_a_characteristic_at_0_is_a_minor_wound__unconscious_and_the_lung_bleeds_1_a_round():
    # 34 Mid Torso, minor column: Lung 1p/r. Dice 6 and 1 to END (7 -> 0), 2 to STR.
    result = resolve(
        allocation=("END", "END", "STR"),
        thrown={"attack": [[1, 2, 3]], "location": [[3, 4]], "damage": [[6, 1, 2]]},
    )
    after = result.condition_after
    assert (after.wound, after.unconscious) == ("minor", True)
    assert [(b.location, b.effect, b.per_round) for b in after.bleeding] == [
        ("Mid Torso", "Lung", 1)
    ]
    assert {e.code for e in result.events} >= {"unconscious", "bleeding"}


def test_a_laser_wound_cauterizes__the_lung_is_recorded_but_does_not_bleed():
    result = resolve(
        "Laser rifle",
        "short",
        tl=9,
        allocation=("END", "END", "STR"),
        thrown={"attack": [[1, 2, 3]], "location": [[3, 4]], "damage": [[6, 1, 2]]},
    )
    assert result.condition_after.bleeding == ()
    assert [i.effect for i in result.condition_after.injuries] == ["Lung"]


def test_a_head_hit_that_would_zero_a_characteristic_goes_to_int_or_edu():
    # Physical 5s, INT 9, EDU 7. 6 to END would zero it: INT 9 takes it (-> 3). The next 6
    # would zero END again: EDU 7 > 6 takes it (-> 1). The last 6: INT 3 and EDU 1 cannot,
    # END takes it (-> 0): a minor wound, and the cranium's minor effect Frac/Conc.
    target = sheet(attributes={"STR": 5, "DEX": 5, "END": 5, "INT": 9})
    result = resolve(
        target=target, thrown={"attack": [[1, 2, 3]], "location": [[1, 1]], "damage": [[6, 6, 6]]}
    )
    assert result.hits[0].applied == (("INT", 6), ("EDU", 6), ("END", 5))
    assert result.condition_after.wound == "minor"
    assert [i.effect for i in result.condition_after.injuries] == ["Frac/Conc"]


def test_a_spectacular_success_is_a_critical_hit_to_random_characteristics():
    # Average [1, 1]: spectacular. 3 + 3 + 3 = 9 points; d6 5 picks END (5-6 of three): 7,
    # END at 0; of STR and DEX, 2 picks STR (1-3): the last 2.
    result = resolve(
        "Rifle",
        "very short",
        thrown={
            "attack": [[1, 1]],
            "location": [[3, 4]],
            "damage": [[3, 3, 3]],
            "random_stat": [[5], [2]],
        },
    )
    assert result.hits[0].critical
    assert "critical" in {e.code for e in result.events}
    assert result.hits[0].applied == (("END", 7), ("STR", 2))
    assert result.condition_after.unconscious


def test_an_autofire_spectacular_success_doubles_the_dice_instead__3_to_6():
    gunner = sheet(("SMG", 1))
    result = resolve(
        "SMG",
        "very short",
        "autofire",
        attacker=gunner,
        thrown={"attack": [[1, 1], [6, 5]], "location": [[3, 4]], "damage": [[1, 1, 1, 1, 1, 1]]},
    )
    (hit,) = result.hits
    assert (hit.critical, hit.dice_after_armor) == (False, 6)


def test_an_autofire_spectacular_failure_jams_and_voids_the_later_throws():
    gunner = sheet(("Rifleman", 2))
    result = resolve(
        "Gauss rifle",
        "very short",
        "autofire",
        attacker=gunner,
        burst=10,
        thrown={"attack": [[6, 6], [1, 2], [1, 2]]},
    )
    assert result.jammed
    assert len(result.throws) == 1
    assert not result.hit


def test_a_bursts_chance_of_at_least_one_hit_counts_every_throw_and_the_jam():
    # Rifleman-2 with a Gauss rifle at very short range, a 10-round burst: 3 throws of 2D at
    # or under 10, each hitting 33/36. A 6 and a 6 (1/36) is a spectacular failure that jams
    # and voids the later throws; any other miss is 2/36. No hit: three plain misses
    # (1/18)^3, or plain misses until a jam (1/36 x (1 + 1/18 + 1/324)) = 345/11664.
    burst = plan("Gauss rifle", "very short", "autofire", attacker=sheet(("Rifleman", 2)), burst=10)
    assert (burst.throws, burst.to_hit, burst.chance) == (3, 10, Fraction(11, 12))
    assert chance_of_any_hit(burst) == 1 - Fraction(345, 11664)
    # One throw: its chance is the chance of a hit.
    single = plan("Rifle", "short")
    assert chance_of_any_hit(single) == single.chance


def test_cover_hides_the_regions_it_covers__a_knee_behind_a_wall_is_a_miss():
    result = resolve(
        cover="partial",
        cover_regions=frozenset({"leg"}),
        dm=4,  # to-hit 4 + 3 stationary - 4 partial cover + 4 = 7
        thrown={"attack": [[1, 2, 3]], "location": [[6, 3]]},
    )
    assert (result.hit, result.blocked_by_cover) == (False, ("Knee",))


def test_an_incidental_hit_strikes_equipment():
    result = resolve(thrown={"attack": [[1, 2, 3]], "location": [[6, 6]]})
    assert (result.hit, result.incidental) == (False, 1)


# -- strikes -----------------------------------------------------------------------------------


def test_a_punch_does_1d_of_stun_and_costs_a_point_of_fatigue():
    # Brawling-1, STR 7: 2 + 4 = 6; stationary +3; the target's Brawling-2 -2: 7. [3, 3] hits.
    boxer = sheet(("Brawling", 1))
    target = sheet(("Brawling", 2))
    result = resolve(
        "Hands",
        "contact",
        attacker=boxer,
        target=target,
        thrown={"attack": [[3, 3]], "location": [[2, 3]], "damage": [[4]]},
    )
    assert result.plan.to_hit == 7
    assert result.hits[0].stun
    assert result.condition_after.stun["END"] == 4
    assert result.attacker_condition_after.fatigue == 1


def test_a_strike_on_an_unconscious_target_needs_no_throw_and_no_fatigue():
    down = T4Condition(unconscious=True)
    result = resolve(
        "Sword", "contact", target_condition=down, thrown={"location": [[3, 4]], "damage": [[2, 2]]}
    )
    assert result.throws == ()
    assert result.hit
    assert result.attacker_condition_after.fatigue == 0


def test_a_characteristic_at_0_is_unconscious_whatever_the_record_says():
    out = T4Condition(damage={"END": 7})
    result = resolve(
        "Sword", "contact", target_condition=out, thrown={"location": [[3, 4]], "damage": [[1, 1]]}
    )
    assert result.throws == ()  # a special strike
    with pytest.raises(CombatRefused, match="unconscious"):
        plan(attacker_condition=out)


def test_a_bare_fist_on_rigid_armor_costs_the_attacker_a_point():
    target = sheet(carrying=[{"item": "Combat armor", "tl": 11}])
    result = resolve(
        "Hands",
        "contact",
        target=target,
        thrown={"attack": [[1, 2]], "location": [[3, 4]], "damage": [[]]},
    )
    assert result.attacker_damage == 1
    assert sum(result.attacker_condition_after.damage.values()) == 1


def test_pure_defense_is_won_by_the_larger_margin():
    # Attacker: sword, to-hit 4 + 3 stationary = 7; [2, 2] reads 4, margin 3. Defender with a
    # cutlass, Blade Combat (swords)-1: 2 + 4 = 6; [1, 1] reads 2, margin 4: blocked.
    defender = sheet(("Blade Combat", 1, "swords"))
    blocked = resolve(
        "Sword",
        "contact",
        target=defender,
        pure_defense=True,
        target_weapon=named("Cutlass"),
        thrown={"attack": [[2, 2]], "defense": [[1, 1]]},
    )
    assert not blocked.hit
    won = resolve(
        "Sword",
        "contact",
        target=defender,
        pure_defense=True,
        target_weapon=named("Cutlass"),
        thrown={"attack": [[2, 2]], "defense": [[3, 3]], "location": [[3, 4]], "damage": [[1, 1]]},
    )
    assert won.hit


def test_a_soldier_strikes_with_a_bayonet_at_rifleman_minus_1():
    soldier = sheet(("Rifleman", 3), service="army", terms=1)
    strike = plan("Bayonet", "contact", attacker=soldier)
    assert strike.skill_level == 2
    assert strike.to_hit_base == 8  # 2 x 2 + ⌈7 ÷ 2⌉


def test_group_hits_follow_the_burst__4_rounds_2_targets_shotgun_3():
    assert group_hits(plan("SMG", "short", "autofire")) == 2
    assert group_hits(plan("Gauss rifle", "short", "autofire", burst=10)) == 4
    assert group_hits(plan("Shotgun", "short")) == 3
    assert group_hits(plan("Rifle", "short")) == 0


def test_an_unsilenced_shot_ends_surprise():
    result = resolve(with_surprise=True, thrown={"attack": [[6, 6, 6]]})
    assert "surprise lost" in {e.code for e in result.events}
    laser = resolve(
        "Laser rifle", "short", tl=9, with_surprise=True, thrown={"attack": [[6, 6, 6]]}
    )
    assert "surprise lost" not in {e.code for e in laser.events}


def test_the_condition_carries_into_the_next_attack():
    hurt = T4Condition(damage={"END": 7})
    result = resolve(
        target_condition=hurt,
        thrown={"attack": [[1, 2, 3]], "location": [[4, 4]], "damage": [[1, 1, 1]]},
    )
    assert result.condition_after.damage["END"] == 7
    assert replace(result.condition_after).damage["STR"] + result.condition_after.damage["DEX"] == 3
