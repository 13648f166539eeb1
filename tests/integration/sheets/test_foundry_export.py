"""The Foundry VTT export: a character as a Twodsix ``traveller`` actor for "Import Data".

The checker below follows Twodsix 7.5.2 (github.com/xdy/twodsix-foundryvtt, commit
bddb68eac389f199027f41f5ca77af0c1631b907): the persisted fields of
``src/module/data/actors/character-base.js`` and ``travellerData.js`` for the actor, of
``src/module/data/items/item-base.js``, ``gear-data.js``, ``traitData.js``, ``skillData.js``,
``weaponData.js`` and ``armorData.js`` for the items, and the item type names ``src/twodsix.js``
registers (a skill is of type ``skills``). Fields the schemas mark ``persisted: false`` (a
characteristic's ``current`` and ``mod``, armor totals) are derived by Twodsix and not expected.
A key the schema lacks is a problem too: Foundry would drop it without a word.
"""

import json
import re
from html import unescape
from typing import Any

import pytest
from django.urls import reverse

from characters.builder import services as builder_services
from characters.core.selectors import character_report
from characters.play import services as play_services
from rules import catalog
from tests.factories import PASSWORD, UserFactory, character_in_campaign, medic_document
from tests.integration import sheet_documents

pytestmark = pytest.mark.django_db

# -- Twodsix's fields ------------------------------------------------------------------------
# A field's type: a Python type (or tuple of them), a dict for a SchemaField, a one-element
# list for an ArrayField of that type.
STRING, BOOLEAN, OBJECT = str, bool, dict
INTEGER = int
NUMBER = (int, float)
NULLABLE_STRING = (str, type(None))
NULLABLE_INTEGER = (int, type(None))
NULLABLE_NUMBER = (int, float, type(None))

