"""Planning and resolving one attack: the TN, the DMs and why, the dice, and the odds."""

import json
from fractions import Fraction
from pathlib import Path

import pytest

from rules import (
    CombatRefused,
    Condition,
    Situation,
    catalog,
    fighter_from_document,
    parse_document,
    plan_attack,
    resolve_attack,
    take_damage,
    weapon_named,
)
from rules.combat import (
    animal,
    autofire_bursts,
    chance_percent,
    dice_needed,
    fighter_from_animal,
    figures_now,
    hit_chance,
    read_dice,
    usual_band,
    weapon_from_item,
)

from .combat_builders import AVERAGE, dm_of, fighter, plan, skilled

EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "examples"

# -- the target number -------------------------------------------------------------------------


def test_the_tn_is_the_targets_def():
    quick = fighter(attributes={"DEX": 12})  # DEX DV 6
    assert plan(target=quick).tn == 6
    assert plan().tn == 3


def test_a_surprised_target_has_def_1():
    quick = fighter(attributes={"DEX": 12})
    attack = plan(target=quick, target_surprised=True)
    assert attack.tn == 1
    assert [m.dm for m in attack.tn_dms] == [-5]


def test_an_attack_from_the_targets_rear_takes_2_off_its_def_never_below_1():
    assert plan(attacker_in_target_rear=True).tn == 1  # DEF 3 - 2
    quick = fighter(attributes={"DEX": 12})
    assert plan(target=quick, attacker_in_target_rear=True).tn == 4
    assert plan(target_surprised=True, attacker_in_target_rear=True).tn == 1


def test_a_stunned_target_has_def_1():
    quick = fighter(attributes={"DEX": 12})
    weapon = weapon_named("Rifle")
    stunned = Condition(quick.LIF, quick.WND, stunned=True)
    attack = plan_attack(AVERAGE, weapon, quick, "medium", Situation(), target_condition=stunned)
    assert attack.tn == 1


# -- the attacker's DMs ------------------------------------------------------------------------


def test_the_attackers_dex_dm_is_added():
    assert dm_of(plan(attacker=fighter(attributes={"DEX": 12})), "DEX DM") == 2
    assert dm_of(plan(), "DEX DM") is None


def test_acc_applies_when_stationary_or_stepping_and_not_when_moving():
    assert dm_of(plan("Rifle"), "ACC") == 2
    assert dm_of(plan("Rifle", movement="stepping"), "ACC") == 2
    assert dm_of(plan("Rifle", movement="moving"), "ACC") is None


def test_a_negative_acc_applies_whatever_the_attacker_does():
    assert dm_of(plan("Battleaxe", "close", movement="moving"), "ACC") == -1


def test_rmod_offsets_range_only_stationary_and_aimed_and_never_goes_positive():
    # Rifle: Rmod +3. At long range (-4), aimed one turn: Rmod offsets 3, aiming 1 more.
    aimed = plan("Rifle", "long", aim_turns=1, attacker=skilled("Rifleman", 1))
    assert dm_of(aimed, "Rmod") == 3
    assert dm_of(aimed, "aiming") == 1
    assert dm_of(plan("Rifle", "long", movement="stepping", aim_turns=1), "Rmod") is None
    assert dm_of(plan("Rifle", "long"), "Rmod") is None  # not aimed
    # At close range (-1) the Rmod +3 offsets only the 1.
    assert dm_of(plan("Rifle", "close", aim_turns=1), "Rmod") == 1
    assert dm_of(plan("Rifle", "contact", aim_turns=1), "Rmod") is None


def test_aiming_gives_1_a_turn_up_to_the_skill_level_at_least_1_and_only_offsets_range():
    shooter = skilled("Rifleman", 2)
    # Automatic rifle (Rmod +3) at distant range (-6) from moving... stepping: no Rmod.
    stepping = {"movement": "stepping", "attacker": shooter}
    assert dm_of(plan("Rifle", "distant", aim_turns=1, **stepping), "aiming") == 1
    assert dm_of(plan("Rifle", "distant", aim_turns=2, **stepping), "aiming") == 2
    assert dm_of(plan("Rifle", "distant", aim_turns=5, **stepping), "aiming") == 2  # level 2
    # Unskilled: still +1 for a turn aiming.
    assert dm_of(plan("Rifle", "distant", aim_turns=3, movement="stepping"), "aiming") == 1
    # No range penalty left to offset: nothing.
    assert dm_of(plan("Sword", "close", aim_turns=2), "aiming") is None


