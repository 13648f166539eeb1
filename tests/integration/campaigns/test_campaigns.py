"""Campaigns: house rules, invites, the party review and roster, NPCs, the review workflow and
its log, and the party PDF. Who may reach which URL is in test_access_matrix.py."""

import pytest
from django.urls import reverse

from characters.builder import services as builder_services
from characters.campaigns import selectors as campaigns_selectors
from characters.campaigns import services as campaigns_services
from characters.core import services as core_services
from characters.encounters import services as encounters_services
from characters.history import services as history_services
from characters.models import Campaign, CampaignMembership, Character
from characters.review import services as review_services
from tests.factories import UserFactory, character_document
from tests.integration.campaigns.characters_in_campaigns import (
    Status,
    approved,
    navy_document,
    statuses,
)

pytestmark = pytest.mark.django_db


def test_create_campaign_keeps_the_house_rules(referee):
    campaign = campaigns_services.create_campaign(
        referee=referee,
        name="Solomani Rim",
        pc_budget=120,
        one_trait_per_term=False,
        psionics_allowed=False,
        max_former_rank=3,
        open_services=["scouts", "navy"],
        page_size="a4",
    )

    campaign.refresh_from_db()
    assert (campaign.pc_budget, campaign.max_former_rank, campaign.page_size) == (120, 3, "a4")
    assert campaign.open_services == ["navy", "scouts"]
    rules = campaign.house_rules()
    assert (rules.one_trait_per_term, rules.psionics_allowed) == (False, False)
    assert rules.open_services == frozenset({"navy", "scouts"})
    assert campaign.invite_active


def test_create_campaign_refuses_an_unknown_service(referee):
    with pytest.raises(ValueError, match="unknown services"):
        campaigns_services.create_campaign(referee=referee, name="X", open_services=["starfleet"])
    assert not Campaign.objects.exists()


def test_the_campaign_form_creates_a_campaign_for_its_referee(client, referee):
    client.force_login(referee)
    response = client.post(
        reverse("campaign_new"),
        {
            "name": "Reft Sector",
            "pc_budget": "90",
            "one_trait_per_term": "on",
            "max_former_rank": "4",
            "open_services": ["scouts", "merchants"],
            "page_size": "a4",
        },
    )
    campaign = Campaign.objects.get(name="Reft Sector")
    assert response.status_code == 302
    assert response["Location"] == reverse("campaign_detail", args=[campaign.pk])
    assert campaign.referee == referee
    assert (campaign.pc_budget, campaign.psionics_allowed, campaign.max_former_rank) == (
        90,
        False,
        4,
    )
    assert campaign.open_services == ["merchants", "scouts"]


def test_the_campaign_form_says_what_is_wrong_and_creates_nothing(client, referee):
    client.force_login(referee)
    response = client.post(
        reverse("campaign_new"),
        {"name": "", "pc_budget": "5000", "max_former_rank": "9", "page_size": "letter"},
    )
    assert response.status_code == 400
    assert set(response.context["form"].errors) == {"name", "pc_budget", "max_former_rank"}
    assert not Campaign.objects.exists()


def test_changing_the_house_rules_rechecks_every_character(client, campaign, character, referee):
    assert character.is_valid
    assert character.budget == 100
    client.force_login(referee)

    response = client.post(
        reverse("campaign_settings", args=[campaign.pk]),
        {
            "name": campaign.name,
            "pc_budget": "80",
            "one_trait_per_term": "on",
            "max_former_rank": "6",
            "page_size": "letter",
        },
    )

    assert response.status_code == 302
    character.refresh_from_db()
    campaign.refresh_from_db()
    assert campaign.psionics_allowed is False
    assert (character.is_valid, character.budget, character.points_total) == (False, 80, 70)


def test_attaching_checks_the_character_under_the_campaign_rules(referee, player):
    strict = campaigns_services.create_campaign(
        referee=referee, name="Strict", open_services=["scouts"], psionics_allowed=False
    )
    campaigns_services.join_campaign(user=player, code=strict.invite_code)
    character = builder_services.create_character(owner=player, document=navy_document())
    assert character.is_valid

    attached = campaigns_services.attach_character(character=character, campaign=strict, by=player)

    assert attached.campaign == strict
    assert attached.is_valid is False
    event = attached.events.get()
    assert (event.kind, event.actor) == ("campaign", player)
    assert "Joined Strict with 2 rule errors under its rules." in event.detail


