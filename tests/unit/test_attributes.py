"""Attributes: hex, DM/DV, purchase cost, species packages, the UPP and derived attributes."""

import pytest

from rules import catalog
from rules.engine import purchase_steps

from .builders import codes, problem, report


@pytest.mark.parametrize(
    ("level", "dm", "dv"),
    [
        (0, -4, 0),
        (1, -3, 1),
        (3, -2, 1),
        (4, -2, 2),
        (7, 0, 3),
        (8, 0, 4),
        (9, 1, 4),
        (12, 2, 6),
        (15, 4, 7),
        (16, 4, 8),
        (17, 5, 8),
        (18, 5, 9),
        (19, 6, 9),
        (20, 6, 10),
    ],
)
def test_dm_and_dv_follow_the_attribute_table_and_the_g_plus_rule(level, dm, dv):
    assert catalog().dm_dv(level) == (dm, dv)


def test_hex_skips_the_letters_i_and_o():
    cat = catalog()
    assert [cat.to_hex(n) for n in (9, 10, 15, 17, 18, 22, 23)] == [
        "9",
        "A",
        "F",
        "H",
        "J",
        "N",
        "P",
    ]
    assert cat.from_hex("J") == 18
    assert cat.from_hex("I") is None
    assert cat.from_hex("O") is None


def test_a_level_no_hex_digit_writes_is_marked_in_the_upp_and_the_error_explains_it():
    vargr = report(species="vargr", attributes={"STR": 1, "INT": -3})

    assert vargr.upp == "?95-?77-777"
    assert [a.hex for a in vargr.attributes[:4]] == ["?", "9", "5", "?"]
    assert (
        "STR 1 becomes -1 after the Vargr package"
        in problem(vargr, "attribute_out_of_range").message
    )


def test_each_level_above_seven_costs_five_points_and_each_below_gives_five_back():
    result = report(attributes={"STR": 9, "DEX": 6, "EDU": "A"})
    assert result.points.attributes == 10 - 5 + 15
    assert result.attribute("EDU").level == 10


def test_the_average_human_has_the_rulebooks_derived_attributes():
    derived = report().derived
    assert derived.as_dict() == {"DEF": 3, "INI": 3, "MOV": 6, "TGH": 3, "LIF": 21, "WND": 6}


def test_derived_attributes_use_dvs_except_life_which_adds_the_levels():
    result = report(attributes={"STR": 12, "DEX": 9, "END": 4, "AWA": 14})
    # DVs: STR 6, DEX 4, END 2, AWA 7
    assert result.derived.as_dict() == {
        "DEF": 4,
        "INI": (4 + 7) // 2,
        "MOV": 4 + (6 + 2) // 2,
        "TGH": 4,
        "LIF": 12 + 4 + 9,
        "WND": 8,
    }


def test_the_upp_is_in_three_hex_groups_body_mind_background():
    result = report(attributes={"STR": 6, "DEX": "B", "END": 7, "INT": 9, "EDU": 10, "SOC": 8})
    assert result.upp == "6B7-977-A87"


def test_purchased_levels_outside_one_to_fifteen_are_errors_that_name_the_range():
    result = report(attributes={"STR": 16, "DEX": 0})
    assert codes(result) == ["attribute_out_of_range", "attribute_out_of_range"]
    assert "STR 16 is outside the purchasable range 1-15" in result.problems[0].message


def test_only_npcs_may_buy_social_standing_up_to_h():
    assert codes(report(kind="npc", budget=100, attributes={"SOC": "H"})) == []
    pc = report(attributes={"SOC": "H"})
    assert "SOC up to 17 is for NPCs only" in problem(pc, "attribute_out_of_range").message
    assert report(kind="npc", attributes={"SOC": 11}).noble_title == "Knight"
    assert report(kind="npc", attributes={"SOC": 17}).noble_title == "Emperor"


def test_the_vargr_package_changes_levels_after_purchase_and_costs_nothing_in_all():
    result = report(species="vargr", attributes={"STR": 8, "DEX": 9, "END": 8})
    assert result.upp[:3] == "6B6"
    assert result.attribute("DEX").purchased == 9
    assert result.points.attributes == 5 + 10 + 5
    assert result.points.package == 0
    assert [t.notation for t in result.traits if t.source == "package"] == [
        "[PP-E-O 10]",
        "[PP-E-R 2]",
        "[PP-E-R 2]",
        "[PP-C-R 1]",
        "[PF-H-S -5]",
        "[PF-H-R CS4 -2]",
        "[PF-H-R CS4 -2]",
        "[HF-H-R -2]",
    ]


def test_a_package_that_drops_a_final_level_below_one_is_an_error():
    result = report(species="vargr", attributes={"STR": 2})
    message = problem(result, "attribute_out_of_range").message
    assert message == (
        "STR 2 becomes 0 after the Vargr package (-2); the final level must be at least 1."
    )


def test_an_unknown_species_is_an_error_and_the_character_is_checked_as_human():
    result = report(species="aslan")
    assert codes(result) == ["unknown_species"]
    assert result.upp == "777-777-777"


def test_def_and_ini_never_drop_below_one_even_with_flaws():
    result = report(
        attributes={"DEX": 1, "AWA": 1},
        traits=[{"type": "PF", "name": "Slow", "derived": {"DEF": -2, "INI": -3}}],
    )
    assert (result.derived.DEF, result.derived.INI) == (1, 1)


def _steps(result, code: str) -> tuple[bool, bool]:
    return purchase_steps(result)[catalog().attribute_order.index(code)]


def test_an_attribute_steps_up_to_its_kinds_highest_purchase_and_down_to_the_lowest():
    limits = catalog().limits
    assert _steps(report(), "DEX") == (True, True)
    assert _steps(report(attributes={"DEX": limits.purchase_max}), "DEX") == (False, True)
    assert _steps(report(attributes={"DEX": limits.purchase_min}), "DEX") == (True, False)
    assert _steps(report(attributes={"SOC": limits.purchase_max}), "SOC") == (False, True)
    npc = report(kind="npc", budget=100, attributes={"SOC": limits.purchase_max})
    assert _steps(npc, "SOC") == (True, True)
    assert _steps(report(kind="npc", attributes={"SOC": limits.npc_soc_max}), "SOC")[0] is False


def test_an_attribute_a_species_lowers_steps_down_only_while_its_final_level_stays_legal():
    cat = catalog()
    strength = cat.attribute_order.index("STR")
    floor = cat.limits.final_min - cat.species["vargr"].attribute_deltas[strength]
    assert _steps(report(species="vargr", attributes={"STR": floor}), "STR") == (True, False)
    assert _steps(report(species="vargr", attributes={"STR": floor + 1}), "STR") == (True, True)


def test_an_attribute_outside_its_range_steps_back_towards_it_only():
    limits = catalog().limits
    too_high = report(attributes={"EXP": limits.purchase_max + 3})
    assert _steps(too_high, "EXP") == (False, True)
    too_low = report(attributes={"EXP": limits.purchase_min - 2})
    assert _steps(too_low, "EXP") == (True, False)