@pytest.mark.parametrize(("turns", "label"), [(1, "aiming 1 turn"), (2, "aiming 2 turns")])
def test_the_aiming_dm_counts_its_turns_in_words_that_agree(turns, label):
    aimed = plan("Rifle", "distant", aim_turns=turns, movement="stepping")
    assert f"{label} offsets range" in [dm.label for dm in aimed.dms]


def test_a_weapon_too_heavy_costs_1_a_point_of_str_dv_short():
    weak = fighter(attributes={"STR": 4})  # DV 2; the battleaxe needs 5
    assert dm_of(plan("Battleaxe", "close", attacker=weak), "STR DV") == -3
    assert dm_of(plan("Battleaxe", "close"), "STR DV") == -2  # DV 3
    assert dm_of(plan("Dagger", "contact"), "STR DV") is None


def test_battle_dress_wields_weapons_with_its_str():
    trooper = skilled("Battle Dress", 1, armor={"item": "Battle dress", "tl": 13, "quantity": 1})
    assert trooper.str_dv == 7  # STR 15
    assert dm_of(plan("Battleaxe", "close", attacker=trooper), "STR DV") is None


def test_a_weapon_made_for_battle_dress_is_fired_only_from_battle_dress():
    with pytest.raises(CombatRefused) as refused:
        plan("FGMP-14", "short", attacker=fighter(armor="Mesh"))
    assert refused.value.field == "weapon"
    assert refused.value.message == (
        "the FGMP-14 (TL 14) is fired only from battle dress, and the attacker wears Mesh (TL 7)"
    )
    with pytest.raises(CombatRefused, match="the attacker wears no armor"):
        plan("PGMP-13", "short")
    suited = skilled("Battle Dress", 1, armor={"item": "Battle dress", "tl": 14, "quantity": 1})
    assert plan("PGMP-13", "short", attacker=suited).weapon.name == "PGMP-13"


def test_the_referees_dm_is_listed():
    assert dm_of(plan(dm=-2), "referee") == -2


# -- melee distance ----------------------------------------------------------------------------


def test_a_melee_weapon_at_its_optimal_distance_takes_nothing_nearer_2_farther_out_of_reach():
    assert dm_of(plan("Sword", "close"), "nearer") is None  # M: close
    assert dm_of(plan("Sword", "contact"), "nearer") == -2
    assert dm_of(plan("Pike", "short"), "nearer") is None  # L: short
    assert dm_of(plan("Pike", "contact"), "nearer") == -2
    assert dm_of(plan("Dagger", "contact"), "nearer") is None  # S: contact
    with pytest.raises(CombatRefused, match="out of reach") as refused:
        plan("Sword", "short")
    assert refused.value.field == "range"


def test_a_bayonet_is_at_its_optimal_distance_at_contact_or_close():
    assert dm_of(plan("Bayonet", "contact"), "nearer") is None
    assert dm_of(plan("Bayonet", "close"), "nearer") is None


def test_hands_reach_contact_and_feet_close():
    assert dm_of(plan("Hands", "contact"), "nearer") is None
    assert dm_of(plan("Feet", "close"), "nearer") is None
    assert dm_of(plan("Feet", "contact"), "nearer") == -2
    with pytest.raises(CombatRefused):
        plan("Hands", "close")


def test_a_shot_beyond_the_weapons_maximum_range_is_refused():
    # Body pistol: MAX 25 m. Medium range begins past short's 3 m, long past medium's 45 m.
    assert plan("Body pistol", "medium").tn == 3
    with pytest.raises(CombatRefused, match="25 m") as refused:
        plan("Body pistol", "long")
    assert refused.value.field == "range"


@pytest.mark.parametrize(
    ("weapon", "band"),
    [
        ("Automatic pistol", "medium"),  # the range table's pistol range
        ("Body pistol", "medium"),
        ("Rifle", "medium"),
        ("Dagger", "contact"),  # S
        ("Sword", "close"),  # M
        ("Pike", "short"),  # L
        ("Bayonet", "close"),  # S/M: the farther
        ("Hands", "contact"),
        ("Feet", "close"),
    ],
)
def test_an_attack_is_first_offered_at_pistol_range_or_the_weapons_optimal_distance(weapon, band):
    assert usual_band(weapon_named(weapon), AVERAGE) == band


def test_no_weapon_is_first_offered_at_a_band_out_of_its_reach():
    cat = catalog()
    suited = fighter(armor={"item": "Battle dress", "tl": 14, "quantity": 1})
    for item in (*cat.natural_weapons, *(item for item in cat.equipment if item.is_weapon)):
        weapon = weapon_from_item(item)
        attacker = suited if weapon.requires_armor else AVERAGE
        plan_attack(attacker, weapon, AVERAGE, usual_band(weapon, attacker), Situation())


