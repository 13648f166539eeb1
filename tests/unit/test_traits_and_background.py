"""Traits, former rank, psionics, age, budget and the house rule of one trait per term."""

import json

import pytest

from rules import catalog, normalise_document
from rules.catalog import DATA_DIR

from .builders import codes, document, problem, report


@pytest.mark.parametrize(
    ("trait_type", "level", "frequency", "points"),
    [
        ("PP", "C", "R", 1),
        ("PP", "C", "S", 2),
        ("MP", "C", "O", 5),
        ("HP", "E", "R", 2),
        ("PP", "E", "S", 5),
        ("PP", "E", "O", 10),
        ("PP", "G", "R", 5),
        ("PP", "G", "S", 10),
        ("PP", "G", "O", 20),
        ("PF", "I", "R", -1),
        ("MF", "I", "S", -2),
        ("HF", "I", "O", -5),
        ("PF", "H", "R", -2),
        ("PF", "H", "S", -5),
        ("PF", "H", "O", -10),
        ("PF", "P", "R", -5),
        ("PF", "P", "S", -10),
        ("PF", "P", "O", -20),
    ],
)
def test_perks_cost_and_flaws_give_back_by_level_and_frequency(
    trait_type, level, frequency, points
):
    result = report(
        traits=[{"type": trait_type, "level": level, "frequency": frequency, "name": "x"}]
    )
    assert result.traits[0].points == points
    assert (result.points.perks + result.points.flaws) == points


@pytest.mark.parametrize("zero", ["0", 0, 0.0])
def test_frequency_zero_is_read_as_often(zero):
    # 0.0 is the number 0, as a whole number written with a point is in every other field.
    result = report(
        traits=[{"type": "PP", "level": "E", "frequency": zero, "name": "Combat experience"}]
    )
    assert result.traits[0].notation == "[PP-E-O 10]"


def test_personal_flaws_show_their_control_score():
    result = report(
        traits=[
            {"type": "PF", "level": "P", "frequency": "S", "name": "Phobia"},
            {"type": "HF", "level": "H", "frequency": "R", "name": "Exiled"},
            {"type": "PF", "level": "H", "frequency": "S", "name": "Lame", "control": False},
        ]
    )
    assert [t.notation for t in result.traits] == ["[PF-P-S CS5 -10]", "[HF-H-R -2]", "[PF-H-S -5]"]
    assert [t.control_score for t in result.traits] == [5, None, None]


def test_derived_attribute_traits_change_the_sheet_at_their_price_per_point():
    result = report(
        traits=[
            {"type": "PP", "name": "Cybernetic reflexes", "derived": {"INI": 1}},
            {"type": "PP", "name": "Tough hide", "derived": {"LIF": 3, "WND": 1}},
            {"type": "PF", "name": "Bad leg", "derived": {"MOV": -2}},
        ]
    )
    assert (result.derived.INI, result.derived.LIF, result.derived.WND, result.derived.MOV) == (
        4,
        24,
        7,
        4,
    )
    assert (result.points.perks, result.points.flaws) == (5 + 6 + 3, -10)
    assert [t.notation for t in result.traits] == [
        "[PP INI+1 5]",
        "[PP LIF+3 WND+1 9]",
        "[PF MOV-2 -10]",
    ]


def test_a_flaw_may_lower_a_derived_attribute_down_to_one():
    result = report(traits=[{"type": "PF", "name": "Clumsy", "derived": {"DEF": -2}}])
    assert result.derived.DEF == 1
    assert result.points.flaws == -10
    assert result.valid


@pytest.mark.parametrize(
    ("code", "amount", "before"),
    [("DEF", -5, 3), ("LIF", -40, 21), ("WND", -6, 6), ("INI", -3, 3)],
)
def test_a_flaw_that_would_take_a_derived_attribute_below_one_is_an_error_credited_nothing(
    code, amount, before
):
    result = report(traits=[{"type": "PF", "name": "Frail", "derived": {code: amount}}])
    error = problem(result, "derived_below_floor")
    assert error.path == f"traits[0].derived.{code}"
    assert error.message == (
        f"Flaw 'Frail' lowers {code} by {-amount}, from {before} to {before + amount}; no flaw "
        "may take a derived attribute below 1, so it is not credited."
    )
    assert result.points.flaws == 0
    assert getattr(result.derived, code) == before
    assert (result.traits[0].notation, result.traits[0].valid) == ("[invalid]", False)


