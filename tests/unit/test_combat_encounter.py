"""Initiative, delaying, whose turn comes, surprise and morale."""

import random
from dataclasses import replace
from fractions import Fraction

import pytest

from rules import (
    CombatRefused,
    Condition,
    delay,
    morale_check,
    morale_test,
    surprise,
    throw_initiative,
)
from rules.combat import (
    Modifier,
    animal,
    delay_keys,
    fighter_from_animal,
    join_initiative,
    leader_killed,
    leader_present,
    morale_chance,
    morale_dms,
    morale_odds,
    morale_thrower,
    raises_alarm,
    side_leader,
    side_morale,
    spotter,
    takes_turn,
)

from .combat_builders import AVERAGE, skilled

# An average human's LIF track (LIF 21, WND 6): unhurt, stunned, knocked out, killed.
UNHURT = Condition(21, 6)
STUNNED = Condition(21, 6, stun=2, stunned=True)
KNOCKED_OUT = Condition(21, 6, stun=21)
KILLED = Condition(21, 6, lethal=42)


class Dice(random.Random):
    """A Random whose dice are the given faces, in order."""

    def __init__(self, *faces: int) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        return self.faces.pop(0)


def test_initiative_is_1d_plus_ini_highest_first():
    order = throw_initiative([("Ann", 3), ("Bo", 5), ("Cy", 1)], Dice(4, 1, 2))
    assert [(r.key, r.die, r.total) for r in order] == [("Ann", 4, 7), ("Bo", 1, 6), ("Cy", 2, 3)]


def test_ties_are_thrown_off_with_1d_each_until_resolved():
    # Ann 3+4 and Cy 1+6 tie at 7; the first tie-break ties again (3, 3), the second does not.
    order = throw_initiative([("Ann", 3), ("Bo", 5), ("Cy", 1)], Dice(4, 1, 6, 3, 3, 2, 5))
    assert [r.key for r in order] == ["Cy", "Ann", "Bo"]
    assert [r.tie_breaks for r in order] == [(3, 5), (3, 2), ()]
    assert [r.total for r in order] == [7, 7, 6]


def test_initiative_keys_must_be_distinct():
    with pytest.raises(CombatRefused):
        throw_initiative([("Ann", 3), ("Ann", 2)], random.Random(1))


def test_a_seeded_throw_is_the_same_every_time():
    entries = [(f"c{i}", i % 4) for i in range(9)]
    assert throw_initiative(entries, random.Random(7)) == throw_initiative(
        entries, random.Random(7)
    )


def test_delaying_moves_a_combatant_just_before_or_after_another():
    order = throw_initiative([("Ann", 9), ("Bo", 5), ("Cy", 1)], Dice(1, 1, 1))
    assert [r.key for r in delay(order, "Ann", acts="after", other="Cy")] == ["Bo", "Cy", "Ann"]
    assert [r.key for r in delay(order, "Cy", acts="before", other="Bo")] == ["Ann", "Cy", "Bo"]
    with pytest.raises(CombatRefused):
        delay(order, "Ann", acts="after", other="Dee")
    with pytest.raises(CombatRefused):
        delay(order, "Ann", acts="after", other="Ann")


def test_a_stored_order_delays_by_its_keys_alone():
    order = ["Ann", "Bo", "Cy", "Dee"]
    assert delay_keys(order, "Ann", acts="after", other="Cy") == ("Bo", "Cy", "Ann", "Dee")
    assert delay_keys(order, "Bo", acts="before", other="Dee") == ("Ann", "Cy", "Bo", "Dee")
    with pytest.raises(CombatRefused, match="acts: a delay acts before or after, not 'during'"):
        delay_keys(order, "Ann", acts="during", other="Cy")
    with pytest.raises(CombatRefused, match="order: each combatant's key must be distinct"):
        delay_keys(["Ann", "Ann"], "Ann", acts="after", other="Bo")


def test_newcomers_take_their_place_by_total_after_those_already_tied():
    # Ann 9 and Bo 5 are in the fight; Cy throws 4 + 1 = 5 (ties with Bo: after him), Dee
    # 6 + 4 = 10 (first).
    rolls, keys = join_initiative([("Ann", 9), ("Bo", 5)], [("Cy", 1), ("Dee", 4)], Dice(4, 6))
    assert [(r.key, r.total) for r in rolls] == [("Dee", 10), ("Cy", 5)]
    assert keys == ("Dee", "Ann", "Bo", "Cy")


def test_a_newcomer_cannot_take_the_key_of_one_already_there():
    with pytest.raises(CombatRefused, match="newcomers"):
        join_initiative([("Ann", 9)], [("Ann", 1)], Dice(1))