PDF_REFERENCE = {"type": STRING, "href": STRING, "label": STRING}
CHARACTERISTIC = {
    "key": STRING,
    "value": INTEGER,
    "damage": INTEGER,
    "label": STRING,
    "shortLabel": STRING,
    "displayShortLabel": STRING,
}
CHARACTERISTIC_KEYS = (
    "strength", "dexterity", "endurance", "intelligence", "education", "socialStanding",
    "psionicStrength", "stamina", "lifeblood", "alternative1", "alternative2", "alternative3",
)  # fmt: skip
TRAVELLER = {
    # character-base.js
    "name": STRING,
    "characteristics": dict.fromkeys(CHARACTERISTIC_KEYS, CHARACTERISTIC),
    "characteristicEdit": BOOLEAN,
    "primaryArmor": {"value": NUMBER},
    "radiationProtection": {"value": NUMBER},
    "armorType": STRING,
    "armorDM": INTEGER,
    "conditions": {"woundedEffect": INTEGER, "encumberedEffect": INTEGER},
    "movement": {
        **dict.fromkeys(("burrow", "climb", "fly", "swim", "walk"), NULLABLE_NUMBER),
        "units": NULLABLE_STRING,
        "hover": BOOLEAN,
    },
    "docReference": [STRING],
    "pdfReference": PDF_REFERENCE,
    "radiationDose": {"value": INTEGER, "max": INTEGER, "min": INTEGER, "label": STRING},
    "encumbrance": dict.fromkeys(("value", "max", "min", "offset"), NUMBER),
    "hits": dict.fromkeys(("value", "max", "min", "lastDelta"), INTEGER),
    "untrainedSkill": STRING,
    "description": STRING,
    "notes": STRING,
    "bio": STRING,
    # travellerData.js
    "homeWorld": STRING,
    "nationality": STRING,
    "primaryLanguage": STRING,
    "species": STRING,
    "age": {"value": NULLABLE_NUMBER, "min": NULLABLE_NUMBER},
    "gender": STRING,
    "heroPoints": INTEGER,
    "contacts": STRING,
    "secondaryArmor": {"value": NUMBER},
    "finances": dict.fromkeys(
        ("cash", "pension", "payments", "debt", "livingCosts", "financial-notes"), STRING
    ),
    "financeValues": dict.fromkeys(("cash", "pension", "payment", "debt", "livingCosts"), NUMBER),
    "hideStoredItems": dict.fromkeys(
        ("weapon", "armor", "augment", "equipment", "consumable", "attachment", "junk"), BOOLEAN
    ),
    "experience": {"value": INTEGER, "totalEarned": INTEGER},
    "xpNotes": STRING,
    "displaySkillGroup": OBJECT,
}
ITEM_BASE = {
    "name": NULLABLE_STRING,
    "description": STRING,
    "type": STRING,
    "docReference": [STRING],
    "pdfReference": PDF_REFERENCE,
    "priorType": STRING,
}
GEAR = ITEM_BASE | {
    "techLevel": INTEGER,
    "shortdescr": STRING,
    "quantity": INTEGER,
    "weight": NUMBER,
    "price": NUMBER,
    "traits": [STRING],
    "consumables": [STRING],
    "useConsumableForAttack": STRING,
    "skillModifier": INTEGER,
    "skill": STRING,
    "associatedSkillName": STRING,
    "equipped": STRING,
}
TRAIT = ITEM_BASE | {
    "value": INTEGER,
    "shortdescr": STRING,
    "subtype": STRING,
    "prereq": STRING,
    "key": STRING,
}
SKILL = TRAIT | dict.fromkeys(
    ("characteristic", "difficulty", "rolltype", "trainingNotes", "groupLabel"), STRING
)
WEAPON = GEAR | {
    "target": {
        "value": NULLABLE_NUMBER,
        "width": NULLABLE_NUMBER,
        "units": STRING,
        "type": STRING,
    },
    "range": STRING,
    "damage": STRING,
    "damageBonus": NULLABLE_INTEGER,
    "magazineSize": INTEGER,
    "ammo": INTEGER,
    "magazineCost": NUMBER,
    "lawLevel": STRING,
    "rangeBand": STRING,
    "weaponType": STRING,
    "damageType": STRING,
    "rateOfFire": STRING,
    "doubleTap": BOOLEAN,
    "isSingleAction": BOOLEAN,
    "recoil": BOOLEAN,
    "features": STRING,
    "armorPiercing": STRING,
    "parryAV": INTEGER,
    "isShield": BOOLEAN,
    "handlingModifiers": STRING,
    "meleeRangeModifier": STRING,
    "customCT": {
        "armor": dict.fromkeys(
            ("nothing", "jack", "mesh", "cloth", "reflec", "ablat", "combat"), STRING
        ),
        "range": dict.fromkeys(("close", "short", "medium", "long", "veryLong"), STRING),
    },
}
ARMOR = GEAR | {
    "armor": NUMBER,
    "armorDM": INTEGER,
    "secondaryArmor": {"value": NUMBER, "protectionTypes": [STRING]},
    "radiationProtection": {"value": NUMBER},
    "isPowered": BOOLEAN,
    "nonstackable": BOOLEAN,
    "armorType": STRING,
}
ITEM_SYSTEMS = {
    "skills": SKILL,
    "trait": TRAIT,
    "weapon": WEAPON,
    "armor": ARMOR,
    "equipment": GEAR,
}
ACTOR_KEYS = {"name", "type", "img", "system", "items", "effects", "prototypeToken", "flags"}
ITEM_KEYS = {"name", "type", "system", "effects", "flags"}


def field_problems(value: Any, field: Any, path: str) -> list[str]:
    """Where ``value`` departs from a Twodsix field: missing or unknown keys, wrong types."""
    if isinstance(field, dict):
        if not isinstance(value, dict):
            return [f"{path}: an object expected, got {value!r}"]
        problems = [f"{path}.{key}: missing" for key in field if key not in value]
        problems += [f"{path}.{key}: not a Twodsix field" for key in value if key not in field]
        for key in field.keys() & value.keys():
            problems += field_problems(value[key], field[key], f"{path}.{key}")
        return problems
    if isinstance(field, list):
        if not isinstance(value, list):
            return [f"{path}: a list expected, got {value!r}"]
        return [p for i, v in enumerate(value) for p in field_problems(v, field[0], f"{path}[{i}]")]
    # A bool is an int to Python, never a number to Foundry's NumberField.
    wrong_bool = isinstance(value, bool) and field is not BOOLEAN
    if wrong_bool or not isinstance(value, field):
        return [f"{path}: {field} expected, got {value!r}"]
    return []


