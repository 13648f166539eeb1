"""Improvement purchases as the app keeps them: the referee's permission, storage, labels."""

import json

import pytest

from rules import (
    AddPerk,
    AddSpecialty,
    BuyOffFlaw,
    BuyOffPackageFlaw,
    ImprovementError,
    RaiseAttribute,
    RaisePerk,
    RaiseSkill,
    TraitEntry,
    describe_purchase,
    parse_document,
    permission_needed,
    purchase_as_dict,
    purchase_from_dict,
    referee_prices,
)

from .builders import document

PILOT = parse_document(
    document(
        terms=1,
        skills=[{"skill": "Pilot", "level": 2}, {"skill": "Medical", "level": 1}],
        traits=[
            {"type": "PP", "level": "C", "frequency": "S", "name": "Exceptional hearing"},
            {"type": "PF", "level": "H", "frequency": "R", "name": "Owes a debt"},
        ],
    )
)
HEARING, DEBT = 0, 1
PURCHASES = [
    RaiseSkill("Pilot", None, 3),
    RaiseSkill("Navigation", None, 1),
    RaiseSkill("Navigation", None, 0, ip=3),
    AddSpecialty("Pilot", "small craft"),
    AddPerk(TraitEntry("MP", "Linguist", "C", "O")),
    AddPerk(TraitEntry("PP", "Reflexes", derived=(("INI", 1),))),
    RaisePerk(HEARING, "E"),
    BuyOffFlaw(DEBT),
    BuyOffPackageFlaw("Racial pride"),
    RaiseAttribute("STR", 8, ip=10),
]


@pytest.mark.parametrize(
    ("purchase", "needs"),
    [
        # Character Trait Improvement Costs Table: "(and referee's permission)".
        (AddPerk(TraitEntry("MP", "Linguist", "C", "O")), "A new perk"),
        (BuyOffFlaw(DEBT), "Buying off a flaw"),
        (BuyOffPackageFlaw("Racial pride"), "Buying off a flaw"),
        # SPENDING IMPROVEMENT POINTS: "develop completely new skills ... (with referee's
        # permission)".
        (RaiseSkill("Navigation", None, 1), "A completely new skill"),
        (RaiseSkill("Navigation", None, 0), "the referee sets its cost"),
        # The attribute cost table is unreadable: the referee sets the cost.
        (RaiseAttribute("STR", 8), "attribute raise"),
        # Raising what the character has needs no one's permission.
        (RaiseSkill("Pilot", None, 3), None),
        (RaiseSkill("Language", "Anglic", 4), None),  # an automatic skill is one it has
        (AddSpecialty("Pilot", "small craft"), None),
        (RaisePerk(HEARING, "E"), None),
    ],
)
def test_new_skills_new_perks_flaws_and_attributes_need_the_referee(purchase, needs):
    reason = permission_needed(PILOT, purchase)
    if needs is None:
        assert reason is None
    else:
        assert needs in reason


def test_the_referee_prices_what_the_rulebook_gives_no_figure_for():
    assert referee_prices(RaiseAttribute("STR", 8))
    assert referee_prices(RaiseSkill("Navigation", None, 0))
    assert not referee_prices(RaiseSkill("Navigation", None, 1))
    assert not referee_prices(BuyOffFlaw(DEBT))


@pytest.mark.parametrize("purchase", PURCHASES, ids=lambda p: type(p).__name__)
def test_a_purchase_survives_being_stored_as_json(purchase):
    stored = json.loads(json.dumps(purchase_as_dict(purchase)))
    assert purchase_from_dict(stored) == purchase


@pytest.mark.parametrize(
    "stored", [{}, {"kind": "steal_ship"}, {"kind": "raise_skill", "skill": "Pilot"}]
)
def test_a_stored_purchase_that_is_not_one_is_refused(stored):
    with pytest.raises(ImprovementError, match="Not a stored purchase"):
        purchase_from_dict(stored)


PILOT_3 = {"kind": "raise_skill", "skill": "Pilot", "cascade": None, "to_level": 3}


@pytest.mark.parametrize(
    ("stored", "says"),
    [
        ([], "expected an object, got a list"),
        ({"kind": ["raise_skill"]}, "kind is a list; it is one of raise_skill, add_specialty"),
        (
            {**PILOT_3, "to_level": "3"},
            'raise_skill to_level: expected a whole number, got the text "3"',
        ),
        ({**PILOT_3, "to_level": 10**5000}, "to_level: expected a whole number of at most"),
        ({**PILOT_3, "skill": 5}, "raise_skill skill: expected text, got the number 5"),
        ({**PILOT_3, "ip": "free"}, "raise_skill ip: expected a whole number"),
        ({**PILOT_3, "rating": 2}, "raise_skill has no field 'rating'"),
        ({"kind": "raise_skill", "skill": "Pilot", "to_level": 3}, "raise_skill needs cascade"),
        ({"kind": "buy_off_flaw", "index": True}, "buy_off_flaw index: expected a whole number"),
        ({"kind": "raise_perk", "index": 0, "to_level": 2}, "raise_perk to_level: expected text"),
        ({"kind": "add_perk", "trait": []}, "add_perk trait: expected an object, got a list"),
        (
            {"kind": "add_specialty", "skill": "Pilot", "specialty": None},
            "specialty: expected text",
        ),
    ],
)
def test_a_stored_purchase_of_the_wrong_shape_is_refused_naming_the_field(stored, says):
    with pytest.raises(ImprovementError) as raised:
        purchase_from_dict(stored)
    assert str(raised.value).startswith("Not a stored purchase: ")
    assert says in str(raised.value)
    assert len(str(raised.value)) < 200


def test_a_stored_purchase_reads_null_where_a_field_may_be_empty():
    assert purchase_from_dict({**PILOT_3, "ip": None}) == RaiseSkill("Pilot", None, 3)


@pytest.mark.parametrize(
    ("purchase", "label"),
    [
        (RaiseSkill("Pilot", None, 3), "Pilot-2 → Pilot-3"),
        (RaiseSkill("pilot", None, 3), "Pilot-2 → Pilot-3"),
        (RaiseSkill("Navigation", None, 1), "new skill Navigation-1"),
        (RaiseSkill("blade combat", "SWORD", 1), "new skill Blade Combat (swords)-1"),
        (RaiseSkill("language", "anglic", 4), "Language (Anglic)-3 → Language (Anglic)-4"),
        (AddSpecialty("Pilot", "small craft"), "specialty small craft in Pilot"),
        (AddSpecialty("pilot", "Small  Craft"), "specialty small craft in Pilot"),
        (AddPerk(TraitEntry("MP", "Linguist", "C", "O")), "new perk Linguist [MP-C-O 5]"),
        (RaisePerk(HEARING, "E"), "perk Exceptional hearing [PP-C-S 2] → "),
        (BuyOffFlaw(DEBT), "buy off flaw Owes a debt [PF-H-R CS4 -2]"),
        (RaiseAttribute("STR", 8), "STR 7 → 8"),
    ],
)
def test_a_purchase_says_what_it_buys(purchase, label):
    assert describe_purchase(PILOT, purchase).startswith(label)


def test_buying_off_a_package_flaw_names_the_package_and_the_flaw():
    vargr = parse_document(document(species="vargr", attributes={"STR": 9, "END": 9}))
    assert describe_purchase(vargr, BuyOffPackageFlaw("racial pride")) == (
        "buy off Vargr package flaw Racial pride [PF-H-R CS4 -2]"
    )
