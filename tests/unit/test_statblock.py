"""Reading a stat block back: export, paste, export gives the same block; what cannot be read
is named line by line; no text makes the parser raise."""

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from rules import check, check_document, parse_document
from rules.statblock import parse_stat_block, stat_block
from tests.ci import examples

from .builders import document
from .strategies import documents

ROOT = Path(__file__).resolve().parents[2]
DEMO = sorted((ROOT / "fixtures" / "demo").glob("*.json"))
EXAMPLES = sorted(
    p
    for p in (ROOT / "tests" / "fixtures" / "examples").glob("*.json")
    if not p.name.endswith(".expected.json")
)


def block_of(doc) -> str:
    character = parse_document(doc)
    return stat_block(character, check(character))


def reasons(parsed) -> str:
    return "\n".join(f"{u.line_no}: {u.reason}" for u in parsed.unread)


def test_the_demo_characters_and_worked_examples_are_found():
    assert len(DEMO) >= 3
    assert len(EXAMPLES) >= 4


@pytest.mark.parametrize("path", [*DEMO, *EXAMPLES], ids=lambda p: p.stem)
def test_a_stat_block_pasted_back_gives_the_same_stat_block(path):
    block = block_of(json.loads(path.read_text()))

    parsed = parse_stat_block(block)

    assert parsed.unread == ()
    assert block_of(parsed.document) == block


def test_a_block_whose_upp_marks_a_level_no_digit_writes_names_that_upp():
    block = block_of(document(species="vargr", attributes={"STR": 1}))
    assert "  ?95-777-777  " in block

    parsed = parse_stat_block(block)

    assert reasons(parsed).startswith(
        "2: ?95-777-777 is not a UPP: each attribute is one hex digit"
    )


@pytest.mark.parametrize("path", [*DEMO, *EXAMPLES], ids=lambda p: p.stem)
def test_a_pasted_character_keeps_what_the_rules_make_of_it(path):
    original = check_document(json.loads(path.read_text()))

    draft = check_document(parse_stat_block(block_of(json.loads(path.read_text()))).document)

    assert (draft.upp, draft.derived, draft.species, draft.service) == (
        original.upp,
        original.derived,
        original.species,
        original.service,
    )
    assert draft.points.total == original.points.total


def round_trips(doc) -> bool:
    """Whether a document's stat block says all the draft needs: a skill below level 0, a
    trait off the tables and an attribute below 0 are written so that they cannot be read
    back (they are named instead); a skill listed twice is read back twice, for the rules to
    name, but its two lines may merge with the automatic skill differently; an NPC is given
    no credits below Cr0."""
    character = parse_document(doc)
    block = stat_block(character, check(character))
    if character.kind == "npc" and check(character).equipment.credits_remaining < 0:
        return False
    skills = [(s.skill, (s.cascade or "").lower()) for s in character.skills]
    return (
        len(set(skills)) == len(skills)
        and "[invalid]" not in block
        and all(s.level >= 0 for s in character.skills)
        and all(a.level >= 0 for a in check(character).attributes)  # no UPP digit below 0
    )


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents)
def test_any_document_s_stat_block_pasted_back_gives_the_same_stat_block(doc):
    assume(round_trips(doc))
    block = block_of(doc)

    parsed = parse_stat_block(block, kind=doc.get("kind", "pc"))

    assert parsed.unread == (), reasons(parsed)
    assert block_of(parsed.document) == block


def test_a_skill_written_twice_is_read_twice_for_the_rules_to_name():
    doc = {
        "format": "ffa-character/1",
        "name": "Twice",
        "attributes": dict.fromkeys(
            ("STR", "DEX", "END", "INT", "PRE", "AWA", "EDU", "SOC", "EXP"), 1
        ),
        "skills": [
            {"skill": "Area Knowledge", "cascade": "Regina", "level": 0},
            {"skill": "Area Knowledge", "cascade": "Regina", "level": 1},
        ],
    }

    parsed = parse_stat_block(block_of(doc))

    assert [s["level"] for s in parsed.document["skills"]] == [0, 1]
    codes = [p.code for p in check_document(parsed.document).problems]
    assert "duplicate_skill" in codes


