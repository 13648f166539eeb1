"""Campaigns: house rules, invites, the party review and roster, NPCs, the review workflow and
its log, and the party PDF. Who may reach which URL is in test_access_matrix.py."""

import random

import pytest
from django.http import HttpResponse
from django.urls import reverse

import rules
from characters.builder import services as builder_services
from characters.campaigns import selectors as campaigns_selectors
from characters.campaigns import services as campaigns_services
from characters.core import services as core_services
from characters.core.selectors import character_report
from characters.encounters import services as encounters_services
from characters.history import services as history_services
from characters.models import Campaign, CampaignMembership, Character, CharacterEvent
from characters.pdf import rendering as pdf_rendering
from characters.play import selectors as play_selectors
from characters.play import services as play_services
from characters.review import services as review_services
from characters.templatetags.ffa_format import credits as format_credits
from tests.dice import Scripted
from tests.factories import UserFactory, character_document, medic_document

pytestmark = pytest.mark.django_db

Status = Character.Status


def navy_document(**fields) -> dict:
    """Valid under the rulebook: navy, one term, rank 1, a perk, two skills and psionics."""
    return (
        character_document(
            name="Jamison",
            service="navy",
            terms=1,
            rank=1,
            homeworld="Regina",
            traits=[{"type": "PP", "level": "C", "frequency": "R", "name": "Steady"}],
            skills=[
                {"skill": "Pilot", "level": 2, "specialties": ["small craft"]},
                {"skill": "Navigation", "level": 1},
            ],
            psionics={"strength": 2, "talents": {"Telepathy": 1}},
        )
        | fields
    )


@pytest.fixture
def character(campaign, player):
    return builder_services.create_character(
        owner=player, document=navy_document(), campaign=campaign
    )


def statuses(character: Character) -> list[tuple[str, str]]:
    return [
        (e.from_status, e.to_status)
        for e in character.events.filter(kind=CharacterEvent.Kind.STATUS)
    ]


def builder_post(character: Character, **changes) -> dict:
    document = character.document
    data = {
        "version": str(character.version),
        "name": document["name"],
        "kind": document.get("kind", "pc"),
        "budget": str(document.get("budget", 100)),
        "species": document.get("species", "human"),
        "service": document.get("service", ""),
        "terms": str(document.get("terms", 0)),
        "rank": str(document.get("rank", 0)),
        "homeworld": document.get("homeworld", ""),
        "one_trait_per_term": "on",
        **{code: str(level) for code, level in document["attributes"].items()},
    }
    for i, trait in enumerate(document.get("traits", [])):
        data |= {f"trait-{i}-{key}": value for key, value in trait.items()}
    for i, skill in enumerate(document.get("skills", [])):
        data |= {f"skill-{i}-skill": skill["skill"], f"skill-{i}-level": str(skill["level"])}
        if skill.get("specialties"):
            data[f"skill-{i}-specialties"] = skill["specialties"]
    if document.get("psionics"):
        data["psi_strength"] = str(document["psionics"]["strength"])
        data |= {f"talent-{t}": str(level) for t, level in document["psionics"]["talents"].items()}
    data.update(changes)
    return data


# -- campaigns and house rules --------------------------------------------------------------------


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


# -- invites --------------------------------------------------------------------------------------


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


# -- attaching and detaching ----------------------------------------------------------------------


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


# -- removing players and leaving -----------------------------------------------------------------


def approved(campaign: Campaign, player, referee, name: str) -> Character:
    """A character of ``player``'s in the campaign, submitted and approved by ``referee``."""
    character = builder_services.create_character(
        owner=player, document=navy_document(name=name), campaign=campaign
    )
    review_services.submit_character(character=character, by=player)
    return review_services.approve_character(character=character, by=referee)


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


# -- the review workflow --------------------------------------------------------------------------


def test_the_workflow_from_draft_to_approved_is_logged(campaign, character, player, referee):
    review_services.submit_character(character=character, by=player)
    with pytest.raises(core_services.Refused, match="with a comment"):
        review_services.return_character(character=character, by=referee, comment="  ")
    review_services.return_character(
        character=character, by=referee, comment="Pilot needs a specialty."
    )
    review_services.comment_on_character(character=character, by=player, comment="Fixed, I think.")
    review_services.submit_character(character=character, by=player)
    review_services.approve_character(character=character, by=referee, comment="Welcome aboard.")

    character.refresh_from_db()
    assert character.status == Status.APPROVED
    assert character.is_locked
    log = list(character.events.values_list("kind", "actor__username", "to_status", "comment"))
    assert log == [
        ("status", "player1", "submitted", ""),
        ("status", "referee", "returned", "Pilot needs a specialty."),
        ("comment", "player1", "", "Fixed, I think."),
        ("status", "player1", "submitted", ""),
        ("status", "referee", "approved", "Welcome aboard."),
    ]


