"""Improvement points: what a purchase costs, the character it makes, and what it breaks."""

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import (
    AddPerk,
    AddSpecialty,
    BuyOffFlaw,
    BuyOffPackageFlaw,
    ImprovementError,
    RaiseAttribute,
    RaisePerk,
    RaiseSkill,
    SkillEntry,
    TraitEntry,
    apply_improvement,
    catalog,
    check,
    check_improvement,
    creation_points_added,
    improvement_cost,
    parse_document,
)

from .builders import document


def character(**changes):
    return parse_document(document(**changes))


PILOT_FIELDS = {
    "terms": 1,
    "skills": [
        {"skill": "Pilot", "level": 2},
        {"skill": "Vacc Suit", "level": 0},
        {"skill": "Medical", "level": 1},
    ],
    "traits": [
        {"type": "PP", "level": "C", "frequency": "S", "name": "Exceptional hearing"},
        {"type": "PF", "level": "H", "frequency": "R", "name": "Owes a debt"},
    ],
}
PILOT = character(**PILOT_FIELDS)


def cost(purchase, who=PILOT):
    return improvement_cost(who, purchase)


def problems(purchase, who=PILOT, **options):
    return [p.code for p in check_improvement(who, purchase, **options)[1]]


# -- skills ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("purchase", "ip"),
    [
        (RaiseSkill("Pilot", None, 3), 15),  # new level 3 x 5
        (RaiseSkill("Vacc Suit", None, 1), 5),
        (RaiseSkill("Vacc Suit", None, 3), 5 + 10 + 15),  # every level gained is paid for
        (RaiseSkill("Navigation", None, 1), 5),
        (RaiseSkill("Navigation", None, 2), 5 + 10),
        (RaiseSkill("pilot", None, 3), 15),  # names are matched without regard to case
    ],
)
def test_each_skill_level_gained_costs_the_new_level_times_five(purchase, ip):
    assert cost(purchase) == ip


@given(st.integers(min_value=3, max_value=10**12))
def test_the_price_of_any_raise_is_the_sum_of_its_new_levels_times_five(to_level):
    # Pilot-2: levels 3..to_level, worked out at once however high the typed level.
    assert cost(RaiseSkill("Pilot", None, to_level)) == 5 * (3 + to_level) * (to_level - 2) // 2


def test_an_automatic_skill_is_raised_from_its_automatic_level():
    scholar = character(attributes={"EDU": 10}, native_culture="Imperial society")
    # Knowledge (native culture) comes at INT DV 3.
    assert cost(RaiseSkill("Knowledge", "Imperial society", 4), scholar) == 20
    raised = apply_improvement(scholar, RaiseSkill("Knowledge", "Imperial society", 4))
    assert raised.skills[-1].level == 4
    assert check(raised).points.skills == 1


@pytest.mark.parametrize(
    ("who", "purchase", "written"),
    [
        (character(homeworld="Regina"), RaiseSkill("area knowledge", "REGINA", 4), "Regina"),
        (character(species="vargr"), RaiseSkill("Language", "anglic", 4), "Anglic"),
        (
            character(species="vargr"),
            RaiseSkill("Knowledge", " vargr  SOCIETY", 4),
            "Vargr society",
        ),
    ],
)
def test_a_skill_had_without_buying_is_raised_under_the_name_the_sheet_gives_it(
    who, purchase, written
):
    raised = apply_improvement(who, purchase)
    assert (raised.skills[-1].skill, raised.skills[-1].cascade) == (purchase.skill.title(), written)
    assert f"{purchase.skill.title()} ({written})-4" in [
        line.name for line in check(raised).skills.lines
    ]


def test_a_raise_must_go_higher_than_the_level_the_character_has():
    with pytest.raises(ImprovementError, match="no raise"):
        cost(RaiseSkill("Pilot", None, 2))


def test_a_new_level_zero_skill_costs_what_the_referee_sets():
    assert cost(RaiseSkill("Navigation", None, 0, ip=3)) == 3
    with pytest.raises(ImprovementError, match="the referee sets it"):
        cost(RaiseSkill("Navigation", None, 0))


def test_a_referee_cost_is_only_for_what_the_rulebook_does_not_price():
    with pytest.raises(ImprovementError, match="new level x 5"):
        cost(RaiseSkill("Pilot", None, 3, ip=1))


