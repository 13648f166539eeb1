"""The round under T4 (initiative every round, surprise, the end of a round) and 2D6 (initiative
thrown once and changed by reactions, recoil, hastening, Tactics and delay)."""

import pytest

from rules import CombatRefused
from rules.combat.t4.condition import (
    Bleeding,
    T4Condition,
    medical_attention,
    recover_from_shock,
    recover_stun,
)
from rules.combat.t4.round import (
    DieThrow,
    SurpriseSide,
    avoids_contact,
    end_of_round,
    initiative_dms,
    order,
    surprise_dms,
    surprise_lost,
    throw_surprise,
)
from rules.combat.twod6 import initiative as twod6
from rules.combat.twod6.condition import TwoD6Condition, restore, state

from .systems_builders import AVERAGE, dm_of, sheet

# -- T4 ----------------------------------------------------------------------------------------


def test_t4_initiative_dms__leadership_tactics_dex_wound_draw_bulk():
    # Tactics (ground)-2 keeps 1 for initiative; DEX 11 is +2; a minor wound -1; the side's
    # best Leadership 2; a quick draw -3; a rifle in hand (bulk 1) -1.
    fighter = sheet(("Tactics", 2, "ground"), attributes={"DEX": 11})
    dms = initiative_dms(
        fighter,
        T4Condition(wound="minor"),
        side_leadership=2,
        tactics_kept=1,
        quick_draw=True,
        weapon_bulk=1,
    )
    assert sum(m.dm for m in dms) == 2 + 1 + 2 - 1 - 3 - 1
    assert dm_of(dms, "DEX 11") == 2


def test_t4_tactics_kept_cannot_exceed_the_level():
    dms = initiative_dms(
        sheet(("Tactics", 1, "ground")), T4Condition(), side_leadership=0, tactics_kept=3
    )
    assert dm_of(dms, "Tactics kept") == 1


def test_t4_dex_below_5_gives_no_initiative_dm_and_15_gives_3():
    assert initiative_dms(sheet(attributes={"DEX": 4}), T4Condition(), side_leadership=0) == ()
    assert (
        dm_of(
            initiative_dms(sheet(attributes={"DEX": 15}), T4Condition(), side_leadership=0), "DEX"
        )
        == 3
    )


def test_t4_ties_act_together__attacks_high_to_low_movement_low_to_high():
    throws = [DieThrow("a", 3, ()), DieThrow("b", 5, ()), DieThrow("c", 3, ())]
    assert order(throws, highest_first=True) == (("b",), ("a", "c"))
    assert order(throws, highest_first=False) == (("a", "c"), ("b",))


def test_t4_surprise_needs_a_lead_of_3__marines_in_battle_dress_against_a_crowd():
    marine = sheet(
        ("Leadership", 1), service="marines", terms=1, carrying=[{"item": "Battle dress", "tl": 13}]
    )
    crowd = SurpriseSide("crowd", tuple(AVERAGE for _ in range(8)))
    squad = SurpriseSide("squad", (marine,))
    # Squad: battle dress +2, Leadership +1, military +1 = +4; crowd: 8 people -1.
    assert sum(m.dm for m in surprise_dms(squad)) == 4
    assert sum(m.dm for m in surprise_dms(crowd)) == -1
    assert throw_surprise((squad, crowd), (2, 4)).side == "squad"  # 6 against 3
    assert throw_surprise((squad, crowd), (1, 4)).side is None  # 5 against 3: 2 ahead
    assert throw_surprise((crowd, squad), (6, 1)).side is None  # 5 against 5


def test_t4_surprise_is_lost_on_5_or_less_and_contact_avoided_on_3_plus_range_number():
    assert surprise_lost((2, 3))
    assert not surprise_lost((3, 3))
    assert avoids_contact("short", (2, 3))  # 3 + 2
    assert not avoids_contact("short", (3, 3))


def test_t4_end_of_round__bleeding_fatigue_and_stun():
    wounded = T4Condition(
        fatigue=2, stunned_rounds=1, bleeding=(Bleeding("Upper Torso", "Heart", 2),)
    )
    after, bled = end_of_round(AVERAGE, wounded, movement="running")
    assert bled == (("END", 2),)  # 2 points a round, to the characteristic with most left
    assert (after.fatigue, after.stunned_rounds) == (3, 0)
    rested, _ = end_of_round(AVERAGE, T4Condition(fatigue=2), movement="stationary")
    assert rested.fatigue == 1
    struck, _ = end_of_round(
        AVERAGE, T4Condition(fatigue=2), movement="walking", struck_full_strength=True
    )
    assert struck.fatigue == 2
    trotted, _ = end_of_round(AVERAGE, T4Condition(), movement="trotting", trotting_rounds=10)
    assert trotted.fatigue == 1


