"""A campaign's review workflow (submit, approve, return, reopen), the party review, the
roster and NPCs, and the party PDF."""

import random

import pytest
from django.http import HttpResponse
from django.urls import reverse

import rules
from characters.builder import services as builder_services
from characters.campaigns import services as campaigns_services
from characters.core import services as core_services
from characters.core.selectors import character_report
from characters.models import Character
from characters.pdf import rendering as pdf_rendering
from characters.play import selectors as play_selectors
from characters.play import services as play_services
from characters.review import services as review_services
from characters.templatetags.ffa_format import credits as format_credits
from tests.dice import Scripted
from tests.factories import UserFactory, medic_document
from tests.integration.campaigns.characters_in_campaigns import (
    Status,
    builder_post,
    navy_document,
    statuses,
)

pytestmark = pytest.mark.django_db


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
    assert 'filename="spinward-marches-party-letter.pdf"' in response["Content-Disposition"]


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
