import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import IntegrityError

from characters.builder.services import create_character
from characters.campaigns.forms import CampaignForm, NpcForm
from characters.campaigns.services import create_campaign
from characters.models import Campaign, CampaignMembership, Character
from rules import MalformedDocument, catalog, normalise_document
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


def test_campaigns_get_distinct_invite_codes_and_the_rulebooks_house_rules():
    limits = catalog().limits
    first, second = CampaignFactory(), CampaignFactory()

    assert first.invite_code != second.invite_code
    assert len(first.invite_code) >= 16
    assert (first.pc_budget, first.one_trait_per_term, first.psionics_allowed) == (
        limits.default_budget,
        True,
        True,
    )
    assert (first.max_former_rank, first.open_services, first.page_size) == (
        limits.rank_max,
        [],
        "letter",
    )


def test_a_campaign_created_without_a_budget_or_rank_takes_the_rulebooks():
    limits = catalog().limits
    campaign = create_campaign(referee=UserFactory(), name="Spinward Marches")
    assert (campaign.pc_budget, campaign.max_former_rank) == (
        limits.default_budget,
        limits.rank_max,
    )


def test_a_campaigns_highest_former_rank_above_the_catalogs_is_refused():
    highest = catalog().limits.rank_max
    with pytest.raises(ValueError, match=f"outside 0-{highest}"):
        create_campaign(referee=UserFactory(), name="Generals only", max_former_rank=highest + 1)


def test_the_campaign_form_offers_every_former_rank_of_the_catalog_up_to_its_highest():
    limits = catalog().limits
    field = CampaignForm().fields["max_former_rank"]
    assert [rank for rank, _label in field.choices] == list(range(limits.rank_max + 1))
    assert field.initial == limits.rank_max
    assert CampaignForm().fields["pc_budget"].initial == limits.default_budget


def test_a_new_npc_is_offered_the_rulebooks_average_citizen_budget():
    limits = catalog().limits
    field = NpcForm().fields["budget"]
    assert (field.initial, field.max_value) == (limits.npc_citizen_budget, limits.max_budget)
    assert f"{limits.npc_mercenary_budget} for an experienced mercenary" in field.help_text


def test_a_user_joins_a_campaign_only_once():
    campaign, user = CampaignFactory(), UserFactory()
    CampaignMembership.objects.create(campaign=campaign, user=user)

    with pytest.raises(IntegrityError):
        CampaignMembership.objects.create(campaign=campaign, user=user)