def test_raising_a_skill_changes_only_that_skill():
    raised = apply_improvement(PILOT, RaiseSkill("Pilot", None, 3))
    assert raised.skills[0].level == 3
    assert raised.skills[1:] == PILOT.skills[1:]
    assert PILOT.skills[0].level == 2
    assert raised == replace(PILOT, skills=(replace(PILOT.skills[0], level=3), *PILOT.skills[1:]))


def test_a_new_skill_is_added_under_its_catalog_name():
    learned = apply_improvement(PILOT, RaiseSkill("navigation", None, 1))
    assert learned.skills[-1].skill == "Navigation"


def test_a_new_skills_cascade_is_written_as_the_document_parser_writes_it():
    learned = apply_improvement(PILOT, RaiseSkill("blade combat", "sword", 1))
    assert learned.skills[-1] == SkillEntry("Blade Combat", 1, "swords")
    learned = apply_improvement(PILOT, RaiseSkill("Knowledge", "  jumpspace   theory ", 1))
    assert learned.skills[-1].cascade == "jumpspace theory"


def test_a_cascade_spelled_another_way_raises_the_skill_the_character_has():
    fencer = apply_improvement(PILOT, RaiseSkill("Blade Combat", "sword", 1))
    assert cost(RaiseSkill("Blade Combat", "SWORDS", 2), fencer) == 10
    raised = apply_improvement(fencer, RaiseSkill("Blade Combat", "Swords", 2))
    assert raised.skills[-1] == SkillEntry("Blade Combat", 2, "swords")
    assert len(raised.skills) == len(fencer.skills)
    with pytest.raises(ImprovementError, match="no raise"):
        cost(RaiseSkill("Blade Combat", "swords", 1), fencer)


def test_a_skill_above_the_maximum_level_is_a_problem_the_purchase_introduced():
    assert problems(RaiseSkill("Pilot", None, 4)) == ["skill_level_above_max"]


def test_surgery_above_medical_is_a_problem_the_purchase_introduced():
    assert problems(RaiseSkill("Surgery", None, 2)) == ["surgery_exceeds_medical"]


def test_an_unknown_skill_or_cascade_is_a_problem_the_purchase_introduced():
    assert problems(RaiseSkill("Basket Weaving", None, 1)) == ["unknown_skill"]
    assert problems(RaiseSkill("Blade Combat", "lasers", 1)) == ["unknown_cascade"]


def test_going_over_the_skill_total_is_a_problem_the_purchase_introduced():
    busy = character(
        attributes={"EDU": 4, "EXP": 4},
        skills=[
            {"skill": skill, "level": 2}
            for skill in ("Pilot", "Navigation", "Engineering", "Gunnery")
        ],
    )
    assert (check(busy).skills.total_used, check(busy).skills.total_allowed) == (8, 8)
    assert problems(RaiseSkill("Medical", None, 1), busy) == ["skill_total_exceeded"]
    assert problems(RaiseSkill("Medical", None, 0, ip=2), busy) == []


# -- specialties -------------------------------------------------------------------------------


def test_a_specialty_costs_five():
    assert cost(AddSpecialty("Pilot", "small craft")) == 5
    added = apply_improvement(PILOT, AddSpecialty("Pilot", "small craft"))
    assert added.skills[0].specialties == ("small craft",)


def test_a_specialty_needs_the_skill_at_level_two():
    novice = character(skills=[{"skill": "Pilot", "level": 1}])
    assert problems(AddSpecialty("Pilot", "small craft"), novice) == ["specialty_requires_level_2"]
    assert problems(AddSpecialty("Pilot", "submarines")) == ["unknown_specialty"]


def test_a_specialty_needs_the_skill_and_is_bought_once():
    with pytest.raises(ImprovementError, match="no Navigation skill"):
        cost(AddSpecialty("Navigation", "jump"))
    flyer = apply_improvement(PILOT, AddSpecialty("Pilot", "small craft"))
    with pytest.raises(ImprovementError, match="already has"):
        cost(AddSpecialty("Pilot", "Small Craft"), flyer)


def test_a_specialty_is_named_as_the_document_parser_names_it():
    added = apply_improvement(PILOT, AddSpecialty("Pilot", "  Small   Craft "))
    assert added.skills[0].specialties == ("small craft",)