def test_a_character_with_errors_under_the_campaign_rules_cannot_be_submitted(
    client, referee, player
):
    scouts_only = campaigns_services.create_campaign(
        referee=referee, name="Scouts", open_services=["scouts"]
    )
    campaigns_services.join_campaign(user=player, code=scouts_only.invite_code)
    # Valid under the rulebook, but the navy is closed in this campaign.
    character = builder_services.create_character(
        owner=player, document=navy_document(), campaign=scouts_only
    )
    client.force_login(player)

    response = client.post(reverse("character_submit", args=[character.pk]), follow=True)

    character.refresh_from_db()
    assert character.status == Status.DRAFT
    assert not character.events.exists()
    message = next(iter(response.context["messages"])).message
    assert "was not submitted: it has 1 rule error under the rules of Scouts" in message
    assert "The Navy service is not open in this campaign" in message


def test_a_character_outside_a_campaign_cannot_be_submitted(player):
    loner = builder_services.create_character(owner=player, document=navy_document())
    with pytest.raises(core_services.Refused, match="not in a campaign"):
        review_services.submit_character(character=loner, by=player)


def test_only_the_referee_reviews_and_only_submitted_characters(campaign, character, player):
    with pytest.raises(core_services.Refused, match="Only the referee"):
        review_services.approve_character(character=character, by=player)
    with pytest.raises(core_services.Refused, match="only a submitted character"):
        review_services.approve_character(character=character, by=campaign.referee)
    with pytest.raises(core_services.Refused, match="Only the player"):
        review_services.submit_character(character=character, by=campaign.referee)


def test_the_referee_cannot_approve_what_the_new_house_rules_break(
    campaign, character, player, referee
):
    review_services.submit_character(character=character, by=player)
    campaigns_services.update_campaign_rules(campaign=campaign, psionics_allowed=False)

    with pytest.raises(core_services.Refused, match="Return it to the player instead"):
        review_services.approve_character(character=character, by=referee)


def test_an_approved_character_is_locked_until_the_referee_reopens_it(
    client, campaign, character, player, referee
):
    review_services.submit_character(character=character, by=player)
    review_services.approve_character(character=character, by=referee)
    client.force_login(player)

    response = client.post(
        reverse("character_edit", args=[character.pk]), builder_post(character, name="Renamed")
    )

    assert response.status_code == 409
    assert "is approved, so it is locked: nothing was saved" in response.content.decode()
    stored = Character.objects.get(pk=character.pk)
    assert (stored.name, stored.version, stored.document) == ("Jamison", 1, character.document)
    with pytest.raises(core_services.CharacterLocked):
        builder_services.save_character(
            character=stored, document=stored.document, expected_version=1
        )

    review_services.reopen_character(character=stored, by=referee, comment="Add your new skill.")
    response = client.post(
        reverse("character_edit", args=[character.pk]), builder_post(stored, name="Renamed")
    )
    assert response.status_code == 302
    stored.refresh_from_db()
    assert (stored.name, stored.status) == ("Renamed", Status.DRAFT)


def test_editing_a_submitted_character_withdraws_it_back_to_draft(
    client, campaign, character, player
):
    review_services.submit_character(character=character, by=player)
    client.force_login(player)

    response = client.post(
        reverse("character_edit", args=[character.pk]),
        builder_post(character, name="Jamison II"),
        follow=True,
    )

    character.refresh_from_db()
    assert (character.name, character.status) == ("Jamison II", Status.DRAFT)
    assert statuses(character) == [("draft", "submitted"), ("submitted", "draft")]
    withdrawal = character.events.last()
    assert withdrawal.actor == player
    assert "withdrawn from review" in withdrawal.detail
    assert "It was withdrawn from review" in response.content.decode()