def test_the_audits_exploit_of_four_top_attributes_paid_with_impossible_flaws_is_not_valid():
    result = report(
        attributes={"DEX": 15, "INT": 15, "EDU": 15, "EXP": 15},
        terms=2,
        traits=[
            {"type": "PF", "name": "Slow", "derived": {"INI": -6, "DEF": -7}},
            {"type": "PF", "name": "Sickly", "derived": {"LIF": -40}},
        ],
    )
    assert codes(result) == [
        "budget_exceeded",
        "derived_below_floor",
        "derived_below_floor",
        "derived_below_floor",
    ]
    assert (result.points.flaws, result.points.total) == (0, 160)


def test_perks_raise_a_derived_attribute_before_flaws_are_weighed_against_the_floor():
    result = report(
        traits=[
            {"type": "PF", "name": "Bad knee", "derived": {"MOV": -7}},
            {"type": "PP", "name": "Long legs", "derived": {"MOV": 2}},
        ]
    )
    assert result.derived.MOV == 1
    assert (result.points.perks, result.points.flaws) == (10, -35)
    assert result.valid


def test_flaws_are_weighed_in_their_order_and_only_the_one_past_the_floor_is_refused():
    result = report(
        traits=[
            {"type": "PF", "name": "Stiff", "derived": {"DEF": -1}},
            {"type": "PF", "name": "Clumsy", "derived": {"DEF": -2}},
        ]
    )
    assert problem(result, "derived_below_floor").message.startswith(
        "Flaw 'Clumsy' lowers DEF by 2, from 2 to 0;"
    )
    assert (result.derived.DEF, result.points.flaws) == (2, -5)


@pytest.mark.parametrize(
    "trait",
    [
        {"type": "XP", "level": "C", "frequency": "R", "name": "odd type"},
        {"type": "PP", "level": "H", "frequency": "R", "name": "a flaw level on a perk"},
        {"type": "PF", "level": "I", "frequency": "W", "name": "weekly"},
        {"type": "PP", "name": "no level at all"},
        {"type": "PP", "name": "perk that lowers", "derived": {"DEF": -1}},
        {"type": "PP", "name": "unknown derived", "derived": {"STR": 1}},
        {"type": "PP", "level": "C", "frequency": "R", "name": "both", "derived": {"DEF": 1}},
    ],
)
def test_traits_off_the_tables_are_invalid_and_cost_nothing(trait):
    result = report(traits=[trait])
    assert codes(result) == ["trait_invalid"]
    assert result.points.perks == result.points.flaws == 0


def test_former_rank_costs_five_per_rank_and_is_a_trait_with_its_title():
    result = report(
        service="navy",
        terms=3,
        rank=2,
        attributes={"EXP": 9},
        traits=[
            {"type": "PP", "level": "C", "frequency": "R", "name": "a"},
            {"type": "PP", "level": "C", "frequency": "R", "name": "b"},
        ],
    )
    assert result.points.rank == 10
    assert result.rank.title == "Lieutenant"
    assert result.traits[-1].notation == "[Rank-2 10]"
    assert codes(result) == []


def test_former_rank_is_limited_by_terms_and_by_exp_dv():
    result = report(
        service="army",
        terms=1,
        rank=4,
        traits=[{"type": "PP", "level": "C", "frequency": "R", "name": "a"}],
    )
    assert codes(result) == ["rank_exceeds_exp_dv", "rank_exceeds_terms"]
    assert problem(result, "rank_exceeds_exp_dv").message == "Former rank 4 is above EXP DV 3."
    assert codes(report(service="army", rank=7)) == ["rank_out_of_range"]


def _ranked(service, rank):
    """A veteran of 6 terms with EXP DV 6, so that only the rank table can limit the rank."""
    return report(
        service=service,
        terms=6,
        rank=rank,
        attributes={"EXP": 12},
        house_rules={"one_trait_per_term": False},
    )


def test_former_rank_needs_a_service():
    result = _ranked(None, 2)
    assert codes(result) == ["rank_not_in_service"]
    assert problem(result, "rank_not_in_service").message == (
        "Former rank 2 is rank in a service, and the character has none."
    )
    assert codes(_ranked(None, 0)) == []


