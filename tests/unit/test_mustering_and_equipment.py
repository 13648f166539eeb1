"""Mustering-out cash, the roll function, equipment, credits and encumbrance."""

import random

import pytest

from rules import MusteringOutError, catalog, parse_document, roll_mustering_out

from .builders import codes, document, problem, report

TRAITS = [{"type": "PP", "level": "C", "frequency": "R", "name": str(n)} for n in range(6)]


def test_every_service_has_a_seven_row_cash_table():
    services = catalog().services
    assert len(services) == 18
    assert all(len(s.cash) == 7 for s in services.values())
    assert services["scouts"].cash[0] == 20_000
    assert services["noble"].cash[6] == 200_000


def test_rolls_allowed_are_the_lesser_of_three_and_terms():
    assert report(terms=2, traits=TRAITS[:2]).mustering_out.rolls_allowed == 2
    assert report(terms=5, traits=TRAITS[:5]).mustering_out.rolls_allowed == 3


def test_gambling_adds_one_and_rolls_read_at_most_row_seven():
    result = report(
        service="other",
        terms=2,
        traits=TRAITS[:2],
        mustering_out={"rolls": [6, 1]},
        skills=[{"skill": "Gambling", "level": 1}],
    )
    assert [(r.die, r.modifier, r.row, r.credits) for r in result.mustering_out.rolls] == [
        (6, 1, 7, 100_000),
        (1, 1, 2, 5_000),
    ]
    assert result.mustering_out.credits == 105_000


def test_retired_characters_of_supplement_four_services_get_one_not_cumulative():
    retired = {"terms": 5, "traits": TRAITS[:5], "attributes": {"EXP": 11}}
    doctor = report(
        service="doctor",
        mustering_out={"rolls": [1]},
        skills=[{"skill": "Gambling", "level": 1}],
        **retired,
    )
    assert doctor.mustering_out.rolls[0].row == 2
    barbarian = report(service="barbarian", mustering_out={"rolls": [1]}, **retired)
    assert barbarian.mustering_out.rolls[0].row == 1
    navy = report(service="navy", mustering_out={"rolls": [1]}, **retired)
    assert navy.mustering_out.rolls[0].row == 1


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        (
            {"terms": 1, "traits": TRAITS[:1], "mustering_out": {"rolls": [3]}},
            "mustering_without_service",
        ),
        (
            {
                "service": "army",
                "terms": 1,
                "traits": TRAITS[:1],
                "mustering_out": {"rolls": [3, 4]},
            },
            "too_many_mustering_rolls",
        ),
        (
            {"service": "army", "terms": 1, "traits": TRAITS[:1], "mustering_out": {"rolls": [7]}},
            "invalid_roll",
        ),
        ({"service": "spacers"}, "unknown_service"),
    ],
)
def test_mustering_out_problems(changes, code):
    assert code in codes(report(**changes))


def test_the_roll_function_uses_the_given_random_source_and_rolls_once():
    character = parse_document(document(service="merchants", terms=4, traits=TRAITS[:4]))
    first = roll_mustering_out(character, random.Random(7))
    assert first == roll_mustering_out(character, random.Random(7))
    assert len(first) == 3
    assert all(
        1 <= r.die <= 6 and r.credits == catalog().services["merchants"].cash[r.row - 1]
        for r in first
    )
    rolled = parse_document(
        document(
            service="merchants",
            terms=4,
            traits=TRAITS[:4],
            mustering_out={"rolls": [r.die for r in first]},
        )
    )
    with pytest.raises(MusteringOutError):
        roll_mustering_out(rolled, random.Random(7))


def test_equipment_is_bought_from_the_cash_and_weighed():
    result = report(
        service="navy",
        terms=1,
        traits=TRAITS[:1],
        mustering_out={"rolls": [4]},
        equipment=[{"item": "automatic pistol", "quantity": 2}, {"item": "Jack"}],
    )
    equipment = result.equipment
    assert (equipment.cost, equipment.credits_remaining) == (450, 10_000 - 450)
    assert equipment.load_kg == 2.5
    assert (equipment.unencumbered_kg, equipment.capacity_kg) == (14, 49)


def test_names_at_several_tech_levels_need_the_tech_level():
    result = report(equipment=[{"item": "Laser rifle"}])
    assert codes(result) == ["ambiguous_equipment"]
    assert "TL 9, 13" in problem(result, "ambiguous_equipment").message
    chosen = report(equipment=[{"item": "Laser rifle", "tl": 13}])
    assert chosen.equipment.cost == 8000
    assert codes(report(equipment=[{"item": "Laser rifle", "tl": 10}])) == ["unknown_equipment"]


@pytest.mark.parametrize(
    ("written", "item"),
    [
        ("Alblat", "Ablat"),  # as the rulebook's table prints it
        ("cloth", "Cloth (ballistic cloth)"),
        ("Ballistic cloth", "Cloth (ballistic cloth)"),
        ("staff", "Staff/cudgel"),
        ("Cudgel", "Staff/cudgel"),
    ],
)
def test_an_item_is_found_by_the_other_names_its_row_gives_it(written, item):
    result = report(equipment=[{"item": written}])
    assert [line.item for line in result.equipment.lines] == [item]
    assert "unknown_equipment" not in codes(result)


