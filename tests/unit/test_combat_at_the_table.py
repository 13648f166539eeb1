"""What a careful table met in its first fights (issue 36), each worked by hand from the chapter:
specialties, the armor worn, reflec under armor, every weapon by its name, Vargr claws, a thrown
spear's range, aimed autofire, each side's one leader, surprise until it is lost, the encounter
range DMs the sheets settle, and damage arithmetic a referee can check."""

from dataclasses import replace

import pytest

from rules import (
    CombatRefused,
    Condition,
    catalog,
    check,
    parse_document,
    resolve_attack,
    weapon_named,
)
from rules.combat import (
    Modifier,
    animal,
    attack_result_as_dict,
    encounter_range_dms,
    fighter_from_animal,
    has_combat_experience,
    leader_killed,
    leader_present,
    morale_dms,
    morale_thrower,
    side_leader,
    side_morale,
    takes_turn,
    usual_band,
)
from rules.wording import MINUS, TIMES

from .builders import codes, document
from .combat_builders import AVERAGE, dm_of, fighter, plan, skilled

CAT = catalog()
UNHURT = Condition(21, 6)
KNOCKED_OUT = Condition(21, 6, stun=21)
KILLED = Condition(21, 6, lethal=42)


def worn(name, tl=None):
    entry = {"item": name, "quantity": 1, "worn": True}
    if tl is not None:
        entry["tl"] = tl
    return entry


# -- 1. specialties ------------------------------------------------------------------------------


def specialist(skill, level, specialty, **changes):
    return fighter(skills=[{"skill": skill, "level": level, "specialties": [specialty]}], **changes)


def test_a_specialty_that_names_the_weapon_adds_1_to_its_attacks():
    rifleman = specialist("Rifleman", 3, "assault rifle")
    assert dm_of(plan("Assault rifle", attacker=rifleman), "specialty") == 1
    assert dm_of(plan("Rifle", attacker=rifleman), "specialty") is None
    assert dm_of(plan("Assault rifle", attacker=skilled("Rifleman", 3)), "specialty") is None


def test_a_specialty_names_a_family_of_weapons():
    snub = specialist("Handgun", 2, "snub pistol")
    assert dm_of(plan("Military snub pistol", "short", attacker=snub), "specialty") == 1
    assert dm_of(plan("Snub pistol", "short", attacker=snub), "specialty") == 1
    auto = specialist("Handgun", 2, "auto pistol")
    assert dm_of(plan("Automatic pistol", "short", attacker=auto), "specialty") == 1


def test_every_weapon_s_specialty_is_one_its_skill_lists():
    for item in CAT.equipment:
        specialty = item.row.get("specialty")
        if specialty is None:
            continue
        skill = CAT.find_skill(item.row["skill"])
        assert skill is not None, item.label
        assert skill.find_specialty(specialty) == specialty, item.label


def test_the_specialist_s_hit_in_the_walkthrough_is_fatal_not_serious():
    # Rifleman-3 (assault rifle), DEX 9 (+1), STR 9, stationary at short range, at a raider of
    # DEF 3 and WND 6 in no armor: +1 DEX -2 short +2 ACC +1 specialty = +2. 3DH [5, 2, 1]
    # reads 5: total 7, EN 4, 4 x 8 = 32 lethal. Without the specialty: EN 3, 24.
    rifleman = specialist("Rifleman", 3, "assault rifle", attributes={"DEX": 9, "STR": 9})
    attack = plan("Assault rifle", "short", attacker=rifleman)
    result = resolve_attack(attack, [5, 2, 1])
    assert (attack.dm, result.total, result.effect) == (2, 7, 4)
    assert (result.damage.raw, result.wound) == (32, "fatal")


# -- 2 and 3. the armor worn, reflec under armor --------------------------------------------------


def test_a_helmet_is_never_body_armor():
    helmeted = fighter(carrying=["Helmet", "Cloth (ballistic cloth)"])
    assert helmeted.armor.name == "Cloth (ballistic cloth) (TL 7)"
    report = check(parse_document(document(equipment=[worn("Helmet")])))
    assert (report.equipment.armor_worn, report.equipment.helmet_worn) == (None, "Helmet (TL 5)")
    assert plan("Rifle", target=fighter(carrying=[worn("Helmet")])).target.armor is None


