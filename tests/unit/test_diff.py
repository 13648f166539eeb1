"""What changed between two character documents, for the revision history."""

from rules import document_changes, normalise_document, summarise

from .builders import document


def changes(old, new):
    return [
        (c.section, c.kind, c.describe())
        for c in document_changes(normalise_document(old), normalise_document(new))
    ]


def test_equal_documents_have_no_changes():
    assert changes(document(), document()) == []
    assert summarise(()) == "no change"


def test_attributes_are_compared_by_code():
    assert changes(document(), document(attributes={"STR": 9, "EXP": 8})) == [
        ("Attributes", "changed", "STR 7 → 9"),
        ("Attributes", "changed", "EXP 7 → 8"),
    ]


def test_skills_are_shown_in_the_rulebooks_notation():
    old = document(skills=[{"skill": "Pilot", "level": 2}, {"skill": "Vacc Suit", "level": 0}])
    new = document(
        skills=[
            {"skill": "Pilot", "level": 3, "specialties": ["small craft"]},
            {"skill": "Medical", "level": 1},
        ]
    )
    assert changes(old, new) == [
        ("Skills", "changed", "Pilot-2 → Pilot-3 (small craft)"),
        ("Skills", "added", "added Medical-1"),
        ("Skills", "removed", "removed Vacc Suit-0"),
    ]


def test_traits_are_shown_in_bracket_notation():
    hearing = {"type": "PP", "level": "C", "frequency": "S", "name": "Exceptional hearing"}
    debt = {"type": "PF", "level": "H", "frequency": "R", "name": "Owes a debt"}
    sharper = dict(hearing, level="E")
    assert changes(document(traits=[hearing, debt]), document(traits=[sharper])) == [
        ("Traits", "changed", "Exceptional hearing [PP-C-S 2] → Exceptional hearing [PP-E-S 5]"),
        ("Traits", "removed", "removed Owes a debt [PF-H-R CS4 -2]"),
    ]


def test_details_equipment_rolls_and_notes_are_compared_too():
    old = document(service="navy", terms=2, equipment=[{"item": "Jack", "quantity": 1}])
    new = document(
        service="navy",
        terms=2,
        homeworld="Regina",
        mustering_out={"rolls": [4, 2]},
        equipment=[{"item": "Jack", "quantity": 2}, {"item": "Mesh", "quantity": 1}],
        notes="Owes Marc a favour.",
    )
    assert changes(old, new) == [
        ("Details", "added", "Homeworld — → Regina"),
        ("Mustering out", "added", "Cash rolls — → 4, 2"),
        ("Equipment", "changed", "Jack → Jack x2"),
        ("Equipment", "added", "added Mesh"),
        ("Notes", "added", "Notes — → Owes Marc a favour."),
    ]


def test_a_summary_names_the_first_changes_and_counts_the_rest():
    found = document_changes(
        normalise_document(document()),
        normalise_document(document(attributes={"STR": 9, "DEX": 8, "END": 6}, homeworld="Regina")),
    )
    assert summarise(found, limit=2) == "Homeworld — → Regina; STR 7 → 9 (and 2 more)"


def test_a_package_flaw_bought_off_is_a_change_of_the_details():
    old = document(species="vargr")
    new = document(species="vargr", package_flaws_bought_off=["Racial pride", "Fur?"])
    assert changes(old, new) == [
        ("Details", "added", "Package flaws bought off — → Racial pride, Fur?"),
    ]


def test_armor_put_on_or_taken_off_is_a_change_of_its_line():
    carried = document(equipment=[{"item": "Jack", "quantity": 1}])
    worn = document(equipment=[{"item": "Jack", "quantity": 1, "worn": True}])
    assert changes(carried, worn) == [("Equipment", "changed", "Jack → Jack, worn")]


def test_an_npc_s_credits_given_are_compared_too():
    old = document(kind="npc", mustering_out={"credits": 500})
    new = document(kind="npc", mustering_out={"credits": 1_250})

    assert changes(old, new) == [("Mustering out", "changed", "Credits given Cr500 → Cr1,250")]