def test_editing_a_returned_character_keeps_it_returned_with_the_comment_in_view(
    client, campaign, character, player, referee
):
    review_services.submit_character(character=character, by=player)
    review_services.return_character(
        character=character, by=referee, comment="Rank 1 needs a reason."
    )
    client.force_login(player)

    client.post(reverse("character_edit", args=[character.pk]), builder_post(character))
    builder = client.get(reverse("character_edit", args=[character.pk])).content.decode()

    character.refresh_from_db()
    assert character.status == Status.RETURNED
    assert "Rank 1 needs a reason." in builder
    assert 'data-action="submit"' in builder


def test_a_mustering_out_roll_is_in_the_log(campaign, character, player):
    builder_services.roll_mustering_out(character=character, by=player, rng=random.Random(3))

    event = character.events.get()
    rolls = character.mustering_rolls.all()
    assert (event.kind, event.actor) == ("roll", player)
    credits = sum(r.credits for r in rolls)
    assert event.detail == (
        f"Rolled {rolls[0].die} on the navy cash table after 1 term: Cr{credits:,}."
    )


def test_an_approved_character_cannot_roll(campaign, player, referee):
    character = builder_services.create_character(
        owner=player, document=navy_document(), campaign=campaign
    )
    review_services.submit_character(character=character, by=player)
    review_services.approve_character(character=character, by=referee)
    with pytest.raises(builder_services.MusteringOutRefused, match="approved"):
        builder_services.roll_mustering_out(character=character, by=player)
    assert not character.mustering_rolls.exists()


def test_the_log_is_on_the_sheet_for_the_player_and_the_referee(
    client, campaign, character, player, referee
):
    review_services.submit_character(character=character, by=player)
    review_services.return_character(
        character=character, by=referee, comment="Needs a *homeworld* <b>"
    )

    for user in (player, referee):
        client.force_login(user)
        html = client.get(reverse("character_detail", args=[character.pk])).content.decode()
        assert html.count('data-event="status"') == 2
        assert "Needs a *homeworld* &lt;b&gt;" in html


def test_the_referee_returns_with_a_comment_from_the_sheet(client, campaign, character, player):
    review_services.submit_character(character=character, by=player)
    client.force_login(campaign.referee)
    url = reverse("character_return", args=[character.pk])

    refused = client.post(url, {"comment": ""}, follow=True)
    character.refresh_from_db()
    assert character.status == Status.SUBMITTED
    assert "with a comment" in next(iter(refused.context["messages"])).message

    response = client.post(url, {"comment": "More skills, please."})
    assert response["Location"] == reverse("character_detail", args=[character.pk]) + "#review"
    character.refresh_from_db()
    assert character.status == Status.RETURNED


def test_actions_only_go_back_to_pages_of_this_site(client, campaign, character, player):
    client.force_login(player)
    response = client.post(
        reverse("character_comment", args=[character.pk]),
        {"comment": "hello", "next": "https://evil.example/"},
    )
    assert response["Location"] == reverse("character_detail", args=[character.pk]) + "#review"


# -- the party review, the roster and NPCs --------------------------------------------------------


def test_members_see_the_roster_not_the_sheets(client, campaign, character, player):
    other = UserFactory(username="player2")
    campaigns_services.join_campaign(user=other, code=campaign.invite_code)
    campaigns_services.create_npc(campaign=campaign, name="Secret Admiral", budget=200)
    client.force_login(other)

    response = client.get(reverse("campaign_detail", args=[campaign.pk]))

    html = response.content.decode()
    assert [c.name for c in response.context["roster"]] == ["Jamison"]
    assert "Jamison" in html
    assert "player1" in html
    assert 'data-status="draft"' in html
    assert reverse("character_detail", args=[character.pk]) not in html
    assert "Secret Admiral" not in html
    assert character.document["homeworld"] not in html  # nothing from the sheet
    assert campaign.invite_code not in html


def test_the_referee_keeps_npcs_on_any_budget_seen_by_nobody_else(client, campaign, referee):
    client.force_login(referee)

    response = client.post(
        reverse("campaign_npc_new", args=[campaign.pk]),
        {"name": "Duke Norris", "budget": "400", "species": "human"},
    )

    npc = Character.objects.get(name="Duke Norris")
    assert response["Location"] == reverse("character_edit", args=[npc.pk])
    assert (npc.kind, npc.owner, npc.campaign, npc.budget) == ("npc", referee, campaign, 400)
    review = client.get(reverse("campaign_detail", args=[campaign.pk]))
    assert [row.character for row in review.context["npcs"]] == [npc]
    assert review.context["npcs"][0].report.points.budget == 400  # not the PC budget
    assert npc not in Character.objects.visible_to(UserFactory())
    player = campaign.memberships.get().user
    assert npc not in Character.objects.visible_to(player)


