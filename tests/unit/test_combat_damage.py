"""The damage of a hit: EN x DMG (capped), STR DV for melee, armor after the weapon's notes and
the armor's own, TGH against blunt damage, stun and lethal, and the wound it makes."""

from dataclasses import replace

import pytest

from rules import CombatRefused, Condition, resolve_attack
from rules.combat import Armor, animal, attack_damage, fighter_from_animal
from rules.injury import Period

from .combat_builders import fighter, plan

MESH = fighter(armor="Mesh")  # AV 12, half against blunt


def damage(weapon, effect, *, target=None, band=None, attacker=None, **situation):
    bands = {True: "close", False: "short"}
    attack = plan(
        weapon,
        band or bands[weapon in ("Sword", "Feet", "Battleaxe")],
        target=target,
        attacker=attacker,
        **situation,
    )
    return attack_damage(attack, effect)


def test_a_ranged_hit_does_en_times_dmg():
    assert damage("Rifle", 3).raw == 24  # DMG 8


def test_the_multiplier_stops_at_6():
    assert damage("Rifle", 9).raw == 48
    assert damage("Rifle", 9).multiplier == 6


def test_a_melee_hit_adds_the_str_dv_to_dmg():
    assert damage("Sword", 2).per_point == 5  # +2 and STR DV 3
    assert damage("Sword", 2).raw == 10
    strong = fighter(attributes={"STR": 12})  # DV 6
    assert damage("Sword", 2, attacker=strong).raw == 16


def test_an_en_of_0_hits_for_no_damage():
    attack = plan("Rifle", "short", attacker=fighter(attributes={"DEX": 9}))  # DM +1
    # 2DL reads 2; +1 DEX +2 ACC -2 short -1 STRmin = 2... TN 3 needs a 3.
    result = resolve_attack(attack, [3, 5])
    assert (result.hit, result.effect) == (True, 0)
    assert result.damage.raw == 0
    assert result.damage.worked == "EN 0 (exactly the TN): a hit that does no damage"
    assert result.condition_after == result.condition_before
    assert [e.code for e in result.events] == ["no_damage"]


def test_armor_takes_its_av_off_penetrating_damage():
    hit = damage("Rifle", 3, target=MESH)
    assert (hit.raw, hit.armor, hit.tgh, hit.lif) == (24, 12, 0, 12)


def test_blunt_damage_loses_armor_and_tgh():
    # Hands: DMG +0 + STR DV 3 = 3 a point; EN 4: 12. Clothing-free target: TGH 3 only.
    hit = damage("Hands", 4, band="contact")
    assert (hit.raw, hit.armor, hit.tgh, hit.lif, hit.type) == (12, 0, 3, 9, "B/S")


def test_half_av_against_blunt_where_the_armor_says_so():
    jacked = fighter(armor="Jack")  # AV 3, half against blunt: 1
    hit = damage("Hands", 4, band="contact", target=jacked)
    assert (hit.armor, hit.lif) == (1, 8)
    assert damage("Rifle", 1, target=jacked).armor == 3


@pytest.mark.parametrize(
    ("weapon", "tl", "armor", "av"),
    [
        ("Gauss pistol", None, "Mesh", 6),  # AP halves
        ("Laser pistol", 9, "Mesh", 6),  # LZ halves
        ("Laser pistol", 13, {"item": "Combat armor", "tl": 11, "quantity": 1}, 8),  # XR: 33 / 4
        ("Rifle", None, "Reflec", 15),  # reflec: half against all but lasers
        ("Laser pistol", 9, "Reflec", 30),  # full AV against LZ, and LZ does not halve it
        ("Laser pistol", 13, "Ablat", 27),  # full AV against XR
        ("Rifle", None, "Cloth (ballistic cloth)", 15),  # half only against blunt
    ],
)
def test_the_weapons_notes_and_the_armors_notes_set_the_av_that_applies(weapon, tl, armor, av):
    target = fighter(armor=armor, attributes={"STR": 9})
    attack = plan(weapon, "short", tl=tl, target=target)
    assert attack_damage(attack, 1).armor == av


def test_heap_ammunition_halves_the_av_only_when_loaded():
    assert damage("Snub pistol", 2, target=MESH).armor == 12
    assert damage("Snub pistol", 2, target=MESH, ammunition="HEAP").armor == 6


def test_a_shotgun_quadruples_the_damage_that_gets_past_armor():
    clothed = fighter(armor="Clothing")  # AV 1
    hit = damage("Shotgun", 2, target=clothed)  # 12 - 1 = 11, x4
    assert (hit.raw, hit.armor, hit.lif) == (12, 1, 44)
    assert damage("Shotgun", 1, target=MESH).lif == 0  # 6 against AV 12: nothing to quadruple


def test_tranquilizer_ammunition_does_special_damage_that_takes_no_lif():
    attack = plan("Snub pistol", "short", ammunition="TR", target_surprised=True)
    result = resolve_attack(attack, [6, 6])
    assert result.damage.type == "Sp/Sp"
    assert result.damage.lif == 0
    assert result.condition_after == result.condition_before