@settings(max_examples=examples(300), deadline=None)
@given(st.text(max_size=400))
def test_no_text_makes_the_parser_raise(text):
    parsed = parse_stat_block(text)
    if parsed.document is not None:
        check_document(parsed.document)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents, st.data())
def test_a_stat_block_spoiled_anywhere_still_reads_or_says_why(doc, data):
    block = block_of(doc)
    at = data.draw(st.integers(0, len(block)))
    cut = data.draw(st.integers(0, 20))
    junk = data.draw(st.text(max_size=20))
    spoiled = block[:at] + junk + block[at + cut :]

    parsed = parse_stat_block(spoiled)

    if parsed.document is None:
        assert parsed.unread, "no draft and no reason"
    else:
        check_document(parsed.document)


# -- hand-written blocks in the rulebook's order ---------------------------------------------

MERCENARY = """\
Sergeant Hollis, 3 terms Army (Captain)
Age 30  A98-777-767  Cr6,900  DEF 4 INI 4 MOV 8 TGH 4 LIF 27 WND 9
Rifleman-2, Leadership-1, Tactics (ground)-1, Brawling-1
Equipment: Autorifle, Flak jacket.
A hard woman who has seen too many wars.
She has an eye for terrain [PP-C-S 2] and a temper she keeps badly [PF-H-R CS4 -2].
"""


def test_a_hand_written_block_in_the_rulebook_s_order_makes_a_draft():
    parsed = parse_stat_block(MERCENARY, kind="npc")

    doc = parsed.document
    assert (doc["name"], doc["terms"], doc["service"], doc["rank"]) == (
        "Sergeant Hollis",
        3,
        "army",
        2,
    )
    assert doc["attributes"] == {
        "STR": 10,
        "DEX": 9,
        "END": 8,
        "INT": 7,
        "PRE": 7,
        "AWA": 7,
        "EDU": 7,
        "SOC": 6,
        "EXP": 7,
    }
    assert check_document(doc).age == 30  # the minimum for 3 terms, so left to follow them
    assert "age" not in doc
    assert {(s["skill"], s.get("cascade"), s["level"]) for s in doc["skills"]} == {
        ("Rifleman", None, 2),
        ("Leadership", None, 1),
        ("Tactics", "ground", 1),
        ("Brawling", None, 1),
    }
    assert [e["item"] for e in doc["equipment"]] == ["Autorifle", "Flak jacket"]
    assert [(t["name"], t["type"], t["level"], t["frequency"]) for t in doc["traits"]] == [
        ("She has an eye for terrain", "PP", "C", "S"),
        ("a temper she keeps badly", "PF", "H", "R"),
    ]
    assert doc["notes"].startswith("A hard woman who has seen too many wars.")


def test_an_npc_is_budgeted_what_it_spends_and_a_player_character_the_rulebook_s_budget():
    npc = check_document(parse_stat_block(MERCENARY, kind="npc").document)
    pc = parse_stat_block(MERCENARY).document

    assert npc.points.budget == npc.points.total
    assert pc["budget"] == 100


def test_a_player_character_s_credits_are_found_as_mustering_out_rolls_that_leave_them():
    parsed = parse_stat_block(MERCENARY)

    report = check_document(parsed.document)
    assert report.equipment.credits_remaining == 6900
    assert len(parsed.document["mustering_out"]["rolls"]) <= 3


def test_figures_the_draft_does_not_come_to_are_named_with_both_numbers():
    block = MERCENARY.replace("DEF 4", "DEF 6").replace("Cr6,900", "Cr6,901")

    parsed = parse_stat_block(block)

    text = reasons(parsed)
    assert "2: DEF 6 is written, but the draft's attributes and traits give DEF 4." in text
    assert "Cr6,901 is written" in text
    assert parsed.document is not None