def test_one_rule_error_is_counted_in_the_singular_when_joining_and_approving(
    campaign, character, player, referee
):
    review_services.submit_character(character=character, by=player)
    free = builder_services.create_character(owner=player, document=navy_document(name="Free"))
    Campaign.objects.filter(pk=campaign.pk).update(psionics_allowed=False)
    campaign.refresh_from_db()
    joined = campaigns_services.attach_character(character=free, campaign=campaign, by=player)
    assert "with 1 rule error under its rules." in joined.events.get().detail

    with pytest.raises(review_services.Refused, match=r"it now has 1 rule error\. "):
        review_services.approve_character(character=character, by=referee)


def test_the_review_applies_the_campaign_rules_in_every_check(client, referee, player):
    strict = campaigns_services.create_campaign(
        referee=referee,
        name="Strict",
        open_services=["scouts"],
        psionics_allowed=False,
        max_former_rank=0,
        pc_budget=80,
    )
    campaigns_services.join_campaign(user=player, code=strict.invite_code)
    builder_services.create_character(owner=player, document=navy_document(), campaign=strict)
    client.force_login(referee)

    response = client.get(reverse("campaign_detail", args=[strict.pk]))

    [row] = response.context["party"]
    codes = {problem.code for problem in row.errors}
    assert codes == {"psionics_not_allowed", "service_not_open", "rank_above_campaign_max"}
    assert row.report.points.budget == 80
    html = response.content.decode()
    assert 'data-problem="service_not_open"' in html
    assert "70 / 80" in html


def test_a_player_joins_by_the_link_and_brings_characters(client, campaign):
    newcomer = UserFactory(username="newcomer")
    mine = builder_services.create_character(owner=newcomer, document=navy_document(name="Mine"))
    other = builder_services.create_character(owner=newcomer, document=navy_document(name="Other"))
    theirs = builder_services.create_character(
        owner=UserFactory(), document=navy_document(name="Theirs")
    )
    client.force_login(newcomer)
    url = reverse("campaign_join", args=[campaign.invite_code])

    page = client.get(url)
    assert page.status_code == 200
    assert {c.name for c in page.context["attachable"]} == {"Mine", "Other"}

    response = client.post(url, {"character": [mine.pk, theirs.pk]})

    assert response["Location"] == reverse("campaign_detail", args=[campaign.pk])
    assert CampaignMembership.objects.filter(campaign=campaign, user=newcomer).exists()
    assert list(campaign.characters.filter(owner=newcomer)) == [mine]
    other.refresh_from_db()
    theirs.refresh_from_db()
    assert other.campaign is None
    assert theirs.campaign is None


def test_a_revoked_link_lets_nobody_in_and_a_renewed_one_has_a_new_code(client, campaign):
    old_code = campaign.invite_code
    campaigns_services.revoke_invite(campaign=campaign)
    newcomer = UserFactory()
    client.force_login(newcomer)

    assert client.get(reverse("campaign_join", args=[old_code])).status_code == 404
    assert client.post(reverse("campaign_join", args=[old_code])).status_code == 404
    with pytest.raises(campaigns_services.InviteInvalid):
        campaigns_services.join_campaign(user=newcomer, code=old_code)

    new_code = campaigns_services.renew_invite(campaign=campaign)

    assert new_code != old_code
    assert client.get(reverse("campaign_join", args=[old_code])).status_code == 404
    client.post(reverse("campaign_join", args=[new_code]))
    assert CampaignMembership.objects.filter(campaign=campaign, user=newcomer).exists()


def test_the_referee_renews_and_revokes_from_the_review_page(client, campaign, referee):
    client.force_login(referee)
    old = campaign.invite_code

    client.post(reverse("campaign_invite_revoke", args=[campaign.pk]))
    campaign.refresh_from_db()
    assert campaign.invite_active is False
    page = client.get(reverse("campaign_detail", args=[campaign.pk])).content.decode()
    assert "The invite link is revoked" in page
    assert old not in page

    client.post(reverse("campaign_invite_renew", args=[campaign.pk]))
    campaign.refresh_from_db()
    assert campaign.invite_active
    assert campaign.invite_code != old
    page = client.get(reverse("campaign_detail", args=[campaign.pk])).content.decode()
    assert f"/campaigns/join/{campaign.invite_code}/" in page