def test_the_review_table_shows_what_the_referee_checks(client, campaign, character, referee):
    builder_services.roll_mustering_out(
        character=character, by=character.owner, rng=random.Random(3)
    )
    client.force_login(referee)

    response = client.get(reverse("campaign_detail", args=[campaign.pk]))

    [row] = response.context["party"]
    html = response.content.decode()
    assert row.player == "player1"
    assert row.service == "Navy"
    assert row.rank == "Ensign"
    assert row.psionics == "PSI 2, Telepathy-1"
    assert row.key_skills == ("Pilot-2 (small craft)", "Navigation-1")
    for fragment in (
        "777-777-777",
        '<td data-label="LIF" class="party__num" data-derived="LIF">21</td>',
        "70 / 100",
        "2 warnings",
        f"Cr{row.report.mustering_out.credits:,}",
    ):
        assert fragment in html


def test_the_party_sorts_by_whitelisted_keys_only(client, campaign, referee, player):
    for name, dex in (("Alpha", 7), ("Bravo", 10), ("Charlie", 8)):
        doc = navy_document(name=name, attributes={**navy_document()["attributes"], "DEX": dex})
        builder_services.create_character(owner=player, document=doc, campaign=campaign)
    client.force_login(referee)
    url = reverse("campaign_detail", args=[campaign.pk])

    def names(sort: str) -> list[str]:
        return [row.character.name for row in client.get(url, {"sort": sort}).context["party"]]

    assert names("def") == ["Alpha", "Charlie", "Bravo"]
    assert names("-def") == ["Bravo", "Charlie", "Alpha"]
    assert names("-name") == ["Charlie", "Bravo", "Alpha"]
    assert names("__class__") == names("status")
    page = client.get(url, {"sort": "def"}).content.decode()
    assert 'aria-sort="ascending"' in page
    assert 'href="?sort=-def"' in page


