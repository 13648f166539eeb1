"""Action tests: Dice Highest, Dice Lowest, the level-0 re-throw, and their exact odds."""

import random
from collections import Counter
from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import (
    action_test,
    automatic_success,
    difficulties,
    difficulty_for,
    result_distribution,
    success_chance,
)
from rules.dice import read_highest, read_lowest, throw_attribute_test
from tests.dice import Scripted


def throw(faces, **arguments):
    arguments.setdefault("attribute_dm", 0)
    arguments.setdefault("tn", 4)
    return action_test(rng=Scripted(faces), **arguments)


# -- reading the dice --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dice", "result"),
    [((4,), 4), ((2, 5, 3), 5), ((6, 3), 6), ((6, 6), 7), ((6, 6, 6), 8), ((1, 1), 1)],
)
def test_dice_highest_takes_the_highest_die_and_adds_one_for_each_extra_six(dice, result):
    assert read_highest(dice) == result


def test_dice_lowest_takes_the_lowest_die():
    assert read_lowest((5, 2)) == 2
    assert read_lowest((1, 6)) == 1


# -- which dice a test throws ------------------------------------------------------------------


def test_a_skill_level_throws_that_many_dice_and_keeps_the_highest():
    test = throw([2, 5, 3], skill_level=3)
    assert (test.kind, test.dice, test.result) == ("skill", (2, 5, 3), 5)


def test_an_attribute_test_is_marked_by_attribute_test_and_throws_two_dice_highest():
    test = throw([6, 6], skill_level=None, attribute_test=True)
    assert (test.kind, test.dice, test.result) == ("attribute", (6, 6), 7)


def test_no_skill_level_is_an_unskilled_test_of_two_dice_lowest():
    test = throw([5, 3], skill_level=None)
    assert (test.kind, test.result, test.fumble) == ("unskilled", 3, False)
    assert throw([6, 1], skill_level=None).fumble


def test_a_level_zero_skill_throws_two_dice_lowest_and_keeps_a_result_above_one():
    test = throw([4, 3], skill_level=0)
    assert (test.kind, test.dice, test.result, test.rethrown) == ("level-0", (4, 3), 3, False)


def test_a_level_zero_skill_rethrows_a_one_once_and_must_take_the_second_result():
    test = throw([1, 6, 5, 2], skill_level=0)
    assert (test.dice, test.result, test.rethrown, test.fumble) == ((1, 6, 5, 2), 2, True, False)
    second_one = throw([1, 1, 1, 4], skill_level=0)
    assert (second_one.result, second_one.fumble) == (1, True)


def test_an_attribute_test_with_a_skill_level_is_a_mistake():
    with pytest.raises(ValueError, match="attribute test uses no skill"):
        throw([3, 3], skill_level=2, attribute_test=True)


def test_a_negative_skill_level_is_a_mistake():
    with pytest.raises(ValueError, match="below 0"):
        throw([3, 3], skill_level=-1)


# -- reading the test --------------------------------------------------------------------------


def test_the_total_adds_the_attribute_dm_and_other_dms_to_the_die_result():
    test = throw([2, 5], skill_level=2, attribute_dm=1, dm=-2, tn=4)
    assert (test.result, test.total, test.success, test.effect) == (5, 4, True, 0)


def test_a_failed_test_has_a_negative_effect_number():
    test = throw([3], skill_level=1, attribute_dm=0, tn=6)
    assert (test.success, test.effect) == (False, -3)


def test_an_effect_number_of_six_or_more_is_an_exceptional_success():
    assert throw([6, 6, 6], skill_level=3, attribute_dm=2, tn=4).exceptional  # 8 + 2 - 4
    assert not throw([6, 6], skill_level=2, attribute_dm=2, tn=4).exceptional  # 7 + 2 - 4


def test_a_fumble_is_a_die_result_of_one_whatever_the_dms():
    test = throw([1, 1], skill_level=2, attribute_dm=3, dm=2, tn=4)
    assert (test.fumble, test.total, test.success) == (True, 6, True)


def test_seeded_rolls_give_fixed_results():
    rng = random.Random(1234)
    tests = [
        action_test(rng=rng, skill_level=0, attribute_dm=1, tn=4),
        action_test(rng=rng, skill_level=3, attribute_dm=0, tn=5),
        action_test(rng=rng, skill_level=None, attribute_dm=0, tn=3, attribute_test=True),
        action_test(rng=rng, skill_level=None, attribute_dm=-1, tn=3),
    ]
    assert [(t.kind, t.dice, t.result, t.total) for t in tests] == SEEDED


def test_an_attribute_test_throws_two_dice_in_the_order_they_fall():
    rng = Scripted([6, 1, 3])
    assert throw_attribute_test(rng) == [6, 1]
    assert rng.faces == [3]


SEEDED = [
    ("level-0", (4, 1, 1, 1), 1, 2),
    ("skill", (5, 1, 6), 6, 6),
    ("attribute", (6, 1), 6, 6),
    ("unskilled", (1, 3), 1, 0),
]


# -- exact odds --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "n"),
    [("skill", n) for n in range(1, 6)]
    + [("attribute", None), ("unskilled", None), ("level-0", None)],
)
def test_every_distribution_sums_to_one(kind, n):
    assert sum(result_distribution(kind, n).values()) == 1


