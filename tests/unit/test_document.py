"""Reading the character document: malformed input is refused with the path that is wrong."""

import pytest

from rules import MalformedDocument, normalise_document, parse_document

from .builders import document


@pytest.mark.parametrize(
    ("doc", "path", "words"),
    [
        ([], "", "expected an object"),
        (document(format="ffa-character/2"), "format", 'must be "ffa-character/1"'),
        (document(nmae="typo"), "nmae", "unknown field 'nmae'"),
        (document(name=""), "name", "1-100 characters"),
        (document(name="x" * 101), "name", "got 101"),
        (document(kind="monster"), "kind", 'must be "pc" or "npc"'),
        (document(budget=1001), "budget", "0-1000"),
        (document(budget="100"), "budget", "expected a whole number"),
        (document(terms=-1), "terms", "at least 0"),
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
        (document(psionics={"strength": -1}), "psionics.strength", "at least 0"),
        (document(mustering_out={"rolls": ["six"]}), "mustering_out.rolls[0]", "whole number"),
        (
            document(equipment=[{"item": "Dagger", "quantity": 0}]),
            "equipment[0].quantity",
            "at least 1",
        ),
        (document(notes="x" * 20_001), "notes", "20000"),
        (
            document(house_rules={"one_trait_per_term": "no"}),
            "house_rules.one_trait_per_term",
            "true or false",
        ),
    ],
)
def test_malformed_documents_name_the_path_and_the_problem(doc, path, words):
    with pytest.raises(MalformedDocument) as raised:
        parse_document(doc)
    assert raised.value.path == path
    assert words in raised.value.message


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
