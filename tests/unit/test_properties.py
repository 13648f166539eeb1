"""Invariants of the engine over generated characters (hypothesis)."""

import re

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rules import (
    catalog,
    check_document,
    format_skill,
    format_trait,
    normalise_document,
    parse_skill,
    parse_trait,
)
from rules.notation import derived_trait_points
from tests.ci import examples

from .strategies import documents, skill_entries, trait_entries

CAT = catalog()
CODES = CAT.attribute_order


@settings(max_examples=examples(300), deadline=None)
@given(documents)
def test_the_total_is_the_sum_of_the_parts_and_remaining_is_what_is_left(doc):
    points = check_document(doc).points
    parts = (
        points.attributes,
        points.skills,
        points.perks,
        points.flaws,
        points.rank,
        points.psionics,
        points.package,
    )
    assert points.total == sum(parts)
    assert points.remaining == points.budget - points.total


@settings(max_examples=examples(300), deadline=None)
@given(documents)
def test_normalising_twice_gives_the_same_document_and_the_same_report(doc):
    once = normalise_document(doc)
    assert normalise_document(once) == once
    assert check_document(once) == check_document(doc)


@settings(max_examples=examples(200), deadline=None)
@given(documents, st.sampled_from(CODES), st.integers(1, 3))
def test_raising_an_attribute_never_lowers_a_derived_attribute(doc, code, raise_by):
    higher = dict(
        doc, attributes=dict(doc["attributes"], **{code: doc["attributes"][code] + raise_by})
    )
    before, after = check_document(doc), check_document(higher)
    # Ruling 15a: a flaw that would take a derived attribute below 1 changes nothing. A raise
    # can make room for it, and then it lowers what it names, as it should: the property
    # holds between characters whose flaws all count.
    refused = {p.code for p in (*before.problems, *after.problems)} & {"derived_below_floor"}
    assume(not refused)
    assert all(a >= b for a, b in zip(after.derived, before.derived, strict=True))


# Numbers each problem's message must carry, read from the report it belongs to.
NUMBERS = {
    "budget_exceeded": lambda r: [r.points.total, r.points.budget],
    "points_unspent": lambda r: [r.points.remaining, r.points.budget],
    "skill_level_above_max": lambda r: [r.skills.max_level],
    "skill_total_exceeded": lambda r: [r.skills.total_used, r.skills.total_allowed],
    "rank_out_of_range": lambda r: [r.rank.level],
    "rank_exceeds_terms": lambda r: [r.rank.level, r.terms],
    "rank_exceeds_exp_dv": lambda r: [r.rank.level, r.attribute("EXP").dv],
    "too_few_traits": lambda r: [r.terms],
    "age_below_minimum": lambda r: [r.age, r.age_minimum],
    "psi_strength_above_max": lambda r: [r.psionics.strength, r.psionics.max_strength],
    "terms_below_exp_dv": lambda r: [r.terms, r.attribute("EXP").dv],
    "too_many_mustering_rolls": lambda r: [r.mustering_out.rolls_allowed],
    "credits_overspent": lambda r: [f"{r.equipment.cost:,}"],
    "over_capacity": lambda r: [r.equipment.capacity_kg],
    # A load over the limit by less than a step of STR kg names no reduction.
    "encumbered": lambda r: [r.equipment.unencumbered_kg, r.equipment.encumbrance_penalty or ""],
}


@settings(max_examples=examples(300), deadline=None)
@given(documents)
def test_every_problem_message_is_a_sentence_that_names_its_numbers(doc):
    result = check_document(doc)
    for problem in result.problems:
        assert problem.message[0].isupper() or problem.message[0].isdigit(), problem.message
        assert problem.message.endswith("."), problem.message
        assert (
            re.search(r"\d", problem.message)
            or problem.code.startswith("unknown")
            or problem.code
            in {
                "trait_invalid",
                "cascade_required",
                "specialty_not_allowed",
                "unknown_cascade",
                "psionics_not_allowed",
                "service_not_open",
                "mustering_without_service",
            }
        ), problem.message
        for number in NUMBERS.get(problem.code, lambda r: [])(result):
            assert str(number) in problem.message, (number, problem.message)


@given(skill_entries().filter(lambda e: e["level"] >= 0))
def test_skill_notation_round_trips(entry):
    text = format_skill(
        entry["skill"], entry["level"], entry.get("cascade"), tuple(entry.get("specialties", ()))
    )
    parsed = parse_skill(text)
    assert (parsed.skill, parsed.level, parsed.cascade, parsed.specialties) == (
        entry["skill"],
        entry["level"],
        entry.get("cascade"),
        tuple(entry.get("specialties", ())),
    )


@given(trait_entries(), st.booleans())
def test_trait_notation_round_trips_for_every_trait_on_the_tables(raw, control):
    from rules import TraitEntry

    if raw["type"] == "XP":
        return
    if "derived" in raw:
        trait = TraitEntry(raw["type"], "", derived=tuple(raw["derived"].items()))
        points = derived_trait_points(trait)
    else:
        frequency = "O" if raw["frequency"] == "0" else raw["frequency"]
        trait = TraitEntry(
            raw["type"],
            "",
            raw["level"],
            frequency,
            control=control and raw["type"] in CAT.flaw_types,
        )
        points = CAT.trait_points(trait.type, trait.level, trait.frequency)
    if points is None:
        return
    assert parse_trait(format_trait(trait, points)) == trait