def test_a_specialty_the_skill_has_cannot_be_bought_again_under_another_spelling():
    gunner = character(skills=[{"skill": "Gunnery", "level": 2, "specialties": ["lasers"]}])
    assert gunner.skills[0].specialties == ("ship's lasers",)
    with pytest.raises(
        ImprovementError, match='Gunnery already has the specialty "ship\'s lasers"'
    ):
        cost(AddSpecialty("Gunnery", "lasers"), gunner)
    with pytest.raises(ImprovementError, match="already has"):
        apply_improvement(gunner, AddSpecialty("gunnery", "Ship's Laser"))


def test_a_specialty_needs_a_name():
    with pytest.raises(ImprovementError, match="Name the specialty"):
        cost(AddSpecialty("Pilot", "   "))


# -- traits ------------------------------------------------------------------------------------


def test_a_new_perk_costs_its_points():
    assert cost(AddPerk(TraitEntry("PP", "Lucky", "E", "S"))) == 5
    assert cost(AddPerk(TraitEntry("MP", "Ship", "G", "O"))) == 20
    assert cost(AddPerk(TraitEntry("PP", "Reflexes", derived=(("INI", 1),)))) == 5
    gained = apply_improvement(PILOT, AddPerk(TraitEntry("PP", "Lucky", "E", "S")))
    assert gained.traits[-1].name == "Lucky"


def test_a_flaw_is_not_bought_with_improvement_points():
    with pytest.raises(ImprovementError, match="not a perk"):
        cost(AddPerk(TraitEntry("PF", "Greedy", "I", "S")))


def test_a_perk_off_the_tables_costs_nothing_and_is_a_trait_problem():
    odd = AddPerk(TraitEntry("PP", "Odd", "X", "S"))
    assert check_improvement(PILOT, odd)[0] == 0
    assert problems(odd) == ["trait_invalid"]
    with pytest.raises(ImprovementError, match="not on the trait tables"):
        cost(odd)


def test_raising_a_perk_costs_the_difference_between_its_levels():
    assert cost(RaisePerk(0, "E")) == 5 - 2
    assert cost(RaisePerk(0, "G")) == 10 - 2
    assert apply_improvement(PILOT, RaisePerk(0, "G")).traits[0].level == "G"


def test_a_perk_raise_reads_its_level_as_a_document_reads_a_trait_level():
    assert cost(RaisePerk(0, " e ")) == 5 - 2
    assert apply_improvement(PILOT, RaisePerk(0, "g")).traits[0].level == "G"


def test_a_perk_raise_must_go_higher_and_must_be_a_perk_with_a_level():
    gifted = apply_improvement(PILOT, RaisePerk(0, "G"))
    with pytest.raises(ImprovementError, match="a raise goes higher"):
        cost(RaisePerk(0, "E"), gifted)
    with pytest.raises(ImprovementError, match="not a perk"):
        cost(RaisePerk(1, "G"))
    with pytest.raises(ImprovementError, match="no trait 5"):
        cost(RaisePerk(5, "G"))
    quick = apply_improvement(PILOT, AddPerk(TraitEntry("PP", "Reflexes", derived=(("INI", 1),))))
    with pytest.raises(ImprovementError, match="has no level"):
        cost(RaisePerk(2, "E"), quick)


def test_buying_off_a_flaw_costs_its_value_and_removes_it():
    assert cost(BuyOffFlaw(1)) == 2
    assert [t.name for t in apply_improvement(PILOT, BuyOffFlaw(1)).traits] == [
        "Exceptional hearing"
    ]
    with pytest.raises(ImprovementError, match="not a flaw"):
        cost(BuyOffFlaw(0))


def test_buying_off_a_flaw_does_not_reach_back_to_the_one_trait_per_term_rule():
    veteran = character(
        terms=1, traits=[{"type": "PF", "level": "H", "frequency": "R", "name": "Owes a debt"}]
    )
    assert problems(BuyOffFlaw(0), veteran) == []


def test_problems_of_later_traits_are_not_blamed_on_buying_off_an_earlier_flaw():
    messy = character(
        traits=[
            {"type": "PF", "level": "H", "frequency": "R", "name": "Owes a debt"},
            {"type": "PP", "level": "X", "frequency": "R", "name": "Odd"},
        ]
    )
    assert problems(BuyOffFlaw(0), messy) == []


# -- the species package's flaws ----------------------------------------------------------------

VARGR = character(species="vargr", attributes={"STR": 9, "END": 9})


