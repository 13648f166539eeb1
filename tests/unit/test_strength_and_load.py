"""STR minimums of armor and weapons, battle dress, ammunition, and carrying on other worlds."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import (
    Condition,
    carrying,
    catalog,
    effective,
    encumbrance_penalty,
    over_capacity,
    parse_document,
    world_gravity,
    worn_armor,
)

from .builders import codes, document, problem, report

CAT = catalog()
UNHURT = Condition(maximum=21, wnd=6)


def item(name, tl=None, quantity=1):
    entry = {"item": name, "quantity": quantity}
    if tl is not None:
        entry["tl"] = tl
    return entry


# -- armor ----------------------------------------------------------------------------------------


def test_armor_whose_str_min_is_above_the_wearers_str_dv_lowers_def_ini_and_mov_by_one_a_point():
    # STR 5 is DV 2; combat armor needs DV 4: two points short.
    worn = report(attributes={"STR": 5}, equipment=[item("Combat armor", 11)])
    equipment = worn.equipment
    assert (equipment.armor_worn, equipment.armor_str_short) == ("Combat armor (TL 11)", 2)
    assert equipment.armor_body_penalty == 4  # two levels off STR, DEX and END a point
    before, after = worn.derived, equipment.encumbered_derived
    assert (after.DEF, after.INI, after.MOV) == (before.DEF - 2, before.INI - 2, before.MOV - 2)
    assert (after.TGH, after.LIF, after.WND) == (before.TGH, before.LIF, before.WND)


def test_the_armor_warning_carries_the_numbers():
    worn = report(attributes={"STR": 5}, equipment=[item("Combat armor", 11)])
    warning = problem(worn, "armor_str_min")
    assert warning.severity == "warning"
    assert warning.path == "equipment[0]"
    assert "STR DV 4" in warning.message
    assert "DV 2, 2 short" in warning.message
    assert "4 levels lower" in warning.message
    assert "DEF, INI and MOV 2 lower" in warning.message


def test_armor_the_wearer_is_strong_enough_for_costs_nothing():
    worn = report(equipment=[item("Combat armor", 11)])  # STR 7 is DV 3; needs 4
    assert worn.equipment.armor_str_short == 1
    strong = report(attributes={"STR": 8}, equipment=[item("Combat armor", 11)])  # DV 4
    assert strong.equipment.armor_str_short == 0
    assert strong.equipment.encumbered_derived == strong.derived
    assert "armor_str_min" not in codes(strong, "warning")


def test_the_armor_penalty_adds_to_the_encumbrance_penalty():
    # STR 5: unencumbered to 10 kg, a step of 5 kg. Combat armor (6 kg) and two vacc suits
    # (TL 8, 10 kg each) are 26 kg: 3 steps; the worn armor is 2 points short.
    laden = report(
        attributes={"STR": 5, "DEX": 12},
        equipment=[item("Combat armor", 11), item("Vacc suit", 8, quantity=2)],
    )
    equipment = laden.equipment
    assert (equipment.encumbrance_penalty, equipment.armor_str_short) == (3, 2)
    assert equipment.encumbered_derived.MOV == laden.derived.MOV - 5


def test_def_and_ini_stop_at_one_under_armor_too_heavy():
    weak = report(attributes={"STR": 1, "DEX": 1, "AWA": 1}, equipment=[item("Combat armor", 11)])
    assert weak.equipment.armor_str_short == 3
    assert (weak.equipment.encumbered_derived.DEF, weak.equipment.encumbered_derived.INI) == (1, 1)


def test_with_nothing_marked_worn_the_armor_worn_is_the_best_body_armor_carried():
    carried = [item("Jack"), item("Combat armor", 11), item("Cloth (ballistic cloth)")]
    equipment = report(equipment=carried).equipment
    assert equipment.armor_worn == "Combat armor (TL 11)"
    assert equipment.armor_av == CAT.equipment_item("Combat armor", 11).av
    assert equipment.as_dict()["armor_av"] == equipment.armor_av
    character = parse_document(document(equipment=carried))
    found = [CAT.equipment_item(entry.item, entry.tl) for entry in character.equipment]
    assert worn_armor(character.equipment, found).body.name == "Combat armor"
    dagger = parse_document(document(equipment=[item("Dagger"), item("Phaser")])).equipment
    assert worn_armor(dagger, [CAT.equipment_item("Dagger"), None]).pieces == ()


def test_without_armor_the_armor_worn_has_av_0():
    equipment = report(equipment=[item("Dagger")]).equipment
    assert (equipment.armor_worn, equipment.armor_av) == (None, 0)


def test_an_add_on_to_armor_is_not_worn_as_armor():
    chameleon = report(equipment=[item("Chameleon surface")])
    assert chameleon.equipment.armor_worn is None


def test_wounds_and_armor_too_heavy_lower_the_body_attributes_in_play():
    worn = report(attributes={"STR": 5}, equipment=[item("Combat armor", 11)])
    now = effective(worn, UNHURT, armor_str_short=worn.equipment.armor_str_short)
    assert (now.levels["STR"], now.levels["DEX"], now.levels["END"]) == (1, 3, 3)
    assert now.levels["INT"] == 7  # the mind group is untouched
    assert now.test_dm("DEX") == CAT.dm_dv(3)[0]
    assert now.derived == worn.equipment.encumbered_derived


# -- weapons --------------------------------------------------------------------------------------


def test_a_weapon_too_heavy_for_the_wielder_takes_minus_one_a_point_to_its_attacks():
    # A battleaxe needs STR DV 5; STR 7 is DV 3.
    armed = report(equipment=[item("Battleaxe"), item("Dagger")])
    axe, dagger = armed.equipment.lines
    assert (axe.attack_dm, dagger.attack_dm) == (-2, 0)
    warning = problem(armed, "weapon_str_min")
    assert warning.path == "equipment[0]"
    assert "STR DV 5" in warning.message
    assert "-2" in warning.message


def test_a_weapon_the_wielder_is_strong_enough_for_has_no_dm():
    strong = report(attributes={"STR": 10}, equipment=[item("Battleaxe")])  # DV 5
    assert strong.equipment.lines[0].attack_dm == 0
    assert "weapon_str_min" not in codes(strong, "warning")


def test_a_ranged_weapon_has_its_str_min_too():
    rifle = report(attributes={"STR": 4}, equipment=[item("Rifle")])  # needs DV 4; DV 2
    assert rifle.equipment.lines[0].attack_dm == -2


def test_gear_that_is_not_a_weapon_has_no_attack_dm():
    assert report(equipment=[item("Silencer")]).equipment.lines[0].attack_dm == 0


# -- battle dress ---------------------------------------------------------------------------------


def test_a_str_4_trooper_in_battle_dress_carries_as_str_15():
    trooper = report(
        attributes={"STR": 4},
        equipment=[item("Battle dress", 13), item("PGMP-12")],  # 26 kg
    )
    equipment = trooper.equipment
    assert equipment.carrying_str == 15
    assert (equipment.unencumbered_kg, equipment.capacity_kg) == (30, 225)
    assert "over_capacity" not in codes(trooper)
    assert "encumbered" not in codes(trooper, "warning")


def test_battle_dress_wields_weapons_at_str_15():
    # A PGMP-12 needs STR DV 5; STR 4 is DV 2, STR 15 is DV 7.
    bare = report(attributes={"STR": 4}, equipment=[item("PGMP-12")])
    assert bare.equipment.lines[0].attack_dm == -3
    suited = report(attributes={"STR": 4}, equipment=[item("Battle dress", 14), item("PGMP-12")])
    assert suited.equipment.lines[1].attack_dm == 0


def test_battle_dress_needs_its_own_str_min_of_the_wearer():
    # Battle dress needs STR DV 2 of the wearer; STR 2 is DV 1.
    weak = report(attributes={"STR": 2}, equipment=[item("Battle dress", 13)])
    assert weak.equipment.armor_str_short == 1
    assert weak.equipment.carrying_str == 15


def test_battle_dress_makes_no_one_weaker():
    strong = report(attributes={"STR": 15}, budget=200, kind="npc", equipment=[])
    assert strong.equipment.carrying_str == 15
    mighty = report(
        attributes={"STR": 15, "END": 10},
        kind="npc",
        budget=200,
        equipment=[item("Battle dress", 13)],
    )
    assert mighty.equipment.carrying_str == 15


def test_battle_dress_does_not_change_the_str_on_the_sheet():
    trooper = report(attributes={"STR": 4}, equipment=[item("Battle dress", 13)])
    plain = report(attributes={"STR": 4})
    assert trooper.attribute("STR") == plain.attribute("STR")
    assert trooper.derived == plain.derived


@pytest.mark.parametrize("weapon", [("PGMP-13", 13), ("FGMP-14", 14)])
def test_a_weapon_made_for_battle_dress_carried_without_it_is_warned_of(weapon):
    bare = report(equipment=[item(*weapon)])
    name = f"{weapon[0]} (TL {weapon[1]})"
    assert problem(bare, "battle_dress_required").message == (
        f"{name} is fired only from battle dress, and the character wears no armor."
    )
    assert problem(bare, "battle_dress_required").path == "equipment[0]"
    armored = report(equipment=[item("Combat armor", 12), item(*weapon)])
    assert problem(armored, "battle_dress_required").message == (
        f"{name} is fired only from battle dress, and the character wears Combat armor (TL 12)."
    )
    assert problem(armored, "battle_dress_required").severity == "warning"


def test_a_weapon_made_for_battle_dress_is_no_concern_in_battle_dress():
    for suit in (13, 14):
        suited = report(equipment=[item("FGMP-14", 14), item("Battle dress", suit)])
        assert "battle_dress_required" not in codes(suited, "warning")
    assert "battle_dress_required" not in codes(report(equipment=[item("PGMP-12")]), "warning")


# -- ammunition -----------------------------------------------------------------------------------


def test_ammunition_is_priced_and_weighed_by_its_weapons_row():
    rifle = CAT.equipment_item("Rifle")
    magazine = CAT.equipment_item("Rifle ammunition")
    assert magazine.table == "ammunition"
    assert (magazine.cost, magazine.weight_kg) == (rifle.row["ammo_cost"], 0.5)
    assert (magazine.tl, magazine.weapon, magazine.row["rounds"]) == (5, "Rifle", 20)


def test_magazines_bought_are_paid_for_and_carried():
    kit = report(
        service="navy",
        terms=1,
        traits=[{"type": "PP", "level": "C", "frequency": "R", "name": "x"}],
        mustering_out={"rolls": [6]},
        equipment=[item("Automatic pistol"), item("Automatic pistol ammunition", quantity=4)],
    )
    pistol, magazines = kit.equipment.lines
    assert (magazines.quantity, magazines.cost, magazines.weight_kg) == (4, 40, 1.0)
    assert kit.equipment.cost == pistol.cost + 40
    assert kit.equipment.load_kg == 1.75


def test_a_bow_buys_its_arrows_one_at_a_time():
    arrows = CAT.equipment_item("Longbow ammunition")
    assert (arrows.row["rounds"], arrows.cost, arrows.weight_kg) == (1, 2, 0.1)


def test_a_gravitic_weapons_ammunition_weighs_its_gravitic_figure():
    assert CAT.equipment_item("PGMP-14 ammunition").weight_kg == 0.09


def test_a_thrown_spear_is_its_own_ammunition():
    assert CAT.equipment_named("Spear (thrown) ammunition") == ()


def test_ammunition_of_a_weapon_at_several_tech_levels_needs_the_tech_level():
    packs = report(equipment=[item("Laser rifle ammunition")])
    assert "ambiguous_equipment" in codes(packs)
    assert report(equipment=[item("Laser rifle ammunition", 13)]).equipment.lines[0].cost == 2800


def test_a_document_with_ammunition_reads_back_the_same():
    from rules import normalise_document

    from .builders import document

    doc = normalise_document(document(equipment=[item("rifle AMMUNITION", quantity=2)]))
    assert doc["equipment"] == [{"item": "Rifle ammunition", "quantity": 2}]
    assert normalise_document(doc) == doc


# -- carrying and gravity -------------------------------------------------------------------------


def test_at_one_g_the_figures_are_the_reports():
    pilot = report(attributes={"STR": 6})
    carry = carrying(6)
    assert (
        (carry.unencumbered_kg, carry.capacity_kg)
        == (
            pilot.equipment.unencumbered_kg,
            pilot.equipment.capacity_kg,
        )
        == (12, 36)
    )
    assert (carry.lift_kg, carry.drag_kg) == (72, 144)
    assert (pilot.equipment.lift_kg, pilot.equipment.drag_kg) == (72, 144)


def test_a_str_below_0_carries_nothing_and_an_empty_pack_is_no_load():
    # STR 1 becomes -1 after the Vargr package: an error of its own, and no load warning.
    vargr = report(species="vargr", attributes={"STR": 1})
    assert vargr.attribute("STR").level == -1
    assert "attribute_out_of_range" in codes(vargr)
    assert "encumbered" not in codes(vargr, "warning")
    assert (vargr.equipment.unencumbered_kg, vargr.equipment.capacity_kg) == (0, 0)
    carry = carrying(-1)
    assert (carry.step_kg, carry.lift_kg, carry.drag_kg) == (0, 0, 0)


def test_on_a_size_4_world_a_character_carries_double_unencumbered():
    # The rulebook's example: size 4 is 4 / 8 = 0.5 g.
    assert world_gravity(4) == 0.5
    carry = carrying(7, world_gravity(4))
    assert carry.unencumbered_kg == 2 * carrying(7).unencumbered_kg == 28
    assert (carry.capacity_kg, carry.lift_kg, carry.drag_kg) == (98, 196, 392)


def test_low_gravity_never_raises_capacity_past_four_times():
    for gravity in (0.25, 0.1, 0.0):
        carry = carrying(7, gravity)
        assert (carry.scale, carry.capacity_kg, carry.unencumbered_kg) == (4, 196, 56)


def test_high_gravity_lowers_every_figure_and_encumbers_sooner():
    heavy = carrying(8, 2.0)
    assert (heavy.unencumbered_kg, heavy.step_kg, heavy.capacity_kg) == (8, 4, 32)
    assert encumbrance_penalty(15, heavy) == 1  # 7 kg past 8, in steps of 4 kg
    assert encumbrance_penalty(15, carrying(8)) == 0


def test_a_load_is_over_capacity_only_above_the_capacity_at_its_gravity():
    heavy = carrying(8, 2.0)  # 32 kg at most, where 1 g allows 64
    assert not over_capacity(32, heavy)
    assert over_capacity(33, heavy)
    assert not over_capacity(33, carrying(8))


def test_figures_that_are_not_whole_keep_grams():
    carry = carrying(7, 1.5)
    assert carry.unencumbered_kg == pytest.approx(9.333, abs=0.001)
    assert carry.capacity_kg == pytest.approx(32.667, abs=0.001)


@pytest.mark.parametrize(
    ("strength", "gravity", "load", "penalty"),
    [
        (1, 1.25, 2.4, 1),  # STR 1 / 1.25 g is 0.8: 1.6 kg free, then one step of 0.8 kg
        (1, 1.25, 4.0, 3),
        (1, 0.6, 5.0, 1),  # STR 1 / 0.6 g: 3.333... kg free, steps of 1.666... kg
        (1, 0.6, 4.999, 0),
        (1, 0.9, 3.333, 0),  # 3.333 kg is short of the 3.333... kg of the first step
        (7, 1.2, 17.5, 1),  # STR 7 / 1.2 g: 11.666... kg free, steps of 5.833... kg
        (7, 1.2, 17.499, 0),
    ],
)
def test_a_load_on_another_world_is_weighed_against_the_exact_figures_not_the_shown_grams(
    strength, gravity, load, penalty
):
    # The figures are shown to the gram, but the steps are the rulebook's STR / gravity: a load
    # of exactly one step more is one point, and a gram short of it none.
    assert encumbrance_penalty(load, carrying(strength, gravity)) == penalty


def test_a_load_on_another_world_is_over_capacity_only_above_the_exact_capacity():
    carry = carrying(1, 0.6)  # 1 / 0.6 = 1.666... kg, shown as 1.667
    assert carry.capacity_kg == 1.667
    assert over_capacity(1.667, carry)
    assert not over_capacity(1.666, carry)


def test_gravity_and_world_size_cannot_be_negative():
    with pytest.raises(ValueError, match="negative"):
        carrying(7, -1)
    with pytest.raises(ValueError, match="negative"):
        world_gravity(-2)


def test_a_gravity_that_is_not_a_number_is_refused_not_read_as_no_gravity():
    with pytest.raises(ValueError, match="not a number"):
        carrying(7, float("nan"))


@given(st.integers(1, 20), st.floats(0, 10, allow_nan=False), st.floats(0, 10, allow_nan=False))
def test_more_gravity_never_lets_a_character_carry_more(strength, one, other):
    low, high = sorted((one, other))
    at_low, at_high = carrying(strength, low), carrying(strength, high)
    assert at_high.capacity_kg <= at_low.capacity_kg <= 4 * carrying(strength).capacity_kg
    assert at_high.lift_kg == 2 * at_high.capacity_kg or at_high.lift_kg == pytest.approx(
        2 * at_high.capacity_kg, abs=0.002
    )
    for load in (0, 10, 50, 200):
        assert encumbrance_penalty(load, at_low) <= encumbrance_penalty(load, at_high)