def test_the_armor_marked_worn_is_worn_not_the_best_carried():
    wearer = fighter(carrying=[worn("Cloth (ballistic cloth)"), {"item": "Combat armor", "tl": 11}])
    assert wearer.armor.av == 15
    report = check(
        parse_document(
            document(equipment=[worn("Jack"), {"item": "Combat armor", "tl": 11, "quantity": 1}])
        )
    )
    assert (report.equipment.armor_worn, report.equipment.armor_av) == ("Jack (TL 1)", 3)
    # Combat armor carried, not worn: its STRmin does not weigh on an average STR.
    assert report.equipment.armor_str_short == 0


def test_reflec_worn_under_combat_armor_meets_each_attack_with_the_better_av():
    both = fighter(carrying=[worn("Combat armor", 11), worn("Reflec")])
    assert (both.armor.av, both.armor_under.av) == (33, 30)
    laser = resolve_attack(plan("Laser rifle", "short", tl=9, target=both), [6, 6])
    assert laser.damage.armor == 30  # reflec's full AV, not combat armor's halved 16
    assert laser.damage.as_dict()["armor_worn"] == "Reflec (TL 10)"
    rifle = resolve_attack(plan("Rifle", "short", target=both), [6, 6])
    assert rifle.damage.armor == 33  # combat armor whole; reflec halved would be 15
    gauss = resolve_attack(plan("Gauss rifle", "short", target=both), [6, 6])
    assert gauss.damage.armor == 16  # AP: 33 halved; reflec halved, then halved again, is 7


def test_with_nothing_marked_reflec_and_combat_armor_carried_only_the_best_is_worn():
    carried = fighter(carrying=[{"item": "Combat armor", "tl": 11}, "Reflec"])
    assert carried.armor_under is None
    laser = resolve_attack(plan("Laser rifle", "short", tl=9, target=carried), [6, 6])
    assert laser.damage.armor == 16


@pytest.mark.parametrize(
    ("equipment", "code", "path"),
    [
        ([worn("Rifle")], "worn_not_armor", "equipment[0].worn"),
        ([worn("Jack"), worn("Mesh")], "armor_worn_twice", "equipment[1].worn"),
        ([worn("Reflec"), worn("Reflec")], "armor_worn_twice", "equipment[1].worn"),
        (
            [worn("Helmet"), {**worn("Helmet"), "quantity": 2}],
            "armor_worn_twice",
            "equipment[1].worn",
        ),
    ],
)
def test_armor_that_cannot_be_worn_so_is_an_error_naming_the_entry(equipment, code, path):
    report = check(parse_document(document(equipment=equipment)))
    worn_codes = {"worn_not_armor", "armor_worn_twice"}
    assert [(p.code, p.path) for p in report.problems if p.code in worn_codes] == [(code, path)]


def test_reflec_under_armor_and_a_helmet_are_no_error():
    equipment = [
        worn("Combat armor", 11),
        worn("Reflec"),
        worn("Helmet"),
        worn("Chameleon surface"),
    ]
    report = check(parse_document(document(equipment=equipment, attributes={"STR": 9})))
    assert "armor_worn_twice" not in codes(report)
    assert (report.equipment.armor_worn, report.equipment.armor_under) == (
        "Combat armor (TL 11)",
        "Reflec (TL 10)",
    )


def test_worn_is_true_or_false_and_is_written_back_only_when_true():
    from rules import MalformedDocument, normalise_document

    with pytest.raises(MalformedDocument) as refused:
        parse_document(document(equipment=[{"item": "Jack", "worn": "yes"}]))
    assert refused.value.path == "equipment[0].worn"
    doc = document(equipment=[{"item": "Jack", "worn": True}, {"item": "Mesh", "worn": False}])
    assert normalise_document(doc)["equipment"] == [
        {"item": "Jack", "quantity": 1, "worn": True},
        {"item": "Mesh", "quantity": 1},
    ]


# -- 4. every weapon by its own name ---------------------------------------------------------------


def test_spear_and_spear_thrown_are_two_weapons():
    assert weapon_named("Spear").melee is True
    assert weapon_named("Spear (thrown)").melee is False
    assert weapon_named("spear  (THROWN)").name == "Spear (thrown)"


def test_every_catalog_weapon_is_reachable_by_its_own_name():
    for item in (*CAT.natural_weapons, *(i for i in CAT.equipment if i.is_weapon)):
        found = weapon_named(
            item.name, item.tl if len(CAT.equipment_named(item.name)) > 1 else None
        )
        assert (found.name, found.tl) == (item.name, item.tl)