def test_a_member_opening_the_link_again_just_brings_more_characters(client, campaign, player):
    extra = builder_services.create_character(owner=player, document=navy_document(name="Extra"))
    client.force_login(player)

    response = client.post(
        reverse("campaign_join", args=[campaign.invite_code]),
        {"character": [extra.pk]},
        follow=True,
    )

    messages = [m.message for m in response.context["messages"]]
    assert messages == ["Extra joined Spinward Marches."]
    assert campaign.memberships.filter(user=player).count() == 1


def test_joining_twice_is_harmless_and_the_referee_cannot_join(campaign, player, referee):
    campaigns_services.join_campaign(user=player, code=campaign.invite_code)
    assert campaign.memberships.filter(user=player).count() == 1
    with pytest.raises(core_services.Refused, match="You referee"):
        campaigns_services.join_campaign(user=referee, code=campaign.invite_code)


def test_a_character_plays_in_one_campaign_at_a_time(campaign, character, player):
    other = campaigns_services.create_campaign(referee=UserFactory(), name="Other")
    campaigns_services.join_campaign(user=player, code=other.invite_code)

    with pytest.raises(core_services.Refused, match="already plays in Spinward Marches"):
        campaigns_services.attach_character(character=character, campaign=other, by=player)

    campaigns_services.detach_character(character=character, by=player)
    moved = campaigns_services.attach_character(character=character, campaign=other, by=player)
    assert moved.campaign == other


def test_only_members_bring_characters_and_players_bring_no_npcs(campaign, player):
    stranger_character = builder_services.create_character(
        owner=UserFactory(), document=navy_document()
    )
    with pytest.raises(core_services.Refused, match="not a member"):
        campaigns_services.attach_character(character=stranger_character, campaign=campaign)
    npc = builder_services.create_character(
        owner=player, document=character_document(name="Henchman", kind="npc", budget=30)
    )
    with pytest.raises(core_services.Refused, match="is an NPC"):
        campaigns_services.attach_character(character=npc, campaign=campaign, by=player)


def test_an_approved_character_cannot_leave_until_reopened(campaign, character, player, referee):
    review_services.submit_character(character=character, by=player)
    review_services.approve_character(character=character, by=referee)

    with pytest.raises(core_services.CharacterLocked):
        campaigns_services.detach_character(character=character, by=player)

    review_services.reopen_character(character=character, by=referee)
    left = campaigns_services.detach_character(character=character, by=player)
    assert (left.campaign, left.status) == (None, Status.DRAFT)
    assert left.events.last().detail == "Left Spinward Marches."


def test_an_approved_character_cannot_be_deleted_until_reopened(
    client, campaign, character, player, referee
):
    review_services.submit_character(character=character, by=player)
    review_services.approve_character(character=character, by=referee)
    client.force_login(player)

    response = client.post(reverse("character_delete", args=[character.pk]), follow=True)

    assert Character.objects.filter(pk=character.pk).exists()
    assert "cannot be deleted. Ask the referee to reopen it first" in response.content.decode()
    review_services.reopen_character(character=character, by=referee)
    client.post(reverse("character_delete", args=[character.pk]))
    assert not Character.objects.filter(pk=character.pk).exists()


def test_members_attach_more_characters_from_the_campaign_page(client, campaign, player):
    extra = builder_services.create_character(owner=player, document=navy_document(name="Extra"))
    client.force_login(player)

    page = client.get(reverse("campaign_detail", args=[campaign.pk]))
    assert [c.name for c in page.context["attachable"]] == ["Extra"]
    client.post(reverse("campaign_attach", args=[campaign.pk]), {"character": [str(extra.pk)]})

    extra.refresh_from_db()
    assert extra.campaign == campaign


def history(*characters: Character) -> list[tuple]:
    """Everything the removal of a player could change about these characters."""
    return [
        (c.pk, c.campaign_id, c.status, c.deleted_at, c.events.count())
        for c in Character.all_objects.filter(pk__in=[c.pk for c in characters]).order_by("pk")
    ]


