"""The play sheet at the table (issue 36): the armor worn is the armor marked worn, chosen on
the sheet (reflec under other armor; a helmet never body armor), a specialty's +1 on the
tests it is in, and no stored skill level that makes a page fail."""

import importlib
import re

import pytest
from django.apps import apps as django_apps
from django.urls import reverse

from characters.builder import services as builder_services
from characters.models import Character, DiceRoll, PlayState
from characters.play import selectors as play_selectors
from characters.play import services as play_services
from tests.dice import Scripted
from tests.factories import medic_document

pytestmark = pytest.mark.django_db

WEARS = [
    {"item": "Helmet", "quantity": 1},
    {"item": "Cloth (ballistic cloth)", "quantity": 1},
    {"item": "Combat armor", "tl": 11, "quantity": 1},
    {"item": "Reflec", "quantity": 1},
]


@pytest.fixture
def marine(player):
    """A strong medic (STR 9) who carries a helmet, ballistic cloth, combat armor and reflec,
    none of it marked worn."""
    document = medic_document(equipment=WEARS)
    document["attributes"] = {**document["attributes"], "STR": 9}
    return builder_services.create_character(owner=player, document=document)


def play_page(client, character) -> str:
    return client.get(reverse("character_play", args=[character.pk])).content.decode()


def armor_field(page: str) -> str:
    return re.search(r'<input type="number" name="armor" value="(\d+)"', page).group(1)


def wear(client, character, *pieces, action="wear", version=None):
    version = version or play_selectors.condition_of(character)[1]
    return client.post(
        reverse("character_wear", args=[character.pk]),
        {"play_version": version, "action": action, "worn": list(pieces)},
        HTTP_HX_REQUEST="true",
    )


def test_a_helmet_carried_is_not_the_armor_worn(client, player):
    helmeted = builder_services.create_character(
        owner=player, document=medic_document(equipment=WEARS[:2])
    )
    client.force_login(player)

    page = play_page(client, helmeted)

    # Not the helmet's garbled AV 30: the ballistic cloth's 15.
    assert armor_field(page) == "15"
    assert "AV 15 of Cloth (ballistic cloth) (TL 7), the armor worn" in page


def test_the_player_wears_reflec_under_combat_armor_from_the_play_sheet(client, marine, player):
    client.force_login(player)
    assert armor_field(play_page(client, marine)) == "33"  # the best carried, nothing marked

    response = wear(client, marine, "Combat armor|11", "Reflec|10", "Helmet|5")

    page = response.content.decode()
    assert "Wears Combat armor (TL 11), with Reflec (TL 10) under it and a Helmet (TL 5)." in page
    assert "with Reflec (TL 10) (AV 30) under it: use the better AV against the blow" in page
    assert "Chosen on this sheet." in page
    assert PlayState.objects.get(character=marine).worn == [
        ["Combat armor", 11],
        ["Reflec", 10],
        ["Helmet", 5],
    ]
    assert marine.events.filter(detail__startswith="Wears Combat armor").exists()


def test_the_armor_chosen_on_the_sheet_is_what_its_encounters_meet(client, marine, player):
    from characters.encounters.selectors import fighter_for
    from characters.models import Combatant
    from rules.combat import Situation, plan_attack, resolve_attack, weapon_named

    client.force_login(player)
    wear(client, marine, "Cloth (ballistic cloth)|7")
    marine = Character.objects.get(pk=marine.pk)

    fighter = fighter_for(Combatant(character=marine))

    assert (fighter.armor.name, fighter.armor_under) == ("Cloth (ballistic cloth) (TL 7)", None)
    shot = plan_attack(fighter, weapon_named("Rifle"), fighter, "short", Situation())
    assert resolve_attack(shot, [6, 6]).damage.armor == 15


@pytest.mark.parametrize(
    ("pieces", "refusal"),
    [
        (
            ("Cloth (ballistic cloth)|7", "Combat armor|11"),
            "Cloth (ballistic cloth) (TL 7) and Combat armor (TL 11) are both marked worn; "
            "one body armor is worn at a time (reflec may be worn under it).",
        ),
        (("Battle dress|13",), "Armor worn: choose armor the character carries."),
    ],
)
def test_armor_that_cannot_be_worn_so_is_refused_and_nothing_changes(
    client, marine, player, pieces, refusal
):
    client.force_login(player)

    page = wear(client, marine, *pieces).content.decode()

    assert refusal in page
    assert PlayState.objects.filter(character=marine, worn__isnull=False).count() == 0


def test_a_page_behind_another_tab_cannot_change_the_armor(client, marine, player):
    client.force_login(player)
    version = play_selectors.condition_of(marine)[1]
    wear(client, marine, "Reflec|10", version=version)

    page = wear(client, marine, "Combat armor|11", version=version).content.decode()

    assert "changed since this page was loaded" in page
    assert PlayState.objects.get(character=marine).worn == [["Reflec", 10]]