@pytest.mark.parametrize(
    ("service", "rank"), [(None, 7), ("scouts", 7), ("merchants", 9), ("navy", -1)]
)
def test_a_rank_outside_the_range_is_that_one_error_whatever_the_service(service, rank):
    assert codes(_ranked(service, rank)) == ["rank_out_of_range"]


@pytest.mark.parametrize("service", ["scouts", "other", "belter", "doctor", "rogue", "scientist"])
def test_services_without_a_rank_table_take_no_former_rank(service):
    result = _ranked(service, 3)
    name = catalog().services[service].name
    assert problem(result, "rank_not_in_service").message == (
        f"Former rank 3 is not possible: the {name} service has no ranks."
    )
    assert codes(_ranked(service, 0)) == []


@pytest.mark.parametrize(("service", "highest"), [("merchants", 5), ("pirate", 5), ("noble", 5)])
def test_former_rank_stops_at_the_top_of_the_services_rank_table(service, highest):
    assert codes(_ranked(service, highest)) == []
    result = _ranked(service, highest + 1)
    name = catalog().services[service].name
    assert problem(result, "rank_not_in_service").message == (
        f"Former rank {highest + 1} is above the {name} service's highest rank, {highest}."
    )


@pytest.mark.parametrize(
    ("written", "key"),
    [("Pirates", "pirate"), ("nobles", "noble"), ("Scout", "scouts"), ("MARINE", "marines")],
)
def test_a_service_is_found_in_the_singular_or_the_plural(written, key):
    # The rulings name "Merchants, Pirates and Nobles"; the catalog's keys are Book 1's plurals
    # and Supplement 4's singulars.
    result = _ranked(written, 6)
    assert result.service == key
    assert "unknown_service" not in codes(result)
    assert normalise_document(document(service=written))["service"] == key


def test_barbarians_hold_every_rank_to_six_though_only_two_carry_titles():
    assert [_ranked("barbarian", rank).valid for rank in range(1, 7)] == [True] * 6
    assert [_ranked("barbarian", rank).rank.title for rank in (1, 2, 5, 6)] == [
        None,
        "Warrior",
        "Chief",
        None,
    ]


def test_every_rank_table_runs_from_rank_one_to_its_highest_within_the_rulebooks_range():
    services = json.loads((DATA_DIR / "services.json").read_text())["services"]
    for key, raw in services.items():
        highest = catalog().services[key].highest_rank
        assert sorted(map(int, raw["ranks"])) == list(range(1, highest + 1))
        assert highest <= catalog().limits.rank_max


def test_a_package_flaw_bought_off_is_off_the_sheet_and_its_points_with_it():
    vargr = report(species="vargr", attributes={"STR": 9, "END": 9})
    freed = report(
        species="vargr",
        attributes={"STR": 9, "END": 9},
        package_flaws_bought_off=["Racial pride", "Thought untrustworthy"],
    )
    assert [t.name for t in vargr.traits if t.name not in [t.name for t in freed.traits]] == [
        "Racial pride",
        "Thought untrustworthy",
    ]
    assert freed.points.package == vargr.points.package + 2 + 2


def test_buying_off_a_flaw_the_package_does_not_have_is_an_error():
    result = report(package_flaws_bought_off=["Racial pride"])
    assert problem(result, "unknown_package_flaw").message == (
        "'Racial pride' is not a flaw of the Human package (its flaws: none)."
    )
    vargr = report(species="vargr", package_flaws_bought_off=["Fur"])
    assert problem(vargr, "unknown_package_flaw").path == "package_flaws_bought_off[0]"


def test_one_trait_per_term_counts_perks_flaws_and_rank_but_not_the_package():
    result = report(
        species="vargr",
        terms=2,
        traits=[{"type": "PP", "level": "C", "frequency": "R", "name": "a"}],
    )
    assert problem(result, "too_few_traits").message == (
        "2 terms of service need at least 2 traits; the character has 1 "
        "(perks, flaws and former rank count)."
    )
    relaxed = report(terms=2, house_rules={"one_trait_per_term": False})
    assert codes(relaxed) == []