def twodsix_problems(actor: dict[str, Any]) -> list[str]:
    problems = [f"{key}: missing" for key in ACTOR_KEYS - actor.keys()]
    if actor.get("type") != "traveller":
        problems.append(f"type: traveller expected, got {actor.get('type')!r}")
    problems += field_problems(actor["system"], TRAVELLER, "system")
    for index, item in enumerate(actor["items"]):
        path = f"items[{index}] {item.get('name')!r}"
        problems += [f"{path}.{key}: missing" for key in ITEM_KEYS - item.keys()]
        schema = ITEM_SYSTEMS.get(item.get("type"))
        if schema is None:
            problems.append(f"{path}: item type {item.get('type')!r} is not one exported")
            continue
        problems += field_problems(item["system"], schema, f"{path}.system")
        if item["system"]["type"] != item["type"]:
            problems.append(f"{path}.system.type: {item['system']['type']!r}")
    return problems


# -- helpers -----------------------------------------------------------------------------------
def download(client, character) -> dict[str, Any]:
    response = client.get(reverse("character_export_foundry", args=[character.pk]))
    assert response.status_code == 200
    return json.loads(response.content)


def notes_text(actor: dict[str, Any]) -> str:
    return unescape(re.sub(r"<[^>]+>", "\n", actor["system"]["notes"]))


def items_of(actor: dict[str, Any], item_type: str) -> dict[str, dict[str, Any]]:
    return {item["name"]: item["system"] for item in actor["items"] if item["type"] == item_type}


DOCUMENTS = {
    "medic": medic_document,
    "navy pilot": sheet_documents.navy_pilot,
    "marine": sheet_documents.marine,
    "vargr scout": sheet_documents.vargr_scout,
    "longest": sheet_documents.longest,
}


@pytest.fixture(params=list(DOCUMENTS))
def stored(request, owner):
    return builder_services.create_character(owner=owner, document=DOCUMENTS[request.param]())


# -- access ------------------------------------------------------------------------------------
def test_the_owner_downloads_the_actor_as_an_attachment_named_after_the_character(
    owner_client, owner
):
    character = builder_services.create_character(owner=owner, document=medic_document())
    response = owner_client.get(reverse("character_export_foundry", args=[character.pk]))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == 'attachment; filename="mara-tolven-twodsix.json"'
    assert json.loads(response.content)["name"] == "Mara Tolven"


def test_the_referee_of_its_campaign_may_export_a_players_character(client):
    character = character_in_campaign(medic_document())
    client.login(username="referee", password=PASSWORD)
    assert download(client, character)["name"] == "Mara Tolven"


def test_anyone_else_gets_a_404(client, owner):
    character = builder_services.create_character(owner=owner, document=medic_document())
    UserFactory(username="stranger")
    client.login(username="stranger", password=PASSWORD)
    response = client.get(reverse("character_export_foundry", args=[character.pk]))
    assert response.status_code == 404


def test_anonymous_visitors_are_sent_to_log_in(client, owner):
    character = builder_services.create_character(owner=owner, document=medic_document())
    url = reverse("character_export_foundry", args=[character.pk])
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next={url}"


def test_the_export_is_read_only(owner_client, owner):
    character = builder_services.create_character(owner=owner, document=medic_document())
    response = owner_client.post(reverse("character_export_foundry", args=[character.pk]))
    assert response.status_code == 405


def test_the_sheet_page_links_to_the_foundry_export(owner_client, owner):
    character = builder_services.create_character(owner=owner, document=medic_document())
    page = owner_client.get(reverse("character_detail", args=[character.pk])).content.decode()
    url = reverse("character_export_foundry", args=[character.pk])
    assert f'href="{url}">Export for Foundry (Twodsix)</a>' in page