# -- 5. Vargr claws ------------------------------------------------------------------------------


def test_vargr_claws_reach_one_square_and_teeth_contact():
    vargr = fighter(species="vargr")
    assert dm_of(plan("Claws", "close", attacker=vargr), "nearer") is None
    assert dm_of(plan("Claws", "contact", attacker=vargr), "nearer") == -2
    assert dm_of(plan("Teeth", "contact", attacker=vargr), "nearer") is None
    with pytest.raises(CombatRefused) as refused:
        plan("Teeth", "close", attacker=vargr)
    assert refused.value.field == "range"
    claws = next(w for w in vargr.weapons if w.name == "Claws")
    assert usual_band(claws, vargr) == "close"


# -- 6. a thrown spear's range -------------------------------------------------------------------


def test_a_thrown_spear_reaches_str_times_5_metres():
    thrower = fighter(attributes={"STR": 8})  # 40 m
    assert plan("Spear (thrown)", "medium", attacker=thrower).tn == 3
    with pytest.raises(CombatRefused) as refused:
        plan("Spear (thrown)", "long", attacker=thrower)
    assert refused.value.field == "range"
    assert "reaches 40 m (STR 8 x 5)" in refused.value.message
    with pytest.raises(CombatRefused):
        plan("Spear (thrown)", "very distant", attacker=thrower)


def test_an_animal_throws_no_spear():
    wolf = fighter_from_animal(animal("hunter", 40))
    with pytest.raises(CombatRefused) as refused:
        plan("Spear (thrown)", "short", attacker=wolf)
    assert refused.value.field == "weapon"


# -- 9. aimed autofire -----------------------------------------------------------------------------


def test_aimed_autofire_is_fired_without_the_aiming_bonus():
    gunner = skilled("Rifleman", 3, attributes={"STR": 9})
    aimed = plan("Gauss rifle", "long", attacker=gunner, aim_turns=2, autofire_rounds=8)
    unaimed = plan("Gauss rifle", "long", attacker=gunner, autofire_rounds=8)
    assert dm_of(aimed, "aiming") is None
    assert dm_of(aimed, "autofire") == 2
    # The Rmod (stationary and aimed) still offsets the range: -4 +4.
    assert dm_of(aimed, "Rmod") == 4
    assert dm_of(unaimed, "Rmod") is None
    assert aimed.remarks == ("Aiming adds no bonus to autofire (reading 13).",)


# -- 7. one leader per side ------------------------------------------------------------------------


def test_a_side_s_leader_is_its_best_leadership_then_exp():
    captain = ("Cap", replace(skilled("Leadership", 1), exp_dm=0), UNHURT)
    veteran = ("Vet", replace(AVERAGE, exp_dm=2), UNHURT)
    sergeant = ("Sgt", replace(skilled("Leadership", 1), exp_dm=1), UNHURT)
    assert side_leader([veteran, captain]) == "Cap"
    assert side_leader([veteran, captain, sergeant]) == "Sgt"
    assert side_leader([veteran, ("Bo", AVERAGE, UNHURT)]) == "Vet"
    assert side_leader([]) is None


def test_leader_present_tactics_and_killed_all_refer_to_the_one_leader():
    captain = ("Cap", skilled("Leadership", 1), UNHURT)
    tactician = ("Tac", replace(skilled("Tactics", 2, "ground"), exp_dm=3), UNHURT)
    side = [captain, tactician]
    assert leader_present(side, "Cap") is True
    # The tactician is no leader: its Tactics do not count while the captain leads.
    test = side_morale([3, 3], side, leader="Cap")
    assert [m.label for m in test.result.dms] == ["EXP DM", "a leader is present"]
    # The captain falls: no leader present, -2, and the EXP thrown is the best standing.
    fallen = [(*captain[:2], KNOCKED_OUT), tactician]
    assert (leader_present(fallen, "Cap"), leader_killed(fallen, "Cap")) == (False, True)
    assert morale_thrower(fallen, "Cap") == "Tac"
    test = side_morale([3, 3], fallen, leader="Cap")
    assert [(m.label, m.dm) for m in test.result.dms] == [
        ("EXP DM", 3),
        ("the leader is killed", -2),
    ]
    # The referee names the tactician the new leader: its tactics count, and no -2.
    retaken = side_morale([3, 3], fallen, leader="Tac")
    assert [m.label for m in retaken.result.dms] == [
        "EXP DM",
        "the leader has a tactical skill",
    ]