# -- autofire ----------------------------------------------------------------------------------


def test_autofire_adds_1_per_4_rounds_or_fraction():
    assert dm_of(plan("SMG", "short", autofire_rounds=4), "autofire") == 1
    assert dm_of(plan("Gauss rifle", "short", autofire_rounds=10), "autofire") == 3
    assert dm_of(plan("Gauss rifle", "short", autofire_rounds=5), "autofire") == 2


def test_autofire_at_several_targets_takes_1_a_target_and_1_a_square_between():
    attack = plan("Gauss rifle", "short", autofire_rounds=10, targets=3, squares_between_targets=2)
    assert dm_of(attack, "3 targets") == -3
    assert dm_of(attack, "2 square") == -2


def test_the_bursts_to_choose_are_whole_steps_of_4_rounds_up_to_the_most_and_that_most():
    assert autofire_bursts(weapon_named("Gauss rifle")) == (4, 8, 10)  # RoF 1:4:10
    assert autofire_bursts(weapon_named("SMG")) == (4,)  # RoF 1:4
    assert autofire_bursts(weapon_named("Accelerator rifle")) == (3,)  # RoF 1:3
    # Without autofire, no burst.
    assert autofire_bursts(weapon_named("Rifle")) == ()
    assert autofire_bursts(weapon_named("Sword")) == ()


@pytest.mark.parametrize("name", ["SMG", "Accelerator rifle", "Gauss rifle"])
def test_every_burst_offered_for_a_weapon_is_one_it_can_fire(name):
    for rounds in autofire_bursts(weapon_named(name)):
        assert dm_of(plan(name, "short", autofire_rounds=rounds), "autofire") >= 1


@pytest.mark.parametrize(
    ("weapon", "situation", "field"),
    [
        ("Rifle", {"autofire_rounds": 4}, "situation.autofire_rounds"),  # no AF
        ("SMG", {"autofire_rounds": 5}, "situation.autofire_rounds"),  # RoF 1:4
        ("SMG", {"autofire_rounds": 4, "targets": 2}, "situation.targets"),  # 1 per 4 rounds
        ("SMG", {"targets": 2}, "situation.targets"),  # a single shot has one target
    ],
)
def test_autofire_the_rules_do_not_allow_is_refused(weapon, situation, field):
    with pytest.raises(CombatRefused) as refused:
        plan(weapon, "short", **situation)
    assert refused.value.field == field


# -- situation values --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("situation", "field"),
    [
        ({"cover": "a wall"}, "situation.cover"),
        ({"lighting": "gloom"}, "situation.lighting"),
        ({"facing": "up"}, "situation.facing"),
        ({"movement": "flying"}, "situation.movement"),
        ({"aim_turns": -1}, "situation.aim_turns"),
        ({"targets": 0}, "situation.targets"),
        ({"ammunition": "HEAP"}, "situation.ammunition"),  # the rifle takes no HEAP
    ],
)
def test_a_situation_value_no_table_has_is_refused_by_name(situation, field):
    with pytest.raises(CombatRefused) as refused:
        plan(**situation)
    assert refused.value.field == field


def test_an_unknown_range_band_is_refused():
    with pytest.raises(CombatRefused) as refused:
        plan("Rifle", "far away")
    assert refused.value.field == "range"
    assert "medium" in refused.value.message


def test_an_attacker_who_cannot_act_is_refused():
    out = Condition(21, 6, stun=21)
    with pytest.raises(CombatRefused, match="unconscious") as refused:
        plan_attack(
            AVERAGE, weapon_named("Rifle"), AVERAGE, "short", Situation(), attacker_condition=out
        )
    assert refused.value.field == "attacker"


def test_a_wounded_attacker_throws_with_a_lower_dex_dm():
    quick = fighter(attributes={"DEX": 12})  # DM +2
    hurt, _ = take_damage(Condition(quick.LIF, quick.WND), amount=8, form="L")  # a light wound
    attack = plan_attack(
        quick, weapon_named("Rifle"), AVERAGE, "short", Situation(), attacker_condition=hurt
    )
    assert dm_of(attack, "DEX DM") == 1  # DEX 12 - 2 = 10: DM +1