# -- Twodsix's data model ----------------------------------------------------------------------
def test_the_file_has_every_field_of_twodsix_and_no_other(owner_client, stored):
    assert twodsix_problems(download(owner_client, stored)) == []


def test_the_checker_catches_a_missing_field_an_unknown_one_and_a_wrong_type(owner_client, stored):
    actor = download(owner_client, stored)
    del actor["system"]["finances"]["cash"]
    actor["system"]["characteristics"]["strength"]["value"] = "7"
    actor["items"][0]["system"]["level"] = 2
    assert sorted(twodsix_problems(actor)) == sorted(
        [
            "system.finances.cash: missing",
            "system.characteristics.strength.value: <class 'int'> expected, got '7'",
            f"items[0] {actor['items'][0]['name']!r}.system.level: not a Twodsix field",
        ]
    )


# -- names and figures -------------------------------------------------------------------------
def test_the_nine_attributes_are_characteristics_under_ffas_names(owner_client, stored):
    actor = download(owner_client, stored)
    report = character_report(stored)
    characteristics = actor["system"]["characteristics"]
    shown = {c["shortLabel"]: c["value"] for c in characteristics.values()}
    for attribute in report.attributes:
        assert shown[attribute.code] == attribute.level, attribute.code
    assert characteristics["socialStanding"]["shortLabel"] == "SOC"
    assert characteristics["alternative1"] | {"value": 0} == {
        "key": "alternative1",
        "value": 0,
        "damage": 0,
        "label": "Presence",
        "shortLabel": "PRE",
        "displayShortLabel": "PRE",
    }


def test_a_psionic_characters_strength_is_its_psionic_strength(owner_client, owner):
    character = builder_services.create_character(owner=owner, document=sheet_documents.longest())
    psionic = download(owner_client, character)["system"]["characteristics"]["psionicStrength"]
    assert psionic["value"] == 3
    medic = builder_services.create_character(owner=owner, document=medic_document())
    assert (
        download(owner_client, medic)["system"]["characteristics"]["psionicStrength"]["value"] == 0
    )


def test_every_skill_is_a_skill_item_at_its_level(owner_client, stored):
    actor = download(owner_client, stored)
    report = character_report(stored)
    skills = items_of(actor, "skills")
    assert len(skills) == len(report.skills.lines)
    for line in report.skills.lines:
        name = f"{line.skill} ({line.cascade})" if line.cascade else line.skill
        assert skills[name]["value"] == line.level, name
        for specialty in line.specialties:
            assert specialty in skills[name]["shortdescr"]


def test_weapons_carry_their_ffa_figures(owner_client, owner):
    character = builder_services.create_character(owner=owner, document=sheet_documents.longest())
    weapons = items_of(download(owner_client, character), "weapon")
    carbine = weapons["Laser carbine"]
    assert (carbine["damage"], carbine["range"], carbine["rateOfFire"]) == ("12", "1500 m", "1")
    assert (carbine["techLevel"], carbine["magazineSize"], carbine["skillModifier"]) == (8, 50, 3)
    assert (carbine["price"], carbine["weight"]) == (2500, 5.0)
    assert carbine["associatedSkillName"] == "Laser"
    assert "type P/L" in carbine["description"]
    assert "Rmod +3" in carbine["description"]
    cutlass = weapons["Cutlass"]
    assert (cutlass["range"], cutlass["damageBonus"]) == ("Melee", 1)
    assert cutlass["associatedSkillName"] == "Blade Combat (swords)"
    # Two daggers are one item of quantity 2, each at its own price and weight.
    dagger = weapons["Dagger"]
    assert (dagger["quantity"], dagger["price"], dagger["weight"]) == (2, 10, 0.25)


def test_every_weapon_and_armor_is_an_item_with_its_catalog_figures(owner_client, stored):
    actor = download(owner_client, stored)
    report = character_report(stored)
    weapons, armor = items_of(actor, "weapon"), items_of(actor, "armor")
    for line in report.equipment.lines:
        row = catalog().equipment_item(line.item, line.tl).row
        if line.table == "armor":
            assert armor[line.item]["armor"] == (row["av"] or 0), line.item
            assert armor[line.item]["techLevel"] == line.tl
        elif line.table == "ranged":
            assert weapons[line.item]["damage"] == str(row["dmg"]), line.item
        elif line.table == "melee":
            assert weapons[line.item]["damageBonus"] == row["dmg_bonus"], line.item
    counted = {"armor": len(armor), "weapons": len(weapons)}
    assert counted == {
        "armor": sum(line.table == "armor" for line in report.equipment.lines),
        "weapons": sum(line.table in ("melee", "ranged") for line in report.equipment.lines),
    }