def test_combat_experience_counts_when_the_trait_says_so_or_the_referee_does():
    assert has_combat_experience(["Combat experience"]) is True
    assert has_combat_experience(["Veteran: combat-experienced (Fifth Frontier War)"]) is True
    assert has_combat_experience(["Keen senses"]) is False
    veteran = (
        "Vet",
        fighter(
            traits=[
                {
                    "type": "PP",
                    "name": "Frontier War combat experience",
                    "level": "E",
                    "frequency": "O",
                }
            ]
        ),
        UNHURT,
    )
    assert veteran[1].combat_experience is True
    assert side_morale([3, 3], [veteran]).combat_experience is True
    plain = [("Bo", AVERAGE, UNHURT)]
    assert side_morale([3, 3], plain).combat_experience is False
    assert side_morale([3, 3], plain, combat_experience=True).combat_experience is True


def test_the_referee_adds_a_dm_to_a_morale_test():
    dms = morale_dms(side_size=5, out_of_action=1, referee_dm=-1)
    assert dms == (Modifier("referee's DM", -1),)


# -- 8. surprise lasts until it is lost; the encounter range DMs ----------------------------------


def test_a_surprised_side_loses_its_turns_until_the_referee_ends_surprise():
    assert takes_turn(UNHURT, side_surprised=True) is False
    assert takes_turn(UNHURT, side_surprised=False) is True
    assert takes_turn(KNOCKED_OUT, side_surprised=False) is False


def test_the_encounter_range_dms_the_sheets_settle():
    marines = [
        (
            str(n),
            fighter(
                carrying=[worn("Combat armor", 11), "Chameleon surface"], attributes={"STR": 9}
            ),
            UNHURT,
        )
        for n in range(4)
    ]
    assert [(m.label, m.dm) for m in encounter_range_dms(marines, combat_experience=True)] == [
        ("wearing combat armor", 2),
        ("chameleon surface", 2),
        ("combat experience (trait)", 2),
        ("4 or more members in the side", -1),
    ]
    # One of them in shirtsleeves: the side does not wear combat armor, nor chameleon.
    mixed = [*marines[:3], ("x", AVERAGE, UNHURT)]
    assert [m.label for m in encounter_range_dms(mixed)] == ["4 or more members in the side"]
    # The one knocked out no longer counts.
    assert [m.dm for m in encounter_range_dms([*marines[:2], ("x", AVERAGE, KNOCKED_OUT)])] == [
        2,
        2,
    ]
    pack = [(str(n), fighter_from_animal(animal("hunter", 40)), UNHURT) for n in range(8)]
    assert [m.label for m in encounter_range_dms(pack)] == ["8 or more animals"]


# -- 11. damage a referee can check ----------------------------------------------------------------


def test_the_result_shows_the_damage_arithmetic_and_how_the_dice_were_read():
    brawler = skilled("Blade Combat", 3, "swords", attributes={"STR": 10})  # STR DV 5
    target = fighter(carrying=[worn("Mesh")])
    attack = plan("Sword", "close", attacker=brawler, target=target)
    result = attack_result_as_dict(resolve_attack(attack, [6, 6, 2]))
    # 3DH two sixes: 6 + 1 = 7; DM 0 vs TN 3: EN 4; 4 x (2 + 5) = 28 - mesh 12 = 16.
    assert result["reading"] == "highest die 6, +1 for 1 more six: 7"
    assert result["damage"]["worked"] == (
        f"EN 4: {TIMES}4 {TIMES} (DMG +2 + STR DV 5) = 28 {MINUS} AV 12 (Mesh (TL 7)) = 16 to LIF"
    )
    club = plan("Staff/cudgel", "close", attacker=brawler, target=target)
    blunt = attack_result_as_dict(resolve_attack(club, [3, 4]))
    # EN 0 (3 + 4 read 3, DM 0, at TN 3): EN x DMG makes no damage, so no armor is taken off.
    assert blunt["damage"]["worked"] == "EN 0 (exactly the TN): a hit that does no damage"


def test_a_level_0_re_throw_and_a_single_die_are_read_in_words():
    novice = skilled("Rifleman", 0)
    result = attack_result_as_dict(
        resolve_attack(plan("Rifle", "short", attacker=novice), [1, 4, 3, 5])
    )
    assert result["reading"] == "lowest of 1, 4 is a 1, thrown again: lowest die 3"
