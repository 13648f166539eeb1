"""The dice roller on the play sheet: it suggests each skill's governing attribute, shows the
odds before any script runs, and stays as the player left it after a throw."""

import re

import pytest
from django.urls import reverse

import rules
from characters.builder import services as builder_services
from characters.core import dice as server_dice
from characters.play import services as play_services
from tests.dice import Scripted
from tests.factories import medic_document

pytestmark = pytest.mark.django_db


@pytest.fixture
def mara(player):
    """Medical-2 and Pilot-1."""
    return builder_services.create_character(owner=player, document=medic_document())


def selected(page: str, select_id: str) -> str:
    select = re.search(rf'<select[^>]*id="{select_id}".*?</select>', page, re.S).group(0)
    return re.search(r'<option value="([^"]*)"[^>]*selected', select).group(1)


def odds_in(page: str) -> str:
    return re.search(r'<p class="odds" id="odds"[^>]*>(.*?)</p>', page, re.S).group(1)


def suggested(page: str, skill_value: str) -> str:
    return re.search(
        rf'<option value="{re.escape(skill_value)}" data-attribute="(\w+)"', page
    ).group(1)


def test_each_skill_suggests_its_governing_attribute_and_the_odds_show_at_once(
    client, mara, player
):
    client.force_login(player)
    tn = rules.dice.usual_difficulty().tn

    page = client.get(reverse("character_play", args=[mara.pk])).content.decode()

    cat = rules.catalog()
    assert suggested(page, "Pilot::") == cat.skills_by_name["Pilot"].governing == "DEX"
    assert suggested(page, "Medical::") == cat.skills_by_name["Medical"].governing
    assert (selected(page, "roll-skill"), selected(page, "roll-attribute")) == ("Medical::", "EDU")
    odds = client.get(
        reverse("character_odds", args=[mara.pk]),
        {"skill": "Medical::", "attribute": "EDU", "tn": str(tn)},
    ).content.decode()
    assert "data-odds" in odds
    assert odds_in(page).strip() == odds.strip()  # without waiting for a script
    # A skill the character lacks, typed in: its suggestion rides on the list of names.
    assert 'value="Navigation" data-attribute="EDU"' in page


def test_after_a_throw_the_roller_stays_as_the_player_left_it(client, mara, player, monkeypatch):
    monkeypatch.setattr(server_dice, "dice_source", lambda: Scripted([4]))
    client.force_login(player)
    thrown = {"skill": "Pilot::", "attribute": "INT", "tn": "6", "dm": "1", "purpose": "Land"}

    region = client.post(
        reverse("character_roll", args=[mara.pk]), thrown, HTTP_HX_REQUEST="true"
    ).content.decode()
    page = client.get(reverse("character_play", args=[mara.pk])).content.decode()

    for html in (region, page):
        assert selected(html, "roll-skill") == "Pilot::"
        assert selected(html, "roll-attribute") == "INT"
        assert selected(html, "roll-tn") == "6"
        assert re.search(r'name="dm" value="1"', html)
        # The player's choice for Pilot is remembered; Medical keeps its suggestion.
        assert (suggested(html, "Pilot::"), suggested(html, "Medical::")) == ("INT", "EDU")
        assert "Pilot-1 INT" in odds_in(html)


def test_a_refused_throw_still_remembers_the_roller(client, mara, player):
    client.force_login(player)
    play_services.take_damage(character=mara, by=player, amount=23, form="S")  # unconscious
    thrown = {"skill": "Pilot::", "attribute": "AWA", "tn": "6", "dm": "0"}

    client.post(reverse("character_roll", args=[mara.pk]), thrown)
    page = client.get(reverse("character_play", args=[mara.pk])).content.decode()

    assert selected(page, "roll-attribute") == "AWA"
    assert suggested(page, "Pilot::") == "AWA"


def test_the_roller_of_one_character_does_not_leak_into_anothers(client, mara, player):
    other = builder_services.create_character(
        owner=player, document=medic_document(name="Other Medic")
    )
    client.force_login(player)
    client.post(
        reverse("character_roll", args=[mara.pk]),
        {"skill": "Pilot::", "attribute": "INT", "tn": "6"},
        HTTP_HX_REQUEST="true",
    )

    page = client.get(reverse("character_play", args=[other.pk])).content.decode()

    assert suggested(page, "Pilot::") == "DEX"
    assert selected(page, "roll-skill") == "Medical::"


def test_a_test_the_form_refuses_comes_back_as_typed_without_javascript(client, mara, player):
    client.force_login(player)
    typed = {"skill": "Pilot::", "attribute": "INT", "tn": "8", "dm": "999", "purpose": "Dock"}

    response = client.post(reverse("character_roll", args=[mara.pk]), typed, follow=True)

    page = response.content.decode()
    assert list(response.context["messages"])[-1].level_tag == "error"
    assert (selected(page, "roll-skill"), selected(page, "roll-attribute")) == ("Pilot::", "INT")
    assert selected(page, "roll-tn") == "8"
    assert re.search(r'name="dm" value="999"', page)
    assert re.search(r'name="purpose"[^>]* value="Dock"', page)
    assert page.count("DM: enter a whole number") == 1  # in the notice, not in the odds too
    # Read once: the page drawn again starts from the last test thrown (none), not the typed one.
    again = client.get(reverse("character_play", args=[mara.pk])).content.decode()
    assert selected(again, "roll-skill") == "Medical::"


def test_a_throw_the_rules_refuse_keeps_what_it_was_for_without_javascript(client, mara, player):
    client.force_login(player)
    play_services.take_damage(character=mara, by=player, amount=23, form="S")  # unconscious
    thrown = {"skill": "Pilot::", "attribute": "DEX", "tn": "6", "dm": "0", "purpose": "Land"}

    page = client.post(
        reverse("character_roll", args=[mara.pk]), thrown, follow=True
    ).content.decode()

    assert re.search(r'name="purpose"[^>]* value="Land"', page)