def test_every_unreadable_part_is_named_with_its_line_and_the_rest_is_read():
    block = (
        "Ana Reyes, 1 term Merchants\n"
        "Age 22  777-777-777  Cr0  DEF 3 INI 3 MOV 6 TGH 3 LIF 21 WND 6  lucky\n"
        "Skills: Broker-1, Haggling-two, Steward-1.\n"
        "Belongings: No belongings.\n"
        "Psionics: strong.\n"
        "Traits: Honest [PP-C-S 3]; Kind [MP-C-S 2]; a loose end\n"
    )

    parsed = parse_stat_block(block)

    lines = [(u.line_no, u.line.split(":")[0]) for u in parsed.unread]
    assert lines == [
        (2, "Age 22  777-777-777  Cr0  DEF 3 INI 3 MOV 6 TGH 3 LIF 21 WND 6  lucky"),
        (3, "Skills"),
        (5, "Psionics"),
        (6, "Traits"),
        (6, "Traits"),
    ]
    text = reasons(parsed)
    assert "'lucky' was not read" in text
    assert "'Haggling-two' is not a skill" in text
    assert "[PP-C-S 3] is written as 3 points, but the tables give 2." in text
    assert "'a loose end' is not a trait" in text
    doc = parsed.document
    assert [s["skill"] for s in doc["skills"]] == ["Broker", "Steward"]
    assert [t["name"] for t in doc["traits"]] == ["Kind"]


def test_a_trait_off_the_tables_and_a_negative_skill_level_are_named_not_guessed():
    doc = document(
        skills=[{"skill": "Pilot", "level": 1}],
        traits=[{"type": "PP", "level": "X", "frequency": "R", "name": "Odd"}],
    )
    # A document holds no negative level: one typed into a stat block by hand.
    block = block_of(doc).replace("Pilot-1", "Pilot--1")

    parsed = parse_stat_block(block)

    text = reasons(parsed)
    assert "'Pilot--1' is not a skill" in text
    assert "Odd [invalid]: the trait's level and frequency are off the tables" in text
    assert parsed.document["skills"] == []
    assert parsed.document["traits"] == []


def test_text_without_a_upp_makes_no_draft_and_says_what_is_missing():
    parsed = parse_stat_block("Jory Kade, 2 terms Merchants\nA trader from Mora.")

    assert parsed.document is None
    assert "No line gives the attributes" in reasons(parsed)
    assert parse_stat_block("   \n\n").document is None


def test_a_species_package_flaw_left_out_of_the_traits_was_bought_off():
    doc = document(species="vargr", package_flaws_bought_off=["Racial pride"])

    parsed = parse_stat_block(block_of(doc))

    assert parsed.document["package_flaws_bought_off"] == ["Racial pride"]


def test_an_item_the_catalog_has_at_several_tech_levels_is_written_and_read_with_its_tl():
    doc = document(equipment=[{"item": "Vacc suit", "tl": 12, "quantity": 2}])

    block = block_of(doc)

    assert "Belongings: Vacc suit (TL 12) x2." in block
    assert parse_stat_block(block).document["equipment"] == [
        {"item": "Vacc suit", "quantity": 2, "tl": 12}
    ]


def test_a_background_is_read_from_its_automatic_skills():
    doc = document(homeworld="Regina", native_language="Zhodani", native_culture="Zhodani")

    parsed = parse_stat_block(block_of(doc))

    assert {k: parsed.document.get(k) for k in ("homeworld", "native_language")} == {
        "homeworld": "Regina",
        "native_language": "Zhodani",
    }
    assert parsed.document["native_culture"] == "Zhodani"
    assert parsed.document["skills"] == []


def test_a_psi_strength_past_the_rulebook_s_cap_is_written_and_read_back_for_the_rules_to_name():
    doc = document(attributes={"EXP": 1}, psionics={"strength": 16, "talents": {"Telepathy": 17}})
    block = stat_block(parse_document(doc), check_document(doc))

    parsed = parse_stat_block(block)

    assert parsed.document is not None
    assert parsed.document["psionics"] == {"strength": 16, "talents": {"Telepathy": 17}}
    assert stat_block(parse_document(parsed.document), check_document(parsed.document)) == block