@pytest.mark.parametrize(
    ("trait", "path", "message"),
    [
        (
            {"type": "PP", "name": "a"},
            "traits[0].level",
            "Trait 'a' (PP) gives no level; a perk takes level C, E or G and a frequency, "
            "or derived-attribute changes.",
        ),
        (
            {"type": "PF", "name": "a", "derived": {}},
            "traits[0].level",
            "Trait 'a' (PF) gives no level; a flaw takes level I, H or P and a frequency, "
            "or derived-attribute changes.",
        ),
        (
            {"type": "PP", "name": "a", "level": "C"},
            "traits[0].frequency",
            "Trait 'a' gives no frequency; use R (rare), S (seldom) or O (often).",
        ),
        (
            {"type": "PP", "name": "a", "level": "X", "frequency": "R"},
            "traits[0].level",
            "Trait 'a' (PP) has level 'X'; a perk takes level C, E or G.",
        ),
    ],
)
def test_a_trait_missing_its_level_or_frequency_is_told_so_in_words_not_none(trait, path, message):
    found = problem(report(traits=[trait]), "trait_invalid")
    assert (found.path, found.message) == (path, message)


def test_an_entry_with_its_own_error_still_counts_as_a_trait_so_one_fix_clears_both():
    # The trait off the tables, the flaw below the floor and the rank the Scouts do not hold
    # are each one error; a too_few_traits beside them would vanish with the same fix.
    result = report(
        service="scouts",
        terms=3,
        rank=1,
        traits=[
            {"type": "XX", "level": "C", "frequency": "R", "name": "typo"},
            {"type": "PF", "name": "Frail", "derived": {"LIF": -30}},
        ],
    )
    assert codes(result) == ["derived_below_floor", "rank_not_in_service", "trait_invalid"]


def test_psionics_cost_training_strength_and_talents_as_in_the_rulebooks_example():
    result = report(
        attributes={"EXP": 5}, budget=200, psionics={"strength": 7, "talents": {"Teleportation": 7}}
    )
    assert result.points.psionics == 25 + 70 + 10 + 35 == 140
    assert codes(result) == []


def test_psi_strength_is_at_most_twelve_minus_exp_dv():
    result = report(attributes={"EXP": 9}, psionics={"strength": 9, "talents": {}})
    assert problem(result, "psi_strength_above_max").message == (
        "PSI strength 9 is above the maximum 8 (12 - EXP DV 4, never above 15)."
    )


def test_a_psi_strength_above_fifteen_is_a_rule_error_not_a_malformed_document():
    result = report(
        attributes={"EXP": 1}, budget=400, psionics={"strength": 16, "talents": {"Telepathy": 16}}
    )
    assert codes(result) == ["psi_strength_above_max"]
    assert problem(result, "psi_strength_above_max").message == (
        "PSI strength 16 is above the maximum 11 (12 - EXP DV 1, never above 15)."
    )
    assert result.points.psionics == 25 + 160 + 10 + 80


def test_a_talent_above_fifteen_is_above_its_strength_not_a_malformed_document():
    result = report(attributes={"EXP": 1}, psionics={"strength": 11, "talents": {"Awareness": 16}})
    assert codes(result) == ["budget_exceeded", "talent_above_strength"]


def test_talents_are_limited_by_strength_and_to_the_five_known_ones():
    result = report(psionics={"strength": 2, "talents": {"telepathy": 3, "Precognition": 1}})
    assert codes(result) == ["talent_above_strength", "unknown_talent"]


def test_the_minimum_age_is_eighteen_plus_four_per_exp_dv_or_term():
    assert report().age_minimum == 18 + 4 * 3
    assert (
        report(
            terms=5,
            traits=[
                {"type": "PP", "level": "C", "frequency": "R", "name": str(n)} for n in range(5)
            ],
        ).age_minimum
        == 38
    )
    young = report(age=25)
    assert problem(young, "age_below_minimum").message.startswith("Age 25 is below the minimum 30")


def test_spending_over_the_budget_is_an_error_and_under_it_a_warning():
    over = report(attributes={"STR": 15, "DEX": 15, "END": 15})
    assert (
        problem(over, "budget_exceeded").message
        == "120 points are spent, 20 more than the budget of 100."
    )
    assert "points_unspent" in codes(report(), "warning")
    npc = report(kind="npc", budget=25, attributes={"INT": 12})
    assert codes(npc) == []
    assert npc.points.remaining == 0


def test_the_terms_below_exp_dv_warning_names_both_numbers():
    message = problem(
        report(
            attributes={"EXP": 11},
            terms=1,
            traits=[{"type": "PP", "level": "C", "frequency": "R", "name": "a"}],
        ),
        "terms_below_exp_dv",
    ).message
    assert message == "Only 1 term of service for EXP DV 5; EXP DV 5 usually reflects 5 terms."