def test_surprise_needs_a_margin_of_3_or_more():
    # AWA tests, 2DH: 5 + 1 = 6 against 3 + 0 = 3: surprise by 3.
    won = surprise(("Party", 1), ("Pirates", 0), first_dice=[5, 2], second_dice=[3, 1])
    assert (won.totals, won.surprising, won.surprised) == ((6, 3), "Party", "Pirates")
    close = surprise(("Party", 1), ("Pirates", 0), first_dice=[4, 2], second_dice=[3, 1])
    assert close.surprising is None
    # Negative totals count as they are.
    lost = surprise(("Party", -4), ("Pirates", 0), first_dice=[1, 2], second_dice=[2, 1])
    assert (lost.totals, lost.surprising) == ((-2, 2), "Pirates")


def test_a_side_spots_with_its_best_awa_dm_among_those_not_out_of_action():
    side = [
        ("Ann", replace(AVERAGE, awa_dm=3), KNOCKED_OUT),
        ("Bo", replace(AVERAGE, awa_dm=1), UNHURT),
        ("Cy", replace(AVERAGE, awa_dm=2), STUNNED),
        ("Dee", replace(AVERAGE, awa_dm=2), UNHURT),
    ]
    # Ann is out; a stunned fighter still spots, and the first of the best does.
    assert spotter(side) == "Cy"
    assert spotter(side[:1]) is None


def test_a_fighter_takes_its_turn_unless_out_of_action_or_its_side_is_still_surprised():
    assert takes_turn(UNHURT, side_surprised=False) is True
    # A stunned fighter's turn comes, to recover; one knocked out or killed passes.
    assert takes_turn(STUNNED, side_surprised=False) is True
    assert takes_turn(KNOCKED_OUT, side_surprised=False) is False
    assert takes_turn(KILLED, side_surprised=False) is False
    # A surprised side loses its turns while surprise lasts, in any round.
    assert takes_turn(UNHURT, side_surprised=True) is False
    assert takes_turn(KNOCKED_OUT, side_surprised=True) is False


def test_a_surprised_fighter_hit_and_left_standing_raises_the_alarm():
    # Hit and still on its feet (hurt or stunned), it cries out: its side's surprise ends.
    assert raises_alarm(surprised=True, hit=True, now=UNHURT) is True
    assert raises_alarm(surprised=True, hit=True, now=STUNNED) is True
    # Knocked out or killed by the blow, or missed, it raises none.
    assert raises_alarm(surprised=True, hit=True, now=KNOCKED_OUT) is False
    assert raises_alarm(surprised=True, hit=True, now=KILLED) is False
    assert raises_alarm(surprised=True, hit=False, now=UNHURT) is False
    # A side not surprised has no surprise to lose.
    assert raises_alarm(surprised=False, hit=True, now=UNHURT) is False


def test_a_fifth_out_of_action_calls_for_a_morale_test():
    assert morale_check(10, 1) is False
    assert morale_check(10, 2) is True
    assert morale_check(4, 1) is True  # 25%
    assert morale_check(6, 1) is False  # 16.7%
    with pytest.raises(CombatRefused):
        morale_check(3, 4)


def test_the_morale_dms_are_the_chapters():
    dms = morale_dms(
        side_size=10,
        out_of_action=6,
        combat_experience=True,
        leader_present=True,
        leader_has_tactics=True,
    )
    assert [m.dm for m in dms] == [2, 1, 1, -2]  # experience, leader, tactics, over 50%
    killed = morale_dms(side_size=10, out_of_action=5, leader_present=True, leader_killed=True)
    assert [m.dm for m in killed] == [-2]  # 50% is not more than half


def test_with_its_leader_fallen_a_side_throws_the_best_exp_dm_among_those_standing():
    wolf = fighter_from_animal(animal("hunter", 40))
    side = [
        ("Ann", replace(AVERAGE, exp_dm=2), KILLED),
        ("Bo", replace(AVERAGE, exp_dm=-1), UNHURT),
        ("Wolf", wolf, UNHURT),
    ]
    # Ann leads and is dead; the wolf has no EXP, which counts as DM 0, above Bo's -1.
    assert side_leader(side) == "Ann"
    assert morale_thrower(side, "Ann") == "Wolf"
    assert morale_thrower(side, "Bo") == "Bo"
    assert morale_thrower(side[:1], "Ann") is None


def test_a_side_s_leader_is_killed_once_it_is_dead_or_out_of_action():
    ann = ("Ann", replace(AVERAGE, exp_dm=2), KILLED)
    bo = ("Bo", replace(AVERAGE, exp_dm=-1), UNHURT)
    assert leader_killed([bo, ann], "Ann") is True
    assert leader_killed([bo, (*ann[:2], KNOCKED_OUT)], "Ann") is True
    # Bo's death is not the leader's; a side without a leader has none killed.
    assert leader_killed([(*bo[:2], KILLED), (*ann[:2], UNHURT)], "Ann") is False
    assert leader_killed([], None) is False


