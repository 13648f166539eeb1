"""Reading the character document: malformed input is refused with the path that is wrong."""

import json

import pytest

from rules import MalformedDocument, catalog, check, decode_json, normalise_document, parse_document

from .builders import document


@pytest.mark.parametrize(
    ("doc", "path", "words"),
    [
        ([], "", "expected an object"),
        (document(format="ffa-character/2"), "format", 'must be "ffa-character/1"'),
        (document(nmae="typo"), "nmae", "unknown field 'nmae'"),
        (document(name=""), "name", "1-100 characters"),
        (document(name="x" * 101), "name", "got 101"),
        (document(name="x" * 5000), "name", "must be 1-100 characters, got 5,000"),
        (document(kind="monster"), "kind", 'must be "pc" or "npc"'),
        (document(budget=1001), "budget", "from 0 to 1000"),
        (document(budget="100"), "budget", "expected a whole number"),
        (document(terms=-1), "terms", "from 0 to 99"),
        (document(terms=100), "terms", "from 0 to 99"),
        (document(age=1000), "age", "from 0 to 999"),
        (document(homeworld="R" * 81), "homeworld", "at most 80 characters, got 81"),
        (document(attributes={"STR": 34}), "attributes.STR", "from -33 to 33, got the number 34"),
        (document(skills=[{"skill": "Pilot", "level": 1}] * 61), "skills", "at most 60"),
        (document(traits=[{"type": "PP", "name": "x"}] * 41), "traits", "at most 40"),
        (document(equipment=[{"item": "Dagger"}] * 101), "equipment", "at most 100"),
        (
            document(skills=[{"skill": "Pilot", "level": 1, "specialties": ["x"] * 13}]),
            "skills[0].specialties",
            "at most 12",
        ),
        (
            document(traits=[{"type": "PP", "name": "x" * 201}]),
            "traits[0].name",
            "at most 200 characters",
        ),
        (
            document(psionics={"strength": 3, "talents": {"Telepathy": 100}}),
            "psionics.talents.Telepathy",
            "from 0 to 99",
        ),
        (document(mustering_out={"rolls": [1] * 11}), "mustering_out.rolls", "at most 10"),
        (document(attributes={"STR": "I"}), "attributes.STR", "I and O are not used"),
        (document(attributes={"LCK": 7}), "attributes.LCK", "unknown field"),
        (
            {"format": "ffa-character/1", "name": "x", "attributes": {"STR": 7}},
            "attributes.DEX",
            "missing",
        ),
        (document(skills=[{"skill": "Pilot"}]), "skills[0].level", "missing"),
        (document(skills=[{"skill": "Pilot", "level": 1.5}]), "skills[0].level", "whole number"),
        (
            document(skills=[{"skill": "Pilot", "level": 1, "rating": 3}]),
            "skills[0].rating",
            "unknown field",
        ),
        (
            document(traits=[{"type": "PP", "level": "C", "frequency": "R"}]),
            "traits[0].name",
            "missing",
        ),
        (
            document(traits=[{"type": "PP", "name": "x", "derived": [1]}]),
            "traits[0].derived",
            "expected an object",
        ),
        (
            document(psionics={"strength": -1}),
            "psionics.strength",
            "expected a whole number from 0 to 99, got the number -1",
        ),
        (document(mustering_out={"rolls": ["six"]}), "mustering_out.rolls[0]", "whole number"),
        (
            document(kind="npc", mustering_out={"credits": -1}),
            "mustering_out.credits",
            "from 0 to 1000000000, got the number -1",
        ),
        (
            document(kind="npc", mustering_out={"credits": "Cr500"}),
            "mustering_out.credits",
            "whole number",
        ),
        (
            document(kind="npc", mustering_out={"rolls": [3], "credits": 500}),
            "mustering_out",
            "the rolls or the credits, not both",
        ),
        (
            document(equipment=[{"item": "Dagger", "quantity": 0}]),
            "equipment[0].quantity",
            "from 1 to 9999, got the number 0",
        ),
        (document(notes="x" * 20_001), "notes", "at most 20,000 characters, got 20,001"),
        (
            document(house_rules={"one_trait_per_term": "no"}),
            "house_rules.one_trait_per_term",
            "true or false",
        ),
        (
            document(traits=[{"type": "PF", "name": "Lame", "control": None}]),
            "traits[0].control",
            "true or false, got null",
        ),
    ],
)
def test_malformed_documents_name_the_path_and_the_problem(doc, path, words):
    with pytest.raises(MalformedDocument) as raised:
        parse_document(doc)
    assert raised.value.path == path
    assert words in raised.value.message