def test_the_sheet_goes_back_to_the_armor_the_character_sheet_marks(client, player):
    document = medic_document(equipment=[{**WEARS[1], "worn": True}, WEARS[3]])
    marked = builder_services.create_character(owner=player, document=document)
    client.force_login(player)
    wear(client, marked, "Reflec|10")
    assert armor_field(play_page(client, marked)) == "30"

    page = wear(client, marked, action="as_marked").content.decode()

    assert "Wears Cloth (ballistic cloth) (TL 7), as the character sheet marks it." in page
    assert armor_field(page) == "15"
    assert PlayState.objects.get(character=marked).worn is None


def test_the_sheet_page_says_what_is_worn_as_the_play_sheet_chose_it(client, player):
    document = medic_document(equipment=[{**WEARS[1], "worn": True}, WEARS[3]])
    marked = builder_services.create_character(owner=player, document=document)
    client.force_login(player)
    sheet = reverse("character_detail", args=[marked.pk])
    assert "Worn: Cloth (ballistic cloth) (TL 7) (AV 15)." in client.get(sheet).content.decode()

    wear(client, marked, "Reflec|10")

    assert "Worn: Reflec (TL 10) (AV 30)." in client.get(sheet).content.decode()


def test_someone_who_may_not_see_the_character_cannot_change_its_armor(client, marine):
    from tests.factories import UserFactory

    client.force_login(UserFactory(username="outsider"))
    response = client.post(
        reverse("character_wear", args=[marine.pk]), {"play_version": 1, "action": "wear"}
    )
    assert response.status_code == 404


def test_the_export_writes_the_armor_the_document_marks_worn(client, player):
    document = medic_document(equipment=[{**WEARS[1], "worn": True}, WEARS[3]])
    marked = builder_services.create_character(owner=player, document=document)
    client.force_login(player)

    exported = client.get(reverse("character_export", args=[marked.pk])).json()

    assert exported["equipment"] == [
        {"item": "Cloth (ballistic cloth)", "quantity": 1, "worn": True},
        {"item": "Reflec", "quantity": 1},
    ]


# -- specialties on the dice roller ---------------------------------------------------------------


@pytest.fixture
def pilot(player):
    document = medic_document(
        skills=[
            {"skill": "Medical", "level": 2},
            {"skill": "Pilot", "level": 2, "specialties": ["small craft"]},
        ]
    )
    return builder_services.create_character(owner=player, document=document)


def test_the_roller_offers_each_specialty_as_a_test_of_its_own(client, pilot, player):
    client.force_login(player)

    page = play_page(client, pilot)

    assert '<option value="Pilot::" data-attribute="DEX">Pilot-2 (DEX)</option>' in page
    assert (
        '<option value="Pilot::::small craft" data-attribute="DEX">'
        "Pilot-2, small craft (+1) (DEX)</option>"
    ) in page


def test_a_test_the_specialty_is_in_takes_its_plus_1(client, pilot, player):
    client.force_login(player)
    odds = client.get(
        reverse("character_odds", args=[pilot.pk]),
        {"skill": "Pilot::::small craft", "attribute": "DEX", "tn": 8, "dm": 0},
    ).content.decode()
    assert "Pilot-2 (small craft, +1) DEX" in odds

    plan = play_services.TestPlan(
        attribute="DEX", tn=8, dm=1, skill="Pilot", specialty="small craft"
    )
    roll = play_services.roll_action_test(
        character=pilot, by=player, plan=plan, rng=Scripted([4, 3])
    )

    assert roll.label == "Pilot-2 (small craft, +1) DEX"
    assert (roll.dm, roll.total) == (2, 4 + 1 + 2)  # DEX 9: DM +1
    assert DiceRoll.objects.count() == 1


def test_a_specialty_the_character_lacks_is_refused(pilot, player):
    plan = play_services.TestPlan(attribute="DEX", tn=8, skill="Pilot", specialty="fighters")
    with pytest.raises(
        play_services.Refused, match=r"Pilot-2 \(small craft\) has small craft, not fighters\."
    ):
        play_services.plan_test(pilot, plan)


# -- skill levels a document cannot hold ---------------------------------------------------------


def test_stored_skill_levels_out_of_bounds_are_brought_within_them_and_the_pages_read(
    client, pilot, player
):
    document = dict(pilot.document)
    document["skills"] = [
        {"skill": "Medical", "level": -2},
        {"skill": "Pilot", "level": 25, "specialties": ["small craft"]},
    ]
    Character.objects.filter(pk=pilot.pk).update(document=document)
    migration = importlib.import_module("characters.migrations.0013_skill_levels_within_bounds")

    migration.bound_skill_levels(django_apps, None)

    pilot.refresh_from_db()
    assert [skill["level"] for skill in pilot.document["skills"]] == [0, 20]
    client.force_login(player)
    for name in ("character_play", "character_detail"):
        assert client.get(reverse(name, args=[pilot.pk])).status_code == 200


def test_the_service_refuses_armor_the_character_does_not_carry(marine, player):
    with pytest.raises(play_services.Refused, match=r"Mara Tolven does not carry Battle dress\."):
        play_services.wear_armor(character=marine, by=player, worn=[("Battle dress", 13)])