def test_sorting_with_htmx_returns_only_the_tables(client, campaign, character, referee):
    client.force_login(referee)
    response = client.get(
        reverse("campaign_detail", args=[campaign.pk]), {"sort": "-points"}, HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="party-tables">')
    assert "<html" not in html
    assert "HX-Request" in response["Vary"]


@pytest.mark.parametrize("size", [1, 20])
def test_the_party_review_takes_a_fixed_number_of_queries(
    client, django_assert_num_queries, referee, size
):
    campaign = campaigns_services.create_campaign(referee=referee, name="Big party")
    for n in range(size):
        player = UserFactory(username=f"p{n}")
        campaigns_services.join_campaign(user=player, code=campaign.invite_code)
        builder_services.create_character(
            owner=player, document=navy_document(name=f"Hero {n}"), campaign=campaign
        )
    campaigns_services.create_npc(campaign=campaign, name="Villain", budget=60)
    client.force_login(referee)
    url = reverse("campaign_detail", args=[campaign.pk])

    # session, user, campaign, characters with players, their credits and IP ledgers, their
    # returns, their conditions in play, members, the referee's spare characters, the campaign's
    # latest action tests, its encounters under way and its past ones
    with django_assert_num_queries(13):
        response = client.get(url)

    assert len(response.context["party"]) == size


def test_the_campaign_list_links_to_each_campaign_and_to_a_new_one(client, campaign, player):
    client.force_login(player)
    html = client.get(reverse("campaign_list")).content.decode()
    assert f'href="{reverse("campaign_detail", args=[campaign.pk])}"' in html
    assert f'href="{reverse("campaign_new")}"' in html


# -- the party PDF --------------------------------------------------------------------------------


def test_the_party_pdf_holds_the_approved_sheets_or_every_one(
    client, monkeypatch, campaign, character, player, referee
):

    draft = builder_services.create_character(
        owner=player, document=navy_document(name="Draft"), campaign=campaign
    )
    campaigns_services.create_npc(campaign=campaign, name="Not a member", budget=50)
    review_services.submit_character(character=character, by=player)
    review_services.approve_character(character=character, by=referee)
    campaigns_services.update_campaign_rules(campaign=campaign, page_size="a4", max_former_rank=0)
    calls = []

    def fake_response(request, sheets, *, page_size, filename, summary=False, title=""):
        calls.append(([s.document["name"] for s in sheets], sheets, page_size, filename, summary))
        return HttpResponse(b"%PDF-fake", content_type="application/pdf")

    monkeypatch.setattr(pdf_rendering, "pdf_response", fake_response)
    client.force_login(referee)
    url = reverse("campaign_pdf", args=[campaign.pk])

    assert client.get(url).status_code == 200
    assert client.get(url, {"all": "1"}).status_code == 200

    (approved, sheets, size, filename, summary), (every, _, _, _, _) = calls
    assert approved == ["Jamison"]
    assert sorted(every) == ["Draft", "Jamison"]
    assert (size, filename, summary) == ("a4", "spinward-marches-party", True)
    # Each sheet is checked under the campaign's house rules and says whose it is.
    assert "rank_above_campaign_max" in {p.code for p in sheets[0].report.problems}
    assert (sheets[0].player, sheets[0].status) == ("player1", "Approved")
    assert draft.pk


def test_the_party_pdf_without_approved_characters_says_so(client, campaign, character, referee):
    client.force_login(referee)
    response = client.get(reverse("campaign_pdf", args=[campaign.pk]), follow=True)
    assert response.redirect_chain[-1][0] == reverse("campaign_detail", args=[campaign.pk])
    assert "no approved characters" in next(iter(response.context["messages"])).message


def test_the_party_pdf_is_a_real_pdf(client, campaign, character, player, referee):
    review_services.submit_character(character=character, by=player)
    review_services.approve_character(character=character, by=referee)
    client.force_login(referee)

    response = client.get(reverse("campaign_pdf", args=[campaign.pk]), {"all": "1"})

    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response.content.startswith(b"%PDF-")
    assert 'filename="spinward-marches-party.pdf"' in response["Content-Disposition"]


def test_the_party_review_shows_the_party_as_it_stands_in_play(client, referee, player, campaign):
    mara = builder_services.create_character(
        owner=player, document=medic_document(), campaign=campaign
    )
    play_services.record_credits(character=mara, by=referee, amount=2500, note="Pay")
    play_services.award_improvement_points(character=mara, by=referee, amount=3, reason="Session")
    play_services.take_damage(character=mara, by=referee, amount=5, form="L", rng=Scripted([1]))
    client.force_login(referee)

    page = client.get(reverse("campaign_detail", args=[campaign.pk])).content.decode()
    row = page[page.index(f'data-character="{mara.pk}"') :].split("</tr>")[0]

    credits_now = play_selectors.credit_balance(mara)
    assert credits_now == 2500 + character_report(mara).equipment.credits_remaining
    assert f"data-credits-now>{format_credits(credits_now)}<" in row
    assert "data-ip>3<" in row.replace(" ", "")
    assert 'data-lif-now="18"' in row
    assert "18 / 23" in row


def test_a_returned_character_shows_the_referees_comment_until_it_is_submitted_again(
    client, referee, player, campaign
):
    mara = builder_services.create_character(
        owner=player, document=medic_document(), campaign=campaign
    )
    review_services.submit_character(character=mara, by=player)
    review_services.return_character(character=mara, by=referee, comment="Too many perks.")
    client.force_login(referee)
    url = reverse("campaign_detail", args=[campaign.pk])

    returned = client.get(url).content.decode()
    review_services.submit_character(character=mara, by=player)
    resubmitted = client.get(url).content.decode()

    assert "data-returned-comment>“Too many perks.”<" in returned
    assert "Too many perks." not in resubmitted


def test_an_improvement_request_waiting_for_the_referee_shows_in_the_party(
    client, referee, player, campaign
):
    mara = builder_services.create_character(
        owner=player, document=medic_document(), campaign=campaign
    )
    play_services.award_improvement_points(character=mara, by=referee, amount=20, reason="Arc")
    play_services.spend_improvement_points(
        character=mara, by=player, purchase=rules.RaiseAttribute("STR", 8)
    )
    client.force_login(referee)

    page = client.get(reverse("campaign_detail", args=[campaign.pk])).content.decode()

    assert 'data-requests="1"' in page


def test_a_member_without_characters_is_told_to_start_one_not_that_all_are_in_campaigns(
    client, campaign, player
):
    client.force_login(player)

    page = client.get(reverse("campaign_detail", args=[campaign.pk])).content.decode()

    assert "You have no player character outside a campaign." in page
    assert "All your player characters are in campaigns" not in page
