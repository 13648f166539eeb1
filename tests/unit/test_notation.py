"""The rulebook's notation for skills and traits, read and written."""

import pytest

from rules import (
    NotationError,
    SkillEntry,
    TraitEntry,
    format_skill,
    format_trait,
    parse_skill,
    parse_trait,
)


@pytest.mark.parametrize(
    ("text", "entry"),
    [
        ("Pilot-2 (small craft)", SkillEntry("Pilot", 2, None, ("small craft",))),
        ("Blade Combat (swords)-1", SkillEntry("Blade Combat", 1, "swords")),
        ("Vacc Suit-0", SkillEntry("Vacc Suit", 0)),
        (
            "Gunnery-3 (ship's lasers, screens)",
            SkillEntry("Gunnery", 3, None, ("ship's lasers", "screens")),
        ),
        ("Area Knowledge (Regina)-4", SkillEntry("Area Knowledge", 4, "Regina")),
    ],
)
def test_skill_notation_reads_and_writes_the_same(text, entry):
    assert parse_skill(text) == entry
    assert format_skill(entry.skill, entry.level, entry.cascade, entry.specialties) == text


def test_text_that_is_not_skill_notation_is_refused_with_an_example():
    with pytest.raises(NotationError, match="Pilot-2 \\(small craft\\)"):
        parse_skill("Pilot two")


@pytest.mark.parametrize(
    ("text", "trait", "points"),
    [
        ("[PP-C-S 2]", TraitEntry("PP", "", "C", "S"), 2),
        ("[PF-H-R CS4 -2]", TraitEntry("PF", "", "H", "R", control=True), -2),
        ("[PF-H-S -5]", TraitEntry("PF", "", "H", "S"), -5),
        ("[HF-H-R -2]", TraitEntry("HF", "", "H", "R"), -2),
        ("[MP-G-O 20]", TraitEntry("MP", "", "G", "O"), 20),
        ("[PP INI+1 5]", TraitEntry("PP", "", derived=(("INI", 1),)), 5),
        ("[PF DEF-1 MOV-1 -10]", TraitEntry("PF", "", derived=(("DEF", -1), ("MOV", -1))), -10),
    ],
)
def test_trait_notation_reads_and_writes_the_same(text, trait, points):
    assert parse_trait(text) == trait
    assert format_trait(trait, points) == text


def test_trait_notation_reads_zero_as_often_and_accepts_the_rulebooks_italics():
    assert parse_trait("*[PP-E-0 10]*").frequency == "O"
    assert parse_trait("pp-e-o 10").type == "PP"


def test_trait_notation_typed_in_lower_case_reads_its_control_score_too():
    assert parse_trait("[pf-h-r cs4 -2]") == TraitEntry("PF", "", "H", "R", control=True)


def test_a_description_written_before_the_brackets_names_the_trait_as_the_rulebook_lists_it():
    assert parse_trait("Loud  voice [PF-I-S -2]") == TraitEntry("PF", "Loud voice", "I", "S")
    assert parse_trait("Quick [PP INI+1 5]").name == "Quick"
    assert parse_trait("Loud [PF-I-S -2]", "Booming").name == "Booming"


def test_a_description_does_not_excuse_a_notation_the_tables_refuse():
    with pytest.raises(NotationError, match="written as 3 points, but the tables give -2"):
        parse_trait("Loud [PF-I-S 3]")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("[PP-E-O 5]", "written as 5 points, but the tables give 10"),
        ("[PP-C-S 1]", "written as 1 point, but the tables give 2"),
        ("[PF-H-R CS5 -2]", "control score 5, but a level H flaw has control score 4"),
        ("[PP-H-R 2]", "does not fit the trait tables"),
        ("[PP DEF-1 -5]", "does not fit the derived-attribute table"),
        ("[PF DEF-1 def-1 -10]", "changes DEF twice; give each attribute once"),
        ("a perk", "not a trait in the rulebook's notation"),
    ],
)
def test_trait_notation_that_disagrees_with_the_tables_is_refused(text, reason):
    with pytest.raises(NotationError, match=reason):
        parse_trait(text)


LONG = "9" * 5000


@pytest.mark.parametrize(
    ("read", "text"),
    [
        (parse_skill, f"Pilot-{LONG}"),
        (parse_trait, f"[PP-C-S {LONG}]"),
        (parse_trait, f"[PF-H-R CS{LONG} -2]"),
        (parse_trait, f"[PF DEF-{LONG} -5]"),
        (parse_trait, f"[PF DEF-{'9' * 4300} -5]"),
        (parse_trait, f"[PP INI+1 {'9' * 17}]"),
    ],
)
def test_a_number_too_long_for_any_figure_is_refused_as_notation_in_a_short_message(read, text):
    with pytest.raises(NotationError) as refused:
        read(text)
    assert "digits" in str(refused.value)
    assert len(str(refused.value)) < 200