def test_the_referee_removes_a_player_and_their_characters_leave_with_them(
    client, campaign, character, player, referee
):
    locked = approved(campaign, player, referee, "Bravo")
    outside = builder_services.create_character(
        owner=player, document=navy_document(name="Elsewhere")
    )
    npc = campaigns_services.create_npc(campaign=campaign, name="Duke Norris", budget=200)
    outside_before = history(outside)
    client.force_login(referee)
    review = client.get(reverse("campaign_detail", args=[campaign.pk])).content.decode()
    url = reverse("campaign_member_remove", args=[campaign.pk, player.pk])
    assert f'href="{url}"' in review

    confirm = client.get(url)
    assert [c.name for c in confirm.context["characters"]] == ["Bravo", "Jamison"]
    assert "Approved characters are reopened first" in confirm.content.decode()
    assert campaign.memberships.filter(user=player).exists()  # a GET only asks

    response = client.post(url, follow=True)

    assert response.redirect_chain == [(reverse("campaign_detail", args=[campaign.pk]), 302)]
    assert [m.message for m in response.context["messages"]] == [
        "player1 was removed from Spinward Marches; 2 characters left the campaign."
    ]
    assert not campaign.memberships.filter(user=player).exists()
    for left in (character, locked):
        left.refresh_from_db()
        assert (left.campaign, left.status) == (None, Status.DRAFT)
        event = left.events.last()
        assert (event.kind, event.detail, event.actor) == (
            "campaign",
            "Left Spinward Marches.",
            referee,
        )
    assert statuses(locked)[-1] == (Status.APPROVED, Status.DRAFT)
    assert list(campaign.characters.all()) == [npc]
    assert history(outside) == outside_before
    assert response.context["members"] == []


def test_a_removed_player_no_longer_sees_the_campaign_and_rejoins_only_by_a_working_link(
    client, campaign, player, referee
):
    campaigns_services.remove_member(campaign=campaign, user=player, by=referee)
    client.force_login(player)

    assert client.get(reverse("campaign_detail", args=[campaign.pk])).status_code == 404
    assert "Spinward Marches" not in client.get(reverse("campaign_list")).content.decode()
    assert client.get(reverse("home")).context["num_campaigns"] == 0

    old_code = campaign.invite_code
    campaigns_services.renew_invite(campaign=campaign)
    assert client.post(reverse("campaign_join", args=[old_code])).status_code == 404
    assert not campaigns_selectors.is_member(campaign, player)

    campaign.refresh_from_db()
    client.post(reverse("campaign_join", args=[campaign.invite_code]))
    assert campaigns_selectors.is_member(campaign, player)
    assert client.get(reverse("campaign_detail", args=[campaign.pk])).status_code == 200


def test_the_referee_cannot_remove_themselves_nor_anyone_who_is_not_a_member(
    client, campaign, player, referee
):
    stranger = UserFactory(username="stranger")
    client.force_login(referee)

    for user_id in (referee.pk, stranger.pk, 999_999):
        url = reverse("campaign_member_remove", args=[campaign.pk, user_id])
        assert client.get(url).status_code == 404
        assert client.post(url).status_code == 404
    with pytest.raises(core_services.Refused, match="a campaign keeps its referee"):
        campaigns_services.remove_member(campaign=campaign, user=referee, by=referee)
    with pytest.raises(core_services.Refused, match="stranger is not a member of Spinward Marches"):
        campaigns_services.remove_member(campaign=campaign, user=stranger, by=referee)
    assert campaigns_selectors.is_member(campaign, player)


def test_only_the_referee_removes_a_player_other_than_oneself(campaign, character, player):
    other = UserFactory(username="player2")
    campaigns_services.join_campaign(user=other, code=campaign.invite_code)

    with pytest.raises(core_services.Refused, match="Only the referee of Spinward Marches"):
        campaigns_services.remove_member(campaign=campaign, user=player, by=other)

    assert campaigns_selectors.is_member(campaign, player)
    character.refresh_from_db()
    assert character.campaign == campaign