def test_accessories_are_equipment_items(owner_client, owner):
    character = builder_services.create_character(owner=owner, document=sheet_documents.longest())
    equipment = items_of(download(owner_client, character), "equipment")
    assert set(equipment) == {"Telescopic sights", "Silencer"}
    assert "+2 Rmod" in equipment["Telescopic sights"]["description"]


def test_the_credits_are_the_cash_the_character_holds_now(owner_client, owner):
    character = builder_services.create_character(
        owner=owner, document=sheet_documents.navy_pilot()
    )
    creation = character_report(character).equipment.credits_remaining
    play_services.record_credits(character=character, by=owner, amount=1500, note="Cargo sold")
    system = download(owner_client, character)["system"]
    assert system["finances"]["cash"] == str(creation + 1500)
    assert system["financeValues"]["cash"] == creation + 1500


def test_the_actor_keeps_the_name_homeworld_species_and_age(owner_client, owner):
    character = builder_services.create_character(owner=owner, document=sheet_documents.longest())
    actor = download(owner_client, character)
    assert (
        actor["name"] == actor["system"]["name"] == "Dame Aurelia Konstantina Vasquez-Hohenstaufen"
    )
    assert actor["prototypeToken"]["name"] == actor["name"]
    system = actor["system"]
    assert (system["homeWorld"], system["species"], system["age"]["value"]) == (
        "Glisten",
        "Human",
        46,
    )
    assert "patience for bureaucrats." in system["bio"]


# -- nothing lost ------------------------------------------------------------------------------
def test_what_twodsix_cannot_hold_is_listed_in_the_notes(owner_client, stored):
    actor = download(owner_client, stored)
    report = character_report(stored)
    notes = notes_text(actor)
    assert f"UPP {report.upp}" in notes
    for code, value in report.derived.as_dict().items():
        assert f"{code} {value}" in notes, code
    for attribute in report.attributes:
        dm = f"+{attribute.dm}" if attribute.dm > 0 else str(attribute.dm)
        assert (
            f"{attribute.code} {attribute.level} ({attribute.hex}) DM {dm} DV {attribute.dv}"
            in (notes)
        )
    for trait in report.traits:
        assert f"{trait.name} {trait.notation}" in notes, trait.notation
    for line in report.skills.lines:
        assert f"Skill {line.name}" in notes, line.name
    assert f"Points {report.points.total} of {report.points.budget}" in notes


def test_traits_are_trait_items_with_their_notation_and_points(owner_client, stored):
    actor = download(owner_client, stored)
    report = character_report(stored)
    traits = [(i["name"], i["system"]["shortdescr"], i["system"]["value"])
              for i in actor["items"] if i["type"] == "trait"]  # fmt: skip
    assert traits == [(t.name, t.notation, t.points) for t in report.traits]


def test_psionic_talents_are_in_the_notes(owner_client, owner):
    character = builder_services.create_character(owner=owner, document=sheet_documents.longest())
    notes = notes_text(download(owner_client, character))
    assert "Psionics: strength 3 of 7; talents Telepathy-2, Awareness-1" in notes


def test_markup_in_a_name_or_the_notes_is_text_in_foundry(owner_client, owner):
    document = medic_document(
        notes="<script>alert(1)</script>",
        traits=[{"type": "PP", "level": "C", "frequency": "S", "name": "Keen <b>eyes</b>"}],
    )
    character = builder_services.create_character(owner=owner, document=document)
    system = download(owner_client, character)["system"]
    assert "<script>" not in system["bio"]
    assert "&lt;script&gt;" in system["bio"]
    assert "<b>" not in system["notes"]