def test_of_leaders_alike_the_first_leads_and_one_better_who_joins_takes_over():
    first = ("Ann", AVERAGE, KILLED)
    second = ("Bo", AVERAGE, UNHURT)
    assert side_leader([first, second]) == "Ann"
    assert side_leader([second, first]) == "Bo"
    newcomer = ("Cy", replace(AVERAGE, exp_dm=AVERAGE.exp_dm + 1), UNHURT)
    assert side_leader([first, second, newcomer]) == "Cy"


def test_tactics_in_either_cascade_is_a_tactical_skill_and_strategy_is_not():
    assert skilled("Tactics", 1, "ground").tactical_skill is True
    assert skilled("Tactics", 2, "space").tactical_skill is True
    assert skilled("Strategy", 2, "ground").tactical_skill is False
    assert AVERAGE.tactical_skill is False


def test_a_leader_is_present_while_the_side_s_leader_of_leadership_skill_stands():
    captain = ("Cap", skilled("Leadership", 0), UNHURT)
    crew = ("Bo", AVERAGE, UNHURT)
    assert skilled("Leadership", 0).leadership_skill is True
    assert leader_present([crew, captain], "Cap") is True
    assert leader_present([crew, (*captain[:2], KNOCKED_OUT)], "Cap") is False
    # A leader without the skill leads, but is no "leader (leader skill)".
    assert leader_present([crew], "Bo") is False


def test_a_leader_s_tactics_count_without_a_leader_skill_present():
    dms = morale_dms(side_size=5, out_of_action=1, leader_has_tactics=True)
    assert [(m.label, m.dm) for m in dms] == [("the leader has a tactical skill", 1)]


def test_a_killed_leader_costs_2_and_its_tactics_no_longer_count():
    led = morale_test(
        [3, 2], exp_dm=0, side_size=5, out_of_action=1, leader_present=True, leader_has_tactics=True
    )
    assert [(m.label, m.dm) for m in led.dms[1:]] == [
        ("a leader is present", 1),
        ("the leader has a tactical skill", 1),
    ]
    assert led.total == 5
    killed = morale_test(
        [3, 2],
        exp_dm=0,
        side_size=5,
        out_of_action=1,
        leader_present=True,
        leader_has_tactics=True,
        leader_killed=True,
    )
    assert [(m.label, m.dm) for m in killed.dms[1:]] == [("the leader is killed", -2)]
    assert (killed.total, killed.passed) == (1, False)


def test_an_animal_tests_its_morale_at_exp_dm_0():
    test = morale_test([3, 2], exp_dm=None, side_size=5, out_of_action=1)
    assert (test.dms[0], test.total) == (Modifier("EXP DM", 0), 3)


def test_the_chance_a_morale_test_holds_is_exact_and_a_fumble_always_fails():
    # 2DH reads 1 (1/36), 2 (3/36), 3 (5/36), 4 (7/36), 5 (9/36), 6 (10/36), 7 (two sixes).
    assert morale_chance([Modifier("EXP DM", 0)]) == Fraction(27, 36)  # 4 or more
    assert morale_chance([Modifier("EXP DM", 1), Modifier("x", -3)]) == Fraction(11, 36)
    # However high the DMs, the double 1 fails.
    assert morale_chance([Modifier("EXP DM", 5)]) == Fraction(35, 36)


def test_a_sides_morale_odds_name_every_dm_before_the_dice_and_the_throw_uses_them():
    side = [
        ("Ann", replace(AVERAGE, exp_dm=1), KNOCKED_OUT),
        ("Bo", replace(AVERAGE, exp_dm=2), UNHURT),
        ("Cy", AVERAGE, UNHURT),
    ]
    odds = morale_odds(side, combat_experience=True, referee_dm=-1)
    # Bo, of the best EXP, leads and throws; a third of the side is out of action.
    assert (odds.leader, odds.thrower) == ("Bo", "Bo")
    labels = [(m.label, m.dm) for m in odds.dms]
    assert labels[0] == ("EXP DM", 2)
    assert ("referee's DM", -1) in labels
    assert odds.tn == 4
    assert odds.chance == morale_chance(odds.dms)
    thrown = side_morale([4, 2], side, combat_experience=True, referee_dm=-1)
    assert thrown.result.dms == odds.dms


def test_the_morale_test_is_an_average_exp_test():
    stand = morale_test([3, 2], exp_dm=1, side_size=5, out_of_action=1)
    assert (stand.tn, stand.total, stand.passed) == (4, 4, True)
    broken = morale_test([3, 2], exp_dm=0, side_size=5, out_of_action=1)
    assert broken.passed is False
    fumbled = morale_test([1, 1], exp_dm=5, side_size=5, out_of_action=1)
    assert (fumbled.fumble, fumbled.passed) == (True, False)
    with pytest.raises(CombatRefused):
        morale_test([3], exp_dm=0, side_size=5, out_of_action=1)
