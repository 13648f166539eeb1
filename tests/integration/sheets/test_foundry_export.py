"""The Foundry VTT export: a character as a Twodsix ``traveller`` actor for "Import Data".

Every export is checked against Twodsix 7.5.2's data model, written down from its source in
tests/fixtures/twodsix/ (tests/twodsix.py reads it): the persisted fields and their types, and
the links Twodsix follows when a character rolls. Fields the schemas mark ``persisted: false``
(a characteristic's ``current`` and ``mod``, armor totals) are derived by Twodsix and not
expected. A key the schema lacks is a problem too: Foundry would drop it without a word.
"""

import copy
import io
import json
import re
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse

from characters.builder import services as builder_services
from characters.core.selectors import character_report
from characters.models import Character
from characters.play import services as play_services
from rules import catalog
from tests.factories import PASSWORD, UserFactory, character_in_campaign, medic_document
from tests.integration import sheet_documents
from tests.twodsix import twodsix_problems

pytestmark = pytest.mark.django_db


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
            "system.characteristics.strength.value: integer expected, got '7'",
            f"items[0] {actor['items'][0]['name']!r}.system.level: not a Twodsix field",
        ]
    )


@pytest.mark.parametrize(
    ("break_it", "problem"),
    [
        (
            lambda actor: actor["system"]["characteristics"]["alternative1"].update(
                shortLabel="PRE"
            ),
            "system.characteristics.alternative1.shortLabel: Twodsix finds it as 'ALT1', got 'PRE'",
        ),
        (
            lambda actor: actor["system"].update(untrainedSkill=""),
            "system.untrainedSkill: names no skill item of the actor",
        ),
        (lambda actor: _first(actor, "weapon").update(skill=""), "is no skill _id"),
        (lambda actor: _first(actor, "weapon").update(damage=""), "is no formula to roll"),
        (lambda actor: actor["items"][1].update(_id="short"), "is not a Foundry id"),
        (lambda actor: actor["items"][2].update(name=" "), ".name: may not be blank"),
    ],
)
def test_the_checker_catches_a_broken_link(owner_client, owner, break_it, problem):
    character = builder_services.create_character(owner=owner, document=sheet_documents.longest())
    actor = download(owner_client, character)
    broken = copy.deepcopy(actor)
    break_it(broken)
    assert twodsix_problems(actor) == []
    assert any(problem in found for found in twodsix_problems(broken)), twodsix_problems(broken)


def _first(actor: dict[str, Any], item_type: str) -> dict[str, Any]:
    return next(item["system"] for item in actor["items"] if item["type"] == item_type)


# -- what Twodsix needs to roll ----------------------------------------------------------------
def test_presence_awareness_and_experience_roll_as_twodsixs_alternative_characteristics(
    owner_client, stored
):
    characteristics = download(owner_client, stored)["system"]["characteristics"]
    shown = {
        key: (c["shortLabel"], c["displayShortLabel"], c["label"])
        for key, c in characteristics.items()
        if key.startswith("alternative")
    }
    assert shown == {
        "alternative1": ("ALT1", "PRE", "Presence"),
        "alternative2": ("ALT2", "AWA", "Awareness"),
        "alternative3": ("ALT3", "EXP", "Experience"),
    }


def test_every_weapon_is_linked_to_the_skill_item_it_attacks_with(owner_client, owner):
    character = builder_services.create_character(owner=owner, document=sheet_documents.longest())
    actor = download(owner_client, character)
    by_id = {item["_id"]: item for item in actor["items"]}
    linked = {
        item["name"]: by_id[item["system"]["skill"]]["name"]
        for item in actor["items"]
        if item["type"] == "weapon"
    }
    assert linked["Cutlass"] == "Blade Combat (swords)"
    assert linked["Automatic pistol"] == "Handgun"
    assert linked["Laser carbine"] == "Untrained"  # she has no Laser skill


def test_a_weapon_whose_skill_the_character_lacks_attacks_untrained(owner_client, owner):
    document = medic_document(equipment=[{"item": "Cutlass", "quantity": 1}])
    character = builder_services.create_character(owner=owner, document=document)
    actor = download(owner_client, character)
    untrained = next(item for item in actor["items"] if item["name"] == "Untrained")
    assert _first(actor, "weapon")["skill"] == untrained["_id"]
    assert _first(actor, "weapon")["associatedSkillName"] == "Blade Combat (swords)"


def test_the_untrained_skill_comes_along_and_the_actor_points_at_it(owner_client, stored):
    actor = download(owner_client, stored)
    untrained = [item for item in actor["items"] if item["name"] == "Untrained"]
    assert len(untrained) == 1
    assert untrained[0]["type"] == "skills"
    assert untrained[0]["flags"] == {"twodsix": {"untrainedSkill": True}}
    assert untrained[0]["system"]["value"] == -3
    assert actor["system"]["untrainedSkill"] == untrained[0]["_id"]


def test_item_ids_are_foundry_ids_and_the_same_on_every_export(owner_client, stored):
    first, again = download(owner_client, stored), download(owner_client, stored)
    ids = [item["_id"] for item in first["items"]]
    assert all(re.fullmatch(r"[A-Za-z0-9]{16}", item_id) for item_id in ids)
    assert len(set(ids)) == len(ids)
    assert ids == [item["_id"] for item in again["items"]]


