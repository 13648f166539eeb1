"""Medical care from the party: the medic is someone who can act (never the unconscious
patient by default), chosen from the campaign's characters the user may see, and the test
uses that medic's own skill, attribute and species."""

import re

import pytest
from django.urls import reverse

from characters.builder import services as builder_services
from characters.campaigns import services as campaigns_services
from characters.core import dice as server_dice
from characters.models import DiceRoll
from characters.play import selectors as play_selectors
from characters.play import services as play_services
from tests.dice import Scripted
from tests.factories import UserFactory, medic_document

pytestmark = pytest.mark.django_db


@pytest.fixture
def mara(campaign, player):
    """Medical-2, Pilot-1, in the campaign."""
    return builder_services.create_character(
        owner=player, document=medic_document(), campaign=campaign
    )


@pytest.fixture
def doc(campaign):
    """Another player's surgeon in the same campaign: Medical-3, Surgery-1."""
    other = UserFactory(username="player2")
    campaigns_services.join_campaign(user=other, code=campaign.invite_code)
    skills = [{"skill": "Medical", "level": 3}, {"skill": "Surgery", "level": 1}]
    return builder_services.create_character(
        owner=other, document=medic_document(name="Doc Varga", skills=skills), campaign=campaign
    )


def medic_select(page: str) -> str:
    return re.search(r'<select name="medic" data-medic>(.*?)</select>', page, re.S).group(1)


def selected_medic(page: str) -> str:
    return re.search(r'<option value="([^"]+)"[^>]*selected', medic_select(page)).group(1)


def knock_out(character, by):
    play_services.take_damage(character=character, by=by, amount=30, form="L", rng=Scripted([]))


def test_a_conscious_patient_is_its_own_medic_by_default(client, mara, doc, player):
    play_services.take_damage(character=mara, by=player, amount=9, form="L", rng=Scripted([4]))
    client.force_login(player)

    page = client.get(reverse("character_play", args=[mara.pk])).content.decode()

    assert selected_medic(page) == "own"
    # A player sees only their own characters: the other player's surgeon is not offered.
    assert f'value="{doc.pk}"' not in medic_select(page)


def test_an_unconscious_patient_is_not_the_medic_and_says_why(client, mara, doc, referee):
    knock_out(mara, referee)
    client.force_login(referee)

    page = client.get(reverse("character_play", args=[mara.pk])).content.decode()

    options = medic_select(page)
    assert re.search(r'<option value="own" disabled>', options)
    assert f'<option value="{doc.pk}" selected>Doc Varga (Medical-3, Surgery-1)</option>' in options
    assert "Mara Tolven is unconscious and cannot give medical aid until LIF is 1" in page


def test_with_nobody_in_the_party_the_unconscious_patient_gets_another_medic(client, mara, player):
    knock_out(mara, player)
    client.force_login(player)

    page = client.get(reverse("character_play", args=[mara.pk])).content.decode()

    assert selected_medic(page) == "other"


def test_the_party_medic_throws_with_its_own_skill(client, mara, doc, referee, monkeypatch):
    knock_out(mara, referee)
    # 3 dice for Medical-3: the highest 5, EDU DM +1 and the kit.
    monkeypatch.setattr(server_dice, "dice_source", lambda: Scripted([2, 5, 1]))
    client.force_login(referee)

    client.post(
        reverse("character_condition", args=[mara.pk]),
        {
            "action": "stabilise",
            "wound": "0",
            "medic": str(doc.pk),
            "attribute": "EDU",
            "play_version": str(play_selectors.condition_of(mara)[1]),
        },
    )

    roll = DiceRoll.objects.get(character=mara)
    assert roll.label == "Doc Varga's Medical-3 EDU"
    assert roll.dice == [2, 5, 1]
    assert play_selectors.condition_of(mara)[0].wounds[0].stabilised


def test_a_medic_the_user_may_not_see_is_refused_and_nothing_is_thrown(client, mara, doc, player):
    play_services.take_damage(character=mara, by=player, amount=9, form="L", rng=Scripted([4]))
    client.force_login(player)

    response = client.post(
        reverse("character_condition", args=[mara.pk]),
        {"action": "treat", "wound": "0", "medic": str(doc.pk), "play_version": "2"},
        HTTP_HX_REQUEST="true",
    )

    assert "Medic: choose the patient, someone in the party, or another medic." in (
        response.content.decode()
    )
    assert not DiceRoll.objects.exists()


def test_an_unconscious_party_medic_cannot_give_aid(mara, doc, referee):
    play_services.take_damage(character=mara, by=referee, amount=9, form="L", rng=Scripted([4]))
    knock_out(doc, referee)

    with pytest.raises(play_services.Refused, match="Doc Varga is unconscious and cannot give"):
        play_services.treat_wound(
            character=mara,
            by=referee,
            wound=0,
            medic=play_services.Medic(own=False, character=doc),
            rng=Scripted([6, 6, 6]),
        )
    assert not DiceRoll.objects.exists()


@pytest.mark.parametrize("party", [1, 4])
def test_the_play_sheet_reads_the_party_medics_in_a_fixed_number_of_queries(
    client, campaign, mara, referee, party, django_assert_max_num_queries
):
    medics = [
        builder_services.create_character(
            owner=referee, document=medic_document(name=f"Medic {number}"), campaign=campaign
        )
        for number in range(party)
    ]
    # The first medic unconscious, the second hurt, the others with no condition stored yet.
    knock_out(medics[0], referee)
    for medic in medics[1:2]:
        play_services.take_damage(
            character=medic, by=referee, amount=9, form="L", rng=Scripted([4])
        )
    knock_out(mara, referee)
    client.force_login(referee)

    # session, user, the character with its campaign, its play state, its two ledgers, its last
    # change of condition, the party with their campaign and play states, the rolls, the log
    with django_assert_max_num_queries(10):
        page = client.get(reverse("character_play", args=[mara.pk])).content.decode()

    options = medic_select(page)
    assert f'<option value="{medics[0].pk}" disabled>' in options
    assert all(f'<option value="{medic.pk}"' in options for medic in medics[1:])
    assert f'data-medic-unable="{medics[0].pk}"' in page
    assert selected_medic(page) == (str(medics[1].pk) if party > 1 else "other")
