"""Animals by the conversion notes: type, weight and speed make a fighter that attacks and is
attacked like a character. The expectations are the notes' tables, typed once here."""

import pytest

from rules import (
    ANIMAL_TYPES,
    CombatRefused,
    Condition,
    Situation,
    animal,
    fighter_from_animal,
    plan_attack,
    resolve_attack,
    weapon_named,
)

from .combat_builders import AVERAGE, dm_of, fighter, plan

# Animal type: INI and DEF, DEX DM, AWE DM, skill throw (before the speed is added).
TYPES = [
    ("grazer", 1, -2, 1, "1DH"),  # the notes write 1D: one die, read the same
    ("intermittent", 1, -1, 2, "2DH"),
    ("filter", 1, -3, -3, "2DL"),
    ("gatherer", 1, 0, 2, "2DH"),
    ("hunter", 2, 1, 3, "3DH"),
    ("eater", 1, -1, 1, "1DH"),
    ("pouncer", 2, 3, 3, "4DH"),
    ("chaser", 2, 3, 3, "4DH"),
    ("trapper", 1, -1, 2, "2DH"),
    ("siren", 1, -1, 2, "2DH"),
    ("killer", 4, 2, 4, "5DH"),
    ("intimidator", 2, 1, 3, "3DH"),
    ("hijacker", 2, 1, 3, "3DH"),
    ("carrion-eater", 1, 0, 2, "2DH"),
    ("reducer", 1, -4, -3, "2DL"),
]
# Weight (the heaviest of each row, then the lightest of the next): size DM, STR DV, reach.
SIZES = [
    (1, -3, 1, "contact"),
    (6, -3, 1, "contact"),
    (7, -2, 2, "contact"),
    (12, -2, 2, "contact"),
    (13, -1, 3, "close"),
    (25, -1, 3, "close"),
    (26, 0, 4, "close"),
    (199, 0, 4, "close"),
    (200, 1, 5, "close"),
    (399, 1, 5, "close"),
    (400, 1, 6, "short"),
    (799, 1, 6, "short"),
    (800, 2, 7, "short"),
    (1199, 2, 7, "short"),
    (1200, 2, 8, "short"),
    (2399, 2, 8, "short"),
    (2400, 2, 9, "medium"),
    (3199, 2, 9, "medium"),
    (3200, 3, 10, "medium"),
    (6000, 3, 10, "medium"),
    (6001, 4, 11, "medium"),
    (50000, 4, 11, "medium"),
]


def test_the_types_are_the_conversion_notes_rows():
    assert tuple(row[0] for row in TYPES) == ANIMAL_TYPES


@pytest.mark.parametrize(("kind", "ini_def", "dex_dm", "awa_dm", "dice"), TYPES)
def test_each_type_gives_ini_def_dex_awa_and_its_attack_dice(kind, ini_def, dex_dm, awa_dm, dice):
    beast = fighter_from_animal(animal(kind, 100, speed=0))
    assert (beast.INI, beast.DEF, beast.dex_dm, beast.awa_dm) == (ini_def, ini_def, dex_dm, awa_dm)
    assert plan("Teeth", "close", attacker=beast).dice_rule == dice


def test_the_speed_adds_to_ini_and_the_dex_dm_and_gives_mov_6_a_point():
    beast = fighter_from_animal(animal("pouncer", 100, speed=3))
    assert (beast.INI, beast.DEF, beast.dex_dm, beast.MOV) == (5, 2, 6, 18)


@pytest.mark.parametrize(("kg", "size_dm", "str_dv", "reach"), SIZES)
def test_the_weight_gives_the_size_dm_str_dv_and_reach(kg, size_dm, str_dv, reach):
    beast = fighter_from_animal(animal("hunter", kg))
    assert (beast.size_dm, beast.str_dv, beast.reach) == (size_dm, str_dv, reach)


def test_an_animal_is_hit_with_its_size_dm_unless_the_referee_names_a_size():
    bull = fighter_from_animal(animal("grazer", 1000))
    assert dm_of(plan(target=bull), "target's size") == 2
    assert dm_of(plan(target=bull, target_size="huge"), "target size") == 3
    assert dm_of(plan(target=bull, target_size="huge"), "target's size") is None


def test_an_animals_natural_weapons_reach_as_far_as_its_weight_says():
    elephant = fighter_from_animal(animal("grazer", 5000, weapons=["Horns"]))
    assert dm_of(plan("Horns", "medium", attacker=elephant), "nearer") is None
    assert dm_of(plan("Horns", "close", attacker=elephant), "nearer") == -2
    rat = fighter_from_animal(animal("eater", 2))
    with pytest.raises(CombatRefused, match="out of reach"):
        plan("Teeth", "close", attacker=rat)


def test_an_animal_bites_with_its_str_dv_added_and_is_hurt_like_a_character():
    wolf = fighter_from_animal(animal("hunter", 40, speed=1, weapons=["Teeth"]))
    # 3DH; DEX DM +2; against DEF 3. [5, 2, 1] reads 5: EN 4; (Teeth +2 + STR DV 4) x 4 = 24.
    bite = resolve_attack(plan("Teeth", "close", attacker=wolf, target=AVERAGE), [5, 2, 1])
    assert (bite.effect, bite.damage.raw, bite.damage.lif, bite.wound) == (4, 24, 24, "critical")
    # And a character shoots it: its DEF 2, its LIF 7 x STR DV 4 = 28, WND 8.
    shot = resolve_attack(plan("Rifle", "short", target=wolf, attacker=fighter()), [6, 6])
    assert shot.plan.tn == 2
    assert shot.condition_after.maximum == 28
    assert shot.damage.lif == 8 * 3  # 6 + 2 ACC - 2 short - 1 STRmin = 5, EN 3


def test_an_animals_armor_is_the_named_armors_av_with_3_a_point_of_modifier():
    armadillo = animal("grazer", 20, armor="Jack", armor_modifier=1)
    assert armadillo.armor.av == 3 + 3
    assert armadillo.armor.half_against == "blunt"
    assert animal("grazer", 20, av=9).armor.av == 9


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"type": "dragon", "weight_kg": 100}, "type"),
        ({"type": "hunter", "weight_kg": 0}, "weight_kg"),
        ({"type": "hunter", "weight_kg": 10, "weapons": ["Laser"]}, "weapons"),
        ({"type": "hunter", "weight_kg": 10, "armor": "Combat armor"}, "armor"),
        ({"type": "hunter", "weight_kg": 10, "speed": -1}, "speed"),
    ],
)
def test_an_animal_the_tables_cannot_read_is_refused_by_field(kwargs, field):
    with pytest.raises(CombatRefused) as refused:
        animal(kwargs.pop("type"), kwargs.pop("weight_kg"), **kwargs)
    assert refused.value.field == field


def test_plural_type_names_are_read():
    assert animal("Hunters", 50).type == "hunter"
    assert fighter().kind == "character"


def test_a_stunned_animal_has_def_1_and_its_wounds_leave_its_dex_dm():
    killer = fighter_from_animal(animal("killer", 100))  # DEF 4, DEX DM +3
    dazed = Condition(killer.LIF, killer.WND, stun=10, stunned=True)
    shot = plan_attack(
        AVERAGE, weapon_named("Rifle"), killer, "short", Situation(), target_condition=dazed
    )
    assert shot.tn == 1
    hurt = Condition(killer.LIF, killer.WND, lethal=10)
    bite = plan_attack(
        killer, weapon_named("Teeth"), AVERAGE, "close", Situation(), attacker_condition=hurt
    )
    assert dm_of(bite, "DEX DM") == 3
