"""Every row of the personal-combat DM tables, checked against the rulebook's figures (typed
here from the chapter, once, as the tests' expectations), through the attacks that use them."""

import pytest

from rules import COVER, FACINGS, LIGHTING, RANGE_BANDS, TARGET_SIZES, VISIBILITY, catalog

from .combat_builders import dm_of, plan

RANGE_TABLE = [
    ("contact", 0),
    ("close", -1),
    ("short", -2),
    ("medium", -3),
    ("long", -4),
    ("very long", -5),
    ("distant", -6),
    ("very distant", -7),
]
TARGET_SIZE_TABLE = [
    ("gargantuan", 4),
    ("huge", 3),
    ("very large", 2),
    ("large", 1),
    ("small", -1),
    ("very small", -2),
    ("tiny", -3),
]
LIGHTING_TABLE = [
    ("shadows", -1),
    ("dim", -2),
    ("very dim", -3),
    ("dark", -4),
    ("complete darkness", -5),
]
VISIBILITY_TABLE = [
    ("partly obscured", -1),
    ("somewhat obscured", -2),
    ("mostly obscured", -3),
    ("almost completely obscured", -4),
    ("silhouetted", 1),
]
COVER_TABLE = [("poor", -1), ("some", -2), ("good", -3), ("excellent", -4)]
FACING_TABLE = [("front", 0), ("side", -2), ("rear", -4)]


def test_the_vocabularies_are_the_tables_rows_in_the_rulebooks_order():
    assert tuple(name for name, _ in RANGE_TABLE) == RANGE_BANDS
    assert tuple(name for name, _ in TARGET_SIZE_TABLE) == TARGET_SIZES
    assert tuple(name for name, _ in LIGHTING_TABLE) == LIGHTING
    assert tuple(name for name, _ in VISIBILITY_TABLE) == VISIBILITY
    assert tuple(name for name, _ in COVER_TABLE) == COVER
    assert tuple(name for name, _ in FACING_TABLE) == FACINGS


@pytest.mark.parametrize(("band", "dm"), RANGE_TABLE)
def test_a_shot_takes_the_range_tables_dm(band, dm):
    # The laser rifle reaches 4000 m, so every band is within its range.
    assert (dm_of(plan("Laser rifle", band, tl=13), "range") or 0) == dm


@pytest.mark.parametrize(("size", "dm"), TARGET_SIZE_TABLE)
def test_a_target_of_each_size_gives_its_dm(size, dm):
    assert dm_of(plan(target_size=size), "target size") == dm


@pytest.mark.parametrize(("lighting", "dm"), LIGHTING_TABLE)
def test_each_lighting_gives_its_dm(lighting, dm):
    assert dm_of(plan(lighting=lighting), "lighting") == dm


@pytest.mark.parametrize(("visibility", "dm"), VISIBILITY_TABLE)
def test_each_visibility_gives_its_dm(visibility, dm):
    assert dm_of(plan(visibility=visibility), "visibility") == dm


@pytest.mark.parametrize(("cover", "dm"), COVER_TABLE)
def test_each_cover_gives_its_dm(cover, dm):
    assert dm_of(plan(cover=cover), "cover") == dm


@pytest.mark.parametrize(("facing", "dm"), FACING_TABLE)
def test_attacking_into_each_facing_gives_its_dm(facing, dm):
    assert (dm_of(plan(facing=facing), "facing") or 0) == dm


def test_position_dms_are_the_position_tables():
    # Attacker braced or prone: +1 when aiming, shots only.
    assert dm_of(plan(attacker_braced=True, aim_turns=1), "attacker braced") == 1
    assert dm_of(plan(attacker_braced=True), "attacker braced") is None
    assert dm_of(plan("Sword", "close", attacker_braced=True, aim_turns=1), "attacker") is None
    # Target prone: -3 at medium or longer range, shots only.
    assert dm_of(plan(target_prone=True), "target prone") == -3
    assert dm_of(plan("Rifle", "short", target_prone=True), "target prone") is None
    assert dm_of(plan("Sword", "close", target_prone=True), "target prone") is None
    # Target higher than the attacker: -1.
    assert dm_of(plan(target_higher=True), "target higher") == -1


def test_a_fast_target_takes_1_per_10_squares_a_turn_rounded_down():
    assert dm_of(plan(target_squares_per_turn=9), "target moving") is None
    assert dm_of(plan(target_squares_per_turn=10), "target moving") == -1
    assert dm_of(plan(target_squares_per_turn=90), "target moving") == -9


def test_each_action_this_turn_costs_2_the_first_included():
    # Three actions in a turn: -6 to each (the rulebook's example).
    assert dm_of(plan(extra_actions=2), "3 actions") == -6
    assert dm_of(plan(extra_actions=1), "2 actions") == -4
    assert dm_of(plan(), "1 actions") is None


def test_the_data_has_no_row_the_tests_do_not_check():
    tables = catalog().combat
    assert len(tables["range_bands"]["bands"]) == len(RANGE_TABLE)
    assert len(tables["target_size"]) == len(TARGET_SIZE_TABLE)
    assert len(tables["lighting"]) == len(LIGHTING_TABLE)
    assert len(tables["visibility"]) == len(VISIBILITY_TABLE)
    assert len(tables["cover"]) == len(COVER_TABLE)
