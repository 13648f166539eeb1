"""The play sheet's weapon table (the PDF's figures, for what is carried now) and the armor the
"Take damage" form starts from (the worn armor's AV, as the engine picks it)."""

import re

import pytest
from django.urls import reverse

import rules
from characters.builder import services as builder_services
from characters.core.wording import weapon_lines
from characters.play import selectors as play_selectors
from characters.play import services as play_services
from tests.factories import medic_document

pytestmark = pytest.mark.django_db

ARMOR = ("Jack", "Mesh")


@pytest.fixture
def armed(player):
    equipment = [{"item": name, "quantity": 1} for name in (*ARMOR, "Dagger")]
    return builder_services.create_character(
        owner=player, document=medic_document(equipment=equipment)
    )


def play_page(client, character) -> str:
    return client.get(reverse("character_play", args=[character.pk])).content.decode()


def armor_field(page: str) -> str:
    return re.search(r'<input type="number" name="armor" value="(\d+)"', page).group(1)


def damage_type_chosen(page: str) -> str:
    select = re.search(r'<select name="damage_type">(.*?)</select>', page, re.S).group(1)
    return re.search(r'<option value="(\w*)" selected>', select).group(1)


def test_the_damage_form_starts_at_the_av_of_the_armor_worn(client, armed, player):
    client.force_login(player)
    cat = rules.catalog()
    best = max((cat.equipment_item(name, None) for name in ARMOR), key=lambda item: item.av)

    page = play_page(client, armed)

    assert armor_field(page) == str(best.av)
    assert f"AV {best.av} of {best.label}, the armor worn" in page
    # The armor field is not ignored: a blow starts as penetrating, less that armor.
    assert damage_type_chosen(page) == "P"


def test_without_armor_the_damage_form_starts_at_0(client, player):
    bare = builder_services.create_character(owner=player, document=medic_document())
    client.force_login(player)

    page = play_page(client, bare)

    assert armor_field(page) == "0"
    assert damage_type_chosen(page) == ""
    assert "No armor worn." in page
    assert "No weapons carried." in page


def test_the_weapon_table_shows_the_pdfs_figures_for_what_is_carried_now(client, armed, player):
    play_services.buy_gear(character=armed, by=player, item="Automatic pistol", price=0)
    client.force_login(player)
    carried = play_selectors.carried_load(armed, None)

    page = play_page(client, armed)

    lines = weapon_lines(carried)
    assert [line.weapon for line in lines] == ["Dagger", "Automatic pistol"]
    for line in lines:
        row = re.search(rf'<tr data-weapon="{line.weapon}">(.*?)</tr>', page, re.S).group(1)
        cells = re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row)
        assert cells == [
            line.weapon,
            line.dmg,
            line.damage_type,
            line.acc,
            line.rmod,
            line.reach,
            line.rof,
            line.ammo,
            line.tl,
            " · ".join(line.notes) or "—",
        ]
    pistol = lines[1]
    assert pistol.reach.endswith(" m")
    assert pistol.ammo != "—"
    assert pistol.rof != "—"