def test_a_stat_block_with_numbers_of_thousands_of_digits_reads_and_says_why():
    long = "9" * 5000
    block = (
        "Kim, 1 term Navy\nAge 22  777-777-777\n"
        f"Skills: Pilot-{long}, Medical-1\nTraits: Keen [PP-C-S {long}]; Slow [PF MOV-{long} -5]"
    )

    parsed = parse_stat_block(block)

    assert parsed.document["skills"] == [{"skill": "Medical", "level": 1}]
    assert parsed.document["traits"] == []
    assert [line for line, _, _ in parsed.unread] == [3, 4, 4]
    assert "holds a number of 5,000 digits" in parsed.unread[2][2]


@pytest.mark.parametrize("name", ["Skills: none", "Equipment: Mk II", "Traits: Ann"])
def test_the_first_line_is_the_name_even_when_it_reads_like_a_later_section(name):
    block = block_of(document(name=name))

    parsed = parse_stat_block(block)

    assert parsed.unread == (), reasons(parsed)
    assert parsed.document["name"] == name
    assert block_of(parsed.document) == block


CORSAIR = """\
Vargr corsair, 2 terms Army
Age 26  787-777-777
Skills: Brawling-1, Rifleman-1
Cloth armor, SMG, 2 SMG magazines, grav belt
A scarred veteran.
"""


def test_belongings_in_ordinary_words_are_read_and_what_is_not_is_listed():
    parsed = parse_stat_block(CORSAIR, kind="npc")

    assert parsed.document["equipment"] == [
        {"item": "Cloth (ballistic cloth)", "quantity": 1},
        {"item": "SMG", "quantity": 1},
        {"item": "SMG ammunition", "quantity": 2},
    ]
    assert [(u.line_no, u.reason) for u in parsed.unread if u.line_no == 4] == [
        (
            4,
            "'grav belt' is not an item of the catalog; write it after 'Belongings:' to keep "
            "it as an item of its own.",
        )
    ]
    assert "SMG" not in parsed.document.get("notes", "")


CORSAIR_ITEMS = [
    {"item": "Cloth (ballistic cloth)", "quantity": 1},
    {"item": "SMG", "quantity": 1},
    {"item": "SMG ammunition", "quantity": 2},
]


@pytest.mark.parametrize(
    "belongings",
    [
        "Cloth armor, SMG and 2 SMG magazines",
        "Cloth armor, SMG, and 2 SMG magazines.",
        "a cloth armor, an SMG and 2 SMG magazines",
        "The cloth armor, an SMG, 2 SMG magazines",
        "Belongings: a cloth armor, an SMG and 2 SMG magazines",
    ],
)
def test_a_list_joined_by_and_with_articles_is_read_item_by_item(belongings):
    parsed = parse_stat_block(CORSAIR.replace(CORSAIR.splitlines()[3], belongings), kind="npc")

    assert parsed.document["equipment"] == CORSAIR_ITEMS
    assert [u for u in parsed.unread if u.line_no == 4] == []


def test_what_the_and_joins_that_the_catalog_lacks_is_listed_as_not_read():
    block = CORSAIR.replace(CORSAIR.splitlines()[3], "a cloth armor, an SMG and a lucky coin")

    parsed = parse_stat_block(block, kind="npc")

    assert parsed.document["equipment"] == CORSAIR_ITEMS[:2]
    assert [u.reason for u in parsed.unread if u.line_no == 4] == [
        "'a lucky coin' is not an item of the catalog; write it after 'Belongings:' to keep "
        "it as an item of its own."
    ]


def test_a_name_of_the_players_own_with_and_in_it_stays_whole_under_belongings():
    block = CORSAIR.replace(CORSAIR.splitlines()[3], "Belongings: an SMG, salt and pepper")

    parsed = parse_stat_block(block, kind="npc")

    assert parsed.document["equipment"] == [
        {"item": "SMG", "quantity": 1},
        {"item": "salt and pepper", "quantity": 1},
    ]