def test_a_flaw_of_the_species_package_is_bought_off_at_its_value():
    purchase = BuyOffPackageFlaw("racial pride")
    assert cost(purchase, VARGR) == 2
    assert problems(purchase, VARGR) == []
    assert creation_points_added(VARGR, purchase) == 2
    proud_no_more = apply_improvement(VARGR, purchase)
    assert proud_no_more.package_flaws_bought_off == ("Racial pride",)
    report = check(proud_no_more)
    assert "Racial pride" not in [line.name for line in report.traits]
    assert report.points.package == check(VARGR).points.package + 2


def test_a_package_flaw_is_bought_off_once_and_only_if_the_package_has_it():
    once = apply_improvement(VARGR, BuyOffPackageFlaw("Racial pride"))
    with pytest.raises(ImprovementError, match="'Racial pride' of the Vargr package is already"):
        cost(BuyOffPackageFlaw("Racial pride"), once)
    with pytest.raises(ImprovementError, match="The Vargr package has no flaw 'Fur'"):
        cost(BuyOffPackageFlaw("Fur"), VARGR)  # a perk of the package, not a flaw
    with pytest.raises(ImprovementError, match="The Human package has no flaw 'Racial pride'"):
        cost(BuyOffPackageFlaw("Racial pride"))


# -- attributes --------------------------------------------------------------------------------


def test_an_attribute_raise_costs_what_the_referee_sets():
    assert cost(RaiseAttribute("STR", 8, ip=12)) == 12
    with pytest.raises(ImprovementError, match="the referee sets it"):
        cost(RaiseAttribute("STR", 8))
    with pytest.raises(ImprovementError, match="no raise"):
        cost(RaiseAttribute("STR", 7, ip=12))


def test_an_attribute_raise_sets_the_final_level_a_species_package_included():
    vargr = character(species="vargr", attributes={"STR": 9})
    stronger = apply_improvement(vargr, RaiseAttribute("STR", 8, ip=10))
    assert check(stronger).attribute("STR").level == 8
    assert check(stronger).attribute("STR").purchased == 10


def test_experience_raised_above_what_the_characters_age_allows_is_a_problem():
    young = character(age=34, terms=4, attributes={"EXP": 9})
    assert problems(RaiseAttribute("EXP", 10, ip=20), young) == ["age_below_minimum"]


def test_without_a_recorded_age_experience_is_still_limited_by_the_age_the_sheet_shows():
    ageless = character(terms=4, attributes={"EXP": 9})
    assert check(ageless).age == 34
    found = check_improvement(ageless, RaiseAttribute("EXP", 10, ip=20))[1]
    assert [(p.code, p.message) for p in found] == [
        (
            "age_below_minimum",
            "Age 34 is below the minimum 38 (18 + 4 x 5, the larger of EXP DV 5 and 4 terms).",
        )
    ]


def test_without_a_recorded_age_a_raise_that_keeps_the_minimum_age_is_no_age_problem():
    ageless = character(terms=4, attributes={"EXP": 8})
    assert problems(RaiseAttribute("EXP", 9, ip=20), ageless) == []
    assert problems(RaiseSkill("Pilot", None, 1), ageless) == []


# -- the budget --------------------------------------------------------------------------------


def test_a_budget_overrun_is_not_a_problem_of_a_purchase():
    spent = character(budget=check(PILOT).points.total, **PILOT_FIELDS)
    assert check(spent).valid
    assert problems(RaiseSkill("Pilot", None, 3), spent) == []
    assert "budget_exceeded" in [
        p.code for p in check(apply_improvement(spent, RaiseSkill("Pilot", None, 3))).problems
    ]


def test_raising_the_budget_by_the_creation_points_added_keeps_the_books_balanced():
    spent = character(budget=check(PILOT).points.total, **PILOT_FIELDS)
    for purchase in (
        RaiseSkill("Pilot", None, 3),
        BuyOffFlaw(1),
        AddSpecialty("Pilot", "fighters"),
    ):
        added = creation_points_added(spent, purchase)
        improved = apply_improvement(spent, purchase)
        balanced = check(replace(improved, budget=improved.budget + added))
        assert balanced.valid
        assert balanced.points.remaining == 0


def test_problems_the_character_already_had_are_not_the_purchases():
    odd = character(skills=[{"skill": "Basket Weaving", "level": 1}])
    assert problems(RaiseSkill("Pilot", None, 1), odd) == []


