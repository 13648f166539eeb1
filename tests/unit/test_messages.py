"""Problem messages read as sentences: a count of one takes the singular, noun and verb alike."""

import pytest

from rules import (
    ImprovementError,
    RaisePerk,
    condition_for,
    improvement_cost,
    parse_document,
    take_damage,
)

from .builders import document, problem, report

ONE_PERK = [{"type": "PP", "name": "Lucky", "level": "C", "frequency": "R"}]


def test_one_term_without_a_trait_needs_one_trait():
    result = report(terms=1)
    assert problem(result, "too_few_traits").message == (
        "1 term of service needs at least 1 trait; the character has 0 "
        "(perks, flaws and former rank count)."
    )


def test_one_term_allows_one_mustering_out_roll():
    result = report(service="navy", terms=1, traits=ONE_PERK, mustering_out={"rolls": [1, 2]})
    assert problem(result, "too_many_mustering_rolls").message == (
        "2 mustering-out rolls are recorded, but 1 term allows 1 (the lesser of 3 and terms "
        "served)."
    )


def test_one_roll_without_a_service_is_recorded_and_has_no_table_to_be_read_on():
    result = report(mustering_out={"rolls": [4]})
    assert problem(result, "mustering_without_service").message == (
        "1 mustering-out roll is recorded, but the character has no service whose cash table "
        "it could be read on."
    )


def test_two_rolls_without_a_service_are_recorded():
    result = report(terms=2, traits=ONE_PERK * 2, mustering_out={"rolls": [4, 5]})
    assert problem(result, "mustering_without_service").message.startswith(
        "2 mustering-out rolls are recorded, but the character has no service whose cash table they"
    )


def test_one_specialty_below_level_two_needs_the_skill_at_level_two():
    result = report(skills=[{"skill": "Pilot", "level": 1, "specialties": ["fighters"]}])
    assert problem(result, "specialty_requires_level_2").message == (
        "Pilot-1 has 1 specialty, which needs Pilot at level 2 or more."
    )


def test_one_point_left_of_a_budget_is_unspent():
    result = report(kind="npc", budget=1)
    assert problem(result, "points_unspent").message == "1 of 1 point is unspent."
    result = report(kind="npc", budget=26, skills=[{"skill": "Stealth", "level": 1}])
    assert problem(result, "points_unspent").message == "25 of 26 points are unspent."


def test_points_given_back_past_spending_are_unspent_beyond_the_budget_and_say_so():
    # Attributes sold below 7 give back more than the rest costs: the total is -25.
    result = report(attributes={"STR": 2})
    assert result.points.total == -25
    assert problem(result, "points_unspent").message == (
        "125 points are unspent: the parts come to -25 against the budget of 100."
    )


def test_a_load_of_tons_is_written_to_the_gram_without_an_exponent():
    suits = [{"item": "Battle dress", "tl": 13, "quantity": 9999}] * 6
    result = report(equipment=[*suits, {"item": "Dagger"}])
    assert result.equipment.load_kg == 1_199_880.25
    assert problem(result, "over_capacity").message.startswith(
        "The load of 1199880.25 kg is above the carrying capacity of 225 kg"
    )
    assert problem(result, "encumbered").message.startswith(
        "The load of 1199880.25 kg is above 30 kg"
    )


def test_one_point_spent_on_no_budget_is_over_it_by_one():
    result = report(kind="npc", budget=0, skills=[{"skill": "Stealth", "level": 1}])
    assert problem(result, "budget_exceeded").message == (
        "1 point is spent, 1 more than the budget of 0."
    )


def test_one_point_of_stunning_damage_at_zero_lif_is_treated_as_lethal():
    knocked_out, _ = take_damage(condition_for(report()), amount=21, form="S")
    _, events = take_damage(knocked_out, amount=1, form="S")
    assert [e.message for e in events if e.code == "stun_as_lethal"] == [
        "LIF is at 0, so 1 point of stunning damage is treated as lethal."
    ]


def test_a_perk_raise_to_a_level_worth_one_point_says_one_point():
    edge = parse_document(document(traits=[{**ONE_PERK[0], "level": "E"}]))
    with pytest.raises(ImprovementError) as refused:
        improvement_cost(edge, RaisePerk(0, "C"))
    assert str(refused.value) == (
        "'Lucky' at level C is worth 1 point, no more than its 2 now; a raise goes higher."
    )


def test_one_skill_level_counted_over_a_total_of_none_is_one_level():
    # EDU and EXP of 0 are out of range, but their report still reads as sentences.
    result = report(attributes={"EDU": 0, "EXP": 0}, skills=[{"skill": "Pilot", "level": 1}])
    assert problem(result, "skill_total_exceeded").message == (
        "1 skill level is counted, above the total of 0 (EDU 0 + EXP 0)."
    )