def test_t4_a_stun_taken_after_acting_takes_the_next_rounds_turn():
    stunned = T4Condition(stunned_rounds=1)
    after, _ = end_of_round(AVERAGE, stunned, movement="stationary", acted=True)
    assert after.stunned_rounds == 1


def test_t4_recovering_from_shock__the_0_to_1_and_the_others_halfway():
    # A minor wound: END 0 -> 1; STR 3 (of 7) -> 3 + ⌊4 ÷ 2⌋ = 5; DEX 7 stays.
    shocked = T4Condition(damage={"END": 7, "STR": 4}, wound="minor", unconscious=True)
    after = recover_from_shock(AVERAGE, shocked)
    assert (after.damage["END"], after.damage["STR"], after.unconscious) == (6, 2, False)
    assert after.wound == "minor"  # the wound stays until healed


def test_t4_an_hours_rest_gives_stun_back_and_medical_attention_stops_bleeding():
    stunned = T4Condition(stun={"END": 5}, bleeding=(Bleeding("Neck", "Throat", 1),))
    assert recover_stun(stunned, "END", 4).stun["END"] == 1
    assert recover_stun(stunned, "END", 6).stun["END"] == 0
    assert medical_attention(stunned).bleeding == ()


# -- 2D6 ---------------------------------------------------------------------------------------


def test_2d6_initiative_is_2d6_plus_dex_dm_or_12_when_prepared():
    quick = sheet(attributes={"DEX": 11})
    assert twod6.starting_initiative("q", quick, TwoD6Condition(), (3, 4)).current == 8  # 7 + 1
    assert (
        twod6.starting_initiative("q", quick, TwoD6Condition(), (3, 4), prepared=True).current == 13
    )


def test_2d6_a_change_applies_this_round_before_acting_and_the_next_round_after():
    start = twod6.Initiative("a", 7, 9)
    assert twod6.change(start, -2).current == 7
    acted = twod6.change(twod6.acted(start), -2)
    assert acted.current == 9
    assert twod6.next_round(acted).current == 7
    assert twod6.next_round(twod6.next_round(acted)).current == 9  # one round only


def test_2d6_hastening_is_plus_2_this_round_once_a_round():
    start = twod6.Initiative("a", 7, 9)
    hasty = twod6.hasten(start)
    assert hasty.current == 11
    with pytest.raises(CombatRefused):
        twod6.hasten(hasty)
    assert twod6.hasten(twod6.next_round(hasty)).current == 11


def test_2d6_order_is_highest_first_ties_by_dex_then_together():
    fighters = [
        twod6.Initiative("a", 7, 9),
        twod6.Initiative("b", 9, 9),
        twod6.Initiative("c", 7, 9),
        twod6.Initiative("d", 5, 12),
    ]
    assert twod6.order(fighters) == (("d",), ("b",), ("a", "c"))


def test_2d6_tactics_adds_its_effect_for_the_fight_and_a_failure_adds_nothing():
    # Tactics (ground)-2, INT 9 (DM +1): [4, 3] + 3 = 10, Effect 2.
    commander = sheet(("Tactics", 2, "ground"), attributes={"INT": 9})
    check = twod6.tactics_check(commander, (4, 3))
    assert (check.total, check.effect) == (10, 2)
    assert twod6.tactics_check(commander, (1, 1)).effect == 0
    boosted = twod6.lasting_boost(twod6.Initiative("a", 7, 9), check.effect)
    assert twod6.next_round(twod6.next_round(boosted)).current == 11


def test_2d6_leadership_is_governed_by_pre_and_unskilled_is_minus_3():
    check = twod6.leadership_check(sheet(attributes={"PRE": 12}), (5, 5))
    assert (check.total, check.effect) == (10 - 3 + 2, 1)


def test_2d6_a_delayed_fighter_acts_first_next_round():
    fighters = [twod6.Initiative("a", 7, 9), twod6.Initiative("b", 7, 12)]
    moved = twod6.act_first_next_round(fighters, ["a"])
    after = [twod6.next_round(i) for i in moved]
    assert twod6.order(after)[0] == ("a",)
    assert after[0].current == 13  # one above b's 12


def test_2d6_acting_later_sets_initiative_to_that_count():
    assert twod6.act_at(twod6.Initiative("a", 7, 11, lasting=1), 5).current == 5


def test_2d6_points_restored_wake_an_unconscious_character():
    out = TwoD6Condition({"STR": 7, "END": 7})
    assert state(AVERAGE, out) == "unconscious"
    assert state(AVERAGE, restore(out, "STR", 1)) == "conscious"  # reading 2D-10