BEYOND = 2**53  # one past the largest whole number a document may hold


@pytest.mark.parametrize("digit", ["²", "①", "٣", "\uff17"])
def test_an_attribute_written_with_a_digit_other_than_0_to_9_is_malformed(digit):
    with pytest.raises(MalformedDocument) as raised:
        parse_document(document(attributes={"STR": digit}))
    assert raised.value.path == "attributes.STR"
    assert "expected a level as a number or a hex digit" in raised.value.message


@pytest.mark.parametrize(
    ("doc", "path"),
    [
        (document(attributes={"STR": 10**400}), "attributes.STR"),
        (document(attributes={"STR": "9" * 4300}), "attributes.STR"),
        (document(psionics={"strength": 10**4299}), "psionics.strength"),
        (document(psionics={"strength": 1, "talents": {"Telepathy": -BEYOND}}), None),
        (document(equipment=[{"item": "Dagger", "quantity": 10**400}]), "equipment[0].quantity"),
        (document(equipment=[{"item": "Dagger", "quantity": 1e300}]), "equipment[0].quantity"),
        (document(age=BEYOND), "age"),
        (document(rank=-BEYOND), "rank"),
        (document(skills=[{"skill": "Pilot", "level": BEYOND}]), "skills[0].level"),
        (document(traits=[{"type": "PF", "name": "x", "derived": {"LIF": -BEYOND}}]), None),
        (document(traits=[{"type": "PF", "name": "x", "level": "I", "frequency": BEYOND}]), None),
        (document(mustering_out={"rolls": [BEYOND]}), "mustering_out.rolls[0]"),
    ],
)
def test_a_number_too_large_for_any_rule_is_malformed_and_the_message_stays_short(doc, path):
    with pytest.raises(MalformedDocument) as raised:
        parse_document(doc)
    if path is not None:
        assert raised.value.path == path
    assert "expected a whole number" in raised.value.message or "digits" in raised.value.message
    assert len(str(raised.value)) < 200


def test_a_number_of_thousands_of_digits_is_told_the_range_its_field_takes():
    with pytest.raises(MalformedDocument) as raised:
        parse_document(document(psionics={"strength": 10**4299}))
    assert raised.value.message == (
        "expected a whole number from 0 to 99, got a number of 4300 digits"
    )


def test_the_largest_figures_a_document_may_hold_are_read_and_checked_as_rule_problems():
    bounds = catalog().bounds
    doc = document(attributes={"STR": bounds.attribute}, age=bounds.age, rank=bounds.level)

    character = parse_document(doc)
    problems = {problem.code for problem in check(character).problems}

    assert (character.attributes[0], character.age, character.rank) == (
        bounds.attribute,
        bounds.age,
        bounds.level,
    )
    assert "attribute_out_of_range" in problems


def test_decoding_a_number_of_thousands_of_digits_is_malformed_not_a_value_error():
    with pytest.raises(MalformedDocument, match="a number too long to read"):
        decode_json('{"rank": ' + "9" * 5000 + "}")