def test_a_natural_weapon_is_not_bought_and_the_message_does_not_deny_its_table():
    result = report(equipment=[{"item": "claws"}])
    assert codes(result) == ["unknown_equipment"]
    assert problem(result, "unknown_equipment").message == (
        "Claws is a natural weapon, part of a body, and is not bought."
    )


def test_the_catalog_finds_an_item_by_name_and_needs_the_tl_only_when_names_repeat():
    cat = catalog()
    assert cat.equipment_item("laser rifle") is None  # TL 9 and TL 13
    assert cat.equipment_item("Laser rifle", 13).cost == 8000
    assert cat.equipment_item("Laser rifle", 10) is None
    assert cat.equipment_item("dagger") == cat.equipment_named("Dagger")[0]
    assert cat.equipment_item("Antimatter hairbrush") is None


def test_buying_more_than_the_credits_is_an_error():
    result = report(equipment=[{"item": "Dagger"}])
    assert problem(result, "credits_overspent").message == (
        "Equipment costs Cr10, Cr10 more than the Cr0 from mustering out."
    )


def test_each_full_multiple_of_str_beyond_twice_str_lowers_def_ini_and_mov():
    # STR 7: 14 kg free; vacc suits of 10 kg (TL 8) and 8 kg (TL 9) + 4 kg of clothing = 22 kg.
    result = report(
        kind="npc",
        budget=1000,
        service="scouts",
        terms=1,
        traits=TRAITS[:1],
        mustering_out={"rolls": [6]},
        equipment=[
            {"item": "Vacc suit", "tl": 8},
            {"item": "Cold weather clothing"},
            {"item": "Vacc suit", "tl": 9},
        ],
    )
    equipment = result.equipment
    assert equipment.load_kg == 22
    assert equipment.encumbrance_penalty == 1
    assert codes(result, "warning") == ["encumbered", "points_unspent", "terms_below_exp_dv"]
    assert (equipment.encumbered_derived.DEF, equipment.encumbered_derived.MOV) == (2, 5)
    assert result.derived.DEF == 3


def test_one_roll_too_many_is_counted_in_the_singular():
    result = report(service="army", mustering_out={"rolls": [3]})
    assert problem(result, "too_many_mustering_rolls").message == (
        "1 mustering-out roll is recorded, but 0 terms allow 0 (the lesser of 3 and terms served)."
    )


def test_a_load_above_the_limit_by_less_than_a_step_says_nothing_is_reduced_yet():
    # A TL 8 vacc suit (10 kg) against 2 x STR 4 = 8 kg: over, but not by a full 4 kg.
    result = report(attributes={"STR": 4}, equipment=[{"item": "Vacc suit", "tl": 8}])
    assert (result.equipment.load_kg, result.equipment.encumbrance_penalty) == (10, 0)
    assert problem(result, "encumbered").message == (
        "The load of 10 kg is above 8 kg (2 x STR 4), by less than 4 kg, so DEF, INI and "
        "MOV are not reduced yet."
    )
    assert "reduced by 0" not in problem(result, "encumbered").message


def test_a_load_above_str_squared_is_over_capacity():
    result = report(
        kind="npc", budget=1000, attributes={"STR": 3}, equipment=[{"item": "Vacc suit", "tl": 8}]
    )
    assert "over_capacity" in codes(result)
    assert result.equipment.over_capacity
    assert result.equipment.as_dict()["over_capacity"] is True
    assert not report(equipment=[{"item": "Vacc suit", "tl": 8}]).equipment.over_capacity


# -- an NPC's credits, given rather than rolled ----------------------------------------------


def test_an_npc_s_credits_are_given_and_its_belongings_bought_from_them():
    result = report(
        kind="npc",
        mustering_out={"credits": 800},
        equipment=[{"item": "Cutlass"}, {"item": "Revolver"}],
    )

    assert (result.mustering_out.credits, result.mustering_out.rolls) == (800, ())
    assert (result.equipment.cost, result.equipment.credits_remaining) == (250, 550)
    assert result.valid


def test_an_npc_given_too_few_credits_for_its_belongings_has_overspent_them():
    result = report(kind="npc", mustering_out={"credits": 5}, equipment=[{"item": "Dagger"}])

    assert problem(result, "credits_overspent").message == (
        "Equipment costs Cr10, Cr5 more than the Cr5 from mustering out."
    )


def test_a_player_character_s_credits_are_rolled_not_given():
    result = report(mustering_out={"credits": 800})

    assert problem(result, "credits_given_to_pc").message == (
        "Cr800 of credits are given, but a player character rolls for its mustering-out "
        "cash: only an NPC's credits are given."
    )
    assert problem(result, "credits_given_to_pc").path == "mustering_out.credits"
    assert result.mustering_out.credits == 0