def test_a_player_leaves_from_the_roster_with_their_characters(
    client, campaign, character, player, referee
):
    npc = campaigns_services.create_npc(campaign=campaign, name="Duke Norris", budget=200)
    client.force_login(player)
    roster = client.get(reverse("campaign_detail", args=[campaign.pk])).content.decode()
    url = reverse("campaign_leave", args=[campaign.pk])
    assert f'href="{url}"' in roster
    assert "Jamison" in client.get(url).content.decode()

    response = client.post(url, follow=True)

    assert response.redirect_chain == [(reverse("campaign_list"), 302)]
    assert [m.message for m in response.context["messages"]] == [
        "You left Spinward Marches; 1 character left it with you."
    ]
    assert not campaigns_selectors.is_member(campaign, player)
    character.refresh_from_db()
    assert character.campaign is None
    assert (character.events.last().detail, character.events.last().actor) == (
        "Left Spinward Marches.",
        player,
    )
    assert list(campaign.characters.all()) == [npc]
    assert client.get(reverse("campaign_detail", args=[campaign.pk])).status_code == 404


def test_leaving_says_which_fights_under_way_a_character_stays_in(
    client, campaign, character, player, referee
):
    npc = campaigns_services.create_npc(campaign=campaign, name="Duke Norris", budget=200)
    groups = [
        encounters_services.Group(1, "party", character=character),
        encounters_services.Group(1, "opposition", character=npc),
    ]
    for name in ("Ambush at the starport", "Bar brawl"):
        encounters_services.start_encounter(campaign=campaign, by=referee, name=name, groups=groups)
    brawl = campaign.encounters.get(name="Bar brawl")
    encounters_services.end_encounter(encounter=brawl, by=referee)
    client.force_login(player)

    page = client.get(reverse("campaign_leave", args=[campaign.pk])).content.decode()

    assert (
        "Your character fights in Ambush at the starport, still under way: it stays in that "
        "fight, played by referee, until it ends." in page
    )
    assert "Bar brawl" not in page


def test_the_referee_cannot_leave_their_own_campaign(client, campaign, referee):
    client.force_login(referee)
    assert client.get(reverse("campaign_leave", args=[campaign.pk])).status_code == 404
    assert client.post(reverse("campaign_leave", args=[campaign.pk])).status_code == 404


def test_a_player_with_an_approved_character_cannot_leave_and_nothing_changes(
    client, campaign, player, referee
):
    draft = builder_services.create_character(
        owner=player, document=navy_document(name="Alpha"), campaign=campaign
    )
    locked = approved(campaign, player, referee, "Bravo")
    before = history(draft, locked)
    client.force_login(player)
    url = reverse("campaign_leave", args=[campaign.pk])

    confirm = client.get(url).content.decode()
    assert "Bravo is approved, so it stays in the campaign" in confirm
    assert 'data-action="leave"' not in confirm

    # Alpha leaves first, then Bravo refuses: the whole removal is undone.
    response = client.post(url, follow=True)

    assert "Bravo is approved in Spinward Marches" in response.content.decode()
    assert history(draft, locked) == before
    assert campaigns_selectors.is_member(campaign, player)


def test_a_failure_while_removing_undoes_every_reopening_and_detaching(
    monkeypatch, campaign, character, player, referee
):
    locked = approved(campaign, player, referee, "Bravo")
    before = history(character, locked)

    def fail(self, *args, **kwargs):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(CampaignMembership, "delete", fail)
    with pytest.raises(RuntimeError):
        campaigns_services.remove_member(campaign=campaign, user=player, by=referee)

    assert history(character, locked) == before
    assert campaigns_selectors.is_member(campaign, player)


def test_a_deleted_character_leaves_too_so_restoring_it_never_brings_it_back(
    client, campaign, character, player, referee
):
    builder_services.delete_character(character=character, by=player)
    client.force_login(referee)

    response = client.post(
        reverse("campaign_member_remove", args=[campaign.pk, player.pk]), follow=True
    )

    assert [m.message for m in response.context["messages"]] == [
        "player1 was removed from Spinward Marches; no characters left the campaign."
    ]
    restored = history_services.restore_deleted_character(character=character, by=player)
    restored.refresh_from_db()
    assert restored.campaign is None
    assert restored.events.filter(detail="Left Spinward Marches.").exists()
    assert not Character.objects.filter(campaign=campaign).exists()