def test_one_die_highest_is_uniform():
    assert result_distribution("skill", 1) == dict.fromkeys(range(1, 7), Fraction(1, 6))


def test_two_dice_highest_fumbles_only_on_two_ones_and_reads_seven_only_on_two_sixes():
    odds = result_distribution("attribute")
    assert odds[1] == Fraction(1, 36)
    assert odds[7] == Fraction(1, 36)
    assert max(odds) == 7


def test_two_dice_lowest_fumbles_whenever_either_die_is_one():
    assert result_distribution("unskilled")[1] == Fraction(11, 36)


def test_a_level_zero_skill_fumbles_only_when_both_throws_show_a_one():
    assert result_distribution("level-0")[1] == Fraction(11, 36) * Fraction(11, 36)


def test_the_best_of_three_dice_highest_is_eight():
    assert max(result_distribution("skill", 3)) == 8
    assert result_distribution("skill", 3)[8] == Fraction(1, 216)


@pytest.mark.parametrize("n", range(1, 6))
def test_dice_highest_odds_match_a_throw_of_every_ordered_outcome(n):
    counts = Counter(read_highest(faces) for faces in product(range(1, 7), repeat=n))
    assert result_distribution("skill", n) == {r: Fraction(c, 6**n) for r, c in counts.items()}


def test_level_zero_odds_match_a_throw_of_every_outcome_of_four_dice():
    counts = Counter(
        min(first) if min(first) > 1 else min(second)
        for first in product(range(1, 7), repeat=2)
        for second in product(range(1, 7), repeat=2)
    )
    assert result_distribution("level-0") == {r: Fraction(c, 6**4) for r, c in counts.items()}


def test_the_chance_of_success_sums_the_results_that_reach_the_tn():
    assert success_chance("skill", 1, modifier=0, tn=4) == Fraction(1, 2)
    assert success_chance("attribute", modifier=1, tn=8) == Fraction(1, 36)
    assert success_chance("unskilled", modifier=0, tn=7) == 0


def test_a_skill_distribution_needs_a_skill_level():
    with pytest.raises(ValueError, match="skill level of 1 or more"):
        result_distribution("skill")


def test_an_unknown_kind_of_test_is_a_mistake():
    with pytest.raises(ValueError, match="Unknown kind"):
        result_distribution("lucky", 2)


@pytest.mark.parametrize(
    ("skill_level", "attribute_test", "kind", "n"),
    [(3, False, "skill", 3), (0, False, "level-0", None), (None, True, "attribute", None)],
)
def test_a_large_seeded_sample_matches_the_exact_distribution(skill_level, attribute_test, kind, n):
    rng = random.Random(1234)
    rolls = 20_000
    seen = Counter(
        action_test(
            rng=rng, skill_level=skill_level, attribute_dm=0, tn=4, attribute_test=attribute_test
        ).result
        for _ in range(rolls)
    )
    exact = result_distribution(kind, n)
    assert set(seen) <= set(exact)
    for result, chance in exact.items():
        assert abs(seen[result] / rolls - float(chance)) < 0.012, result


@given(
    seed=st.integers(0, 2**32),
    skill_level=st.one_of(st.none(), st.integers(0, 6)),
    attribute_dm=st.integers(-4, 5),
    dm=st.integers(-6, 6),
    tn=st.integers(2, 12),
)
def test_every_test_reads_consistently(seed, skill_level, attribute_dm, dm, tn):
    test = action_test(
        rng=random.Random(seed), skill_level=skill_level, attribute_dm=attribute_dm, dm=dm, tn=tn
    )
    n = skill_level if skill_level else None
    assert test.result in result_distribution(test.kind, n)
    assert test.total == test.result + attribute_dm + dm
    assert test.effect == test.total - tn
    assert test.success == (test.total >= tn)
    assert test.fumble == (test.result == 1)
    assert test.exceptional == (test.effect >= 6)


# -- difficulty levels and automatic successes -------------------------------------------------


def test_the_difficulty_levels_follow_the_rulebooks_table():
    assert [(d.name, d.tn) for d in difficulties()] == [
        ("Simple", 2),
        ("Easy", 3),
        ("Average", 4),
        ("Tricky", 5),
        ("Challenging", 6),
        ("Difficult", 7),
        ("Demanding", 8),
        ("Extreme", 9),
        ("Near-impossible", 10),
    ]
    assert str(difficulty_for(6)) == "Challenging (TN 6)"
    assert difficulty_for(11) is None


def test_a_tn_below_the_attribute_dm_and_other_dms_needs_no_test():
    # "If the target number for any task is lower than the character's combined attribute
    # DM + other DMs, no action test is required."
    assert automatic_success(modifier=3, tn=2)
    assert not automatic_success(modifier=3, tn=3)
    assert not automatic_success(modifier=0, tn=2)


@pytest.mark.parametrize(
    ("kind", "level", "notation"),
    [
        ("skill", 3, "3DH"),
        ("attribute", None, "2DH"),
        ("unskilled", None, "2DL"),
        ("level-0", 0, "2DL, a 1 thrown again"),
    ],
)
def test_each_kind_of_test_is_written_as_the_rulebook_writes_its_dice(kind, level, notation):
    from rules.dice import dice_notation

    assert dice_notation(kind, level) == notation


def test_the_roller_offers_an_average_test_first():
    from rules.dice import usual_difficulty

    assert usual_difficulty() == difficulty_for(4)