@pytest.mark.parametrize(
    "changes", [{}, {"carrying": ["Combat armor"]}, {"attributes": {"DEX": 12, "AWA": 3}}]
)
def test_unhurt_a_fighters_figures_now_are_its_own(changes):
    someone = fighter(**changes)
    whole = Condition(someone.LIF, someone.WND)
    for condition in (None, whole):
        now = figures_now(someone, condition)
        assert (now.DEF, now.INI, now.dex_dm, now.str_dv) == (
            someone.DEF,
            someone.INI,
            someone.dex_dm,
            someone.str_dv,
        )


def test_a_light_wound_lowers_the_ini_a_fighter_throws_initiative_on():
    someone = fighter()
    hurt, _ = take_damage(Condition(someone.LIF, someone.WND), amount=someone.WND + 1, form="L")
    assert hurt.wounds[-1].severity == "light"
    assert figures_now(someone, hurt).INI < someone.INI


def test_an_animals_ini_is_not_recomputed_but_stunned_it_has_the_stunned_def():
    hunter = fighter_from_animal(animal("hunter", 100))
    stunned = Condition(hunter.LIF, hunter.WND, stun=1, stunned=True)
    now = figures_now(hunter, stunned)
    assert now.INI == hunter.INI
    assert now.DEF < hunter.DEF


# -- weapons of a character --------------------------------------------------------------------


def test_a_character_fights_with_what_it_carries_and_its_hands_and_feet():
    armed = fighter(carrying=["Sword", "Revolver", "Sword"])
    assert [w.name for w in armed.weapons] == ["Sword", "Revolver", "Hands", "Feet"]


def test_a_vargr_also_has_claws_and_teeth():
    vargr = fighter(species="vargr")
    assert {"Claws", "Teeth"} <= {w.name for w in vargr.weapons}


def test_the_skill_for_a_weapon_is_the_tables_cascade():
    swordsman = skilled("Blade Combat", 2, "swords")
    assert plan("Sword", "close", attacker=swordsman).dice_rule == "2DH"
    assert plan("Dagger", "contact", attacker=swordsman).dice_rule == "2DL"  # blade, not swords
    assert plan("Sword", "close", attacker=skilled("Blade Combat", 0, "swords")).dice_rule == (
        "2DL, a 1 thrown again"
    )


# -- dice and odds -----------------------------------------------------------------------------


def test_dice_needed_is_the_skill_level_or_two_and_four_for_a_level_0_rethrow():
    assert dice_needed(plan(attacker=skilled("Rifleman", 3))) == 3
    assert dice_needed(plan()) == 2
    assert dice_needed(plan(attacker=skilled("Rifleman", 0))) == 4


def test_dice_highest_reads_the_highest_and_each_extra_six_adds_one():
    attack = plan(attacker=skilled("Rifleman", 3))
    assert read_dice(attack, [2, 5, 3])[1] == 5
    assert read_dice(attack, [6, 6, 6])[1] == 8


def test_a_level_0_throw_rethrows_a_1_and_takes_the_second():
    attack = plan(attacker=skilled("Rifleman", 0))
    assert read_dice(attack, [4, 3]) == ((4, 3), 3)
    assert read_dice(attack, [4, 3, 1, 1]) == ((4, 3), 3)  # the second pair is not read
    assert read_dice(attack, [1, 5, 6, 2]) == ((1, 5, 6, 2), 2)
    with pytest.raises(CombatRefused, match="give 4 dice"):
        read_dice(attack, [1, 5])


@pytest.mark.parametrize("dice", [[], [7, 2], [0, 3], [2, 3, 4, 5, 6], [True, 2], [2.0, 3]])
def test_dice_that_cannot_be_read_are_refused(dice):
    with pytest.raises(CombatRefused) as refused:
        resolve_attack(plan(), dice)
    assert refused.value.field == "dice"


def test_a_hit_needs_the_tn_and_no_fumble():
    certain = plan(target_surprised=True, dm=5)  # TN 1
    assert resolve_attack(certain, [1, 4]).hit is False  # 2DL reads 1: a fumble
    assert resolve_attack(certain, [1, 4]).fumble is True
    assert resolve_attack(certain, [2, 4]).hit is True
    # 2DL reads 2; + ACC 2 - 3 range - 1 for the rifle's STRmin 4 (STR DV 3) = 0 < TN 3.
    missed = resolve_attack(plan(), [2, 6])
    assert (missed.total, missed.hit, missed.effect, missed.damage) == (0, False, None, None)