def test_explosive_ammunition_is_refused_as_the_explosion_rules_are_not_resolved():
    with pytest.raises(CombatRefused, match="explosion"):
        plan("Snub pistol", "short", ammunition="EX")


def test_punches_in_combat_armor_are_lethal():
    armored = fighter(armor={"item": "Combat armor", "tl": 11, "quantity": 1})
    assert damage("Hands", 1, band="contact", attacker=armored).type == "B/L"
    assert damage("Hands", 1, band="contact").type == "B/S"


def test_stunning_damage_never_wounds_a_conscious_target():
    attack = plan("Hands", "contact", target_surprised=True, dm=3)
    result = resolve_attack(attack, [6, 6])  # 2DL reads 6; +3 vs TN 1: EN 8, x6
    assert result.damage.lif == 18 - 3
    assert result.wound is None
    assert result.condition_after.stun == 15
    assert result.condition_after.wounds == ()
    assert "stunned" in [e.code for e in result.events]


@pytest.mark.parametrize(
    ("lethal", "severity"),
    [
        (6, "superficial"),
        (7, "light"),
        (12, "light"),
        (13, "serious"),
        (24, "critical"),
        (25, "fatal"),
    ],
)
def test_lethal_damage_makes_the_wound_its_size_against_wnd(lethal, severity):
    # A rifle (DMG 8) at EN 6 does 48; armor of AV 48 - lethal leaves the rest.
    target = replace(fighter(), armor=Armor("test plate", 48 - lethal))
    attack = plan("Rifle", "short", target=target, target_surprised=True, dm=10)
    result = resolve_attack(attack, [6, 6])
    assert result.damage.lif == lethal
    assert result.wound == severity
    assert result.condition_after.wounds[-1].severity == severity


def test_the_targets_condition_carries_on_from_the_one_given():
    # 2DL reads 2; +1 referee, +2 ACC, -2 short, -1 STRmin: 2 against TN 1, EN 1: 8 lethal.
    attack = plan("Rifle", "short", target_surprised=True, dm=1)
    hurt = Condition(21, 6, stun=5)
    result = resolve_attack(attack, [2, 2], target_condition=hurt)
    assert result.condition_before == hurt
    assert (result.condition_after.stun, result.condition_after.lethal) == (5, 8)
    assert result.wound == "light"


def test_an_animals_listed_damage_replaces_dmg_and_str_dv():
    wolf = fighter_from_animal(animal("hunter", 40, weapons=["Teeth"], damage=5))
    assert attack_damage(plan("Teeth", "close", attacker=wolf), 3).raw == 15
    plain = fighter_from_animal(animal("hunter", 40, weapons=["Teeth"]))
    assert attack_damage(plan("Teeth", "close", attacker=plain), 3).raw == 3 * (2 + 4)


def test_an_effect_of_6_or_more_is_exceptional():
    # TN 1; 2DL with +2 referee, +2 ACC, -2 short, -1 STRmin: the die + 1.
    attack = plan("Rifle", "short", target_surprised=True, dm=2)
    assert resolve_attack(attack, [4, 4]).effect == 4
    assert resolve_attack(attack, [4, 4]).exceptional is False
    assert resolve_attack(attack, [6, 6]).exceptional is True


def test_stunning_damage_on_a_target_at_0_lif_is_lethal_and_wounds():
    # Hands: (0 + STR DV 3) x EN; a surprised target (TN 1), 2DL reads 4 + 3 = 7: EN 6, 18 - TGH 3.
    attack = plan("Hands", "contact", target_surprised=True, dm=3)
    out = Condition(21, 6, stun=21)
    result = resolve_attack(attack, [4, 4], target_condition=out)
    assert result.damage.lif == 15
    assert result.wound == "serious"
    assert result.condition_after.lethal == 15
    assert "stun_as_lethal" in [e.code for e in result.events]


def test_a_light_wound_bleeds_for_the_days_thrown_for_it():
    # Rifle at short, surprised target: 2DL reads 2, +1 referee +2 ACC -2 -1 STRmin: EN 1, 8.
    attack = plan("Rifle", "short", target_surprised=True, dm=1)
    result = resolve_attack(attack, [2, 2], bleed_lasts=Period(3, "day"))
    assert result.wound == "light"
    assert result.condition_after.wounds[0].bleed_periods == 3
    assert resolve_attack(attack, [2, 2]).condition_after.wounds[0].bleed_periods is None


def test_a_sling_stone_meets_half_the_av_of_a_jack_of_reflec_and_of_mesh():
    assert damage("Sling", 1, target=fighter(armor="Jack")).armor == 1  # blunt: 3 // 2
    assert damage("Sling", 1, target=fighter(armor="Reflec")).armor == 15  # not a laser
    assert damage("Sling", 1, target=MESH).armor == 6  # blunt