@pytest.mark.parametrize(
    ("written", "name"),
    [
        ("Daggers", "Dagger"),
        ("SMG magazines", "SMG ammunition"),
        ("Cloth armor", "Cloth (ballistic cloth)"),
        ("Combat armor", "Combat armor"),
        ("Grav belt", None),
    ],
)
def test_the_catalog_knows_items_by_their_ordinary_names(written, name):
    from rules.statblock import catalog_item_name

    assert catalog_item_name(written) == name


def test_no_line_goes_into_the_notes_without_a_word():
    parsed = parse_stat_block(CORSAIR, kind="npc")

    assert parsed.document["notes"] == "A scarred veteran."
    assert (5, "Not read as figures: kept, as written, in the draft's notes.") in [
        (u.line_no, u.reason) for u in parsed.unread
    ]


@pytest.mark.parametrize(
    "traits",
    [
        "Traits: exceptional hearing [PP-C-S 2] and sight [PP-C-S 2]",
        "Traits: exceptional hearing [PP-C-S 2], sight [PP-C-S 2].",
        "Traits: [exceptional hearing PP-C-S 2]; [sight PP-C-S 2]",
    ],
)
def test_traits_written_in_the_rulebooks_own_forms_are_read(traits):
    parsed = parse_stat_block(f"Kim, 1 term Navy\nAge 22  777-777-777\n{traits}")

    assert parsed.unread == (), reasons(parsed)
    assert [
        (t["name"], t["type"], t["level"], t["frequency"]) for t in parsed.document["traits"]
    ] == [
        ("exceptional hearing", "PP", "C", "S"),
        ("sight", "PP", "C", "S"),
    ]


# -- an NPC's credits ---------------------------------------------------------------------------


def test_an_npc_keeps_the_credits_its_stat_block_gives_its_belongings_besides():
    """Cr6,901 is no sum of the army's cash rolls less an autorifle and a flak jacket: an NPC
    is given it, its belongings bought on top."""
    block = MERCENARY.replace("Cr6,900", "Cr6,901")

    parsed = parse_stat_block(block, kind="npc")

    report = check_document(parsed.document)
    assert "Cr" not in reasons(parsed)
    assert parsed.document["mustering_out"] == {"credits": 6901 + report.equipment.cost}
    assert report.equipment.credits_remaining == 6901
    assert "credits_overspent" not in {p.code for p in report.problems}
    assert "Cr6,901" in block_of(parsed.document)


def test_an_npc_whose_stat_block_gives_no_credits_has_its_belongings_and_cr0():
    parsed = parse_stat_block(CORSAIR, kind="npc")

    report = check_document(parsed.document)
    assert report.equipment.cost > 0
    assert report.equipment.credits_remaining == 0
    assert "credits_overspent" not in {p.code for p in report.problems}


def test_an_npc_without_belongings_or_credits_has_no_mustering_out():
    parsed = parse_stat_block("Kim, 0 terms\nAge 18  777-777-777", kind="npc")

    assert "mustering_out" not in parsed.document


@pytest.mark.parametrize("path", DEMO, ids=lambda p: p.stem)
def test_an_npc_pasted_back_gives_the_same_stat_block(path):
    block = block_of(json.loads(path.read_text()))

    parsed = parse_stat_block(block, kind="npc")

    assert parsed.unread == (), reasons(parsed)
    assert block_of(parsed.document) == block


def test_credits_no_npc_is_given_are_named_and_the_npc_is_left_cr0():
    parsed = parse_stat_block(CORSAIR.replace("787-777-777", "787-777-777  Cr-50"), kind="npc")

    assert check_document(parsed.document).equipment.credits_remaining == 0
    assert (
        "Cr-50 is written, but an NPC is given Cr0 to Cr1,000,000,000 besides its belongings; "
        "the draft has Cr0."
    ) in reasons(parsed)