@pytest.mark.parametrize(
    ("text", "path", "digits"),
    [
        ('{"rank": ' + "9" * 5000 + "}", "rank", "5,000"),
        ('{"attributes": {"STR": 7, "DEX": -' + "7" * 5000 + "}}", "attributes.DEX", "5,000"),
        ('{"skills": [{"level": 1}, {"level": ' + "1" * 4301 + "}]}", "skills[1].level", "4,301"),
        (
            '{"mustering_out": {"rolls": [3, ' + "6" * 9000 + "]}}",
            "mustering_out.rolls[1]",
            "9,000",
        ),
    ],
)
def test_a_number_of_thousands_of_digits_is_named_by_its_path_and_its_length(text, path, digits):
    with pytest.raises(MalformedDocument) as raised:
        decode_json(text)
    assert raised.value.path == path
    assert raised.value.message == f"holds a number too long to read ({digits} digits)"


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (None, "is not JSON text, got null"),
        (7, "is not JSON text, got the number 7"),
        (b"\xff", "is not UTF-8 text"),
        ("[" * 100_000, "nested too deeply"),
        ("", "is empty; a character document is a JSON object"),
        (b" \n\t", "is empty; a character document is a JSON object"),
    ],
)
def test_decoding_anything_but_a_json_document_is_malformed(data, words):
    with pytest.raises(MalformedDocument, match=words):
        decode_json(data)


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ('{"format": "ffa-character/1", "name": "Ann", "name": "Bea"}', "name"),
        ('{"attributes": {"STR": 7, "EXP": 7, "EXP": 9}}', "attributes.EXP"),
        ('{"skills": [{"skill": "Pilot"}, {"level": 1, "level": 3}]}', "skills[1].level"),
        (
            '{"psionics": {"strength": 2, "talents": {"Telepathy": 1, "Telepathy": 2}}}',
            "psionics.talents.Telepathy",
        ),
    ],
)
def test_a_field_given_twice_in_one_object_is_malformed_rather_than_read_as_its_last(text, path):
    with pytest.raises(MalformedDocument) as raised:
        decode_json(text)
    assert raised.value.path == path
    assert raised.value.message == "is given twice; give each field once"


def test_a_repeated_field_in_text_that_is_not_json_further_on_is_told_it_is_not_json():
    with pytest.raises(MalformedDocument, match="is not valid JSON"):
        decode_json('{"skills": [{"level": 1, "level": 3}], "name": ')


@pytest.mark.parametrize("data", ['\ufeff{"rank": 2}', b'\xef\xbb\xbf{"rank": 2}'])
def test_a_document_saved_with_a_byte_order_mark_is_read_as_the_utf8_it_is(data):
    assert decode_json(data) == {"rank": 2}


@pytest.mark.parametrize("data", ["\ufeff\ufeff{}", b"\xef\xbb\xbf\xef\xbb\xbf{}", " \ufeff{}"])
def test_a_byte_order_mark_past_the_first_character_is_named_with_what_to_do(data):
    with pytest.raises(MalformedDocument) as raised:
        decode_json(data)
    assert raised.value.message == (
        "is not valid JSON: a byte-order mark (U+FEFF) is only read as the first character; "
        "remove this one"
    )


@pytest.mark.parametrize("bom", [b"\xff\xfe", b"\xfe\xff"])
def test_a_utf16_document_is_told_to_be_saved_as_utf8(bom):
    codec = "utf-16-le" if bom == b"\xff\xfe" else "utf-16-be"
    with pytest.raises(MalformedDocument) as raised:
        decode_json(bom + '{"rank": 2}'.encode(codec))
    assert raised.value.message == "is UTF-16 text, not UTF-8; save it as UTF-8"


def test_the_same_key_in_two_objects_is_no_repetition():
    text = '{"skills": [{"skill": "Pilot", "level": 1}, {"skill": "Medical", "level": 1}]}'
    assert decode_json(text)["skills"][1] == {"skill": "Medical", "level": 1}


@pytest.mark.parametrize("talents", [[], "", False, 0, ["Telepathy"]])
def test_talents_that_are_not_an_object_are_malformed_not_no_talents(talents):
    with pytest.raises(MalformedDocument) as raised:
        parse_document(document(psionics={"strength": 2, "talents": talents}))
    assert raised.value.path == "psionics.talents"
    assert "expected an object" in raised.value.message


def test_null_talents_are_no_talents():
    character = parse_document(document(psionics={"strength": 2, "talents": None}))
    assert character.psionics.talents == ()


@pytest.mark.parametrize(
    ("doc", "path"),
    [
        (document(name="Kim\ud800"), "name"),
        (document(name="Kim\x00"), "name"),
        (document(skills=[{"skill": "Pilot", "level": 1, "specialties": ["\udfff"]}]), None),
        (document(psionics={"strength": 2, "talents": {"\ud800": 1}}), "psionics.talents"),
        (document(traits=[{"type": "PP", "name": "x", "derived": {"\ud800": 1}}]), None),
    ],
)
def test_text_that_is_not_characters_is_malformed(doc, path):
    with pytest.raises(MalformedDocument) as raised:
        parse_document(doc)
    if path is not None:
        assert raised.value.path == path