def test_the_odds_are_exact_by_enumeration():
    # 1DH + 0 against TN 4: faces 4, 5, 6.
    assert hit_chance("skill", 1, dm=0, tn=4) == Fraction(1, 2)
    # 2DL + 0 against TN 3: both dice 3 or more, (4/6)^2.
    assert hit_chance("unskilled", None, dm=0, tn=3) == Fraction(4, 9)
    # A TN the dice cannot miss still loses the fumbles: 1DH, 1 in 6.
    assert hit_chance("skill", 1, dm=10, tn=1) == Fraction(5, 6)
    # Level 0 re-throws a 1: 1 - P(1 twice) for a TN of 2 with no DM.
    first_one = 1 - Fraction(25, 36)
    assert hit_chance("level-0", 0, dm=0, tn=2) == 1 - first_one * first_one


def test_a_plans_chance_is_its_dice_against_its_tn_with_its_dms():
    # 2DH + ACC 2 - range 3 - STRmin 1 against TN 3: a 5 or more on the higher die.
    attack = plan(attacker=skilled("Rifleman", 2))
    assert attack.dm == -2
    assert attack.chance == 1 - Fraction(16, 36)


def test_an_unhurt_condition_changes_nothing():
    heavy = fighter(armor={"item": "Combat armor", "tl": 11, "quantity": 1})  # STRmin 4, DV 3
    weapon = weapon_named("Sword")
    fresh = Condition(heavy.LIF, heavy.WND)
    bare = plan_attack(heavy, weapon, heavy, "close", Situation())
    given = plan_attack(
        heavy,
        weapon,
        heavy,
        "close",
        Situation(),
        attacker_condition=fresh,
        target_condition=fresh,
    )
    assert (given.tn, given.dms, given.str_dv) == (bare.tn, bare.dms, bare.str_dv)


def test_armor_too_heavy_lowers_the_wearers_dex_dm_def_and_str_dv():
    heavy = fighter(armor={"item": "Combat armor", "tl": 11, "quantity": 1}, attributes={"DEX": 9})
    # One point short: DEX 9 and STR 7 each 2 levels lower (DEX DM +1 -> 0, STR DV 3 -> 2), DEF -1.
    assert (heavy.dex_dm, heavy.str_dv, heavy.DEF) == (0, 2, 3)


def test_an_integrated_scope_cancels_the_lighting_dm_when_aiming():
    assert dm_of(plan("Laser rifle", "long", tl=9, lighting="dark"), "lighting") == -4
    assert (
        dm_of(plan("Laser rifle", "long", tl=9, lighting="dark", aim_turns=1), "lighting") is None
    )
    assert dm_of(plan("Rifle", "long", lighting="dark", aim_turns=1), "lighting") == -4


def test_a_discarding_sabot_load_adds_1_to_the_rmod():
    # ACR: Rmod +4; at distant range (-6), stationary and aimed.
    assert dm_of(plan("ACR", "distant", aim_turns=1), "Rmod") == 4
    assert dm_of(plan("ACR", "distant", aim_turns=1, ammunition="DS"), "Rmod") == 5


def test_a_chance_in_percent_is_never_shown_as_certain_or_impossible_unless_it_is():
    assert chance_percent(Fraction(7775, 7776)) == 99.9
    assert chance_percent(Fraction(1, 7776)) == 0.1
    assert chance_percent(Fraction(1, 2)) == 50.0
    assert (chance_percent(Fraction(1)), chance_percent(Fraction(0))) == (100.0, 0.0)


def test_a_characters_fighter_carries_what_surprise_and_morale_need():
    pilot = fighter_from_document(
        parse_document(json.loads((EXAMPLES / "navy-pilot.json").read_text()))
    )
    # DEX B (DV 5, DM +2), AWA 9 (DV 4, DM +1), EXP 9 (DM +1); the trait Combat experience.
    assert (pilot.DEF, pilot.INI, pilot.dex_dm, pilot.awa_dm, pilot.exp_dm) == (5, 4, 2, 1, 1)
    assert pilot.combat_experience is True
    assert AVERAGE.combat_experience is False
    assert weapon_named("Automatic pistol").notes == {"SA"}
    assert weapon_named("Snub pistol").notes == {"RD", "TR", "GS", "EX", "HEAP", "ZG"}


def test_a_stunned_attacker_cannot_attack():
    dazed = Condition(21, 6, stun=2, stunned=True)
    with pytest.raises(CombatRefused, match="stunned"):
        plan_attack(
            AVERAGE, weapon_named("Rifle"), AVERAGE, "short", Situation(), attacker_condition=dazed
        )


def test_a_weapon_is_found_by_the_other_names_its_row_gives_it():
    assert weapon_named("Cudgel").name == weapon_named("Staff/cudgel").name == "Staff/cudgel"
