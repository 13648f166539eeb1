"""The engine's per-catalog tables are a shortcut: without them every report is the same.

Each test checks characters twice, once as usual and once with the ready-made parts taken
out of the tables so that every part is worked out, and compares the reports. The sweeps
cover each table's whole domain; the property covers characters in general.
"""

import copy
import dataclasses
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import (
    Character,
    EquipmentEntry,
    HouseRules,
    SkillEntry,
    catalog,
    check,
    engine,
    parse_document,
)

from .test_properties import CODES, documents

CAT = catalog()
AVERAGE = (CAT.limits.attribute_average,) * len(CAT.attribute_order)
HIGHEST = (CAT.limits.purchase_max,) * len(CAT.attribute_order)


def _general_paths_only() -> engine._Tables:
    """The engine's tables with every ready-made part taken out, so each part is worked out.

    The trait table stays: a trait on the tables has no other path (the general one is for
    traits off the tables), so it is not a shortcut.
    """
    tables = copy.copy(engine._tables(CAT))
    tables.attribute_values = {
        key: tuple({} for _ in by_position) for key, by_position in tables.attribute_values.items()
    }
    tables.bought_skill_lines = {}
    tables.specialty_skill_lines = {}
    tables.granted_skill_lines = {}
    tables.ranks = {key: {} for key in tables.ranks}
    tables.equipment_by_name = {}
    tables.cash_rolls = {key: {} for key in tables.cash_rolls}
    return tables


GENERAL = _general_paths_only()


def assert_same_both_ways(character: Character, house_rules: HouseRules | None = None) -> None:
    with mock.patch.object(engine, "_tables", return_value=GENERAL):
        worked_out = check(character, house_rules=house_rules)
    report = check(character, house_rules=house_rules)
    assert report == worked_out
    assert repr(report) == repr(worked_out)  # the same NamedTuple types throughout


def character(**changes) -> Character:
    base = Character(name="Table", attributes=AVERAGE, homeworld="Regina")
    return dataclasses.replace(base, **changes)


@pytest.mark.parametrize("species", list(CAT.species))
@pytest.mark.parametrize("kind", ["pc", "npc"])
def test_every_attribute_level_in_and_out_of_range(species, kind):
    for position in range(len(AVERAGE)):
        for level in range(-1, CAT.limits.npc_soc_max + 3):
            attributes = (*AVERAGE[:position], level, *AVERAGE[position + 1 :])
            assert_same_both_ways(character(species=species, kind=kind, attributes=attributes))


@pytest.mark.parametrize("species", list(CAT.species))
def test_every_skill_without_cascade_at_every_level(species):
    plain = [skill.name for skill in CAT.skills if skill.kind != "cascade"]
    for level in range(-1, max(dv for _dm, dv, _digit in CAT.level_rows) + 3):
        skills = tuple(SkillEntry(name, level) for name in plain)
        # High EDU and EXP raise the skill maximum and the automatic skills' levels.
        for attributes in (AVERAGE, HIGHEST):
            assert_same_both_ways(character(species=species, skills=skills, attributes=attributes))


def test_every_skill_with_one_or_two_specialties_at_every_level():
    for skill in CAT.skills:
        names = [specialty.name for specialty in skill.specialties] or ["Vacc suit"]
        for level in range(-1, max(dv for _dm, dv, _digit in CAT.level_rows) + 3):
            for specialties in [(name,) for name in names] + [tuple(names[:2])]:
                entry = SkillEntry(skill.name, level, None, specialties)
                assert_same_both_ways(character(skills=(entry,), attributes=HIGHEST))


@pytest.mark.parametrize("species", list(CAT.species))
def test_skills_had_without_buying_with_and_without_a_chosen_language_and_culture(species):
    for language, culture in ((None, None), ("Gvegh", "Vargr society"), ("Anglic", None)):
        for level in range(1, CAT.limits.purchase_max + 1):
            assert_same_both_ways(
                character(
                    species=species,
                    attributes=(level,) * len(AVERAGE),
                    native_language=language,
                    native_culture=culture,
                    skills=(SkillEntry("Language", 2, "Anglic"),),
                )
            )


def test_every_former_rank_in_every_service_and_none():
    for service in (*CAT.services, None, "unknown"):
        for rank in range(-1, CAT.limits.rank_max + 2):
            assert_same_both_ways(character(service=service, rank=rank, terms=4))


def test_every_cash_roll_of_every_service_at_every_modifier():
    gambling = (SkillEntry("Gambling", CAT.limits.gambling_min_level),)
    for service in (*CAT.services, None):
        for skills in ((), gambling):
            for terms in (1, CAT.limits.retirement_terms):
                for die in range(CAT.limits.die_min - 1, CAT.limits.die_max + 2):
                    rolls = character(service=service, terms=terms, skills=skills)
                    assert_same_both_ways(dataclasses.replace(rolls, mustering_rolls=(die, die)))


def test_every_item_by_name_with_and_without_its_tech_level():
    for item in CAT.equipment:
        for entry in (
            EquipmentEntry(item.name),
            EquipmentEntry(item.name, quantity=3),
            EquipmentEntry(item.name, tl=item.tl),
            EquipmentEntry(item.name.upper(), tl=item.tl),
            EquipmentEntry(item.name, tl=99),
        ):
            assert_same_both_ways(character(equipment=(entry,), attributes=HIGHEST))
    many = tuple(EquipmentEntry(item.name, tl=item.tl) for item in CAT.equipment[:5])
    assert_same_both_ways(character(equipment=many))


# Attributes off the purchasable range too, where the tables have no entry.
any_attributes = st.fixed_dictionaries({code: st.integers(-1, 20) for code in CODES})
characters = st.one_of(
    documents, st.builds(lambda doc, a: dict(doc, attributes=a), documents, any_attributes)
).map(parse_document)


@settings(max_examples=300, deadline=None)
@given(
    characters,
    st.sampled_from(list(CAT.species)),
    st.none() | st.builds(HouseRules, max_former_rank=st.none() | st.integers(0, 6)),
)
def test_a_report_is_the_same_when_every_part_is_worked_out(generated, species, house_rules):
    assert_same_both_ways(dataclasses.replace(generated, species=species), house_rules)