def test_package_flaws_bought_off_are_read_in_the_packages_spelling_and_written_back():
    doc = document(species="vargr", package_flaws_bought_off=[" racial  PRIDE "])
    assert parse_document(doc).package_flaws_bought_off == ("Racial pride",)
    assert normalise_document(doc)["package_flaws_bought_off"] == ["Racial pride"]
    assert "package_flaws_bought_off" not in normalise_document(document(species="vargr"))


@pytest.mark.parametrize(
    ("listed", "path", "words"),
    [
        ("Racial pride", "package_flaws_bought_off", "expected a list"),
        ([""], "package_flaws_bought_off[0]", "empty"),
        (["Racial pride", "racial pride"], "package_flaws_bought_off[1]", "given twice"),
    ],
)
def test_package_flaws_bought_off_of_the_wrong_shape_are_malformed(listed, path, words):
    with pytest.raises(MalformedDocument) as raised:
        parse_document(document(species="vargr", package_flaws_bought_off=listed))
    assert (raised.value.path, words in raised.value.message) == (path, True)


def test_normalising_canonicalises_names_and_spells_out_defaults():
    doc = document(attributes={"DEX": "b"})
    doc["attributes"]["AWE"] = doc["attributes"].pop("AWA")
    normal = normalise_document(
        dict(
            doc,
            skills=[
                {"skill": "pilot", "level": 2, "specialties": ["SMALL CRAFT (under 100 tons)"]}
            ],
            traits=[{"type": "pp", "level": "e", "frequency": 0, "name": "  Combat   experience "}],
            service="Navy",
        )
    )
    assert normal["attributes"]["DEX"] == 11
    assert normal["attributes"]["AWA"] == 7
    assert normal["skills"] == [{"skill": "Pilot", "level": 2, "specialties": ["small craft"]}]
    assert normal["traits"] == [
        {"type": "PP", "name": "Combat experience", "level": "E", "frequency": "O"}
    ]
    assert (normal["service"], normal["kind"], normal["budget"], normal["terms"]) == (
        "navy",
        "pc",
        100,
        0,
    )
    assert normalise_document(normal) == normal


def test_a_document_at_every_bound_is_read_and_checked():
    from tests.integration.sheet_documents import largest_legal

    report = check(parse_document(largest_legal()))

    assert len(report.skills.lines) >= catalog().bounds.skills
    assert "attribute_out_of_range" in {problem.code for problem in report.problems}


def test_talents_read_in_the_catalogs_order_whatever_order_the_document_keeps_its_keys():
    forwards = {"Telepathy": 2, "Awareness": 1}
    backwards = dict(reversed(forwards.items()))

    read = [
        parse_document(document(psionics={"strength": 3, "talents": talents})).psionics
        for talents in (forwards, backwards)
    ]

    assert read[0] == read[1]
    assert [name for name, _level in read[0].talents] == ["Telepathy", "Awareness"]


@pytest.mark.parametrize("keys", [("def", "DEF"), ("DEF", " DEF "), ("Lif", "LIF")])
def test_a_derived_attribute_named_twice_in_one_trait_is_malformed(keys):
    # Read as one attribute, the two changes would be credited twice but written back once,
    # so the exported document would no longer give the same report.
    first, second = keys
    trait = {"type": "PF", "name": "Weak", "derived": {first: -1, second: -1}}
    with pytest.raises(MalformedDocument) as raised:
        parse_document(document(traits=[trait]))
    assert raised.value.path == f"traits[0].derived.{second}"
    assert raised.value.message == f"{second.strip().upper()} is given twice"


