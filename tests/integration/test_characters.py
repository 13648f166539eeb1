import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import IntegrityError

from characters.models import Campaign, CampaignMembership, Character
from characters.services import create_character
from rules import MalformedDocument, normalise_document
from tests.factories import (
    AVERAGE_DOCUMENT,
    CampaignFactory,
    CharacterFactory,
    UserFactory,
    character_document,
)

pytestmark = pytest.mark.django_db


def test_create_character_fills_the_listing_columns_from_the_engine():
    owner = UserFactory()
    document = character_document(
        name="Dock clerk",
        kind="npc",
        budget=25,
        attributes={**AVERAGE_DOCUMENT["attributes"], "INT": 8},
    )

    character = create_character(owner=owner, document=document)

    character.refresh_from_db()
    assert character.owner == owner
    assert character.document == normalise_document(document)
    assert (character.name, character.kind, character.budget) == ("Dock clerk", "npc", 25)
    assert character.is_valid is True
    assert character.points_total == 5
    assert (character.status, character.version, character.campaign) == ("draft", 1, None)


def test_create_character_records_an_invalid_character_as_not_valid():
    document = character_document(
        name="Overreach",
        budget=10,
        attributes={
            **AVERAGE_DOCUMENT["attributes"],
            "STR": 12,
        },
    )

    character = create_character(owner=UserFactory(), document=document)

    assert character.is_valid is False
    assert character.points_total == 25
    assert character.budget == 10


def test_the_factory_listing_columns_agree_with_the_engine():
    stored = CharacterFactory()
    created = create_character(owner=stored.owner, document=stored.document)

    assert (created.is_valid, created.points_total, created.budget, created.kind) == (
        stored.is_valid,
        stored.points_total,
        stored.budget,
        stored.kind,
    )


def test_create_character_stores_nothing_for_a_malformed_document():
    with pytest.raises(MalformedDocument):
        create_character(owner=UserFactory(), document={"format": "ffa-character/9"})

    assert not Character.objects.exists()


def test_create_character_can_place_the_character_in_a_campaign():
    campaign = CampaignFactory()

    character = create_character(
        owner=UserFactory(), document=character_document(), campaign=campaign
    )

    assert list(campaign.characters.all()) == [character]


def test_visible_to_gives_own_characters_and_those_in_refereed_campaigns():
    referee, player, stranger = UserFactory(), UserFactory(), UserFactory()
    campaign = CampaignFactory(referee=referee)
    in_campaign = CharacterFactory(owner=player, campaign=campaign)
    outside = CharacterFactory(owner=player)
    refs_own = CharacterFactory(owner=referee)

    assert set(Character.objects.visible_to(player)) == {in_campaign, outside}
    assert set(Character.objects.visible_to(referee)) == {in_campaign, refs_own}
    assert not Character.objects.visible_to(stranger).exists()
    assert not Character.objects.visible_to(AnonymousUser()).exists()


def test_owned_by_leaves_out_characters_the_user_only_referees():
    referee = UserFactory()
    CharacterFactory(campaign=CampaignFactory(referee=referee))
    own = CharacterFactory(owner=referee)

    assert list(Character.objects.owned_by(referee)) == [own]


def test_deleting_a_campaign_keeps_its_characters():
    character = CharacterFactory(campaign=CampaignFactory())

    Campaign.objects.all().delete()

    character.refresh_from_db()
    assert character.campaign is None


def test_campaigns_get_distinct_invite_codes_and_the_default_house_rules():
    first, second = CampaignFactory(), CampaignFactory()

    assert first.invite_code != second.invite_code
    assert len(first.invite_code) >= 16
    assert (first.pc_budget, first.one_trait_per_term, first.psionics_allowed) == (100, True, True)
    assert (first.max_former_rank, first.open_services, first.page_size) == (6, [], "letter")


def test_a_user_joins_a_campaign_only_once():
    campaign, user = CampaignFactory(), UserFactory()
    CampaignMembership.objects.create(campaign=campaign, user=user)

    with pytest.raises(IntegrityError):
        CampaignMembership.objects.create(campaign=campaign, user=user)