def test_a_melee_weapon_rolls_its_bonus_plus_the_wielders_str_dv(owner_client, owner):
    character = builder_services.create_character(owner=owner, document=sheet_documents.longest())
    str_dv = character_report(character).attribute("STR").dv
    cutlass = items_of(download(owner_client, character), "weapon")["Cutlass"]
    assert cutlass["damage"] == str(1 + str_dv)
    assert cutlass["damageBonus"] == 0
    assert f"DMG +1 + STR DV {str_dv}" in cutlass["description"]


def test_skills_roll_with_the_attribute_ffa_suggests_under_twodsixs_short_label(
    owner_client, owner
):
    character = builder_services.create_character(owner=owner, document=sheet_documents.longest())
    skills = items_of(download(owner_client, character), "skills")
    assert skills["Handgun"]["characteristic"] == "DEX"
    presence_skills = [
        line.skill
        for line in character_report(character).skills.lines
        if catalog().find_skill(line.skill).governing == "PRE"
    ]
    assert presence_skills
    for name in presence_skills:
        assert skills[name]["characteristic"] == "ALT1", name


def test_lifeblood_holds_life_so_twodsixs_lifeblood_hits_are_lif(owner_client, stored):
    actor = download(owner_client, stored)
    lif = character_report(stored).derived.LIF
    characteristics = actor["system"]["characteristics"]
    assert characteristics["lifeblood"]["value"] == lif
    assert characteristics["lifeblood"]["displayShortLabel"] == "LIF"
    assert characteristics["stamina"]["value"] == 0


# -- names and figures -------------------------------------------------------------------------
def test_the_nine_attributes_are_characteristics_under_ffas_names(owner_client, stored):
    actor = download(owner_client, stored)
    report = character_report(stored)
    characteristics = actor["system"]["characteristics"]
    shown = {c["displayShortLabel"]: c["value"] for c in characteristics.values()}
    for attribute in report.attributes:
        assert shown[attribute.code] == attribute.level, attribute.code
    assert characteristics["socialStanding"]["shortLabel"] == "SOC"
    assert characteristics["alternative1"] | {"value": 0} == {
        "key": "alternative1",
        "value": 0,
        "damage": 0,
        "label": "Presence",
        "shortLabel": "ALT1",
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
    assert len(skills) == len(report.skills.lines) + 1  # and Twodsix's Untrained skill
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
    assert (cutlass["range"], cutlass["damage"]) == ("Melee", "5")
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
            str_dv = report.attribute("STR").dv
            assert weapons[line.item]["damage"] == str(row["dmg_bonus"] + str_dv), line.item
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
    assert traits == [(t.title, t.notation, t.points) for t in report.traits]


def test_a_trait_written_without_a_name_is_an_item_named_after_its_kind(owner_client, owner):
    document = medic_document()
    document["traits"] += [
        {"type": "MP", "level": "C", "frequency": "S", "name": ""},
        {"type": "HF", "level": "C", "frequency": "S", "name": "  "},
    ]
    character = builder_services.create_character(owner=owner, document=document)
    actor = download(owner_client, character)
    assert twodsix_problems(actor) == []
    names = [item["name"] for item in actor["items"] if item["type"] == "trait"]
    assert names == ["Keen eyes", "Owes a debt", "Material perk", "Historical flaw"]


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


# -- back into the app -------------------------------------------------------------------------
def _import(client, content: bytes, name: str):
    upload = io.BytesIO(content)
    upload.name = name
    return client.post(reverse("character_import"), {"document": upload})


def test_the_foundry_export_imports_back_as_the_character_it_was_made_from(owner_client, owner):
    original = builder_services.create_character(owner=owner, document=sheet_documents.longest())
    exported = owner_client.get(reverse("character_export_foundry", args=[original.pk]))

    response = _import(owner_client, exported.content, "dame-aurelia-twodsix.json")

    assert response.status_code == 302
    imported = Character.objects.exclude(pk=original.pk).get(owner=owner)
    assert imported.document == original.document


def test_a_foundry_actor_of_another_origin_is_refused_naming_the_file_to_use(owner_client, owner):
    actor = {"name": "Jamison", "type": "traveller", "system": {}, "items": [], "flags": {}}

    response = _import(owner_client, json.dumps(actor).encode(), "jamison.json")

    assert response.status_code == 400
    page = unescape(response.content.decode())
    assert "jamison.json: is a Foundry VTT actor, not a character document" in page
    assert '"Export JSON" on the character\'s sheet (<name>.json)' in page
    assert not Character.objects.filter(owner=owner).exists()


def test_the_setup_page_says_exactly_what_the_referee_sets_and_the_readme_points_there():
    root = Path(__file__).resolve().parents[3]
    setup = (root / "docs" / "features" / "exports.md").read_text()
    readme = (root / "README.md").read_text()

    assert "(`showAlternativeCharacteristics`):\n   **All**" in setup
    assert "(`showLifebloodStamina`): **on**" in setup
    assert "(`addEffectToDamage`): **off**" in setup
    assert "docs/features/exports.md" in readme
    assert "may recompute" not in setup + readme