@pytest.mark.parametrize(
    "doc",
    [
        {**document(), "K" * 100_000: 1},
        document(skills=[{"skill": "Pilot", "level": 1, "K" * 100_000: 1}]),
        document(house_rules={"K" * 100_000: True}),
    ],
)
def test_an_unknown_field_with_a_very_long_name_is_named_in_a_short_message(doc):
    with pytest.raises(MalformedDocument) as raised:
        parse_document(doc)
    assert raised.value.path.endswith("K" * 37 + "...")
    assert raised.value.message.startswith("unknown field '" + "K" * 37 + "...' (allowed: ")
    assert len(str(raised.value)) < 400  # the top level allows 21 fields, all named


def test_an_entry_is_read_in_the_catalogs_spelling_however_the_document_writes_it():
    written = document(
        skills=[
            {"skill": "  PILOT ", "level": 2.0, "specialties": ["SMALL CRAFT", "small craft"]},
            {"skill": "blade combat", "cascade": " sword ", "level": 1},
        ],
        traits=[{"type": " pf ", "level": "h", "frequency": 0, "name": "Lame   leg"}],
        equipment=[{"item": "dagger"}],
    )
    canonical = document(
        skills=[
            {"skill": "Pilot", "level": 2, "specialties": ["small craft"]},
            {"skill": "Blade Combat", "cascade": "swords", "level": 1},
        ],
        traits=[{"type": "PF", "level": "H", "frequency": "O", "name": "Lame leg"}],
        equipment=[{"item": "Dagger"}],
    )
    assert parse_document(written) == parse_document(canonical)


def test_a_flaws_control_is_its_types_unless_the_document_says_whichever_was_read_before():
    flaw = {"type": "PF", "level": "H", "frequency": "S", "name": "Reckless"}
    for control, expected in ((None, True), (False, False), (None, True), (True, True)):
        given = flaw if control is None else dict(flaw, control=control)
        (trait,) = parse_document(document(traits=[given])).traits
        assert trait.control is expected


@pytest.mark.parametrize(
    ("read", "refused", "path"),
    [
        ({"skill": "Pilot", "level": 1}, {"skill": "Pilot", "level": True}, "skills[0].level"),
        (
            {"type": "PP", "level": "E", "frequency": "O", "name": "Keen"},
            {"type": "PP", "level": "E", "frequency": True, "name": "Keen"},
            "traits[0].frequency",
        ),
        (
            {"item": "Dagger", "quantity": 1},
            {"item": "Dagger", "quantity": True},
            "equipment[0].quantity",
        ),
    ],
)
def test_a_value_python_takes_for_one_read_before_is_still_malformed(read, refused, path):
    field = "skills" if "skill" in read else "traits" if "type" in read else "equipment"
    parse_document(document(**{field: [read]}))
    with pytest.raises(MalformedDocument) as raised:
        parse_document(document(**{field: [refused]}))
    assert raised.value.path == path


@pytest.mark.parametrize(
    ("number", "path"),
    [
        # Past the range of a float: Python reads it as inf, which no one wrote.
        ("1e400", "rank"),
        ("-1E999", "budget"),
        # Fractions a float cannot keep: Python reads them as 0 and 30, which are whole.
        ("1e-400", "terms"),
        ("30.0000000000000001", "age"),
        # Not JSON numbers at all, though Python reads them.
        ("NaN", "rank"),
        ("-Infinity", "age"),
    ],
)
def test_a_number_a_float_cannot_hold_is_told_as_written_not_as_python_read_it(number, path):
    text = json.dumps(document()).replace('"name"', f'"{path}": {number}, "name"', 1)

    with pytest.raises(MalformedDocument) as raised:
        parse_document(decode_json(text))

    assert raised.value.path == path
    assert raised.value.message == f"expected a whole number, got the number {number}"


def test_a_whole_number_written_with_a_point_or_an_exponent_is_still_read():
    text = json.dumps(document()).replace('"name"', '"age": 3.0e1, "terms": 2.0, "name"', 1)
    character = parse_document(decode_json(text))
    assert (character.age, character.terms) == (30, 2)


def test_an_npc_s_given_credits_are_read_and_written_back():
    doc = document(kind="npc", mustering_out={"credits": 1_500.0})

    character = parse_document(doc)

    assert (character.mustering_credits, character.mustering_rolls) == (1500, ())
    assert normalise_document(doc)["mustering_out"] == {"credits": 1500}
    assert "mustering_out" not in normalise_document(document(mustering_out={"rolls": []}))