@pytest.mark.parametrize(
    "purchase",
    [
        BuyOffFlaw(0),
        RaiseAttribute("DEX", 8, ip=5),
        AddPerk(TraitEntry("PP", "Agile", derived=(("DEF", 1),))),
    ],
)
def test_a_flaw_already_past_the_floor_is_not_the_purchases_though_it_falls_less_far(purchase):
    # B lowers DEF 3 by 3 after A's 1 and is refused (ruling 15a); each purchase leaves it
    # refused with other figures in its message ("from 3 to 0"), and no purchase lowers DEF.
    frail = character(
        traits=[
            {"type": "PF", "name": "A", "derived": {"DEF": -1}},
            {"type": "PF", "name": "B", "derived": {"DEF": -3}},
        ]
    )
    assert problems(purchase, frail) == []


def test_a_skill_total_already_exceeded_is_the_purchases_only_if_it_is_exceeded_further():
    # 15 levels counted of EDU 7 + EXP 7: over by one before any purchase.
    over = character(
        skills=[{"skill": s, "level": 3} for s in ("Pilot", "Medical", "Navigation", "Gambling")]
        + [{"skill": "Brawling", "level": 3}]
    )
    assert [p.code for p in check(over).problems if p.severity == "error"] == [
        "skill_total_exceeded"
    ]
    further = apply_improvement(over, RaiseSkill("Stealth", None, 1))  # 16 counted
    assert problems(RaiseAttribute("EDU", 8, ip=5), over) == []  # 15 of 15 now
    assert problems(RaiseAttribute("EDU", 8, ip=5), further) == []  # over by one, not two
    assert problems(RaiseSkill("Vacc Suit", None, 1), over) == ["skill_total_exceeded"]


@pytest.mark.parametrize(
    ("fields", "better", "worse", "code"),
    [
        # Pilot-6 above maximum 4 (EDU DV 4): EDU 10 makes the maximum 5, Pilot-7 is further.
        (
            {"attributes": {"EDU": 9}, "skills": [{"skill": "Pilot", "level": 6}]},
            RaiseAttribute("EDU", 10, ip=5),
            RaiseSkill("Pilot", None, 7),
            "skill_level_above_max",
        ),
        # Former rank 6 above EXP DV 4: EXP 10 makes it 5; (nothing raises a rank with IP).
        (
            {"attributes": {"EXP": 9}, "service": "navy", "terms": 6, "rank": 6, "age": 60},
            RaiseAttribute("EXP", 10, ip=5),
            None,
            "rank_exceeds_exp_dv",
        ),
        # Pilot-0 with a specialty: Pilot-1 is nearer level 2, a second specialty further.
        (
            {"skills": [{"skill": "Pilot", "level": 0, "specialties": ["fighters"]}]},
            RaiseSkill("Pilot", None, 1),
            AddSpecialty("Pilot", "small craft"),
            "specialty_requires_level_2",
        ),
        # Surgery-3 over Medical-1: Medical-2 is nearer, Surgery-4 further.
        (
            {"skills": [{"skill": "Surgery", "level": 3}, {"skill": "Medical", "level": 1}]},
            RaiseSkill("Medical", None, 2),
            RaiseSkill("Surgery", None, 4),
            "surgery_exceeds_medical",
        ),
    ],
)
def test_a_cap_already_broken_is_the_purchases_only_if_it_is_broken_further(
    fields, better, worse, code
):
    broken = character(house_rules={"one_trait_per_term": False}, **fields)
    assert code in [p.code for p in check(broken).problems]
    assert code not in problems(better, broken)
    if worse is not None:
        assert code in problems(worse, broken)


# -- invariants --------------------------------------------------------------------------------

CAT = catalog()
PLAIN_SKILLS = [s.name for s in CAT.skills if not s.is_cascade]
PERKS = [
    TraitEntry(kind, "perk", level, frequency)
    for kind in CAT.perk_types
    for level in CAT.perk_levels
    for frequency in CAT.frequencies
]


@given(st.sampled_from(PLAIN_SKILLS), st.integers(1, 8))
def test_a_skill_purchase_always_costs_something(skill, to_level):
    current = next((s.level for s in PILOT.skills if s.skill == skill), -1)
    if to_level <= current:
        return
    price, _ = check_improvement(PILOT, RaiseSkill(skill, None, to_level))
    assert price >= 5 * to_level


@given(st.sampled_from(PERKS))
def test_a_perk_purchase_always_costs_something(perk):
    assert cost(AddPerk(perk)) > 0
